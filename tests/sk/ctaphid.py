#!/usr/bin/python3
"""ctaphid.py - a software FIDO2 authenticator behind a CTAPHID device, for
tests/integration/136-sk-libfido2.t. It listens on a SOCK_SEQPACKET unix
socket; each connection is one HID device: every message from the host is
one output report (a report ID byte, then 64 bytes), every message back one
64-byte input report, as on a /dev/hidraw node. keyward-sk's test build
connects to it (KEYWARD_TEST_SK_TOKEN) and libfido2 speaks to it through
keyward-sk's I/O functions.

It speaks CTAPHID (INIT, CBOR, PING, CANCEL; KEEPALIVE while it waits for
a touch) and CTAP 2.0: authenticatorGetInfo, authenticatorClientPIN
(getRetries, getKeyAgreement, getPinToken; PIN protocol 1) and
authenticatorGetAssertion for one allowed credential. It knows the key
handles of tests/sk/provider.c ("KWSKTEST", algorithm, SHA-256 of the
application, the private seed or scalar), so a key enrolled with that
middleware signs here, through libfido2's real assertion code.

  ctaphid.py SOCKET STATE_DIR [PIN]

STATE_DIR/touch says what a touch does: "yes" (touched after the first
keepalive), "no" (never: CTAP2_ERR_USER_ACTION_TIMEOUT after 3 s of
keepalives), "wait" (waits for STATE_DIR/touch.release, at most 30 s).
STATE_DIR/answer makes it a hostile token: "badsig" (the assertion's
signature has one bit flipped), "garbage" (every CBOR answer is status 0
and random bytes); anything else, or no file, is an honest token.
It appends one line per event to STATE_DIR/log ("assert up=1 uv=0 ok",
"pin wrong", ...). With PIN, clientPin is set and getPinToken checks it.
"""
import hashlib
import hmac
import os
import socket
import struct
import sys
import threading
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

REPORT = 64
BROADCAST = 0xFFFFFFFF
CMD_PING, CMD_INIT, CMD_CBOR, CMD_CANCEL = 0x81, 0x86, 0x90, 0x91
CMD_KEEPALIVE, CMD_ERROR = 0xBB, 0xBF
ERR_INVALID_CMD = 0x01
ST_OK, ST_INVALID_CBOR, ST_NO_CREDENTIALS = 0x00, 0x12, 0x2E
ST_ACTION_TIMEOUT, ST_PIN_INVALID, ST_PIN_BLOCKED = 0x2F, 0x31, 0x32
ST_PIN_AUTH_INVALID, ST_PIN_NOT_SET, ST_INVALID_COMMAND = 0x33, 0x35, 0x01
KH_MAGIC = b"KWSKTEST"
KH_LEN = 8 + 1 + 32 + 32
ALG_ECDSA, ALG_ED25519 = 0x00, 0x01


# ---------------------------------------------------------------- CBOR
def cbor_head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    for ai, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
        if n < 1 << (8 * struct.calcsize(fmt)):
            return bytes([major << 5 | ai]) + struct.pack(fmt, n)
    raise ValueError("too big")


def cbor_enc(v):
    if isinstance(v, bool):
        return b"\xf5" if v else b"\xf4"
    if isinstance(v, int):
        return cbor_head(0, v) if v >= 0 else cbor_head(1, -1 - v)
    if isinstance(v, bytes):
        return cbor_head(2, len(v)) + v
    if isinstance(v, str):
        b = v.encode()
        return cbor_head(3, len(b)) + b
    if isinstance(v, list):
        return cbor_head(4, len(v)) + b"".join(cbor_enc(x) for x in v)
    if isinstance(v, dict):
        # canonical CTAP order: shorter encoded key first, then bytewise
        items = sorted((cbor_enc(k), cbor_enc(x)) for k, x in v.items())
        items.sort(key=lambda kv: (len(kv[0]), kv[0]))
        return cbor_head(5, len(items)) + b"".join(k + x for k, x in items)
    raise TypeError(type(v))


def cbor_dec(b, i=0):
    """(value, next index); definite lengths only, as CTAP requires."""
    ib = b[i]
    major, ai = ib >> 5, ib & 31
    i += 1
    if ai < 24:
        n = ai
    elif ai in (24, 25, 26, 27):
        size = 1 << (ai - 24)
        n = int.from_bytes(b[i:i + size], "big")
        i += size
    else:
        raise ValueError("indefinite or reserved")
    if major == 0:
        return n, i
    if major == 1:
        return -1 - n, i
    if major in (2, 3):
        s = bytes(b[i:i + n])
        if len(s) != n:
            raise ValueError("short")
        return (s if major == 2 else s.decode()), i + n
    if major == 4:
        out = []
        for _ in range(n):
            x, i = cbor_dec(b, i)
            out.append(x)
        return out, i
    if major == 5:
        out = {}
        for _ in range(n):
            k, i = cbor_dec(b, i)
            x, i = cbor_dec(b, i)
            out[k] = x
        return out, i
    if major == 7 and ai in (20, 21):
        return ai == 21, i
    raise ValueError("unsupported item")


# ---------------------------------------------------------- the token
class Token:
    def __init__(self, state, pin):
        self.state = state
        self.pin = pin
        self.retries = 8
        self.counter = 0
        self.key_agreement = ec.generate_private_key(ec.SECP256R1())
        self.pin_token = os.urandom(32)
        self.lock = threading.Lock()

    def log(self, line):
        with open(os.path.join(self.state, "log"), "a") as f:
            f.write(line + "\n")

    def setting(self, name, default):
        try:
            with open(os.path.join(self.state, name)) as f:
                return f.read().strip()
        except OSError:
            return default

    def touch_mode(self):
        return self.setting("touch", "yes")

    def cose_key(self):
        n = self.key_agreement.public_key().public_numbers()
        return {1: 2, 3: -25, -1: 1, -2: n.x.to_bytes(32, "big"),
                -3: n.y.to_bytes(32, "big")}

    def shared(self, cose):
        if cose.get(1) != 2 or cose.get(-1) != 1:
            return None
        pub = ec.EllipticCurvePublicNumbers(
            int.from_bytes(cose[-2], "big"), int.from_bytes(cose[-3], "big"),
            ec.SECP256R1()).public_key()
        z = self.key_agreement.exchange(ec.ECDH(), pub)
        return hashlib.sha256(z).digest()

    @staticmethod
    def aes(key, data, decrypt):
        c = Cipher(algorithms.AES(key), modes.CBC(bytes(16)))
        op = c.decryptor() if decrypt else c.encryptor()
        return op.update(data) + op.finalize()

    def get_info(self):
        opts = {"rk": False, "up": True, "plat": False}
        opts["clientPin"] = self.pin is not None
        return ST_OK, {1: ["FIDO_2_0"], 3: b"kwtest-ctaphid-0", 4: opts,
                       5: 1200, 6: [1]}

    def client_pin(self, req):
        if req.get(1) != 1:
            return ST_INVALID_CBOR, None
        sub = req.get(2)
        if sub == 1:
            return ST_OK, {3: self.retries}
        if sub == 2:
            return ST_OK, {1: self.cose_key()}
        if sub != 5:
            return ST_INVALID_COMMAND, None
        if self.pin is None:
            return ST_PIN_NOT_SET, None
        if self.retries == 0:
            return ST_PIN_BLOCKED, None
        key = self.shared(req.get(3, {}))
        enc = req.get(6, b"")
        if key is None or len(enc) != 16:
            return ST_INVALID_CBOR, None
        got = self.aes(key, enc, True)
        want = hashlib.sha256(self.pin.encode()).digest()[:16]
        # a new key agreement after every try, as CTAP 2.0 asks
        self.key_agreement = ec.generate_private_key(ec.SECP256R1())
        if not hmac.compare_digest(got, want):
            self.retries -= 1
            self.log("pin wrong")
            return ST_PIN_INVALID, None
        self.retries = 8
        self.pin_token = os.urandom(32)
        self.log("pin right")
        return ST_OK, {2: self.aes(key, self.pin_token, False)}

    def wait_touch(self, keepalive):
        mode = self.touch_mode()
        deadline = time.monotonic() + (3 if mode == "no" else 30)
        release = os.path.join(self.state, "touch.release")
        while time.monotonic() < deadline:
            keepalive()
            if mode == "yes" or (mode == "wait" and os.path.exists(release)):
                return True
            time.sleep(0.1)
        return False

    def get_assertion(self, req, keepalive):
        rp, cdh, allow = req.get(1), req.get(2), req.get(3, [])
        opts = req.get(5, {})
        if not isinstance(rp, str) or not isinstance(cdh, bytes) or len(cdh) != 32:
            return ST_INVALID_CBOR, None
        uv = False
        if 6 in req:
            if req.get(7) != 1:
                return ST_INVALID_CBOR, None
            mac = hmac.new(self.pin_token, cdh, hashlib.sha256).digest()[:16]
            if not hmac.compare_digest(mac, req[6]):
                self.log("assert pinauth wrong")
                return ST_PIN_AUTH_INVALID, None
            uv = True
        rp_hash = hashlib.sha256(rp.encode()).digest()
        cred = None
        for c in allow:
            kh = c.get("id", b"")
            if len(kh) == KH_LEN and kh[:8] == KH_MAGIC and kh[9:41] == rp_hash:
                cred = kh
                break
        if cred is None:
            self.log("assert no credential")
            return ST_NO_CREDENTIALS, None
        up = opts.get("up", True)
        if up and not self.wait_touch(keepalive):
            self.log("assert no touch")
            return ST_ACTION_TIMEOUT, None
        self.counter += 1
        flags = (0x01 if up else 0) | (0x04 if uv else 0)
        auth_data = rp_hash + bytes([flags]) + struct.pack(">I", self.counter)
        msg = auth_data + cdh
        secret = cred[41:]
        if cred[8] == ALG_ED25519:
            sig = ed25519.Ed25519PrivateKey.from_private_bytes(secret).sign(msg)
        else:
            key = ec.derive_private_key(int.from_bytes(secret, "big"),
                                        ec.SECP256R1())
            sig = key.sign(msg, ec.ECDSA(hashes.SHA256()))
        if self.setting("answer", "") == "badsig":
            sig = sig[:-1] + bytes([sig[-1] ^ 1])
            self.log("assert up=%d uv=%d badsig" % (int(bool(up)), int(uv)))
            return ST_OK, {1: {"id": cred, "type": "public-key"},
                           2: auth_data, 3: sig}
        self.log("assert up=%d uv=%d ok" % (int(bool(up)), int(uv)))
        return ST_OK, {1: {"id": cred, "type": "public-key"}, 2: auth_data,
                       3: sig}

    def cbor(self, data, keepalive):
        if not data:
            return bytes([ST_INVALID_CBOR])
        if self.setting("answer", "") == "garbage" and data[0] == 0x02:
            self.log("assert garbage")
            return bytes([ST_OK]) + os.urandom(200)
        cmd, req = data[0], {}
        try:
            if len(data) > 1:
                req, _ = cbor_dec(data, 1)
            with self.lock:
                if cmd == 0x04:
                    st, body = self.get_info()
                elif cmd == 0x06:
                    st, body = self.client_pin(req)
                elif cmd == 0x02:
                    st, body = self.get_assertion(req, keepalive)
                else:
                    st, body = ST_INVALID_COMMAND, None
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            st, body = ST_INVALID_CBOR, None
        return bytes([st]) + (cbor_enc(body) if body is not None else b"")


# ---------------------------------------------------------- CTAPHID
def frames(cid, cmd, data):
    out = [struct.pack(">IBH", cid, cmd, len(data)) + data[:REPORT - 7]]
    data, seq = data[REPORT - 7:], 0
    while data:
        out.append(struct.pack(">IB", cid, seq) + data[:REPORT - 5])
        data, seq = data[REPORT - 5:], seq + 1
    return [f.ljust(REPORT, b"\0") for f in out]


def serve(conn, token):
    next_cid = [1]

    def send(cid, cmd, data):
        for f in frames(cid, cmd, data):
            conn.send(f)

    def report():
        r = conn.recv(REPORT + 1)
        if len(r) != REPORT + 1 or r[0] != 0:
            raise EOFError
        return r[1:]

    try:
        while True:
            f = report()
            cid, cmd, n = struct.unpack(">IBH", f[:7])
            if not cmd & 0x80:
                continue            # a stray continuation frame
            data, seq = f[7:7 + n], 0
            while len(data) < n:
                c = report()
                if struct.unpack(">I", c[:4])[0] != cid or c[4] != seq:
                    raise EOFError
                data += c[5:5 + n - len(data)]
                seq += 1
            if cmd == CMD_INIT:
                new = next_cid[0] if cid == BROADCAST else cid
                next_cid[0] += 1
                send(cid, CMD_INIT, data[:8] + struct.pack(">IBBBBB", new, 2,
                                                           1, 0, 0, 0x04))
            elif cmd == CMD_PING:
                send(cid, CMD_PING, data)
            elif cmd == CMD_CANCEL:
                pass
            elif cmd == CMD_CBOR:
                ka = lambda: send(cid, CMD_KEEPALIVE, b"\x02")  # noqa: E731
                send(cid, CMD_CBOR, token.cbor(data, ka))
            else:
                send(cid, CMD_ERROR, bytes([ERR_INVALID_CMD]))
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: ctaphid.py SOCKET STATE_DIR [PIN]")
    path, state = sys.argv[1], sys.argv[2]
    token = Token(state, sys.argv[3] if len(sys.argv) == 4 else None)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(path)
    srv.listen(16)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn, token), daemon=True).start()


if __name__ == "__main__":
    main()
