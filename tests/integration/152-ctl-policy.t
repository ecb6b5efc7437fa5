#!/bin/bash
# keyward-ctl policy load / policy show / connections: rules
# loaded into a running agent replace the old ones whole and show back in
# canonical form, which loads again to the same text; a malformed file is
# refused by keyward-ctl with its file:line:column and by the agent too
# (sent raw), the rules in force unchanged and still deciding; a text
# longer than a rules file may be is refused at the edge, the agent
# running on; a connection that attempted a session-bind -- a raw one, and
# keyward-ctl run on perseus through a real ssh -A -- may neither load nor
# show the rules nor list the connections; "connections" lists a client
# that holds its connection open, with its pid, and its session-bind;
# --json is one object a line for jq; a stalled agent does not hang
# keyward-ctl past its reply timeout.
#   kP  ed25519, the login key, allowed by every rule set here
#   kB  ed25519, the key the rules deny
#   kD  ed25519, -h perseus: its destination constraint names perseus's
#       host key, so "connections" shows that hop by name
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

NTESTS=63
if ! is_keyward; then
	skip_n $NTESTS "keyward-ctl asks keyward's own extensions; $(basename "$AGENT") has none"
	done_testing
fi
CTL=$KEYWARD_BUILD/keyward-ctl
[ -x "$CTL" ] || bail "no $CTL (make)"
command -v jq >/dev/null || bail "jq is not installed (make deps)"
[ -x "$PY3" ] || bail "python3 is not installed"

ctl() { run "$CTL" "$@"; }
# hs STR: an SSH string in hex (uint32 length, bytes)
hs() { printf '%08x' "${#1}"; printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
# signs KEY: the agent signs with KEY (ssh-add -T: purpose other)
signs() { ssh-add -T "$T/keys/$1.pub" >/dev/null 2>&1; }

dest_agent
dest_hosts perseus
dest_key kP
dest_key kB
dest_key kD
dest_add_ok kP
dest_add_ok kB
dest_add_ok kD -h perseus
FP_B=$(dest_fp kB)

# --- no rules yet
ctl policy show
is "$RC:$OUT" "0:" "no rules: policy show prints nothing, exit 0"
contains "$ERR" "no rules in force" "and says there are none"
signs kB
ok $? "without rules kB signs"

# --- load, show, round trip
cat >"$T/r1" <<EOF2
# keep kB out
deny key $FP_B
confirm remember=10m caller "/usr/bin/ssh" purpose login user root,!bob host "*"   # comment

allow
EOF2
canon="deny key $FP_B
confirm remember=10m caller /usr/bin/ssh purpose login user root,!bob host *
allow"
ctl policy load "$T/r1"
is "$RC:$OUT" "0:keyward-ctl: 3 rules in force" "policy load r1: exit 0, 3 rules in force"
ctl policy show
is "$RC:$OUT" "0:$canon" "policy show: the rules in canonical form, one a line, comments gone"
printf '%s\n' "$OUT" >"$T/r1.shown"
signs kB
is $? 1 "r1 denies kB: ssh-add -T kB fails"
signs kP
ok $? "r1 allows kP (last rule allow)"
ctl policy load "$T/r1.shown"
is "$RC:$OUT" "0:keyward-ctl: 3 rules in force" "what show printed loads again"
ctl policy show
is "$RC:$OUT" "0:$canon" "and shows the same text: a round trip"

# --- a malformed file: refused with file:line:column, rules unchanged
printf 'allow key %s\nbogus origin local\nallow\n' "$FP_B" >"$T/r2"
ctl policy load "$T/r2"
is "$RC:$OUT" "255:" "policy load of a malformed file: exit 255, nothing on stdout"
like "$ERR" "^keyward-ctl: $T/r2:2:1: .*bogus" "stderr names file:line:column of the error ($T/r2:2:1)"
ctl policy show
is "$RC:$OUT" "0:$canon" "after the refusal policy show still shows r1"
signs kB
is $? 1 "and kB is still denied"

# the same text sent raw, past keyward-ctl's own check: the agent refuses
R2=$(od -An -tx1 <"$T/r2" | tr -d ' \n')
LOADHDR=1b$(hs policy@keyward.dev)$(hs load)
run raw "$SSH_AUTH_SOCK" "${LOADHDR}$(printf '%08x' $(($(wc -c <"$T/r2"))))$R2"
is "$OUT" "1c" "the malformed text sent raw: SSH_AGENT_EXTENSION_FAILURE from the agent"
ctl policy show
is "$RC:$OUT" "0:$canon" "rules still r1"
signs kB
is $? 1 "kB still denied"

# too long: keyward-ctl refuses to send it; sent raw, the monitor refuses it
head -c 65537 /dev/zero | tr '\0' '#' >"$T/big"
ctl policy load "$T/big"
is "$RC" 255 "a 65537-byte file: keyward-ctl refuses (exit 255)"
contains "$ERR" "larger than 65536 bytes" "and says it is too large"
run raw "$SSH_AUTH_SOCK" "pad:${LOADHDR}00010001:$((1 + 4 + 18 + 4 + 4 + 4 + 65537))"
is "$OUT" "05" "65537 bytes of text sent raw: SSH_AGENT_FAILURE at the monitor"
ok "$(pid_alive "$SSH_AGENT_PID"; echo $?)" "the agent is still running"
ctl policy show
is "$RC:$OUT" "0:$canon" "and its rules are still r1"
run raw "$SSH_AUTH_SOCK" "pad:${LOADHDR}00010000:$((1 + 4 + 18 + 4 + 4 + 4 + 65536))"
is "$OUT" "1c" "65536 bytes (all NUL) reach policy, which refuses them: EXTENSION_FAILURE"

# a missing file
ctl policy load "$T/nonexistent"
is "$RC" 255 "a missing file: exit 255"
contains "$ERR" "cannot open the policy $T/nonexistent" "and says it cannot open it"

# --- a connection that attempted a session-bind may not load, show or list
BIND=1b$(hs session-bind@openssh.com)00
SHOW=1b$(hs policy@keyward.dev)$(hs show)
CONNS=1b$(hs connections@keyward.dev)
ALLOW=${LOADHDR}$(hs allow)
run raw "$SSH_AUTH_SOCK" "$SHOW" "$BIND" "$SHOW" "$ALLOW" "$CONNS"
first=$(printf '%s\n' "$OUT" | head -n1)
like "$first" "^1d$(hs policy@keyward.dev)" "before a session-bind the raw client is shown the rules"
is "$(printf '%s\n' "$OUT" | tail -n +3 | tr '\n' ' ')" "1c 1c 1c " \
	"after a (bad) session-bind: show, load and connections answered EXTENSION_FAILURE"
ctl policy show
is "$RC:$OUT" "0:$canon" "the refused load changed nothing"

# through a real ssh -A to perseus
printf 'allow\n' >"$T/r3"
fwd() { run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/hidden/kP" -A perseus "$@"; }
fwd ssh-add -l
contains "$OUT" " $(dest_fp kP) " "on perseus (ssh -A) the forwarded agent works: ssh-add -l lists kP"
fwd "$CTL" policy load "$T/r3"
is "$RC:$OUT" "1:" "on perseus keyward-ctl policy load is refused: exit 1"
contains "$ERR" "the agent refused the rules" "and says the agent refused"
fwd "$CTL" policy show
is "$RC:$OUT" "1:" "on perseus policy show is refused: exit 1, no rules printed"
fwd "$CTL" connections --json
is "$RC:$OUT" "1:" "on perseus connections is refused: exit 1, nothing listed"
ctl policy show
is "$RC:$OUT" "0:$canon" "locally the rules are still r1"
signs kB
is $? 1 "and kB is still denied"

# --- connections: a client holding its connection open. As root it runs
# without capabilities: keyward-peer has none, and reads such a caller as
# "unreadable" (keyward(5), CALLERS).
NOCAPS=()
[ "$(id -u)" = 0 ] && NOCAPS=(setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all)
"${NOCAPS[@]}" /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(60)
' "$SSH_AUTH_SOCK" "$T/py.ready" &
PYPID=$!
EXTRA_PIDS+=("$PYPID")
# and one that made a session-bind attempt and stays idle
run raw -s "$T/raw.sent" -i 60 -n 1 "$SSH_AUTH_SOCK" "$BIND" &
RAWPID=$!
EXTRA_PIDS+=("$RAWPID")
poll_until 10 test -e "$T/py.ready" && poll_until 10 test -e "$T/raw.sent"
ok $? "a python3 client holds a connection; a raw client did a session-bind and idles"
# the agent has read both once keyward-peer has answered for python3 and
# the raw client's session-bind is on record (under load, not at once)
both_seen() {
	"$CTL" connections --json | jq -e -s 'map(select(.pid == '"$PYPID"' and .status == "ok")) | length == 1' &&
	"$CTL" connections --json | jq -e -s 'map(select(.session_bind == true)) | length == 1'
}
poll_until 10 both_seen
ok $? "the agent shows both (python3's caller read, one session-bind attempted)"
ctl connections
is "$RC" 0 "connections: exit 0"
is "$(printf '%s\n' "$OUT" | head -n1 | tr -s ' ')" "CONN UID PID STATUS CALLER" "a table with a header"
is "$(printf '%s\n' "$OUT" | awk -v p="$PYPID" '$3 == p { print $2 }')" "$(id -u)" \
	"the python3 client's row: its pid, with its uid"
contains "$OUT" "session-bind: attempted, none verified" "the raw client's failed session-bind is shown"
ctl connections --json
is "$RC" 0 "connections --json: exit 0"
JSON=$OUT
printf '%s\n' "$JSON" | jq -e . >/dev/null
ok $? "every line is valid JSON (jq)"
is "$(printf '%s\n' "$JSON" | jq -s 'map(select(.pid == '"$PYPID"')) | length')" 1 \
	"the python3 client is listed once, by pid"
is "$(printf '%s\n' "$JSON" | jq -r 'select(.pid == '"$PYPID"') | [.uid, .session_bind, (.hops|length)] | @csv')" \
	"$(id -u),false,0" "python3: uid, no session-bind, no hops"
st=$(printf '%s\n' "$JSON" | jq -r 'select(.pid == '"$PYPID"') | .status')
is "$st" ok "python3's caller was read by keyward-peer"
is "$(printf '%s\n' "$JSON" | jq -r 'select(.pid == '"$PYPID"') | .exe')" \
	"$(readlink -f /usr/bin/python3)" "python3's exe is the python3 binary"
is "$(printf '%s\n' "$JSON" | jq -s '[.[] | select(.session_bind == true)] | length')" 1 \
	"exactly one connection (the raw client) attempted a session-bind"
is "$(printf '%s\n' "$JSON" | jq -s '(map(.conn) | unique | length) == length')" \
	true "connection ids are distinct"
kill "$PYPID" "$RAWPID" $(descendants "$RAWPID") 2>/dev/null
wait "$PYPID" "$RAWPID" 2>/dev/null
poll_until 5 sh -c "! '$CTL' connections --json | grep -q '\"pid\":$PYPID,'"
ok $? "once python3 is gone it is no longer listed"

# --- a connection forwarded through perseus, held open there: ssh binds
# it (session-bind, forwarding) to perseus's host key
cat >"$T/hold.py" <<'EOF2'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ["SSH_AUTH_SOCK"])
print("ready", flush=True)
time.sleep(30)
EOF2
ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/hidden/kP" -A perseus "$PY3" "$T/hold.py" >"$T/hold.out" 2>&1 &
SSHPID=$!
EXTRA_PIDS+=("$SSHPID")
poll_until 15 grep -q ready "$T/hold.out"
ok $? "on perseus a client holds the forwarded agent's connection"
# python3 on perseus has connected to sshd's socket; ssh opens the
# forwarded channel and reaches the agent just after: wait for its bind
poll_until 10 sh -c "'$CTL' connections --json | jq -e 'select(.pid == $SSHPID and .session_bind == true)' | grep -q ."
ok $? "the agent has the ssh -A connection and its session-bind"
ctl connections --json
JSON=$OUT
is "$(printf '%s\n' "$JSON" | jq -c 'select(.pid == '"$SSHPID"') | [.session_bind, [.hops[] | [.fingerprint, .host, .forwarding]]]')" \
	"[true,[[\"$(fp "$T/perseus/host_ed25519.pub")\",\"perseus\",true]]]" \
	"the ssh -A connection: session-bind, one forwarding hop, perseus's host key named by kD's constraint"
ctl connections
contains "$OUT" "    hop 1: perseus $(fp "$T/perseus/host_ed25519.pub") forwarding" "the table shows the hop too"
kill "$SSHPID" 2>/dev/null
wait "$SSHPID" 2>/dev/null

# --- an empty file: no rules, kB signs again
: >"$T/empty"
ctl policy load "$T/empty"
is "$RC:$OUT" "0:keyward-ctl: 0 rules in force" "an empty file loads: no rules"
signs kB
ok $? "kB signs again"

# --- usage and a stalled agent
ctl policy
is "$RC" 255 "policy without a sub-command: usage, exit 255"
ctl policy show --json
is "$RC" 255 "policy show --json: usage, exit 255"
"$PY3" -c '
import socket, sys, time, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(4)
c, _ = s.accept()
time.sleep(30)
' "$T/stall.sock" &
STALLPID=$!
EXTRA_PIDS+=("$STALLPID")
wait_for_socket "$T/stall.sock" 5
t0=$(date +%s)
ctl -a "$T/stall.sock" connections
t1=$(date +%s)
is "$RC" 255 "an agent that never answers: exit 255"
contains "$ERR" "no answer from the agent in 10000 ms" "after the reply timeout"
ok "$([ $((t1 - t0)) -lt 15 ]; echo $?)" "within 15 s ($((t1 - t0)) s)"
kill "$STALLPID" 2>/dev/null

[ "$TESTNUM" = "$NTESTS" ] || diag "NTESTS is $NTESTS, ran $TESTNUM"
done_testing
