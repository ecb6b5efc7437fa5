#!/bin/bash
# A recycled pid is never taken for the program that has it now. A client connects and hands its socket to a child, then exits;
# its pid is given to /usr/bin/sleep (ns_last_pid, as root) while keyward-peer
# is stopped, so the inspector can only read the pid after it names sleep.
# The connection's caller must then be "gone" (the pidfd taken at accept
# tells the two apart), never /usr/bin/sleep: the audit record says so, and
# a rule that refuses sleep does not fire. A control run without a stop
# shows the same client attributed as itself. (keyward only; needs root.)
# check: serial, alone (it sets the machine's next pid, ns_last_pid: any other
# fork meanwhile, even a niced build's, would take that pid)
. "$(dirname "$0")/lib.sh"

NTESTS=9
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
if [ "$(id -u)" != 0 ] || ! [ -w /proc/sys/kernel/ns_last_pid ]; then
	skip_n $NTESTS "needs root to choose the next pid (ns_last_pid)"
	done_testing
fi
A=$T/audit.log
printf 'deny caller /usr/bin/sleep\n' >"$T/rules"
start_agent -O audit="$A" -O audit-sync=yes -O policy="$T/rules"
ok $? "agent started with a rule that refuses /usr/bin/sleep" || bail "no agent"
gen_key k ed25519
run ssh-add "$T/keys/k"
ok $RC "key added"

# The inspector: the keyward-peer whose parent is the monitor.
PEER=$(pgrep -P "$SSH_AGENT_PID" -x keyward-peer | head -1)
ok "$([ -n "$PEER" ] && echo 0 || echo 1)" "keyward-peer runs (pid ${PEER:-none})"

# client.py MODE: connect; fork a holder that keeps the socket; exit
# (MODE plain: after the holder's request, so the caller can be read).
# MODE recycle: then give the connector's pid to "sleep 30" before the
# holder signs. Prints "connector N", "recycled N" (or "not recycled"),
# then the reply type the holder got.
cat >"$T/client.py" <<'PY'
import os, socket, struct, sys, time, base64, ctypes
mode, pub, peer = sys.argv[1], sys.argv[2], int(sys.argv[3])
blob = base64.b64decode(open(pub).read().split()[1])
go_r, go_w = os.pipe()
out_r, out_w = os.pipe()
a = os.fork()
if a == 0:
    # Root with capabilities is another user to keyward-peer (it has none):
    # the connector gives up its own, the recycler (this parent) keeps them.
    hdr = struct.pack("=Ii", 0x20080522, 0)
    data = bytes(24)
    if ctypes.CDLL(None, use_errno=True).capset(hdr, data) != 0:
        os._exit(3)
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["SSH_AUTH_SOCK"])
    if os.fork() == 0:
        os.read(go_r, 1)
        data = b"recycled pid test"
        m = bytes([13]) + struct.pack(">I", len(blob)) + blob + \
            struct.pack(">I", len(data)) + data + struct.pack(">I", 0)
        s.sendall(struct.pack(">I", len(m)) + m)
        r = s.recv(65536)
        os.write(out_w, b"reply %d\n" % (r[4] if len(r) > 4 else -1))
        os._exit(0)
    if mode == "plain":
        os.wait()               # the control: the connector outlives its request
    os._exit(0)
if mode != "plain":
    os.waitpid(a, 0)
print("connector", a, flush=True)
sleeper = None
if mode == "recycle":
    until = time.time() + 10
    while time.time() < until:
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(a - 1))
        c = os.fork()
        if c == 0:
            if os.getpid() != a:
                os._exit(0)
            os.execv("/usr/bin/sleep", ["sleep", "30"])
        if c == a:
            sleeper = c
            break
        os.waitpid(c, 0)
    print("recycled" if sleeper else "not recycled", a, flush=True)
    time.sleep(0.2)             # sleep has exec'd
    os.kill(peer, 18)           # SIGCONT: now the inspector reads
os.write(go_w, b"g")
print(os.read(out_r, 64).decode().strip(), flush=True)
if mode == "plain":
    os.waitpid(a, 0)
if sleeper:
    os.kill(sleeper, 9)
    os.waitpid(sleeper, 0)
PY

# --- control: no stop, no recycling: the client is itself
run /usr/bin/python3 "$T/client.py" plain "$T/keys/k.pub" "$PEER"
contains "$OUT" "reply 14" "control: the client's signature is made"
CONN=$(jq -r 'select(.event == "sign") | .peer.exe' "$A" | tail -1)
like "$CONN" '^/usr/bin/python3' "control: the audit record names python3 ($CONN)"

# --- the race, made certain: inspector stopped until the pid names sleep
kill -STOP "$PEER"
run /usr/bin/python3 "$T/client.py" recycle "$T/keys/k.pub" "$PEER"
kill -CONT "$PEER" 2>/dev/null
if grep -q '^recycled ' <<<"$OUT"; then
	contains "$OUT" "reply 14" "the recycled pid's connection is not refused as sleep's"
	REC=$(jq -c 'select(.event == "sign") | .peer' "$A" | tail -1)
	STATUS=$(jq -r .status <<<"$REC")
	ok "$([ "$STATUS" = gone ] && echo 0 || echo 1)" "its caller is gone ($REC)"
	unlike "$REC" 'sleep' "nothing of sleep is in its record"
	ok "$(jq -e 'select(.event == "sign" and .decision == "refuse")' "$A" >/dev/null && echo 1 || echo 0)" \
		"no signature was refused by the sleep rule"
else
	skip_n 4 "the kernel did not hand the pid out again in time"
fi
stop_agent
done_testing
