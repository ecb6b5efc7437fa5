#!/bin/bash
# Signals: SIGUSR1 drops every key (keyward only: ssh-agent 9.2 has no
# SIGUSR1 handling), SIGHUP/SIGTERM terminate and clean up (exit 2), SIGINT
# terminates only a foreground (-D) agent.
. "$(dirname "$0")/lib.sh"

gen_key a ed25519 || bail "ssh-keygen a"
gen_key b ecdsa || bail "ssh-keygen b"
mk_script "$T/pass.sh" "echo locked-pass"

if is_keyward; then
	start_agent
	ok $? "agent started"
	ssh-add "$T/keys/a" "$T/keys/b" 2>/dev/null
	is "$(count_ids)" 2 "two keys loaded"
	kill -USR1 "$SSH_AGENT_PID"
	poll_until 10 agent_empty
	ok $? "SIGUSR1 empties the agent"
	pid_alive "$SSH_AGENT_PID"
	ok $? "the agent keeps running after SIGUSR1"
	run ssh-add "$T/keys/a"
	ok $RC "keys can be added again after SIGUSR1"
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force run ssh-add -x </dev/null
	is "$RC" 0 "agent locked"
	kill -USR1 "$SSH_AGENT_PID"
	# ordering: a round trip after the signal, then unlock and look
	run ssh-add -l
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force run ssh-add -X </dev/null
	is "$RC" 0 "agent unlocked"
	poll_until 10 agent_empty
	ok $? "SIGUSR1 while locked deleted the keys too"
	stop_agent
	ok $? "agent stopped"
else
	skip_n 9 "not keyward"
fi

# SIGHUP terminates a daemonised agent and removes its socket
start_agent
ok $? "agent started"
pid=$SSH_AGENT_PID
kill -HUP "$pid"
wait_gone "$pid" 10
ok $? "SIGHUP terminates the agent"
poll_until 5 not test -e "$T/agent.sock"
ok $? "SIGHUP: socket removed"

# SIGINT is ignored by a daemonised agent
start_agent
ok $? "agent started"
pid=$SSH_AGENT_PID
kill -INT "$pid"
run ssh-add -l
is "$RC" 1 "after SIGINT the daemonised agent still answers"
pid_alive "$pid"
ok $? "SIGINT does not stop a daemonised agent"
stop_agent
ok $? "agent stopped with -k"

# foreground agents: TERM, HUP and INT all end it with status 2
for sig in TERM HUP INT; do
	start_agent_fg "$T/fg.sock"
	ok $? "-D agent started (for SIG$sig)"
	run ssh-add -l
	kill -"$sig" "$AGENT_FG_PID"
	wait "$AGENT_FG_PID"
	is $? 2 "-D agent exits with status 2 on SIG$sig"
	[ ! -e "$T/fg.sock" ]
	ok $? "SIG$sig: socket removed"
	poll_until 10 prints_none descendants "$AGENT_FG_PID"
	mv "$T/agent.log" "$T/fg-$sig.log.old"
done

done_testing
