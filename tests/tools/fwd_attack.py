#!/usr/bin/python3
"""fwd_attack.py - the forwarded server, played for real: a raw agent
client on the agent socket that ssh -A forwarded to this host
($SSH_AUTH_SOCK), asking for what a hostile server would ask.

    fwd_attack.py OP [OP ...]

Every OP is sent in order on one connection (the user's ssh opened it for
this forwarded channel and bound it first to this host), and prints one
line: "NAME ok" (the agent signed / accepted), "NAME refused" (it
answered failure) or "NAME error: ..." (no answer). OP is a word of
colon-separated fields:

  bind:HOSTKEY:SID[:fwd]       a session-bind with the host key whose
                               private half is the file HOSTKEY (a server
                               binds any host it holds a session with),
                               session id SID (text), forwarding if "fwd"
  sshsig:KEY.pub:NS            an SSHSIG blob in namespace NS over data of
                               this script's choosing
  other:KEY.pub:TEXT           TEXT itself (neither login nor SSHSIG)
  login:KEY.pub:USER:SID       a plain "publickey" userauth request in
                               session SID
  hlogin:KEY.pub:USER:SID:HOST.pub
                               a publickey-hostbound-v00 request naming
                               the host key HOST.pub
A leading "NAME=" names the line (else the OP's first field).
Exit status: 0 if every OP got an answer, 1 otherwise, 2 on bad usage.
"""
import base64
import hashlib
import os
import socket
import struct
import sys

import paramiko

SIGN_REQUEST, SIGN_RESPONSE, EXTENSION, SUCCESS = 13, 14, 27, 6


def string(b):
    if isinstance(b, str):
        b = b.encode()
    return struct.pack(">I", len(b)) + b


def pub_blob(path):
    with open(path) as f:
        return base64.b64decode(f.read().split()[1])


class Agent:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(60)
        self.s.connect(path)

    def ask(self, payload):
        self.s.sendall(struct.pack(">I", len(payload)) + payload)
        head = self._read(4)
        (n,) = struct.unpack(">I", head)
        return self._read(n)

    def _read(self, n):
        out = b""
        while len(out) < n:
            got = self.s.recv(n - len(out))
            if not got:
                raise EOFError("the agent closed the connection")
            out += got
        return out


def sign_req(key_pub, data):
    return bytes([SIGN_REQUEST]) + string(pub_blob(key_pub)) + string(data) + \
        struct.pack(">I", 0)


def userauth(key_pub, user, sid, host_pub=None):
    method = "publickey-hostbound-v00@openssh.com" if host_pub else "publickey"
    d = string(sid) + bytes([50]) + string(user) + string("ssh-connection") + \
        string(method) + bytes([1]) + string("ssh-ed25519") + \
        string(pub_blob(key_pub))
    if host_pub:
        d += string(pub_blob(host_pub))
    return d


def op_request(f):
    kind = f[0]
    if kind == "bind":
        host = paramiko.Ed25519Key(filename=f[1])
        sid = f[2].encode()
        sig = host.sign_ssh_data(sid).asbytes()
        fwd = len(f) > 3 and f[3] == "fwd"
        return bytes([EXTENSION]) + string("session-bind@openssh.com") + \
            string(host.asbytes()) + string(sid) + string(sig) + \
            bytes([1 if fwd else 0]), SUCCESS
    if kind == "sshsig":
        h = hashlib.sha512(b"the server's own data").digest()
        data = b"SSHSIG" + string(f[2]) + string("") + string("sha512") + string(h)
        return sign_req(f[1], data), SIGN_RESPONSE
    if kind == "other":
        return sign_req(f[1], f[2].encode()), SIGN_RESPONSE
    if kind == "login":
        return sign_req(f[1], userauth(f[1], f[2], f[3])), SIGN_RESPONSE
    if kind == "hlogin":
        return sign_req(f[1], userauth(f[1], f[2], f[3], f[4])), SIGN_RESPONSE
    raise ValueError("unknown op " + kind)


def main():
    if len(sys.argv) < 2 or "SSH_AUTH_SOCK" not in os.environ:
        print(__doc__, file=sys.stderr)
        return 2
    agent = Agent(os.environ["SSH_AUTH_SOCK"])
    status = 0
    for op in sys.argv[1:]:
        name = None
        if "=" in op.split(":", 1)[0]:
            name, op = op.split("=", 1)
        f = op.split(":")
        name = name or f[0]
        try:
            payload, good = op_request(f)
            reply = agent.ask(payload)
            print("%s %s" % (name, "ok" if reply[:1] == bytes([good]) else "refused"),
                  flush=True)
        except (OSError, EOFError, ValueError, IndexError) as e:
            print("%s error: %s" % (name, e), flush=True)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
