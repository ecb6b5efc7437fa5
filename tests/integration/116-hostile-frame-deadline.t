#!/bin/bash
# A frame has CLIENT_FRAME_MS (ipc/limits.h, read from there) from its first
# byte. Two raw clients on the agent socket at once, each writing one frame
# a byte at a time, never pausing as long as CLIENT_STALL_MS (so neither is
# a stalled client):
#   - the trickler: a frame of 1004 bytes, one byte every 2 s: it could not
#     finish in half an hour; keyward closes it once its frame is
#     CLIENT_FRAME_MS old (within the once-a-second scan and 3 s of slack),
#     while it is still sending;
#   - the honest slow client: a 14-byte extension request ("query") whose
#     last byte comes at about 60% of CLIENT_FRAME_MS: it is answered.
# Meanwhile a local ssh-add -l is answered. The same against ssh-agent is
# the baseline: it never closes the trickler (a note, not a failure), and
# answers the honest client. About CLIENT_FRAME_MS + 10 s.
. "$(dirname "$0")/lib.sh"

FRAME_MS=$(sed -n 's/^#define CLIENT_FRAME_MS[[:space:]]*\([0-9]*\).*/\1/p' "$REPO/ipc/limits.h")
STALL_MS=$(sed -n 's/^#define CLIENT_STALL_MS[[:space:]]*\([0-9]*\).*/\1/p' "$REPO/ipc/limits.h")
[ -n "$FRAME_MS" ] && [ -n "$STALL_MS" ] || bail "CLIENT_FRAME_MS or CLIENT_STALL_MS not found in ipc/limits.h"
[ "$STALL_MS" -gt 2000 ] || bail "CLIENT_STALL_MS ($STALL_MS) is not above the trickle's 2 s"

# slow.pl SOCK INTERVAL_MS HEX MAX_S: HEX's bytes one at a time, INTERVAL_MS
# apart, then a reply read; prints one line: "closed S SENT" (the agent
# closed it S seconds after the first byte, SENT bytes sent), "reply S HEX"
# or "open S SENT" (neither by MAX_S).
cat >"$T/slow.pl" <<'EOF'
use strict; use warnings; use IO::Socket::UNIX; use IO::Select; use Time::HiRes qw(time sleep);
$SIG{PIPE} = 'IGNORE';
my ($path, $interval, $hex, $max) = @ARGV;
my $bytes = pack('H*', $hex);
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path) or die "connect: $!";
my $sel = IO::Select->new($s);
my ($t0, $sent, $in) = (time, 0, '');
my $at = sub { sprintf('%.1f', time - $t0) };
while (time - $t0 < $max) {
	if ($sent < length $bytes) {
		my $n = syswrite($s, substr($bytes, $sent, 1));
		if (!defined $n) { print "closed ", $at->(), " $sent\n"; exit 0; }
		$sent += $n;
	}
	# an EOF (or the reply) is seen within the interval
	my $until = time + ($sent < length $bytes ? $interval / 1000 : 0.2);
	while ((my $left = $until - time) > 0) {
		next unless $sel->can_read($left);
		my $n = sysread($s, my $buf, 65536);
		if (!$n) { print "closed ", $at->(), " $sent\n"; exit 0; }
		$in .= $buf;
		if (length $in >= 4 && length $in >= 4 + unpack('N', $in)) {
			print "reply ", $at->(), " ", unpack('H*', substr($in, 4, unpack('N', $in))), "\n";
			exit 0;
		}
	}
}
print "open ", $at->(), " $sent\n";
EOF

gen_key k ed25519 || bail "ssh-keygen k"
start_agent || bail "agent did not start"
run ssh-add "$T/keys/k"
ok "$RC" "ssh-add k"

FRAME_S=$((FRAME_MS / 1000))
# 1004 bytes announced as 1000 (a payload of zeros: never finished)
TRICKLE=000003e8$(printf '%02000d' 0)
# SSH_AGENTC_EXTENSION "query": 14 bytes, 13 gaps to reach 60% of the deadline
QUERY=000000091b000000057175657279
GAP_MS=$((FRAME_MS * 6 / 10 / 13))
perl "$T/slow.pl" "$SSH_AUTH_SOCK" 2000 "$TRICKLE" $((FRAME_S + 8)) >"$T/trickle.out" 2>&1 &
T1=$!
perl "$T/slow.pl" "$SSH_AUTH_SOCK" "$GAP_MS" "$QUERY" $((FRAME_S + 8)) >"$T/honest.out" 2>&1 &
T2=$!
EXTRA_PIDS+=("$T1" "$T2")
sleep 3
t0=$(date +%s%N)
run timeout 5 ssh-add -l
ms=$((($(date +%s%N) - t0) / 1000000))
contains "$OUT" "$(fp "$T/keys/k.pub")" "a local ssh-add -l is answered while both write ($ms ms)"
wait "$T1" "$T2"
read -r tw ts tn <"$T/trickle.out"
read -r hw hs hr <"$T/honest.out"
diag "trickler: $tw after $ts s ($tn bytes sent); honest client: $hw after $hs s"
is "$hw" reply "the honest slow client (last byte at about 60% of ${FRAME_S} s) is answered"
like "$hr" '^(05|06|1c|1d)' "... with an agent reply"
if is_keyward; then
	is "$tw" closed "the trickler is closed"
	[ "$tw" = closed ] && awk -v t="$ts" -v f="$FRAME_S" 'BEGIN { exit !(t >= f - 0.5 && t <= f + 3) }'
	ok $? "... once its frame is ${FRAME_S} s old ($ts s after its first byte)"
	[ "${tn:-0}" -ge $((FRAME_S / 2 - 1)) ] && [ "${tn:-0}" -lt 1004 ]
	ok $? "... while it was still sending (a byte every 2 s: $tn of 1004 bytes sent), so not for a stall"
else
	[ "$tw" = closed ] || diag "NOTE: ssh-agent keeps the trickler open ($tw after $ts s)"
	skip_n 3 "keyward's frame deadline"
fi
run ssh-add -l
contains "$OUT" "$(fp "$T/keys/k.pub")" "the agent still answers and holds k"
done_testing
