#!/bin/bash
# Basics: empty agent, missing socket, -s/-c/-k output, command mode,
# -d/-D output, usage errors, bad -t.
. "$(dirname "$0")/lib.sh"

# --- missing socket
SSH_AUTH_SOCK=$T/no-such-socket run ssh-add -l
is "$RC" 2 "ssh-add -l with SSH_AUTH_SOCK at a missing socket exits 2"

# --- Bourne output (-s)
start_agent
ok $? "agent started with -s -a $T/agent.sock"
pid=${SSH_AGENT_PID:-}
s_out=$OUT
is "$(printf '%s\n' "$s_out" | sed -n 1p)" "SSH_AUTH_SOCK=$T/agent.sock; export SSH_AUTH_SOCK;" "-s line 1"
like "$(printf '%s\n' "$s_out" | sed -n 2p)" '^SSH_AGENT_PID=[0-9]+; export SSH_AGENT_PID;$' "-s line 2"
is "$(printf '%s\n' "$s_out" | sed -n 3p)" "echo Agent pid $pid;" "-s line 3 names the same pid"
is "$(printf '%s\n' "$s_out" | wc -l | tr -d ' ')" 3 "-s prints exactly three lines"
pid_alive "$pid"
ok $? "SSH_AGENT_PID $pid is a running process"
run stat -c %a "$T/agent.sock"
is "$OUT" 600 "socket created with mode 0600"

# --- empty agent
run ssh-add -l
is "$RC" 1 "ssh-add -l on an empty agent exits 1"
is "$OUT" "The agent has no identities." "and says so"
run ssh-add -L
is "$RC" 1 "ssh-add -L on an empty agent exits 1"

# --- second agent side by side (-c output), then -k for each
AGENT_SOCK=$T/agent2.sock
LAST_CMD="$AGENT -c -a $AGENT_SOCK" RUN_SHOWN=0
c_out=$("$AGENT" -c -a "$AGENT_SOCK" 2>/dev/null)
RC=$? OUT=$c_out ERR=
ok $RC "agent started with -c"
pid2=$(printf '%s\n' "$c_out" | sed -n 's/^setenv SSH_AGENT_PID \([0-9]*\);$/\1/p')
[ -n "$pid2" ] && AGENT_PIDS+=("$pid2")
is "$(printf '%s\n' "$c_out" | sed -n 1p)" "setenv SSH_AUTH_SOCK $T/agent2.sock;" "-c line 1"
like "$(printf '%s\n' "$c_out" | sed -n 2p)" '^setenv SSH_AGENT_PID [0-9]+;$' "-c line 2"
is "$(printf '%s\n' "$c_out" | sed -n 3p)" "echo Agent pid $pid2;" "-c line 3"
unset AGENT_SOCK
wait_for_socket "$T/agent2.sock" 5
SSH_AUTH_SOCK=$T/agent2.sock run ssh-add -l
is "$RC" 1 "second agent answers on its own socket"

SSH_AGENT_PID=$pid2 run "$AGENT" -c -k
is "$RC" 0 "-c -k exits 0"
is "$OUT" "unsetenv SSH_AUTH_SOCK;
unsetenv SSH_AGENT_PID;
echo Agent pid $pid2 killed;" "-c -k prints csh unset commands"
wait_gone "$pid2" 10
ok $? "-k killed the second agent"
poll_until 5 not test -e "$T/agent2.sock"
ok $? "second agent removed its socket"

run ssh-add -l
is "$RC" 1 "first agent unaffected by killing the second"

run "$AGENT" -k
is "$RC" 0 "-k exits 0"
is "$OUT" "unset SSH_AUTH_SOCK;
unset SSH_AGENT_PID;
echo Agent pid $pid killed;" "-k prints Bourne unset commands"
wait_gone "$pid" 10
ok $? "-k: agent process is gone"
poll_until 5 not test -e "$T/agent.sock"
ok $? "-k: socket removed"

(unset SSH_AGENT_PID; run "$AGENT" -k; [ "$RC" = 1 ] && printf '%s' "$ERR" | grep -q 'SSH_AGENT_PID not set')
ok $? "-k without SSH_AGENT_PID fails with exit 1"

# --- command mode
LAST_CMD="$AGENT -a $T/cmd.sock sh -c ..." RUN_SHOWN=0
cmd_out=$("$AGENT" -a "$T/cmd.sock" sh -c 'ssh-add -l; echo "rc=$?"; echo "sock=$SSH_AUTH_SOCK"; echo "pid=$SSH_AGENT_PID"; kill -0 "$SSH_AGENT_PID" && echo alive; exit 3' 2>&1)
RC=$? OUT=$cmd_out ERR=
is "$RC" 3 "command mode: the command's exit status is returned"
like "$cmd_out" '^The agent has no identities\.$' "command mode: ssh-add -l reaches the agent"
like "$cmd_out" '^rc=1$' "command mode: ssh-add -l exits 1 (empty)"
like "$cmd_out" "^sock=$T/cmd.sock\$" "command mode: SSH_AUTH_SOCK set"
cpid=$(printf '%s\n' "$cmd_out" | sed -n 's/^pid=\([0-9][0-9]*\)$/\1/p')
like "$cpid" '^[0-9]+$' "command mode: SSH_AGENT_PID set"
like "$cmd_out" '^alive$' "command mode: SSH_AGENT_PID is a live process"
[ -n "$cpid" ] && AGENT_PIDS+=("$cpid")
# the agent notices its parent is gone (the reference checks every 10 s)
wait_gone "${cpid:-0}" 25
ok $? "command mode: agent exits after the command has gone"
poll_until 5 not test -e "$T/cmd.sock"
ok $? "command mode: socket removed"

# --- -D and -d print no SSH_AGENT_PID
for flag in -D -d; do
	AGENT_FG_FLAG=$flag start_agent_fg "$T/fg$flag.sock"
	ok $? "$flag: agent listening"
	fgout=$(cat "$T/agent-fg.out")
	OUT=$fgout
	is "$(printf '%s\n' "$fgout" | sed -n 1p)" "SSH_AUTH_SOCK=$T/fg$flag.sock; export SSH_AUTH_SOCK;" "$flag: SSH_AUTH_SOCK line"
	is "$(printf '%s\n' "$fgout" | sed -n 2p)" "echo Agent pid $AGENT_FG_PID;" "$flag: echo line with the agent's own pid"
	unlike "$fgout" 'SSH_AGENT_PID' "$flag: no SSH_AGENT_PID line"
	run ssh-add -l
	is "$RC" 1 "$flag: agent serves clients"
	stop_pid "$AGENT_FG_PID"
	ok $? "$flag: SIGTERM stops it"
	poll_until 5 not test -e "$T/fg$flag.sock"
	ok $? "$flag: socket removed on SIGTERM"
	mv "$T/agent.log" "$T/fg$flag.log.old"
done
unset SSH_AUTH_SOCK

# --- usage errors
_no_agent_left() { # OUTPUT: kill anything an unexpected success started
	local p
	p=$(printf '%s\n' "$1" | sed -n 's/.*SSH_AGENT_PID[= ]\([0-9][0-9]*\);.*/\1/p')
	[ -n "$p" ] && { AGENT_PIDS+=("$p"); kill "$p"; }
	return 0
}
run "$AGENT" -c -s -a "$T/u1.sock"
is "$RC" 1 "-c -s is a usage error (exit 1)"
like "$ERR" 'usage' "-c -s prints the usage"
_no_agent_left "$OUT"
run "$AGENT" -y -a "$T/u2.sock"
is "$RC" 1 "unknown option is a usage error (exit 1)"
like "$ERR" 'usage' "unknown option prints the usage"
_no_agent_left "$OUT"
run "$AGENT" -d -D -a "$T/u4.sock"
is "$RC" 1 "-d with -D is a usage error (exit 1)"
_no_agent_left "$OUT"
run "$AGENT" -s -t bogus -a "$T/u3.sock"
is "$RC" 1 "-t with a bad lifetime fails (exit 1)"
like "$ERR" 'Invalid lifetime' "-t bogus says 'Invalid lifetime'"
_no_agent_left "$OUT"
[ ! -e "$T/u3.sock" ] && [ ! -e "$T/u1.sock" ] && [ ! -e "$T/u2.sock" ]
ok $? "failed starts leave no socket behind"

# --- -a on an existing path fails
: >"$T/exists.sock"
run "$AGENT" -s -a "$T/exists.sock"
_no_agent_left "$OUT"
is "$RC" 1 "-a PATH that already exists fails with exit 1"

done_testing
