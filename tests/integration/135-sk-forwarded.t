#!/bin/bash
# One forwarded host may not take the token helpers or the prompts from the
# user's own clients. Played with the real ssh -A: on
# hostA NFLOOD ssh-keygen -Y sign with a FIDO key run at once, each on its
# own forwarded agent connection (bound first to hostA with the forwarding
# flag by the user's ssh).
#  - A slow token (5 s a signature): hostA gets at most TOKEN_MAX_PER_HOP
#    (2) token helpers, the rest are refused at once; the user's local
#    signature with the same token gets a helper and is made (on main
#    ac32426 hostA held all TOKEN_MAX_HELPERS, 8, and the local one was
#    refused: "8 token helpers are running").
#  - A token that wants a PIN, the askpass holding every PIN prompt open:
#    hostA has at most PROMPT_MAX_PER_HOP (2) PIN prompts open, the others
#    wait (or are refused); the user's own -c key still gets its confirm
#    prompt and signs (on main hostA's PIN prompts filled all
#    PROMPT_MAX_CONCURRENT, 16, and the confirm prompt was refused). The
#    PIN prompt says what the confirm prompt says: forwarded, the path, the
#    key's fingerprint, SSHSIG namespace "file".
# Stock ssh-agent signs with a FIDO key synchronously, one client at a
# time, so a flood delays the user rather than refusing; keyward only.
# Not serial: the helpers counted are its own agent's descendants and the
# prompts those of its own askpass log; the slow token's 5 s a signature
# keeps hostA's flood waiting however busy the machine is (it passed on a
# machine loaded 12 processes deep on 2 cores).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-sk.sh"
. "$LIBDIR/lib-dest.sh"

is_keyward || { skip "keyward only: ssh-agent serves one FIDO signature at a time"; done_testing; }

NFLOOD=8
TOKEN_MAX_PER_HOP=2
PROMPT_MAX_PER_HOP=2
PROMPT_MAX_CONCURRENT=16

dest_hosts hostA hostB hostC
sk_askpass
sk_key tok ed25519-sk
gen_key k ed25519 || bail "ssh-keygen k"
cat "$T/keys/k.pub" >>"$T/authorized_keys"
gen_key conf ed25519 || bail "ssh-keygen conf"

add_keys() {
	run ssh-add "$T/keys/k" </dev/null
	ok $RC "ssh-add k (the login key for hostA)"
	sk_add tok
	ok $RC "ssh-add -S provider tok (ed25519-sk)"
}

# flood N [HOST]: on HOST (hostA), through ssh -A, N ssh-keygen -Y sign
# with tok at once; each writes its exit status to $T/fl.rc.HOST.I. In the
# background (FLOOD). fl_clear first removes what earlier floods left.
fl_clear() { rm -f "$T"/fl.*; }
flood() {
	local n=$1 h=${2:-hostA}
	for i in $(seq "$n"); do echo "flood $h $i" >"$T/fl.d.$h.$i"; done
	local cmd="i=1; while [ \$i -le $n ]; do (ssh-keygen -Y sign -f $(printf %q "$T/keys/tok.pub") -n file $(printf %q "$T/fl.d.$h.")\$i </dev/null >/dev/null 2>&1; echo \$? >$(printf %q "$T/fl.rc.$h.")\$i) & i=\$((i + 1)); done; wait"
	timeout 120 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/k" -A "$h" "$cmd" \
		>"$T/flood.$h.out" 2>&1 &
	FLOOD=$!
	EXTRA_PIDS+=("$FLOOD")
}
ended() { ls "$T"/fl.rc.* 2>/dev/null | wc -l; }
made() { cat "$T"/fl.rc.* 2>/dev/null | grep -cx 0; }
# token helpers the agent runs now
helpers() {
	local p n=0
	for p in $(descendants "$AGENT_FG_PID"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = keyward-sk ] && n=$((n + 1))
	done
	echo "$n"
}

# --- token helpers: a slow token
KWSK_TEST_WAIT_MS=5000 sk_agent_fg
add_keys
fl_clear
flood "$NFLOOD"
# every signature of hostA's has either a helper or its answer
all_placed() { [ $(($(helpers) + $(ended))) -ge "$NFLOOD" ]; }
poll_until 60 all_placed
ok $? "hostA's $NFLOOD signatures each hold a token helper or were answered"
seen=$(helpers)
diag "token helpers running for hostA: $seen; hostA's signatures answered: $(ended)"
ok $(( seen <= TOKEN_MAX_PER_HOP ? 0 : 1 )) "hostA holds at most TOKEN_MAX_PER_HOP ($TOKEN_MAX_PER_HOP) token helpers (holds $seen)"
sk_sign tok
ok $? "meanwhile the user's local signature with the token gets a helper and is made"
sk_verify tok
ok $RC "and it verifies"
wait "$FLOOD"
ok $? "the ssh -A session on hostA ended"
m=$(made)
diag "hostA's signatures made: $m of $NFLOOD"
ok $(( m >= 1 && m < NFLOOD ? 0 : 1 )) "some of hostA's signatures were made ($m), the others refused"
like "$(cat "$T/agent.log")" "the host it is forwarded from already has as many token signatures waiting as one host may" \
	"the refusals are logged"
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"

# --- three forwarding hosts, each within its own share, may not take
# every helper together: at most TOKEN_MAX_FORWARDED (4) for all of them
TOKEN_MAX_FORWARDED=4
KWSK_TEST_WAIT_MS=5000 sk_agent_fg
add_keys
fl_clear
FLOODS=()
for h in hostA hostB hostC; do flood 3 "$h"; FLOODS+=("$FLOOD"); done
all_placed() { [ $(($(helpers) + $(ended))) -ge 9 ]; }
poll_until 60 all_placed
ok $? "the 9 signatures of hostA, hostB, hostC each hold a token helper or were answered"
seen=$(helpers)
diag "token helpers running for the three hosts: $seen; answered: $(ended)"
ok $(( seen <= TOKEN_MAX_FORWARDED ? 0 : 1 )) "forwarded clients hold at most TOKEN_MAX_FORWARDED ($TOKEN_MAX_FORWARDED) token helpers (hold $seen)"
sk_sign tok
ok $? "meanwhile the user's local signature with the token is made"
for f in "${FLOODS[@]}"; do wait "$f"; done
like "$(cat "$T/agent.log")" "forwarded clients already have as many token signatures waiting as they may" \
	"a refusal for all forwarding hosts together is logged"
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"

# --- PIN prompts: every PIN prompt is held open until released
echo 4711 >"$T/pin"
echo yes >"$T/confirm.mode"
: >"$T/pin.block"
rm -f "$T/pin.release" "$T/askpass.waiting"
: >"$T/askpass.log"
KWSK_TEST_PIN=4711 sk_agent_fg
add_keys
run ssh-add -c "$T/keys/conf" </dev/null
ok $RC "ssh-add -c conf (the user's own confirm key)"
hide_key conf
NPIN=$PROMPT_MAX_CONCURRENT
fl_clear
flood "$NPIN"
pins() { grep -c $'^ask\t.*PIN' "$T/askpass.log" 2>/dev/null; }
waits() { grep -c 'its PIN prompt waits' "$T/agent.log" 2>/dev/null; }
# each of hostA's requests has its PIN prompt, waits for one, or was answered
pins_placed() { [ $(($(pins) + $(waits) + $(ended))) -ge "$NPIN" ]; }
poll_until 60 pins_placed
ok $? "hostA's $NPIN signatures each have a PIN prompt, wait for one, or were answered"
diag "PIN prompts open: $(pins); waiting: $(waits); answered: $(ended)"
ok $(( $(pins) <= PROMPT_MAX_PER_HOP ? 0 : 1 )) "at most PROMPT_MAX_PER_HOP ($PROMPT_MAX_PER_HOP) PIN prompts for hostA are open ($(pins))"
echo "data for the confirm key" >"$T/cdata"
run timeout 30 ssh-keygen -Y sign -f "$T/keys/conf.pub" -n file "$T/cdata" </dev/null
ok $RC "meanwhile the user's -c key gets its confirm prompt and signs"
is "$(askpass_calls confirm)" 1 "the confirm prompt was shown"
prompt=$(grep -m1 $'^ask\t.*PIN' "$T/askpass.log")
diag "hostA's PIN prompt: $prompt"
contains "$prompt" "The request comes through a forwarded agent." "the PIN prompt says the request is forwarded"
contains "$prompt" "Path: origin -> " "... names the path"
contains "$prompt" "(forwarding)" "... and its forwarding hop"
contains "$prompt" "Key fingerprint $(fp "$T/keys/tok.pub")." "... the key"
contains "$prompt" 'An SSHSIG signature (namespace "file")' "... and what is signed"
contains "$prompt" "Enter PIN for sk-ssh-ed25519@openssh.com key tok@kwtest:" "and asks for the PIN last"
: >"$T/pin.release"
wait "$FLOOD"
ok $? "the ssh -A session on hostA ended once the PIN prompts were answered"
m=$(made)
diag "hostA's signatures made: $m of $NPIN"
ok $(( m >= PROMPT_MAX_PER_HOP ? 0 : 1 )) "hostA's PIN prompts were answered and at least $PROMPT_MAX_PER_HOP signed ($m; the others found the token helpers of hostA taken and were refused)"
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"
done_testing
