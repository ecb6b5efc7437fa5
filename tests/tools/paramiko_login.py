#!/usr/bin/python3
"""paramiko_login.py - log in to an sshd with a key of the SSH agent, as a
program other than ssh(1) would: paramiko's own SSH client, the agent at
$SSH_AUTH_SOCK, no session-bind.

    paramiko_login.py HOST PORT USER KEY-FINGERPRINT HOSTKEY.pub

KEY-FINGERPRINT is the agent's key to use (SHA256:..., as ssh-keygen -l
prints it); HOSTKEY.pub the server's host key, which must match.

Exit status: 0 logged in (and ran "true"), 1 the login was refused (the
agent refused to sign, or the server refused the key), 2 anything else
(no agent, key not in the agent, wrong host key, no connection).
"""
import base64
import hashlib
import socket
import sys

import paramiko


def sha256_fp(blob):
    d = base64.b64encode(hashlib.sha256(blob).digest()).decode()
    return "SHA256:" + d.rstrip("=")


def main():
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    host, port, user, want_fp, hostkey_file = sys.argv[1:]
    with open(hostkey_file) as f:
        want_hostkey = base64.b64decode(f.read().split()[1])

    agent = paramiko.Agent()
    keys = [k for k in agent.get_keys() if sha256_fp(k.asbytes()) == want_fp]
    if not keys:
        print("paramiko_login: %s is not in the agent" % want_fp,
              file=sys.stderr)
        return 2

    sock = socket.create_connection((host, int(port)), timeout=20)
    t = paramiko.Transport(sock)
    try:
        t.start_client(timeout=20)
        if t.get_remote_server_key().asbytes() != want_hostkey:
            print("paramiko_login: wrong host key", file=sys.stderr)
            return 2
        try:
            t.auth_publickey(user, keys[0])
        except (paramiko.AuthenticationException, paramiko.SSHException) as e:
            print("paramiko_login: login refused: %s" % e, file=sys.stderr)
            return 1
        if not t.is_authenticated():
            print("paramiko_login: not authenticated", file=sys.stderr)
            return 1
        ch = t.open_session(timeout=20)
        ch.exec_command("true")
        rc = ch.recv_exit_status()
        print("paramiko_login: logged in as %s, remote exit %d" % (user, rc))
        return 0 if rc == 0 else 2
    except (paramiko.SSHException, OSError) as e:
        print("paramiko_login: %s" % e, file=sys.stderr)
        return 2
    finally:
        t.close()
        agent.close()


if __name__ == "__main__":
    sys.exit(main())
