#!/bin/bash
# -O audit=syslog with a real rsyslog (imuxsock on a private socket given
# with -O audit-socket=, its own configuration, work directory and output
# file): every record of adds, signatures and refusals arrives as one JSON
# object per message, with the facility and tag asked for, chained and, at
# the agent's exit, sealed (keyward-ctl audit verify checks the file
# rsyslog wrote). With rsyslog stopped, and with its socket gone, the
# signature is refused (never made unrecorded) and the agent lives on;
# restarted, records flow again on a new connection; a daemon that stops
# reading holds a signature back at most AUDIT_SYSLOG_WAIT_MS (refused),
# never the agent. Started with nothing
# listening, the agent starts and refuses until a daemon comes. Last, as a
# new user would run it: the defaults (/dev/log, authpriv, keyward-audit)
# with rsyslog's own /dev/log, in a private mount namespace whose /dev is
# a tmpfs (root only; the machine's /dev is not touched). (keyward only.)
. "$(dirname "$0")/lib.sh"

NTESTS=51
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
if ! command -v rsyslogd >/dev/null; then
	skip_n $NTESTS "rsyslogd is not installed"
	done_testing
fi
CTL=$KEYWARD_BUILD/keyward-ctl
SOCK=$T/syslog/log.sock
OUTF=$T/syslog/records
mkdir -p "$T/syslog/work"
cat >"$T/syslog/rsyslog.conf" <<EOF
global(workDirectory="$T/syslog/work" maxMessageSize="64k")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$SOCK" CreatePath="on")
template(name="kw" type="string"
	string="%syslogfacility-text% %syslogseverity-text% %syslogtag%%msg%\n")
*.* action(type="omfile" file="$OUTF" template="kw")
EOF
RSYSLOG_PID=
rsyslog_start() {
	rsyslogd -n -f "$T/syslog/rsyslog.conf" -i "$T/syslog/pid" \
		>>"$T/syslog/rsyslogd.log" 2>&1 &
	RSYSLOG_PID=$!
	EXTRA_PIDS+=("$RSYSLOG_PID")
	wait_for_socket "$SOCK" 10
}
rsyslog_stop() {
	kill -TERM "$RSYSLOG_PID" 2>/dev/null
	wait_gone "$RSYSLOG_PID" 10
}
# records EVENT DECISION: how many such records rsyslog wrote
records() {
	sed -n 's/^[a-z0-9]* [a-z]* kw-audit\[[0-9]*\]: //p' "$OUTF" 2>/dev/null |
		jq -c --arg e "$1" --arg d "$2" \
		'select(.event == $e and .decision == $d)' 2>/dev/null | wc -l
}
has_records() { [ "$(records "$1" "$2")" -ge "$3" ]; }

# Nothing listening: the agent starts, and refuses to sign unrecorded.
gen_key k ed25519
run "$CTL" audit keygen "$T/audit.key"
ok $RC "keyward-ctl audit keygen"
VKEY=$OUT
like "$VKEY" '^keyward-audit-verify-key-1:[0-9a-f]{64}$' "it prints the verification key once"
start_agent -O audit=syslog -O audit-socket="$SOCK" -O audit-tag=kw-audit \
	-O audit-facility=local5 -O audit-key="$T/audit.key"
ok $? "agent started with -O audit=syslog and no daemon listening" || bail "agent did not start"
AGENT_PID=$SSH_AGENT_PID
run ssh-add "$T/keys/k"
ok $RC "the key is added (its record is lost: no daemon; an add is not held back)"
run ssh-add -T "$T/keys/k.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "no daemon: the signature is refused"
pid_alive "$AGENT_PID"
ok $? "and the agent lives"

# rsyslog comes: records flow.
rsyslog_start
ok $? "rsyslogd started on $SOCK" || bail "rsyslogd did not start: $(cat "$T/syslog/rsyslogd.log")"
N=20
signed=0
for ((i = 0; i < N; i++)); do
	ssh-add -T "$T/keys/k.pub" >/dev/null 2>&1 && signed=$((signed + 1))
done
is "$signed" "$N" "$N signatures made with rsyslog listening"
printf '#!/bin/sh\necho pw\n' >"$T/pass.sh"; chmod 755 "$T/pass.sh"
run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -x
ok $RC "agent locked"
run ssh-add -T "$T/keys/k.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "a signature while locked is refused"
run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -X
ok $RC "agent unlocked"
poll_until 10 has_records sign allow "$N"
is "$(records sign allow)" "$N" "rsyslog holds one record per signature made"
poll_until 10 has_records lock allow 1
is "$(records lock allow)" 1 "the lock is recorded"
ok "$([ "$(records sign refuse)" -ge 1 ] && echo 0 || echo 1)" \
	"the refused signature is recorded"
bad=$(grep -vc '^local5 info kw-audit\[[0-9]*\]: {"seq":' "$OUTF")
is "$bad" 0 "every message has facility local5, severity info, tag kw-audit and the chain first"
sed 's/^[^{]*//' "$OUTF" >"$T/json"
run jq -e . "$T/json"
ok $RC "every message is one whole JSON object (jq)"
is "$(wc -l <"$T/json")" "$(jq -c . "$T/json" | wc -l)" "one object per message"
# The run's first line (audit-start) could not be sent: it is not in the
# chain, which begins with the first record rsyslog took.
like "$(head -1 "$T/json")" '^\{"seq":0,"prev":"0{64}",' \
	"the chain begins at seq 0 with the first record sent"

# rsyslog stopped: refused, alive; restarted: flows again.
rsyslog_stop
ok $? "rsyslogd stopped"
run ssh-add -T "$T/keys/k.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "rsyslog stopped: the signature is refused"
run ssh-add -l
ok $RC "the agent still answers"
pid_alive "$AGENT_PID"
ok $? "and lives"
rsyslog_start
ok $? "rsyslogd started again"
run ssh-add -T "$T/keys/k.pub"
ok $RC "rsyslog back: the agent signs again (a new connection to it)"
poll_until 10 has_records sign allow $((N + 1))
is "$(records sign allow)" $((N + 1)) "and its record arrived"

# The socket gone (the daemon stopped and its socket removed).
rsyslog_stop
rm -f "$SOCK"
ok "$([ ! -e "$SOCK" ] && echo 0 || echo 1)" "the socket is gone"
run ssh-add -T "$T/keys/k.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "no socket: the signature is refused"
pid_alive "$AGENT_PID"
ok $? "and the agent lives"
rsyslog_start
ok $? "rsyslogd started a third time"
run ssh-add -T "$T/keys/k.pub"
ok $RC "it signs again"

# Other programs write to the same daemon: the file is shared, as
# auth.log is (keyward-ctl audit verify picks keyward's lines out).
logger -u "$SOCK" -t sshd -p authpriv.info "Accepted publickey for kw from 127.0.0.1"
logger -u "$SOCK" -t CRON -p authpriv.info "pam_unix(cron:session): session opened"
run ssh-add -T "$T/keys/k.pub"
poll_until 10 grep -q 'CRON' "$OUTF"
ok $? "other programs' lines are in the same file"

# The agent exits: its last seal reaches rsyslog; the file verifies.
stop_agent
ok $? "agent stopped"
poll_until 10 grep -q '"event":"seal"' "$OUTF"
ok $? "the final seal arrived"
run "$CTL" audit verify --state "$T/audit.key" "$OUTF" "$VKEY"
ok $RC "keyward-ctl audit verify: the file rsyslog wrote is intact and sealed"
contains "$OUT" "intact" "it says intact"
contains "$OUT" "lines of other programs left out" "and that it left other programs' lines out"
contains "$OUT" "the trail begins at seq 0 (its first record)" "and where the trail begins"
run "$CTL" audit verify --tag kw-audit --state "$T/audit.key" "$OUTF" "$VKEY"
ok $RC "with --tag kw-audit: intact too"
# a line under keyward's tag that is not a record: tampering, at its line
awk 'NR == 3 { print "auth info kw-audit[1]: {\"forged\":1}" } { print }' "$OUTF" >"$T/forged"
run "$CTL" audit verify --tag kw-audit "$T/forged" "$VKEY"
is "$RC" 1 "a forged line under keyward's tag: tampered"
like "$OUT" "line 3 is not an audit record" "at its line in the file (3)"
rsyslog_stop
# One record changed in rsyslog's file: found.
awk 'NR == 5 { sub(/"decision":"allow"/, "\"decision\":\"refuse\"") } { print }' \
	"$OUTF" >"$T/edited"
run "$CTL" audit verify "$T/edited" "$VKEY"
is "$RC" 1 "one record changed: verify fails"
like "$OUT" "line 5 .* was changed" "at line 5"

# A daemon that stops reading (its queue full): a signature waits at most
# AUDIT_SYSLOG_WAIT_MS for it, then is refused; the agent answers on; once
# the daemon reads again, records flow.
cat >"$T/stuck.py" <<'EOP'
import os, socket, sys, time
path, flag, out = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
while not os.path.exists(flag):
	time.sleep(0.05)
with open(out, "ab") as f:
	while True:
		f.write(s.recv(1 << 20) + b"\n")
		f.flush()
EOP
"$PY3" "$T/stuck.py" "$T/stuck.sock" "$T/stuck.go" "$T/stuck.out" &
EXTRA_PIDS+=($!)
wait_for_socket "$T/stuck.sock" 10
start_agent -O audit=syslog -O audit-socket="$T/stuck.sock"
ok $? "an agent sending to a daemon that does not read" || bail "agent did not start"
ssh-add "$T/keys/k" >/dev/null 2>&1
refused=0
for ((i = 0; i < 100 && refused == 0; i++)); do
	ssh-add -T "$T/keys/k.pub" >/dev/null 2>&1 || refused=1
done
is "$refused" 1 "once its queue is full a signature is refused (after $i)"
run ssh-add -T "$T/keys/k.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "and the next too, while it stays full"
run ssh-add -l
ok $RC "the agent answers meanwhile"
touch "$T/stuck.go"
signs_again() { ssh-add -T "$T/keys/k.pub"; }
poll_until 10 signs_again
ok $? "the daemon reads again: the agent signs again"
stop_agent

# The defaults, with /dev/log in a private mount namespace.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	skip_n 4 "needs root and unshare -m"
	done_testing
fi
mkdir -p "$T/ns"
cp "$T/keys/k" "$T/keys/k.pub" "$T/ns/"
cat >"$T/ns/inner.sh" <<'EOS'
set -u
D=$1 AGENT=$2
mount --make-rprivate / || exit 10
mkdir -p "$D/olddev"
mount --bind /dev "$D/olddev" || exit 11
mount -t tmpfs -o mode=755 tmpfs /dev || exit 12
for n in null zero full random urandom tty; do cp -a "$D/olddev/$n" /dev/ || exit 13; done
mkdir /dev/pts /dev/shm && mount --bind "$D/olddev/pts" /dev/pts && ln -s /proc/self/fd /dev/fd
cat >"$D/rsyslog.conf" <<EOC
global(workDirectory="$D")
module(load="imuxsock")
template(name="kw" type="string" string="%syslogfacility-text% %syslogtag%%msg%\n")
authpriv.* action(type="omfile" file="$D/records" template="kw")
EOC
rsyslogd -n -f "$D/rsyslog.conf" -i "$D/rsyslog.pid" >"$D/rsyslogd.log" 2>&1 &
RS=$!
for _ in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done
[ -S /dev/log ] || { kill $RS; exit 14; }
eval "$("$AGENT" -s -a "$D/agent.sock" -O audit=syslog)" >/dev/null || { kill $RS; exit 15; }
ssh-add "$D/k" >/dev/null 2>&1
ssh-add -T "$D/k.pub" >/dev/null 2>&1
echo "sign=$?"
"$AGENT" -k >/dev/null
for _ in $(seq 50); do grep -q '"event":"sign"' "$D/records" 2>/dev/null && break; sleep 0.1; done
kill $RS
wait $RS
exit 0
EOS
devlog() { if [ -e /dev/log ]; then stat -c '%i' /dev/log; else echo none; fi; }
before=$(devlog)
run unshare -m bash "$T/ns/inner.sh" "$T/ns" "$AGENT"
ok $RC "a private mount namespace with rsyslog on its /dev/log"
is "$OUT" "sign=0" "keyward -O audit=syslog (no other option) signs"
is "$(grep -c '^authpriv keyward-audit\[[0-9]*\]: {"seq":.*"event":"sign".*"decision":"allow"' "$T/ns/records")" 1 \
	"its record reached /dev/log: facility authpriv, tag keyward-audit"
is "$(devlog)" "$before" "the machine's /dev/log is as it was (the namespace's stayed there)"
done_testing
