#!/bin/bash
# Lock / unlock (ssh-add -x / -X). The passphrase reaches ssh-add through
# SSH_ASKPASS (SSH_ASKPASS_REQUIRE=force), read from $T/pass.
# keyward-only: a connection waiting for its delayed unlock failure does not
# hold up other clients.
. "$(dirname "$0")/lib.sh"

mk_script "$T/pass.sh" "cat '$T/pass'"
lockcmd() { # -x|-X PASSPHRASE
	printf '%s\n' "$2" >"$T/pass"
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force run ssh-add "$1" </dev/null
}
echo "data" >"$T/data"
sign() {
	rm -f "$T/data.sig"
	run ssh-keygen -Y sign -f "$T/keys/$1.pub" -n file "$T/data"
	[ "$RC" = 0 ] && [ -s "$T/data.sig" ]
}

gen_key k ed25519 || bail "ssh-keygen k"
gen_key k2 ecdsa || bail "ssh-keygen k2"
start_agent
ok $? "agent started" || bail "agent did not start"
run ssh-add "$T/keys/k"
ok $RC "ssh-add k"
hide_key k

lockcmd -x "correct horse"
is "$RC" 0 "ssh-add -x locks the agent"
is "$ERR" "Agent locked." "ssh-add -x says 'Agent locked.'"

run ssh-add -l
is "$RC" 1 "while locked ssh-add -l exits 1"
is "$OUT" "The agent has no identities." "while locked no identities are listed"
run ssh-add -L
is "$RC" 1 "while locked ssh-add -L exits 1"
sign k
is $? 1 "while locked signing fails"
run ssh-add "$T/keys/k2"
is "$RC" 1 "while locked adding a key fails"
run ssh-add -d "$T/keys/k.pub"
is "$RC" 1 "while locked removing a key fails"
run ssh-add -D
is "$RC" 1 "while locked remove-all fails"
lockcmd -x "another"
is "$RC" 1 "locking a locked agent fails"

lockcmd -X "wrong horse"
is "$RC" 1 "unlock with the wrong passphrase fails"
like "$ERR" 'Failed to unlock agent' "and says so"
run ssh-add -l
is "$RC" 1 "keys stay hidden after a wrong unlock"
lockcmd -X ""
is "$RC" 1 "unlock with an empty passphrase fails"
run ssh-add -l
is "$RC" 1 "keys stay hidden after an empty unlock"

lockcmd -X "correct horse"
is "$RC" 0 "unlock with the right passphrase succeeds"
is "$ERR" "Agent unlocked." "ssh-add -X says 'Agent unlocked.'"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/k.pub")" "after unlock the key is listed again"
sign k
ok $? "after unlock signing works"
is "$(count_ids)" 1 "remove-all while locked removed nothing"
lockcmd -X "correct horse"
is "$RC" 1 "unlocking an unlocked agent fails"
lockcmd -x ""
is "$RC" 1 "locking with an empty passphrase fails"
run ssh-add -l
is "$RC" 0 "agent not locked by the empty-passphrase attempt"

# lock again: a second lock/unlock cycle works with a new passphrase
lockcmd -x "second"
is "$RC" 0 "lock again with a new passphrase"
lockcmd -X "correct horse"
is "$RC" 1 "the old passphrase no longer unlocks"
lockcmd -X "second"
is "$RC" 0 "the new passphrase unlocks"

# keyward-only: a delayed unlock failure delays only its own connection
if is_keyward; then
	lockcmd -x "third"
	is "$RC" 0 "locked for the delay test"
	wrong=17$(hexstr "not it")
	perl "$RAWCLIENT" -t 60 -s "$T/raw.sent" "$SSH_AUTH_SOCK" $wrong $wrong $wrong $wrong $wrong >"$T/raw.out" 2>&1 &
	rawpid=$!
	EXTRA_PIDS+=("$rawpid")
	poll_until 10 test -e "$T/raw.sent"
	ok $? "five wrong unlocks sent on one connection"
	run timeout 20 ssh-add -l
	is "$RC" 1 "another client's ssh-add -l is answered (locked: no identities)"
	pid_alive "$rawpid"
	ok $? "... while the wrong-unlock connection is still waiting for its delayed replies"
	wait "$rawpid"
	is "$(cat "$T/raw.out")" "05
05
05
05
05" "each wrong unlock got exactly one failure reply, in order"
	lockcmd -X "third"
	is "$RC" 0 "the right passphrase still unlocks"

	# Guesses whose client has gone are not judged: the owner does not
	# wait behind them (judged one after another, 20 of them would cost
	# 0.1 + 0.2 + ... + 2 = 21 s of delays).
	lockcmd -x "fourth"
	is "$RC" 0 "locked again"
	guessers=()
	for i in $(seq 1 20); do
		timeout 5 perl "$RAWCLIENT" -n 0 "$SSH_AUTH_SOCK" "$wrong" >/dev/null 2>&1 &
		guessers+=("$!")
	done
	sent=0
	for p in "${guessers[@]}"; do
		wait "$p" && sent=$((sent + 1))   # rawclient: 2 if the socket failed
	done
	is "$sent" 20 "twenty connections sent a wrong unlock each and closed at once"
	printf '%s\n' fourth >"$T/pass"
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force run timeout 8 ssh-add -X </dev/null
	is "$RC" 0 "the owner's unlock is answered within 8 s, and unlocks"
else
	skip_n 9 "not keyward"
fi

stop_agent
ok $? "agent stopped"
done_testing
