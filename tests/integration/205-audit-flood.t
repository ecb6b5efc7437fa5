#!/bin/bash
# check: serial (100,000 requests while the user's signatures must still be made and recorded)
# The audit trail cannot be flooded: a raw client sends 100,000 sign
# requests the agent refuses (a key it does not hold), pipelined on one
# connection, while the user signs; the trail gains at most the bound
# keyward(1) states for one origin's refusals of one kind (2 lines per
# AUDIT_COALESCE_WINDOW_S window, 10 s: one whole, one count), every refusal is
# accounted for (recorded whole, or counted in a "repeated" record), and
# every signature the user made has its own record. The same for 100,000
# listings (allowed, but as free to ask). (keyward only.)
. "$(dirname "$0")/lib.sh"

NTESTS=11
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
A=$T/trail
WINDOW=10 FLOOD=100000

gen_key k ed25519
gen_key stranger ed25519
start_agent -O audit="$A"
ok $? "agent started with -O audit=$A" || bail "agent did not start"
run ssh-add "$T/keys/k"
ok $RC "the user's key is added"

PIPELINE=$REPO/tests/tools/pipeline.pl
t0=$(date +%s)
perl "$PIPELINE" "$SSH_AUTH_SOCK" "$FLOOD" sign "$T/keys/stranger.pub" >"$T/flood.out" 2>&1 &
FLOOD_PID=$!
EXTRA_PIDS+=("$FLOOD_PID")
USER_SIGNS=0
while pid_alive "$FLOOD_PID"; do
	ssh-add -T "$T/keys/k.pub" >/dev/null 2>&1 && USER_SIGNS=$((USER_SIGNS + 1))
	[ "$USER_SIGNS" -ge 200 ] && break
done
wait "$FLOOD_PID"
t1=$(date +%s)
# The listings' flood (checked below) runs while the refusals' last
# window closes: waiting for that window first left the agent idle.
LT0=$(date +%s)
perl "$PIPELINE" "$SSH_AUTH_SOCK" "$FLOOD" list >"$T/lflood.out" 2>"$T/lflood.err" &
LFLOOD_PID=$!
EXTRA_PIDS+=("$LFLOOD_PID")
is "$(cut -d' ' -f1,2 "$T/flood.out")" "$FLOOD $FLOOD" "all $FLOOD requests were answered, each refused"
diag "the user signed $USER_SIGNS times during the flood, which took $((t1 - t0)) s"
ok "$([ "$USER_SIGNS" -ge 1 ] && echo 0 || echo 1)" "the user could sign during the flood"

# Every window closes within WINDOW seconds; then every refusal is in.
counted() {
	jq -s '[.[] | select(.decision == "refuse") | (.repeated // 1)] | add // 0' "$A"
}
all_in() { [ "$(counted)" -ge "$FLOOD" ]; }
poll_until $((WINDOW + 10)) all_in
is "$(counted)" "$FLOOD" "every refusal is accounted for: recorded whole or counted"
lines=$(jq -c 'select(.decision == "refuse")' "$A" | wc -l)
t2=$(date +%s)
bound=$((2 * ((t2 - t0 + WINDOW - 1) / WINDOW + 1)))
diag "refusal lines: $lines (bound for $((t2 - t0)) s: $bound)"
ok "$([ "$lines" -le "$bound" ] && echo 0 || echo 1)" "$lines refusal lines: within the bound ($bound)"
is "$(jq -c 'select(.event == "sign" and .decision == "allow")' "$A" | wc -l)" \
	"$USER_SIGNS" "each of the user's $USER_SIGNS signatures has its own record"

# Listings are allowed, and as cheap to ask: coalesced alike.
t0=$LT0
wait "$LFLOOD_PID"
is "$(cut -d' ' -f1,2 "$T/lflood.out")" "$FLOOD $FLOOD" "$FLOOD listings answered"
listed() {
	jq -s '[.[] | select(.event == "list") | (.repeated // 1)] | add // 0' "$A"
}
lists_in() { [ "$(listed)" -ge "$FLOOD" ]; }
poll_until $((WINDOW + 10)) lists_in
is "$(listed)" "$FLOOD" "every listing is accounted for"
lines=$(jq -c 'select(.event == "list")' "$A" | wc -l)
t2=$(date +%s)
bound=$((2 * ((t2 - t0 + WINDOW - 1) / WINDOW + 1)))
ok "$([ "$lines" -le "$bound" ] && echo 0 || echo 1)" "$lines listing lines: within the bound ($bound)"
stop_agent
ok $? "agent stopped"
done_testing
