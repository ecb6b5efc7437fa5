#!/bin/bash
# Nothing in the keyholder's memory gives a key away: between signatures
# no private seed is there in the clear (keys are kept sealed under the
# prekey); while locked neither the seeds nor the prekey they were sealed
# under are there (the keys are sealed under the passphrase, the prekey is
# renewed). The scan shows it works by finding what must be there: each
# key's public bytes (the keyholder keeps them in the clear) and the
# current prekey, whose start the test build (build-testing/, never
# installed) logs. Run as root: it reads /proc/PID/mem of the keyholder.
. "$(dirname "$0")/lib.sh"

TB=${KEYWARD_TESTING_BUILD:-$(dirname "$AGENT")/../build-testing}
NTESTS=14
if ! is_keyward || [ ! -x "$TB/keyward" ] || [ "$(id -u)" != 0 ]; then
	skip_n $NTESTS "needs keyward, its test build (make TESTING=1) and root"
	done_testing
fi
scan() { perl "$LIBDIR/memscan.pl" "$KH" "$@"; }
prekeys() { sed -n 's/.*test build: prekey begins \([0-9a-f]*\).*/\1/p' "$T/agent.log"; }

AGENT=$TB/keyward start_agent_fg "$T/agent.sock"
ok $? "test-build agent started" || bail "agent did not start"
KH=$(for c in $(children "$AGENT_FG_PID"); do
	[ "$(cat /proc/$c/comm)" = keyward-keyhold ] && echo "$c"; done | head -n 1)
ok "$([ -n "$KH" ] && echo 0 || echo 1)" "the keyholder is running (pid $KH)"
gen_key a ed25519 && gen_key b ed25519
run ssh-add "$T/keys/a" "$T/keys/b"
ok $RC "two Ed25519 keys added"
seeds=$(for k in a b; do perl "$LIBDIR/edseed.pl" "$T/keys/$k" | sed -n 1p; done)
pubs=$(for k in a b; do perl "$LIBDIR/edseed.pl" "$T/keys/$k" | sed -n 2p; done)
run ssh-add -T "$T/keys/a.pub"
ok $RC "a signature is made"
P1=$(prekeys | tail -n 1)

out=$(scan "$P1" $seeds)
contains "$out" "$P1 found" "unlocked: the scan finds the current prekey (so it works)"
out_pub=$(scan $pubs)
is "$(grep -c ' found' <<<"$out_pub")" 2 "unlocked: the scan finds both keys' public bytes"
is "$(grep -c ' found' <<<"$out")" 1 "unlocked, between signatures: no private seed in the clear"
[ "$(grep -c ' found' <<<"$out")" = 1 ] || diag "$out"

printf '#!/bin/sh\necho scan-passphrase\n' >"$T/pass.sh"; chmod 755 "$T/pass.sh"
run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -x
ok $RC "locked"
poll_until 5 sh -c "[ \$(sed -n 's/.*test build: prekey begins //p' '$T/agent.log' | wc -l) -ge 2 ]"
P2=$(prekeys | tail -n 1)
ok "$([ -n "$P2" ] && [ "$P2" != "$P1" ] && echo 0 || echo 1)" "locking renewed the prekey"
out=$(scan "$P1" $seeds)
is "$(grep -c ' found' <<<"$out")" 0 "locked: neither the seeds nor the prekey they were sealed under are in memory"
[ "$(grep -c ' found' <<<"$out")" = 0 ] || diag "$out"
is "$(scan $pubs | grep -c ' found')" 2 "locked: the public bytes still are (the scan still sees the keys)"

run env SSH_ASKPASS="$T/pass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -X
ok $RC "unlocked"
run ssh-add -T "$T/keys/b.pub"
ok $RC "and signs again"
out=$(scan "$P2" $seeds)
ok "$(grep -q "$P2 found" <<<"$out" && [ "$(grep -c ' found' <<<"$out")" = 1 ]; echo $?)" \
	"after unlock: the prekey is found again, the seeds still are not"
done_testing
