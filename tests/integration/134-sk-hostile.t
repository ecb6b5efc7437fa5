#!/bin/bash
# A FIDO token that is slow, never answers, or waits for a PIN must not
# stop the agent serving its other clients (the agent
# never blocks). This is keyward's promise beyond ssh-agent: OpenSSH 9.2's agent
# signs with a FIDO key synchronously (ssh-sk-helper, then askpass for a
# PIN) and serves nobody meanwhile, and has no limit on a touch that never
# comes. Against ssh-agent the keyward-only assertions are skipped and
# what ssh-agent did is printed as a note. Timings are never asserted,
# only order: the other client finished while the slow one still waited.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-sk.sh"

sk_askpass
sk_key slow ed25519-sk
gen_key plain ed25519 || bail "ssh-keygen plain"
echo "signed by an ordinary key" >"$T/plaindata"

# token_busy: a process of this agent (its signer) has the middleware
# mapped. Only the agent's own tree: other test files running meanwhile
# load the same middleware.
token_busy() {
	local p
	for p in $(descendants "$AGENT_FG_PID"); do
		grep -qsF "$SO" "/proc/$p/maps" && return 0
	done
	return 1
}

# bg_sign NAME: ssh-keygen -Y sign of $T/data with NAME in the background,
# output in $T/bg.out, signature $T/data.sig; sets BG
bg_sign() {
	rm -f "$T/data.sig"
	timeout 60 ssh-keygen -Y sign -f "$T/keys/$1.pub" -n file "$T/data" \
		</dev/null >"$T/bg.out" 2>&1 &
	BG=$!
	EXTRA_PIDS+=("$BG")
}

plain_sign() { # an ordinary ed25519 signature, bounded
	rm -f "$T/plaindata.sig"
	run timeout 20 ssh-keygen -Y sign -f "$T/keys/plain.pub" -n file "$T/plaindata" </dev/null
	[ "$RC" = 0 ] && [ -s "$T/plaindata.sig" ]
}

add_both() { # both keys into the agent, their private halves hidden after
	[ -e "$T/hidden/plain" ] && unhide_key plain
	run ssh-add "$T/keys/plain" </dev/null
	ok $RC "ssh-add plain (ed25519)"
	hide_key plain
	sk_add slow
	ok $RC "ssh-add -S provider slow (ed25519-sk)"
	[ -e "$T/keys/slow" ] && hide_key slow
}

# other_clients LABEL: ssh-add -l and an ordinary signature while the
# background signature waits; keyward must answer both before it is done.
other_clients() {
	local label=$1 l_rc l_out l_alive p_ok p_alive
	run timeout 20 ssh-add -l
	l_rc=$RC l_out=$OUT
	pid_alive "$BG" && l_alive=1 || l_alive=0
	plain_sign && p_ok=1 || p_ok=0
	pid_alive "$BG" && p_alive=1 || p_alive=0
	if is_keyward; then
		is "$l_rc" 0 "$label: another client's ssh-add -l is answered"
		contains "$l_out" "$(fp_line "$T/keys/slow.pub")" "$label: it lists the sk key"
		is "$l_alive" 1 "$label: ... while the sk signature is still pending"
		is "$p_ok" 1 "$label: a signature with an ordinary ed25519 key is made"
		is "$p_alive" 1 "$label: ... while the sk signature is still pending"
	else
		diag "note: ssh-agent 9.2, $label: ssh-add -l status $l_rc" \
			"($([ $l_alive = 1 ] && echo 'before the sk signature finished' || echo 'only after the sk signature finished')," \
			"ordinary signature $([ $p_ok = 1 ] && echo made || echo 'not made')" \
			"$([ $p_alive = 1 ] && echo 'before it finished' || echo 'after it finished'))"
		skip_n 5 "ssh-agent 9.2 serves nobody while a FIDO signature is pending"
	fi
}

# --- a slow touch (5 s)
KWSK_TEST_WAIT_MS=5000 sk_agent_fg
add_both
bg_sign slow
# the middleware is loaded only to sign: wait until it is, then a moment
poll_until 10 token_busy || sleep 1
sleep 0.3
pid_alive "$BG"
ok $? "the sk signature waits for the slow token"
other_clients "slow touch"
wait "$BG"
is $? 0 "the slow sk signature completes"
[ -s "$T/data.sig" ]
ok $? "and is written"
sk_verify slow
ok $RC "and verifies"
run timeout 20 ssh-add -l
is "$(count_ids)" 2 "the agent still lists both keys"
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"
mv "$T/agent.log" "$T/agent-slow.log.old"

# --- a touch that never comes: keyward gives up after -O touch-timeout
if is_keyward; then
	KWSK_TEST_WAIT_MS=600000 sk_agent_fg -O touch-timeout=2
	add_both
	run timeout 30 ssh-keygen -Y sign -f "$T/keys/slow.pub" -n file "$T/data" </dev/null
	[ "$RC" != 0 ] && [ "$RC" != 124 ]
	ok $? "a touch that never comes: the signature is refused (before the 30 s bound)"
	contains "$ERR" "agent refused operation" "ssh-keygen reports the agent's refusal"
	poll_until 5 grep -qiE 'touch|timed? ?out' "$T/agent.log"
	ok $? "the agent logged the refusal (a line naming the touch or the timeout)"
	grep -iE 'touch|timed? ?out' "$T/agent.log" | head -n 3 | sed 's/^/# log: /'
	poll_until 10 not token_busy
	ok $? "no process keeps the middleware loaded (the waiting signer is gone)"
	pid_alive "$AGENT_FG_PID"
	ok $? "the agent is still running"
	run timeout 20 ssh-add -l
	is "$RC" 0 "it answers ssh-add -l"
	is "$(count_ids)" 2 "and still lists both keys"
	plain_sign
	ok $? "an ordinary ed25519 signature after the timeout"
	stop_pid "$AGENT_FG_PID"
	ok $? "agent stopped"
	mv "$T/agent.log" "$T/agent-timeout.log.old"
else
	diag "note: ssh-agent 9.2 has no limit on a touch: with a token that never answers it waits (and serves nobody) until the token does"
	skip_n 12 "ssh-agent 9.2 has no touch timeout (keyward's -O touch-timeout)"
fi

# --- a PIN prompt left open: the agent asks through askpass, which waits
KWSK_TEST_PIN=4711 sk_agent_fg
add_both
echo 4711 >"$T/pin"
: >"$T/pin.block"
rm -f "$T/pin.release" "$T/askpass.waiting"
bg_sign slow
poll_until 15 test -e "$T/askpass.waiting"
ok $? "the agent asks for the PIN (askpass is waiting)"
if is_keyward; then
	other_clients "PIN prompt open"
else
	# bounded: ssh-agent 9.2 reads the PIN in its only process
	run timeout 3 ssh-add -l
	diag "note: ssh-agent 9.2 with a PIN prompt open: ssh-add -l (bounded to 3 s) ended with status $RC$([ "$RC" = 124 ] && echo ': it was still waiting')"
	skip_n 5 "ssh-agent 9.2 serves nobody while it asks for a PIN"
fi
: >"$T/pin.release"
wait "$BG"
is $? 0 "once the PIN is given the sk signature completes"
sk_verify slow
ok $RC "and verifies"
rm -f "$T/pin.block"
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"

# --- one connection cannot hold every token helper: three signatures
# pipelined on one connection to a slow token; keyward takes two to the
# token (TOKEN_MAX_PER_CONN) and refuses the third. Replies keep request
# order, so the refusal is read third.
if is_keyward; then
	KWSK_TEST_WAIT_MS=3000 sk_agent
	sk_add slow
	ok $RC "ssh-add -S provider slow (a token that takes 3 s)"
	blob=$(cut -d' ' -f2 "$T/keys/slow.pub" | base64 -d | od -An -v -tx1 | tr -d ' \n')
	len=$(printf '%08x' $(( ${#blob} / 2 )))
	req="0d${len}${blob}0000000474657374""00000000"
	run perl "$RAWCLIENT" -t 30 "$SSH_AUTH_SOCK" "$req" "$req" "$req"
	mapfile -t r <<<"$OUT"
	like "${r[0]}" '^0e' "first of three pipelined signatures: signed"
	like "${r[1]}" '^0e' "second: signed (two may wait on the token at once)"
	is "${r[2]}" "05" "third: refused, SSH_AGENT_FAILURE"
	stop_agent
else
	skip_n 4 "ssh-agent 9.2 runs one FIDO signature at a time; no per-client limit"
fi

done_testing
