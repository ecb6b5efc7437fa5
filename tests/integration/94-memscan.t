#!/bin/bash
# Nothing in the keyholder's memory gives a key away. Three keys (Ed25519,
# ECDSA P-256, RSA 3072) are loaded and each signs; then, between
# signatures, none of their private values (the Ed25519 seed, the ECDSA
# scalar, RSA's d, p and q) is in the keyholder's writable memory, neither
# in wire order nor byte-reversed (OpenSSL's BIGNUMs hold little-endian
# limbs). While locked, neither they nor the prekey they were sealed under
# are there (keys are re-sealed under the passphrase, the prekey renewed).
# The scan shows it works by finding what must be there: each key's public
# bytes (the keyholder keeps them in the clear) and the current prekey,
# whose start the test build (build-testing/, never installed) logs.
# The monitor: a client that sends part of an ADD and goes leaves none of
# its bytes behind (the scan sees them while the frame waits). Run as
# root: it reads /proc/PID/maps and /proc/PID/mem of both.
. "$(dirname "$0")/lib.sh"

TB=${KEYWARD_TESTING_BUILD:-$(dirname "$AGENT")/../build-testing}
NTESTS=21
if ! is_keyward || [ ! -x "$TB/keyward" ] || [ "$(id -u)" != 0 ]; then
	skip_n $NTESTS "needs keyward, its test build (make TESTING=1) and root"
	done_testing
fi
scan() { perl "$REPO/tests/tools/memscan.pl" "$KH" "$@"; }
found() { grep -c ' found$' || true; }
# none NEEDLE...: the scan ran and reported every needle absent
none() { local out; out=$(scan "$@"); [ "$(grep -c ' absent$' <<<"$out")" = $# ] || { diag "$out"; return 1; }; }
prekeys() { sed -n 's/.*test build: prekey begins \([0-9a-f]*\).*/\1/p' "$T/agent.log"; }
reversed() { perl -e 'print join(" ", map { unpack("H*", scalar reverse pack("H*", $_)) } @ARGV)' "$@"; }

AGENT=$TB/keyward start_agent_fg "$T/agent.sock"
ok $? "test-build agent started" || bail "agent did not start"
find_kh() {
	KH=$(for c in $(children "$AGENT_FG_PID"); do
		[ "$(cat /proc/$c/comm 2>/dev/null)" = keyward-keyhold ] && echo "$c"; done | head -n 1)
	[ -n "$KH" ]
}
poll_until 10 find_kh       # the socket may be there before its exec
find_kh
ok $? "the keyholder is running (pid $KH)" || bail "no keyholder to scan"
gen_key ed ed25519 && gen_key ec ecdsa 256 && gen_key rsa rsa 3072
run ssh-add "$T/keys/ed" "$T/keys/ec" "$T/keys/rsa"
ok $RC "Ed25519, ECDSA and RSA keys added"
secrets=$(for k in ed ec rsa; do perl "$REPO/tests/tools/keyparts.pl" "$T/keys/$k" | sed -n 1p; done)
pubs=$(for k in ed ec rsa; do perl "$REPO/tests/tools/keyparts.pl" "$T/keys/$k" | sed -n 2p; done)
# shellcheck disable=SC2086 # lists of hex words
all_secrets="$secrets $(reversed $secrets)"
is "$(wc -w <<<"$all_secrets")" 10 "5 private values, each in both byte orders"
sigs=0
for k in ed ec rsa; do run ssh-add -T "$T/keys/$k.pub" && sigs=$((sigs + 1)); done
is "$sigs" 3 "each key signs"
P1=$(prekeys | tail -n 1)

# Secret memory (the receive buffer, libcrypto's secure heap: writable and
# kept out of core dumps) is locked page by page as it is first touched
# (MLOCK_ONFAULT), not resident all at once: every page that holds a byte
# is locked, so none can reach swap.
secmaps() { # "resident locked" of each writable mapping marked dd
	awk '/^[0-9a-f]+-/ { w = ($2 ~ /^rw/) } /^Rss:/ { r = $2 } /^Locked:/ { l = $2 }
	     /^VmFlags:/ && w && / dd( |$)/ { print r, l }' "/proc/$KH/smaps"
}
SM=$(secmaps)
like "$SM" '^[1-9][0-9]* ' "the keyholder has secret memory in use after the adds ($(echo $SM))"
is "$(awk '$1 != $2' <<<"$SM")" "" "every resident page of its secret memory is locked"

# shellcheck disable=SC2086
{
contains "$(scan "$P1")" "$P1 found" "unlocked: the scan finds the current prekey (so it works)"
is "$(scan $pubs | found)" 3 "unlocked: the scan finds all three keys' public bytes"
none $all_secrets
ok $? "unlocked, between signatures: no private value in memory"
}

printf '#!/bin/sh\necho scan-passphrase\n' >"$T/pass.sh"; chmod 755 "$T/pass.sh"
run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -x
ok $RC "locked"
poll_until 5 sh -c "[ \$(sed -n 's/.*test build: prekey begins //p' '$T/agent.log' | wc -l) -ge 2 ]"
P2=$(prekeys | tail -n 1)
ok "$([ -n "$P2" ] && [ "$P2" != "$P1" ] && echo 0 || echo 1)" "locking renewed the prekey"
# shellcheck disable=SC2086
{
none "$P1" $all_secrets
ok $? "locked: neither the private values nor the old prekey are in memory"
is "$(scan $pubs | found)" 3 "locked: the public bytes still are (the scan still sees the keys)"
}

run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -X
ok $RC "unlocked"
sigs=0
for k in ed ec rsa; do run ssh-add -T "$T/keys/$k.pub" && sigs=$((sigs + 1)); done
is "$sigs" 3 "and each key signs again"
# shellcheck disable=SC2086
{
contains "$(scan "$P2")" "$P2 found" "after unlock: the scan finds the current prekey"
none $all_secrets
ok $? "after unlock: still no private value in memory"
}

# The monitor reads a frame into the connection's inline buffer until it
# is whole. A client that sends the start of an ADD (a private key's
# bytes, here random) and goes must leave none of them there: the buffer
# is wiped over every byte it ever held, not only over whole frames.
NEEDLE=$(od -An -tx1 -N48 /dev/urandom | tr -d ' \n')
perl "$RAWCLIENT" -t 3 -s "$T/sent" "$SSH_AUTH_SOCK" \
	"raw:0000010011$NEEDLE" >"$T/raw.out" 2>&1 &
RAW=$!
poll_until 5 test -e "$T/sent"
mscan() { perl "$REPO/tests/tools/memscan.pl" "$AGENT_FG_PID" "$@"; }
sees_partial() { mscan "$NEEDLE" | grep -q ' found$'; }
poll_until 2 sees_partial
ok $? "monitor: the scan finds a partial ADD's bytes while the frame waits"
wait "$RAW"
is "$(cat "$T/raw.out")" TIMEOUT "the partial frame got no answer; the client went"
partial_gone() { mscan "$NEEDLE" | grep -q ' absent$'; }
poll_until 5 partial_gone
ok $? "monitor: once its client went, none of the partial frame's bytes is left"
done_testing
