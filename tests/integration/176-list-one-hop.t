#!/bin/bash
# REQUEST_IDENTITIES in one hop (doc/design.md §8): policy lends the
# monitor the list answer of every connection on the main socket that has
# attempted no session-bind, and takes it back before the reply of any
# request that changes it. Played with real ssh-add, ssh -A through
# loopback sshd and raw clients, against keyward and, as the baseline,
# /usr/bin/ssh-agent (the same answers, whatever the hop):
#   (a) a local list is answered from the list answer (keyward -d says
#       so) and audited with the record policy writes for one it answers;
#   (b) after ssh-add -d, -D, -x, -X, a lifetime's end (-t) and a rules
#       load, the next list on another connection, started the moment
#       the changing reply came, never shows the old answer; a remove and
#       a list pipelined on one connection neither;
#   (c) a forwarded connection (ssh -A, session-bind with is_forwarding)
#       and one whose session-bind failed, pipelined with its list as an
#       attacker would, never get the local answer, which holds a key
#       constrained to another host (ssh-add -h); nor does a named socket.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"
. "$LIBDIR/lib-rules.sh"

HIT="list answered from policy's list answer"
hits() { grep -c "$HIT" "$T/agent.log"; }
# the fingerprints ssh-add -l shows, one a line; "none" for an empty agent
listed() {
	local out
	out=$(ssh-add -l 2>&1)
	case $out in
	"The agent has no identities.") echo none ;;
	*) printf '%s\n' "$out" | awk '{print $2}' ;;
	esac
}
fps() { local k; for k in "$@"; do dest_fp "$k"; done; }
blob_hex() { awk '{print $2}' "$T/keys/$1.pub" | base64 -d | od -An -tx1 -v | tr -d ' \n'; }
str() { printf '%08x%s' $((${#1} / 2)) "$1"; }          # hex -> SSH string

for k in k1 k2 kd kU; do dest_key "$k"; done
dest_hosts perseus scylla
POL=$(rules_file one-hop "socket deploy" "allow socket deploy key comment k1@*")
if is_keyward; then
	AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock" -O "policy=$POL" \
	    -O "audit=$AUDIT" -O audit-sync=yes
else
	start_agent_fg "$T/agent.sock"
fi
ok $? "agent $(basename "$AGENT") started" || bail "agent did not start"
MAIN=$SSH_AUTH_SOCK

# ---------------------------------------------- (a) one hop, one record
dest_add_ok k1
dest_add_ok k2
is "$(listed)" "$(fps k1 k2)" "ssh-add -l lists both keys"
is "$(listed)" "$(fps k1 k2)" "and again"
if is_keyward; then
	is "$(hits)" 1 "the second list was answered from the list answer, the first by policy"
	audit_await 1 'select(.event == "list")'
	recs=$(audit_sel 'select(.event == "list")')
	is "$(printf '%s\n' "$recs" | wc -l | tr -d ' ')" 2 "each list has its record"
	same=$(printf '%s\n' "$recs" |
	    jq -c 'del(.seq, .prev, .time, .conn, .peer_pid, .peer.pid)' | sort -u)
	is "$(printf '%s\n' "$same" | wc -l | tr -d ' ')" 1 \
	    "the two records differ only in time, connection and pid"
	contains "$same" '"origin":"local","peer":{"uid":' "a local peer"
	contains "$same" '"socket":"main","path":[],"bind_attempted":false,"bind_failed":false,"keys":2,"decision":"allow"' \
	    "the main socket, no binding, two keys, allowed"
else
	skip_n 5 "keyward only: its debug log and audit trail"
fi

# ------------------------------ (b) every change reaches the next list
# Each change follows a list the answer served, so a stale answer would
# be there to be served.
is "$(listed)" "$(fps k1 k2)" "both, before ssh-add -d"
dest_add k1 -d
is "$RC" 0 "ssh-add -d k1"
is "$(listed)" "$(fps k2)" "the next list has k2 alone"
is "$(listed)" "$(fps k2)" "and the one after"
dest_add_ok k1
is "$(listed)" "$(fps k2 k1)" "k1 again, after k2"
is "$(listed)" "$(fps k2 k1)" "and again"
run ssh-add -D
is "$RC" 0 "ssh-add -D"
is "$(listed)" none "the next list is empty"
is "$(listed)" none "and the one after"

dest_add_ok k2
dest_add_ok k1 -t 2
t_add=$(date +%s%N)
is "$(listed)" "$(fps k2 k1)" "k1 with a 2 s lifetime is listed"
# From 2 s after ssh-add -t 2 came back no list shows k1: poll every
# 50 ms until 3.5 s, keeping when each list began and what it showed.
late=0 seen_gone=0
while :; do
	t=$(date +%s%N)
	l=$(listed)
	elapsed=$(((t - t_add) / 1000000))
	case $l in *"$(dest_fp k1)"*) shown=1 ;; *) shown=0 ;; esac
	[ "$shown" = 0 ] && seen_gone=1
	if [ "$shown" = 1 ] && { [ $elapsed -ge 2000 ] || [ $seen_gone = 1 ]; }; then
		late=$((late + 1))
		diag "k1 listed ${elapsed} ms after its 2 s lifetime began"
	fi
	[ $elapsed -ge 3500 ] && break
	sleep 0.05
done
is "$late" 0 "no list after the lifetime's end (or after one without it) shows k1"
is "$(listed)" "$(fps k2)" "k2 stays"

printf '#!/bin/sh\necho lock-pass-kw\n' >"$T/lockpass.sh"
chmod 755 "$T/lockpass.sh"
dest_add_ok k1
is "$(listed)" "$(fps k2 k1)" "both, before the lock"
run env SSH_ASKPASS="$T/lockpass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -x
is "$RC" 0 "ssh-add -x"
is "$(listed)" none "locked: the next list is empty"
is "$(listed)" none "and the one after"
run env SSH_ASKPASS="$T/lockpass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -X
is "$RC" 0 "ssh-add -X"
is "$(listed)" "$(fps k2 k1)" "unlocked: both again"

# The same, on raw connections: A changes, B lists the moment A has its
# reply, 20 times each (a remove and a lock, the answer warmed first).
cat >"$T/race.pl" <<'EOP'
use strict; use warnings; use IO::Socket::UNIX;
my ($sock, $blob, $addcmd, $rounds) = @ARGV;
sub conn { IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $sock) or die "connect: $!\n" }
sub ask {
	my ($s, $hex) = @_; my $p = pack('H*', $hex);
	print $s pack('N', length $p) . $p; $s->flush;
	my $n = ''; read($s, $n, 4) == 4 or die "no reply\n";
	my $r = ''; read($s, $r, unpack('N', $n)) == unpack('N', $n) or die "short reply\n";
	return unpack('H*', $r);
}
my ($A, $B) = (conn(), conn());
my $pass = unpack('H*', pack('N', 4) . 'pass');
my $rm = '12' . unpack('H*', pack('N', length(pack('H*', $blob)))) . $blob;
my ($stale, $ok) = (0, 0);
for my $i (1 .. $rounds) {
	ask($B, '0b'); ask($B, '0b');
	ask($A, $rm) eq '06' or die "remove refused\n";
	my $l = ask($B, '0b');
	if (index($l, $blob) >= 0) { $stale++ } else { $ok++ }
	system($addcmd) == 0 or die "re-add failed\n";
	ask($B, '0b'); ask($B, '0b');
	ask($A, "16$pass") eq '06' or die "lock refused\n";
	$l = ask($B, '0b');
	if ($l ne '0c00000000') { $stale++ } else { $ok++ }
	ask($A, "17$pass") eq '06' or die "unlock refused\n";
	$l = ask($B, '0b');
	if (index($l, $blob) < 0) { $stale++ } else { $ok++ }
}
print "ok=$ok stale=$stale\n";
EOP
unhide_key k1
run timeout 120 perl "$T/race.pl" "$MAIN" "$(blob_hex k1)" "ssh-add -q $T/keys/k1" 20
hide_key k1
is "$OUT" "ok=60 stale=0" "20 removes, locks and unlocks on A: B's next list never shows the old answer"

# A remove and a list in one write on one connection: the list is after
# the remove, wherever the answer comes from.
dest_add_ok kU
is "$(listed)" "$(fps k2 k1 kU)" "kU added"
is "$(listed)" "$(fps k2 k1 kU)" "and listed again"
run raw "$MAIN" "12$(str "$(blob_hex kU)")" 0b
like "$(printf '%s' "$OUT" | head -1)" '^06$' "pipelined remove: SUCCESS"
unlike "$(printf '%s' "$OUT" | tail -1)" "$(blob_hex kU)" "the list pipelined after it does not show kU"
dest_add_ok kU

# -------------------- (c) a forwarded host, a failed bind, a named socket
dest_add_ok kd -h scylla
want_local=$(fps k2 k1 kU kd)
is "$(listed)" "$want_local" "locally: every key, kd (for scylla only) too"
n0=$(is_keyward && hits)
is "$(listed)" "$want_local" "and again (the list answer holds kd)"
run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/kU" -A perseus ssh-add -l
is "$(printf '%s\n' "$OUT" | awk '{print $2}')" "$(fps k2 k1 kU)" \
    "forwarded to perseus: kd is not listed"
if is_keyward; then
	is "$(hits)" "$((n0 + 1))" "the forwarded list was not answered from the list answer"
else
	skip "keyward only: its debug log"
fi
# The attacker's order: a session-bind that fails and a list, in one write.
kd_blob=$(blob_hex kd)
bind_name=$(printf '%s' session-bind@openssh.com | od -An -tx1 -v | tr -d ' \n')
bad_bind=1b$(str "$bind_name")00000004deadbeef
is "$(listed)" "$want_local" "warm: the list answer holds kd"
# OpenSSH's agent hides constrained keys after a failed bind from 9.6 on
# (doc/protocol.md §7.4); Debian 12's 9.2 still lists them.
POISON=$(is_keyward && echo 1 || echo 0)
failed_bind_list() { # LIST-REPLY NAME
	if [ "$POISON" = 1 ]; then
		unlike "$1" "$kd_blob" "$2: kd is not listed"
	else
		contains "$1" "$kd_blob" "$2: OpenSSH 9.2 lists kd (it poisons from 9.6 on)"
	fi
}
run raw "$MAIN" "$bad_bind" 0b
like "$(printf '%s' "$OUT" | head -1)" '^(05|1c)$' "a malformed session-bind is refused"
failed_bind_list "$(printf '%s' "$OUT" | tail -1)" "the list pipelined after it"
like "$(printf '%s' "$OUT" | tail -1)" "^0c0000000$((POISON ? 3 : 4))" "and the keys for anywhere are"
# A bind that parses, with a signature that does not verify.
sid=$(printf '%064x' 7)
hk=$(blob_hex kU)
bad_sig=1b$(str "$bind_name")$(str "$hk")$(str "$sid")$(str 00000000)01
run raw "$MAIN" "$bad_sig" 0b 0b
like "$(printf '%s' "$OUT" | head -1)" '^(05|1c)$' "a session-bind with a bad signature is refused"
failed_bind_list "$(printf '%s' "$OUT" | sed -n 2p)" "the first list after it"
failed_bind_list "$(printf '%s' "$OUT" | sed -n 3p)" "the second"

# Not pipelined: each request waits for its reply, so the bind is over
# when the lists come.
cat >"$T/seq.pl" <<'EOP'
use strict; use warnings; use IO::Socket::UNIX;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => shift) or die "connect: $!\n";
for my $hex (@ARGV) {
	my $p = pack('H*', $hex);
	print $s pack('N', length $p) . $p; $s->flush;
	my $n = ''; read($s, $n, 4) == 4 or die "no reply\n";
	my $r = ''; read($s, $r, unpack('N', $n)) == unpack('N', $n) or die "short reply\n";
	print unpack('H*', $r), "\n";
}
EOP
is "$(listed)" "$want_local" "warm again"
run timeout 20 perl "$T/seq.pl" "$MAIN" "$bad_bind" 0b 0b
like "$(printf '%s' "$OUT" | head -1)" '^(05|1c)$' "a malformed session-bind, answered before anything else is sent"
failed_bind_list "$(printf '%s' "$OUT" | sed -n 2p)" "the list sent after its refusal"
failed_bind_list "$(printf '%s' "$OUT" | sed -n 3p)" "and the next"
run timeout 20 perl "$T/seq.pl" "$MAIN" "$bad_sig" 0b
like "$(printf '%s' "$OUT" | head -1)" '^(05|1c)$' "a session-bind with a bad signature, answered first"
failed_bind_list "$(printf '%s' "$OUT" | sed -n 2p)" "the list sent after its refusal"

if is_keyward; then
	DEPLOY=$MAIN.deploy
	is "$(SSH_AUTH_SOCK=$DEPLOY listed)" "$(fps k1)" "the deploy socket lists k1 alone"
	is "$(listed)" "$want_local" "the main socket all four"
	POL2=$(rules_file one-hop-2 "socket deploy" "allow socket deploy key comment k2@*")
	run "$KEYWARD_BUILD/keyward-ctl" policy load "$POL2"
	is "$RC" 0 "keyward-ctl policy load: the deploy socket lists k2 now"
	is "$(SSH_AUTH_SOCK=$DEPLOY listed)" "$(fps k2)" "the deploy socket's next list: k2 alone"
	is "$(listed)" "$want_local" "the main socket: all four still"
	is "$(listed)" "$want_local" "and again"
else
	skip_n 6 "keyward only: named sockets (keyward(5))"
fi
done_testing
