#!/bin/bash
# The monitor asks keyward-peer who each client is before it serves it
# (monitor/whois.c), and an attacker plays with that: a flood of processes
# that connect and exit at once, and thousands of connect/close, are
# served in bounded time, leave the monitor's RSS and fd count where they
# were, and never keep a well-behaved client out; a stopped inspector
# delays a new client by about PEER_TIMEOUT_MS (2 s), not forever, and it
# is served with its caller unavailable; a killed one leaves the agent
# serving, every caller unavailable. keyward only.
# check: serial (a flood, and it bounds how long a client waits: 1 s, 2 s)
. "$(dirname "$0")/lib.sh"

NTESTS=35
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
FLOOD=$REPO/tests/tools/flood.pl
TB=${KEYWARD_TESTING_BUILD:-$(dirname "$AGENT")/../build-testing}

exe_of() { local e; e=$(readlink "/proc/$1/exe" 2>/dev/null) && basename "${e% (deleted)}"; }
status_field() { awk -v f="$2:" '$1 == f {print $2; exit}' "/proc/$1/status" 2>/dev/null; }
nfds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
now_ms() { date +%s%3N; }
find_peer() {
	local c
	PEER=""
	for c in $(children "$MON"); do
		[ "$(exe_of "$c")" = keyward-peer ] && { PEER=$c; return 0; }
	done
	return 1
}

gen_key k ed25519 || bail "ssh-keygen k"
echo data >"$T/data"
AUDIT=$T/audit.json
AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock" -O audit="$AUDIT" -O audit-sync=yes
ok $? "keyward started" || bail "keyward did not start"
MON=$AGENT_FG_PID
ssh-add "$T/keys/k" 2>/dev/null
find_peer
like "$PEER" '^[0-9]+$' "a keyward-peer child of the monitor runs ($PEER)"
contains "$(cat "$T/agent.log")" "caller " "the monitor passed policy what keyward-peer said"

ssh-add -l >/dev/null; ssh-add -l >/dev/null
fd0=$(nfds "$MON") rss0=$(status_field "$MON" VmRSS)
diag "before: monitor $MON fds $fd0 VmRSS $rss0 kB"

# ---------------------------------------------------------- the flood
# Well-behaved clients all through it: each must be served.
( fails=0; for i in $(seq 40); do ssh-add -l >/dev/null 2>&1 || fails=$((fails + 1)); sleep 0.05; done
  echo "$fails" >"$T/good.fails" ) &
good=$!
EXTRA_PIDS+=("$good")
t0=$(now_ms)
run timeout 60 perl "$FLOOD" "$SSH_AUTH_SOCK" procs 1000
contains "$OUT" "done 1000 " "1000 processes connected and exited"
run timeout 60 perl "$FLOOD" "$SSH_AUTH_SOCK" conns 5000
contains "$OUT" "done 5000 " "5000 connect/close, half with a request"
run timeout 60 perl "$FLOOD" "$SSH_AUTH_SOCK" procs 1000
contains "$OUT" "done 1000 " "1000 more processes connected and exited"
wait "$good"
is "$(cat "$T/good.fails" 2>/dev/null)" 0 "a well-behaved client was served 40 times during the flood"
same_fds() { [ "$(nfds "$MON")" -le "$fd0" ]; }
poll_until 10 same_fds
ok $? "the monitor's fds are back to $fd0 ($(nfds "$MON"))"
t1=$(now_ms)
secs=$(( (t1 - t0) / 1000 ))
rss1=$(status_field "$MON" VmRSS)
diag "after: fds $(nfds "$MON") VmRSS $rss1 kB, 7000 clients in $secs s"
case $KEYWARD_BUILD in
*asan*)	# ASan's quarantine keeps freed memory by design: RSS says nothing.
	skip "RSS under ASan (its quarantine holds what was freed; the plain build checks it)" ;;
*)	[ "$rss1" -le $((rss0 + 512)) ]
	ok $? "the monitor's RSS is back to its level ($rss0 -> $rss1 kB, within 512 kB)" ;;
esac
pid_alive "$MON" && pid_alive "$PEER"
ok $? "the monitor and keyward-peer still run"
s0=$(now_ms); ssh-add -l >/dev/null; rc=$?; s1=$(now_ms)
[ $rc = 0 ] && [ $((s1 - s0)) -lt 1000 ]
ok $? "a client after the flood is served at once ($((s1 - s0)) ms)"
unlike "$(cat "$T/agent.log")" "keyward-peer (closed|sent|answered|cannot|has ended)" \
	"the inspector was never given up on"

# ---------------------------------------------------------- stopped
signs() { grep -c '"peer"' "$AUDIT" 2>/dev/null; }
kill -STOP "$PEER"
n0=$(signs)
s0=$(now_ms)
run ssh-keygen -Y sign -f "$T/keys/k.pub" -n file "$T/data"
s1=$(now_ms)
ok $RC "inspector stopped: ssh-keygen -Y sign is still served"
d=$((s1 - s0))
diag "delay with a stopped inspector: $d ms"
[ $d -ge 1800 ] && [ $d -lt 5000 ]
ok $? "delayed by about PEER_TIMEOUT_MS (2000 ms): $d ms"
last=$(tail -n 1 "$AUDIT")
contains "$last" '"peer":{' "its audit record has a peer"
like "$last" '"status":"unavailable"' "its caller is unavailable"
contains "$(cat "$T/agent.log")" "no answer from keyward-peer in 2000 ms" "the timeout is logged (debug)"
# A flood meanwhile: every client waits its 2 s holding a pidfd, and yet
# the fds it costs stay bounded and come back.
run timeout 60 perl "$FLOOD" "$SSH_AUTH_SOCK" procs 300
contains "$OUT" "done 300 " "300 processes connect and exit while it is stopped"
poll_until 10 same_fds
ok $? "their pidfds are closed when they go ($(nfds "$MON") fds)"
kill -CONT "$PEER"
s0=$(now_ms); ssh-add -l >/dev/null; rc=$?; s1=$(now_ms)
[ $rc = 0 ] && [ $((s1 - s0)) -lt 1000 ]
ok $? "resumed: a client is served at once again ($((s1 - s0)) ms)"
pid_alive "$PEER"
ok $? "the inspector, resumed, still runs (its late answers were discarded)"

# ---------------------------------------------------------- killed
kill -9 "$PEER"
poll_until 5 not pid_alive "$PEER"
ok $? "keyward-peer killed"
GIVEN_UP="keyward-peer [a-z ]*; callers are unavailable from now on"
poll_until 5 grep -Eq "$GIVEN_UP" "$T/agent.log"
ok $? "the monitor says callers are unavailable from now on"
s0=$(now_ms)
run ssh-keygen -Y sign -f "$T/keys/k.pub" -n file "$T/data"
s1=$(now_ms)
ok $RC "without an inspector the agent still signs"
[ $((s1 - s0)) -lt 1000 ]
ok $? "at once ($((s1 - s0)) ms)"
like "$(tail -n 1 "$AUDIT")" '"status":"unavailable"' "its caller is unavailable"
pid_alive "$MON"
ok $? "the monitor still runs"
run timeout 60 perl "$FLOOD" "$SSH_AUTH_SOCK" procs 300
poll_until 10 same_fds
ok $? "a flood without an inspector leaves no fd behind ($(nfds "$MON"))"
is "$(grep -Ec "$GIVEN_UP" "$T/agent.log")" 1 "that is logged once"

# ---------------------------------------------------------- pidfd_open
# A kernel before SO_PEERPIDFD (6.5): the monitor takes the pidfd with
# pidfd_open, under its filter; a process gone before the monitor holds
# it is told to policy as "gone" by the monitor itself. The test build
# skips SO_PEERPIDFD on KEYWARD_TEST_NO_PEERPIDFD.
if [ ! -x "$TB/keyward" ]; then
	skip_n 6 "no test build in $TB (make TESTING=1)"
else
	KEYWARD_TEST_NO_PEERPIDFD=1 AGENT=$TB/keyward AGENT_FG_FLAG=-d \
		start_agent_fg "$T/t.sock"
	ok $? "test-build keyward started without SO_PEERPIDFD"
	MON2=$AGENT_FG_PID
	run ssh-add -l
	is "$RC" 1 "it serves a client (no identities)"
	like "$(cat "$T/agent.log")" "keyward: connection [0-9]+: caller (ok|unreadable)" \
		"keyward-peer answered through a pidfd from pidfd_open"
	# Stop the monitor, let a process connect and exit, resume it: at
	# accept its process is gone, and pidfd_open says ESRCH.
	kill -STOP "$MON2"
	perl "$FLOOD" "$SSH_AUTH_SOCK" procs 1 >/dev/null
	kill -CONT "$MON2"
	poll_until 5 grep -q "its process [0-9]* has already exited" "$T/agent.log"
	ok $? "a process gone before accept: the monitor says so"
	poll_until 5 grep -Eq "keyward-policy: connection [0-9]+: caller gone" "$T/agent.log"
	ok $? "and policy has it as gone"
	run ssh-add -l
	is "$RC" 1 "the monitor survived it all under its filter, and serves"
fi

[ "$TESTNUM" = "$NTESTS" ] || diag "test count $TESTNUM != NTESTS $NTESTS: fix NTESTS"
done_testing
