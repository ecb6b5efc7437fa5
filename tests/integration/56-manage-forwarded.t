#!/bin/bash
# The server the agent is forwarded to may not manage it: on hostA, with
# the real ssh -A, ssh-add -x (LOCK), -X (UNLOCK), -d (REMOVE) and -D
# (REMOVE_ALL) are refused by keyward with a log line; the user's agent
# stays unlocked and keeps its keys, and a forwarded ssh-add (ADD) still
# works, for hostA's own use (57-forwarded-add.t). With -O allow-remote-manage keyward serves
# them as ssh-agent does. Stock ssh-agent serves them all: the same
# "allowed" half runs against it, so this test documents the deviation.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_hosts hostA
gen_key k ed25519 || bail "ssh-keygen k"
cat "$T/keys/k.pub" >>"$T/authorized_keys"
gen_key x ed25519 || bail "ssh-keygen x"
gen_key y ed25519 || bail "ssh-keygen y"
# ssh-add -x / -X on hostA read the passphrase through this askpass.
cat >"$T/pass.sh" <<EOF
#!/bin/sh
echo "server-chosen passphrase"
EOF
chmod 755 "$T/pass.sh"
ASK="SSH_ASKPASS=$(printf %q "$T/pass.sh") SSH_ASKPASS_REQUIRE=force DISPLAY=:0"

# fwd CMD: CMD on hostA, through ssh -A with key k; $RC/$OUT/$ERR
fwd() {
	run timeout 60 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/k" -A hostA "$1"
}
agent() { # [options]: the agent under test in the foreground, log in $T/agent.log
	start_agent_fg "$T/agent.sock" "$@"
	ok $? "agent $(basename "$AGENT") $* started" || bail "agent did not start"
	run ssh-add "$T/keys/k" "$T/keys/x"
	ok $RC "ssh-add k x (locally)"
}
stop() { stop_pid "$AGENT_FG_PID"; ok $? "agent stopped"; }
unlocked() { ssh-add -l 2>/dev/null | grep -qF " $(fp "$T/keys/k.pub") "; }

# locked_unlock: the user locks the agent locally while a session on
# hostA (ssh -A, logged in before the lock) waits; then hostA runs
# ssh-add -X with the right passphrase. $RC: that ssh-add's exit status.
locked_unlock() {
	rm -f "$T/ready" "$T/go" "$T/unlock.rc"
	( timeout 60 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/k" -A hostA \
		"touch $(printf %q "$T/ready"); while [ ! -e $(printf %q "$T/go") ]; do sleep 0.1; done; $ASK ssh-add -X" \
		>"$T/unlock.out" 2>&1
	  echo $? >"$T/unlock.rc" ) &
	poll_until 60 test -e "$T/ready" || bail "the session on hostA did not start"
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0 run ssh-add -x
	ok $RC "the user locks the agent locally, with the passphrase hostA knows"
	touch "$T/go"
	poll_until 60 test -s "$T/unlock.rc" || bail "the session on hostA did not end"
	diag_file "$T/unlock.out" "hostA's ssh-add -X"
	RC=$(cat "$T/unlock.rc")
}

# --- allowed: stock ssh-agent, and keyward -O allow-remote-manage
allowed() {
	fwd "$ASK ssh-add -x; ssh-add -l; $ASK ssh-add -X"
	ok $RC "on hostA (ssh -A) ssh-add -x locks the agent, and -X unlocks it"
	contains "$OUT" "The agent has no identities." "meanwhile the agent was locked: ssh-add -l on hostA listed nothing"
	fwd "$ASK ssh-add -x"
	ok $RC "on hostA ssh-add -x locks the agent"
	unlocked
	is $? 1 "locally the agent is locked: no key is listed"
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0 run ssh-add -X
	ok $RC "only the server's passphrase unlocks it"
	locked_unlock
	is "$RC" 0 "a lock by the user: on hostA ssh-add -X with the right passphrase unlocks"
	unlocked
	ok $? "the agent is unlocked"
	fwd "ssh-add -d $(printf %q "$T/keys/x.pub")"
	ok $RC "on hostA ssh-add -d x removes the user's key"
	agent_has "$T/keys/x.pub"
	is $? 1 "x is gone"
	fwd "ssh-add -D"
	ok $RC "on hostA ssh-add -D removes every key"
	agent_empty
	ok $? "the agent holds no key"
}

if is_keyward; then
	# --- keyward by default: refused
	agent
	fwd "$ASK ssh-add -x"
	is "$RC" 1 "on hostA (ssh -A) ssh-add -x is refused"
	contains "$ERR" "Failed to lock agent" "ssh-add on hostA reports the failure"
	unlocked
	ok $? "locally the agent is not locked: k is listed"
	like "$(cat "$T/agent.log")" "lock refused: the connection is forwarded" \
		"the refusal is logged"
	fwd "ssh-add -d $(printf %q "$T/keys/x.pub")"
	is "$RC" 1 "on hostA ssh-add -d x is refused"
	agent_has "$T/keys/x.pub"
	ok $? "x is still there"
	like "$(cat "$T/agent.log")" "remove refused: the connection is forwarded" \
		"the refusal is logged"
	fwd "ssh-add -D"
	is "$RC" 1 "on hostA ssh-add -D is refused"
	is "$(count_ids)" 2 "both keys are still there"
	like "$(cat "$T/agent.log")" "remove-all refused: the connection is forwarded" \
		"the refusal is logged"
	locked_unlock
	is "$RC" 1 "a lock by the user: on hostA ssh-add -X, even with the right passphrase, is refused"
	unlocked
	is $? 1 "the agent is still locked"
	like "$(cat "$T/agent.log")" "unlock refused: the connection is forwarded" \
		"the refusal is logged"
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0 run ssh-add -X
	ok $RC "locally the user unlocks"
	# ADD stays open, but the key is hostA's own (57-forwarded-add.t)
	fwd "ssh-add $(printf %q "$T/keys/y") && ssh-add -l"
	ok $RC "on hostA ssh-add y (ADD) still works"
	contains "$OUT" "$(fp "$T/keys/y.pub")" "y is listed on hostA"
	agent_has "$T/keys/y.pub"
	is $? 1 "y is not listed locally: it serves hostA alone (-O allow-remote-add)"
	stop

	agent -O allow-remote-manage
	allowed
	stop
else
	agent
	allowed
	stop
fi
done_testing
