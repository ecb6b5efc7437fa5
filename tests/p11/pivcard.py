#!/usr/bin/python3
"""pivcard.py PORT KEY.pem CERT.der PIN - a PIV card for vsmartcard's vpcd.

A test fixture: the smallest PIV applet OpenSC's PIV driver and
Yubico's ykcs11 accept, with one ECDSA P-256 key in slot 9A (card
authentication... here PIV authentication) whose certificate is CERT.der.
It connects to vpcd on 127.0.0.1:PORT and speaks vpcd's protocol: each
message is a 2-byte big-endian length and a body; a 1-byte body is a
control (0 power off, 1 power on, 2 reset, 4 send the ATR), anything else
is a command APDU answered with a response APDU. It answers as a YubiKey
5.2.7 (ATR, GET VERSION, GET SERIAL) so that ykcs11 takes it.

Implemented: SELECT of the PIV application, GET DATA of the CHUID and the
9A certificate, VERIFY of the PIV PIN (3 tries, then blocked), GENERAL
AUTHENTICATE (ECDSA P-256 sign of a digest, after VERIFY), command
chaining, GET RESPONSE for answers longer than 256 bytes. SIGUSR1 pulls
the card out of the reader, SIGUSR2 inserts it again. Everything else
is refused with an ISO status word. Never used outside the test suite.
"""
import signal
import socket
import struct
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

# a YubiKey 5 NFC's ATR
ATR = bytes.fromhex("3BFD1300008131FE158073C021C057597562694B657940")
PIV_AID = bytes.fromhex("A000000308")
APT = bytes.fromhex("4F0600001000010079074F05A000000308")
SW_OK = b"\x90\x00"


def tlv(tag, value):
    n = len(value)
    if n < 0x80:
        ln = bytes([n])
    elif n < 0x100:
        ln = bytes([0x81, n])
    else:
        ln = bytes([0x82, n >> 8, n & 0xFF])
    return tag + ln + value


def parse_tlv(data):
    """[(tag byte, value)] of a flat BER-TLV string (1-byte tags)"""
    out, i = [], 0
    while i + 2 <= len(data):
        tag, n = data[i], data[i + 1]
        i += 2
        if n == 0x81:
            n, i = data[i], i + 1
        elif n == 0x82:
            n, i = (data[i] << 8) | data[i + 1], i + 2
        out.append((tag, data[i:i + n]))
        i += n
    return out


class Card:
    def __init__(self, key, cert, pin):
        self.key, self.pin = key, pin
        chuid = (tlv(b"\x30", bytes.fromhex("D4E739DA739CED39CE739D836858210842108421C84210C3EB")) +
                 tlv(b"\x34", bytes(range(16))) + tlv(b"\x35", b"20301231") +
                 tlv(b"\x3E", b"") + tlv(b"\xFE", b""))
        self.objects = {
            bytes.fromhex("5FC102"): tlv(b"\x53", chuid),
            bytes.fromhex("5FC105"): tlv(b"\x53", tlv(b"\x70", cert) + tlv(b"\x71", b"\x00") +
                                         tlv(b"\xFE", b"")),
        }
        self.reset()

    def reset(self):
        self.selected = False
        self.verified = False
        self.tries = 3
        self.chain = b""
        self.pending = b""

    def reply(self, data, sw=SW_OK):
        if sw == SW_OK and len(data) > 256:
            self.pending = data[256:]
            return data[:256] + bytes([0x61, min(len(self.pending), 256) & 0xFF])
        return data + sw

    def apdu(self, a):
        if len(a) < 4:
            return b"\x67\x00"
        cla, ins, p1, p2 = a[0], a[1], a[2], a[3]
        body = a[4:]
        data = b""
        if len(body) == 1:
            pass  # case 2 short: Le only
        elif len(body) > 1 and body[0] != 0:
            data = body[1:1 + body[0]]
        elif len(body) >= 3 and body[0] == 0:  # extended length
            n = (body[1] << 8) | body[2]
            data = body[3:3 + n] if len(body) > 3 else b""
        if ins == 0xC0:  # GET RESPONSE
            out, self.pending = self.pending, b""
            return self.reply(out)
        self.pending = b""
        if cla & 0x10:  # command chaining: more to come
            self.chain += data
            return SW_OK
        data, self.chain = self.chain + data, b""
        if ins == 0xA4:  # SELECT
            if p1 == 0x04 and data[:len(PIV_AID)] == PIV_AID:
                self.selected = True
                return self.reply(tlv(b"\x61", APT))
            return b"\x6A\x82"
        if ins == 0xFD:  # YubiKey GET VERSION
            return self.reply(b"\x05\x02\x07")
        if ins == 0xF8:  # YubiKey GET SERIAL
            return self.reply(struct.pack(">I", 7654321))
        if not self.selected:
            return b"\x69\x85"
        if ins == 0xCB and p1 == 0x3F and p2 == 0xFF:  # GET DATA
            t = dict(parse_tlv(data))
            obj = self.objects.get(t.get(0x5C, b""))
            return self.reply(obj) if obj else b"\x6A\x82"
        if ins == 0x20 and p2 == 0x80:  # VERIFY the PIV PIN
            if p1 == 0xFF:
                self.verified = False
                return SW_OK
            if not data:
                if self.verified:
                    return SW_OK
                return bytes([0x63, 0xC0 | self.tries])
            if self.tries == 0:
                return b"\x69\x83"
            if data.rstrip(b"\xFF") == self.pin:
                self.tries, self.verified = 3, True
                return SW_OK
            self.tries -= 1
            self.verified = False
            return bytes([0x63, 0xC0 | self.tries]) if self.tries else b"\x69\x83"
        if ins == 0x87:  # GENERAL AUTHENTICATE
            if p1 != 0x11 or p2 != 0x9A:
                return b"\x6A\x86"
            if not self.verified:
                return b"\x69\x82"
            outer = dict(parse_tlv(data))
            inner = dict(parse_tlv(outer.get(0x7C, b"")))
            digest = inner.get(0x81)
            if digest is None:
                return b"\x6A\x80"
            digest = digest[-32:].rjust(32, b"\x00")
            sig = self.key.sign(digest, ec.ECDSA(utils.Prehashed(hashes.SHA256())))
            return self.reply(tlv(b"\x7C", tlv(b"\x82", sig)))
        return b"\x6D\x00"


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        got = s.recv(n - len(buf))
        if not got:
            raise EOFError
        buf += got
    return buf


class Pulled(Exception):
    pass


def pull(signum, frame):
    raise Pulled()


def main():
    port, keyfile, certfile, pin = sys.argv[1:5]
    with open(keyfile, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    with open(certfile, "rb") as f:
        cert = f.read()
    card = Card(key, cert, pin.encode())
    # SIGUSR1 pulls the card out of the reader (vpcd sees its connection
    # close), SIGUSR2 puts it back
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])
    while True:
        signal.signal(signal.SIGUSR1, pull)
        try:
            serve(card, port)
            return
        except Pulled:
            pass
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        sys.stdout.write("pulled\n")
        sys.stdout.flush()
        signal.sigwait([signal.SIGUSR2])
        sys.stdout.write("inserted\n")
        sys.stdout.flush()


def serve(card, port):
    card.reset()
    s = socket.create_connection(("127.0.0.1", int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while True:
            (n,) = struct.unpack(">H", recv_exact(s, 2))
            msg = recv_exact(s, n)
            if n == 1:
                if msg[0] in (0, 1, 2):
                    card.reset()
                    continue
                if msg[0] == 4:
                    out = ATR
                else:
                    continue
            else:
                out = card.apdu(msg)
            sys.stdout.write("> %s\n< %s\n" % (msg.hex(), out.hex()))
            sys.stdout.flush()
            s.sendall(struct.pack(">H", len(out)) + out)
    except EOFError:
        pass
    finally:
        s.close()


if __name__ == "__main__":
    main()
