#!/bin/bash
# Each sandboxed process really is under a filter that kills: in the
# test-only build (make TESTING=1 -> build-testing/, never installed) the
# environment makes one process attempt one forbidden syscall right after
# its filter is loaded. It must die by SIGSYS, say which syscall it was
# stopped at (one log line, seccomp/trap.c), and the agent must fail
# closed: every process gone and (but for the reapers' own deaths, which
# leave nobody to remove it) the socket removed. keyward-peer, the
# caller-identity inspector, dies by SIGSYS just the same, but the agent
# serves on without it (callers unavailable): it reads what hostile
# processes write, and its end must not be a way to stop the agent.
. "$(dirname "$0")/lib.sh"

TB=${KEYWARD_TESTING_BUILD:-$(dirname "$AGENT")/../build-testing}
PROCS="monitor policy keyholder reaper"
CALLS="open socket execve mprotect"
PEER_CALLS="socket execve mprotect"  # its filter allows a read-only openat
NTESTS=$(( 4 * 4 * 4 + 3 * 3 + 4 * 3 ))
# the syscall each attempt makes, as the reporter names it (open is openat)
declare -A SYSNAME=([open]=openat [socket]=socket [execve]=execve [mprotect]=mprotect)
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
if [ ! -x "$TB/keyward" ]; then
	skip_n $NTESTS "no test build in $TB (make TESTING=1)"
	done_testing
fi

for proc in $PROCS; do
	for call in $CALLS; do
		sock="$T/$proc-$call.sock"
		log="$T/$proc-$call.log"
		KEYWARD_TEST_FORBIDDEN="$proc:$call" "$TB/keyward" -D -a "$sock" \
			>/dev/null 2>"$log" </dev/null &
		pid=$!
		poll_until 10 not pid_alive "$pid"
		wait "$pid" 2>/dev/null
		rc=$?
		if [ "$proc" = monitor ]; then
			is "$rc" 159 "$proc $call: the monitor dies by SIGSYS (status 128+31)"
		else
			ok "$(grep -qE "a reaper was killed by signal 31|keyward-$proc was killed by signal 31" "$log"; echo $?)" \
				"$proc $call: killed by SIGSYS, and the monitor says so"
			[ $? ] || diag_file "$log"
		fi
		# the SIGSYS reporter (seccomp/trap.c): the process's last line
		# names it and the syscall, so the user can tell what it needed
		contains "$(cat "$log")" "$proc stopped by its filter: syscall ${SYSNAME[$call]} (" \
			"$proc $call: the log names the process and the syscall ${SYSNAME[$call]}"
		left=$(pgrep -f "$TB/keyward|keyward-(policy|keyholder|broker|prompter|auditor) info" |
			while read -r p; do grep -qs "KEYWARD_TEST_FORBIDDEN=$proc:$call" /proc/$p/environ && echo $p; done)
		poll_until 10 prints_none alive $left
		ok $? "$proc $call: no process of that agent is left"
		if [ "$proc" = reaper ]; then
			# Here both reapers make the forbidden call and die, so
			# nobody may remove the socket (the monitor has no
			# file-system access): it stays, dead. One reaper killed
			# alone is 90-keyward-procs.t's case: the socket goes.
			ok "$(test -S "$sock" && ! SSH_AUTH_SOCK=$sock ssh-add -l >/dev/null 2>&1; echo $?)" \
				"$proc $call: the socket is left but no agent answers on it"
		else
			poll_until 10 not test -e "$sock"
			ok $? "$proc $call: the socket was removed"
		fi
		grep -q "survived forbidden syscall" "$log" && diag_file "$log"
	done
done

# keyward-auditor (started by policy, with an audit trail): its death ends
# policy, and so the agent. Policy, sandboxed, does not wait for it: the
# auditor's own line is what names it.
for call in $CALLS; do
	sock="$T/auditor-$call.sock"
	log="$T/auditor-$call.log"
	KEYWARD_TEST_FORBIDDEN="auditor:$call" "$TB/keyward" -D -a "$sock" \
		-O audit="$T/auditor-$call.trail" >/dev/null 2>"$log" </dev/null &
	pid=$!
	AGENT_PIDS+=("$pid")
	poll_until 10 not pid_alive "$pid"
	wait "$pid" 2>/dev/null
	contains "$(cat "$log")" "auditor stopped by its filter: syscall ${SYSNAME[$call]} (" \
		"auditor $call: the log names the process and the syscall ${SYSNAME[$call]}"
	left=$(pgrep -f "$TB/keyward|keyward-(policy|keyholder|broker|prompter|auditor) info" |
		while read -r p; do grep -qs "KEYWARD_TEST_FORBIDDEN=auditor:$call" /proc/$p/environ && echo $p; done)
	poll_until 10 prints_none alive $left
	ok $? "auditor $call: no process of that agent is left"
	poll_until 10 not test -e "$sock"
	ok $? "auditor $call: the socket was removed"
	grep -q "survived forbidden syscall" "$log" && diag_file "$log"
done

for call in $PEER_CALLS; do
	sock="$T/peer-$call.sock"
	log="$T/peer-$call.log"
	KEYWARD_TEST_FORBIDDEN="peer:$call" "$TB/keyward" -D -a "$sock" \
		>/dev/null 2>"$log" </dev/null &
	pid=$!
	AGENT_PIDS+=("$pid")
	poll_until 10 grep -q "keyward-peer was killed by signal 31" "$log"
	ok $? "peer $call: killed by SIGSYS, and the monitor says so"
	contains "$(cat "$log")" "peer stopped by its filter: syscall ${SYSNAME[$call]} (" \
		"peer $call: the log names the process and the syscall ${SYSNAME[$call]}"
	run env SSH_AUTH_SOCK="$sock" ssh-add -l
	is "$RC" 1 "peer $call: the agent still serves (no identities)"
	kill "$pid"
	wait "$pid" 2>/dev/null
done
done_testing
