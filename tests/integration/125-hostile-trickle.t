#!/bin/bash
# Slots no one host can hold: the user logs in to hostA with the real
# ssh -A (the agent under ulimit -n 256: about 246 connections); hostA opens as
# many connections as it can (400) through the forwarded socket and trickles
# each a frame that never completes, one byte every 2 s per connection:
# never idle, never stalled. Throughout, the user's local ssh-add -l is
# timed, ten times a second apart: each must answer within 1 s (x3 under
# ASan). keyward sheds the connections of the peer process holding the
# most (the user's ssh, the relay of every forwarded channel) and closes
# a frame unfinished after CLIENT_FRAME_MS (ipc/limits.h). The same
# against ssh-agent is the baseline: where it falls, that is a note, not
# a failure.
# check: serial (bounds how fast a local client is answered)
. "$(dirname "$0")/lib.sh"

BOUND_MS=1000
case $KEYWARD_BUILD in *asan*) BOUND_MS=3000 ;; esac
gen_key k ed25519 || bail "ssh-keygen k"
cat "$T/keys/k.pub" >>"$T/authorized_keys"
start_sshd hostA || bail "sshd hostA"

# On hostA: open up to 400 connections to the forwarded socket, each sending
# a frame header of 1000 bytes, then one byte each every 2 s, for 40 s.
cat >"$T/trickle.pl" <<'EOF'
use strict; use warnings; use IO::Socket::UNIX; use Time::HiRes qw(sleep time);
$| = 1; $SIG{PIPE} = "IGNORE";
my @s;
for (1 .. 400) {
	my $c = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $ENV{SSH_AUTH_SOCK}) or last;
	$c->blocking(0);
	syswrite($c, pack('N', 1000));
	push @s, $c;
}
print "opened ", scalar(@s), "\n";
{ open(my $f, ">", $ARGV[0]) or die "touch: $!"; close($f); }
my $end = time + 40;
while (time < $end) {
	sleep 2;
	my $live = 0;
	for my $c (@s) { $live++ if defined syswrite($c, 'x'); }
	print "live $live\n";
}
EOF

# The agent under ulimit -n 256; the user's ssh keeps its own (larger)
# limit, so that the channels it carries can fill the agent.
( ulimit -n 256; start_agent; echo "$SSH_AUTH_SOCK $SSH_AGENT_PID" >"$T/agent.env" ) ||
	bail "agent did not start"
read -r SSH_AUTH_SOCK SSH_AGENT_PID <"$T/agent.env"
export SSH_AUTH_SOCK SSH_AGENT_PID
AGENT_PIDS+=("$SSH_AGENT_PID")
run ssh-add "$T/keys/k"
ok "$RC" "ssh-add k (locally)"
rm -f "$T/opened"
( timeout 90 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/k" -A hostA \
	"ulimit -n 1024; perl $(printf %q "$T/trickle.pl") $(printf %q "$T/opened")" \
	>"$T/trickle.out" 2>&1 ) &
TRICKLE=$!
poll_until 60 test -e "$T/opened" || { diag_file "$T/trickle.out"; bail "hostA's trickle did not start"; }
sleep 3
worst=0 slow=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	t0=$(date +%s%N)
	timeout 5 ssh-add -l >/dev/null 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -gt "$worst" ] && worst=$ms
	{ [ "$rc" != 0 ] || [ "$ms" -ge "$BOUND_MS" ]; } && slow=$((slow + 1))
	# every second: the ten calls span five of hostA's rounds of bytes,
	# all within the 40 s it trickles and before CLIENT_FRAME_MS closes
	# its frames
	sleep 1
done
diag "hostA $(head -n 1 "$T/trickle.out"), $(tail -n 1 "$T/trickle.out") at the end; slowest local ssh-add -l: $worst ms; over $BOUND_MS ms or failed: $slow of 10"
if is_keyward; then
	is "$slow" 0 "the local ssh-add -l answered within $BOUND_MS ms all ten times while hostA trickled"
	kill "$TRICKLE" 2>/dev/null
	wait "$TRICKLE" 2>/dev/null
	run ssh-add -l
	contains "$OUT" "$(fp "$T/keys/k.pub")" "the agent still holds k"
else
	[ "$slow" -gt 0 ] && diag "NOTE: ssh-agent: $slow of 10 local ssh-add -l calls were slow or failed"
	kill "$TRICKLE" 2>/dev/null
	wait "$TRICKLE" 2>/dev/null
	skip_n 2 "keyward's bound"
fi
stop_agent
done_testing
