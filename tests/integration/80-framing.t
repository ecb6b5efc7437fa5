#!/bin/bash
# Hostile framing, spoken with rawclient.pl: zero-length and oversized frames
# close the connection without a reply, truncated frames do no harm, unknown
# types get SSH_AGENT_FAILURE, pipelined requests are answered in order,
# idle clients block nobody. After every case the agent still serves.
. "$(dirname "$0")/lib.sh"

gen_key k ed25519 || bail "ssh-keygen k"
# foreground (-D) so that the agent's log is shown if something fails
start_agent_fg "$T/agent.sock"
ok $? "agent started (-D)" || bail "agent did not start"
run ssh-add "$T/keys/k"
ok $RC "ssh-add k"
S=$SSH_AUTH_SOCK

healthy() { # NAME: agent still lists the key and still runs
	run timeout 10 ssh-add -l
	is "$RC:$OUT" "0:$(fp_line "$T/keys/k.pub")" "agent still serves after: $1"
}
# the list answer for exactly our one key
KEYBLOB_HEX=$(awk '{print $2}' "$T/keys/k.pub" | base64 -d | od -An -tx1 -v | tr -d ' \n')
LIST1=0c00000001$(printf '%08x' $((${#KEYBLOB_HEX} / 2)))$KEYBLOB_HEX$(hexstr "k@kwtest")

run raw "$S" 0b
is "$OUT" "$LIST1" "a well-formed list request gets the exact identities answer"

# --- zero-length frame
run raw -n 1 "$S" raw:00000000 0b
is "$OUT" "EOF" "zero-length frame: connection closed, no reply (not even to the request after it)"
healthy "zero-length frame"
run raw -t 2 "$S" raw:00000000
like "$OUT" '^(EOF|TIMEOUT)$' "zero-length header alone: no reply"
healthy "zero-length header alone"

# --- oversized frames
run raw -n 1 "$S" raw:00040001 0b
is "$OUT" "EOF" "length 262145: connection closed, no reply"
healthy "length 262145"
run raw -n 1 "$S" raw:ffffffff0b
is "$OUT" "EOF" "length 0xffffffff: connection closed, no reply"
healthy "length 0xffffffff"
run raw -n 1 "$S" pad:c8:262145 0b
is "$OUT" "EOF" "a complete 262145-byte frame: closed, no reply"
healthy "complete oversized frame"
run raw -t 30 "$S" pad:c8:262144 0b
is "$OUT" "05
$LIST1" "a 262144-byte frame (the maximum) is processed: FAILURE for its unknown type, then the next request"
healthy "maximum-size frame"

# --- truncated frames
run raw -n 0 "$S" raw:0000000a0b
ok $RC "truncated frame sent, then connection closed"
healthy "truncated frame then close"
run raw -n 0 "$S" raw:000000
healthy "truncated header then close"
run raw -n 0 "$S" raw:000000310d0000002000
healthy "truncated sign request then close"

# --- split frames are reassembled
run raw -b "$S" 0b
is "$OUT" "$LIST1" "a request written one byte at a time gets its reply"

# --- unknown and legacy types
for t in c8 01 03 07 08 0a 0f 10 18 1c ff; do
	run raw "$S" "$t"
	is "$OUT" "05" "type 0x$t gets SSH_AGENT_FAILURE"
done
healthy "unknown types"
run raw "$S" c8 01 03 07 18 0b
is "$OUT" "05
05
05
05
05
$LIST1" "unknown types leave the connection open (5 failures, then the list)"

# --- pipelining
run raw "$S" 0b c8 0b
is "$OUT" "$LIST1
05
$LIST1" "pipelined burst (11, 200, 11): three replies in order"

# --- garbage in well-framed requests: FAILURE, connection stays open
run raw "$S" 0d$(hexstr abc)$(hexstr data)00000000 0b
is "$OUT" "05
$LIST1" "sign request with a garbage key blob: FAILURE, connection stays open"
run raw "$S" 0d000000ff00 0b
is "$OUT" "05
$LIST1" "sign request with a string overrunning the message: FAILURE, connection open"
run raw "$S" 0d 0b
is "$OUT" "05
$LIST1" "sign request with no fields: FAILURE, connection open"
run raw "$S" 12$(hexstr nokey) 0b
is "$OUT" "05
$LIST1" "remove of a garbage key blob: FAILURE, connection open"
run raw "$S" 11$(hexstr ssh-ed25519)0000 0b
is "$OUT" "05
$LIST1" "truncated add request: FAILURE, connection open"
run raw "$S" 1b000000ff 0b
is "$OUT" "05
$LIST1" "extension with an unparsable name: FAILURE"
run raw "$S" 1b$(hexstr nope@example.com) 0b
is "$OUT" "05
$LIST1" "unknown extension: FAILURE"
healthy "garbage requests"

# --- type 9 is remove-all (legacy) and succeeds
run raw "$S" 09
is "$OUT" "06" "type 9 gets SSH_AGENT_SUCCESS"
run ssh-add -l
is "$RC" 1 "type 9 removed every key"
run ssh-add "$T/keys/k"
ok $RC "key re-added"

# --- idle clients block nobody
rm -f "$T/idle.flag"
perl "$RAWCLIENT" -n 0 -i 60 -s "$T/idle.flag" "$S" >/dev/null 2>&1 &
idle1=$!
perl "$RAWCLIENT" -n 0 -i 60 "$S" raw:000000 >/dev/null 2>&1 &
idle2=$!
EXTRA_PIDS+=("$idle1" "$idle2")
for i in $(seq 1 20); do perl "$RAWCLIENT" -n 0 -i 60 "$S" >/dev/null 2>&1 & EXTRA_PIDS+=($!); done
poll_until 10 test -e "$T/idle.flag"
ok $? "idle clients connected"
healthy "22 idle clients connected (one with half a header)"
run timeout 10 ssh-add -T "$T/keys/k.pub"
is "$RC" 0 "signing works while idle clients hang around"
pid_alive "$idle1" && pid_alive "$idle2"
ok $? "idle clients still connected"
kill "${EXTRA_PIDS[@]}" 2>/dev/null
healthy "idle clients went away"

# A pipeline far longer than any in-flight limit, in one write: every
# request is answered, in order, though no further byte arrives to wake
# the agent for the frames it already holds.
run raw -t 20 "$S" $(printf '0b %.0s' $(seq 1 1000))
is "$(printf '%s\n' "$OUT" | grep -cx "$LIST1")" 1000 "1000 LIST requests in one write: 1000 answers"
run raw -t 20 "$S" $(printf 'c8 %.0s' $(seq 1 100)) 0b
is "$(printf '%s\n' "$OUT" | grep -cx 05)" 100 "100 unknown requests and a LIST in one write: 100 FAILUREs"
is "$(printf '%s\n' "$OUT" | tail -n 1)" "$LIST1" "and then the LIST's answer, in order"
healthy "long pipelines"

# --- keyward-only: behaviour the 9.2 agent does not have
if is_keyward; then
	# 9.2 (and 10.5) exit on an unparsable LOCK; keyward answers FAILURE
	run raw "$S" 16 0b
	is "$OUT" "05
$LIST1" "unparsable LOCK: FAILURE, agent and connection survive"
	run raw "$S" 17 0b
	is "$OUT" "05
$LIST1" "unparsable UNLOCK: FAILURE"
	healthy "unparsable lock/unlock"
	# query extension (10.3+)
	# query extension (10.3+): 29, "query", then one string per name
	run raw "$S" 1b$(hexstr query) 0b
	q=$(printf '%s\n' "$OUT" | sed -n 1p)
	names=$(perl -e '$_ = pack("H*", shift); exit 1 unless s/^\x1d\0\0\0\x05query//;
		while (length) { my $n = unpack("N", $_); exit 1 if $n + 4 > length; print substr($_, 4, $n), "\n"; substr($_, 0, 4 + $n) = "" }' "$q")
	ok $? "query extension: reply 29 \"query\" followed by well-formed name strings (got: $(echo $names))"
	is "$(printf '%s\n' "$OUT" | sed -n 2p)" "$LIST1" "query: no stray reply follows (next request answered next)"
else
	skip_n 5 "not keyward"
fi

pid_alive "$AGENT_FG_PID"
ok $? "the agent process survived everything"
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"
done_testing
