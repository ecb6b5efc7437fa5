#!/bin/bash
# A signal that comes as soon as the agent is started. A script does
# `eval "$(keyward -s)"; kill "$SSH_AGENT_PID"`; under load the daemon may
# not yet have reached its signal set-up when the signal comes. Blocked from
# the first line of main(), the signal is taken when the agent is ready: it
# ends (HUP, TERM; INT with -D) and its socket is removed, or it is ignored
# (INT to a daemon) and the agent serves on. Before, the default action
# ended it at once and left its socket, and the next agent on that path
# failed to bind (a flake of 71-signals.t under load, 2026-12-06).
#
# Part 1, both agents: the signal right after start, a few rounds each.
# Part 2, keyward's test build (make TESTING=1): KEYWARD_TEST_SIGNALS_PAUSE_MS
# holds the new agent just before its signal set-up, so the signal surely
# comes in that window.
. "$(dirname "$0")/lib.sh"

ROUNDS=5
PAUSE_MS=1500
TB=${KEYWARD_TESTING_BUILD:-$KEYWARD_BUILD/../build-testing}
# each case its own socket (SOCK), so that one left behind fails only its own

# daemon AGENT [ENV...]: start it daemonised on $SOCK; sets PID
daemon() {
	local bin=$1 out; shift
	out=$(env "$@" "$bin" -s -a "$SOCK" 2>"$T/start.err") || return 1
	PID=$(printf '%s\n' "$out" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
	[ -n "$PID" ] || return 1
	AGENT_PIDS+=("$PID")
}

# ends_cleanly WHAT: the agent $PID is gone and $SOCK removed
ends_cleanly() {
	wait_gone "$PID" 10
	ok $? "$1: the agent ends"
	poll_until 5 not test -e "$SOCK"
	ok $? "$1: its socket is removed"
}

# serves_on WHAT: the agent $PID still runs and answers on $SOCK; stop it
serves_on() {
	SSH_AUTH_SOCK=$SOCK run timeout 20 ssh-add -l
	is "$RC" 1 "$1: the agent still answers (no identities)"
	pid_alive "$PID"
	ok $? "$1: and still runs"
	kill -TERM "$PID"
	wait_gone "$PID" 10 && poll_until 5 not test -e "$SOCK"
	ok $? "$1: SIGTERM then ends it and removes its socket"
}

# --- part 1: $AGENT, signalled as soon as its environment is read
for sig in HUP TERM; do
	for ((i = 1; i <= ROUNDS; i++)); do
		SOCK=$T/at-once-$sig-$i.sock
		daemon "$AGENT"
		ok $? "SIG$sig round $i: agent started"
		kill -"$sig" "$PID"
		ends_cleanly "SIG$sig at once, round $i"
	done
done
SOCK=$T/at-once-INT.sock
daemon "$AGENT"
ok $? "SIGINT: agent started"
kill -INT "$PID"
serves_on "SIGINT at once to a daemon"

# a command the agent runs (keyward CMD...) gets the signal mask the agent
# was started with, not the one it blocks for itself
run timeout 20 "$AGENT" -a "$T/cmd.sock" grep '^SigBlk' /proc/self/status
is "$OUT" "$(grep '^SigBlk' /proc/self/status)" \
	"a command the agent runs has the caller's signal mask ($OUT)"

# --- part 2: keyward's test build, the signal surely before the set-up
if ! is_keyward; then
	skip_n 18 "KEYWARD_TEST_SIGNALS_PAUSE_MS is keyward's test build's"
	done_testing
fi
if [ ! -x "$TB/keyward" ]; then
	skip_n 18 "no test build in $TB (make TESTING=1)"
	done_testing
fi
P=KEYWARD_TEST_SIGNALS_PAUSE_MS=$PAUSE_MS

# HUP and TERM end a daemon; INT (ignored) and USR1 (keys dropped) do not
for sig in HUP TERM INT USR1; do
	SOCK=$T/paused-$sig.sock
	daemon "$TB/keyward" "$P"
	ok $? "paused daemon, SIG$sig: started"
	kill -"$sig" "$PID"
	case $sig in
	HUP | TERM) ends_cleanly "SIG$sig to a daemon before its signal set-up" ;;
	*) serves_on "SIG$sig to a daemon before its signal set-up" ;;
	esac
done

# -D: the socket exists before the pause; the signal comes then
for sig in TERM INT; do
	SOCK=$T/paused-fg-$sig.sock
	env "$P" "$TB/keyward" -D -a "$SOCK" >/dev/null 2>"$T/fg.log" </dev/null &
	PID=$!
	AGENT_PIDS+=("$PID")
	wait_for_socket "$SOCK" 10
	kill -"$sig" "$PID"
	# bounded: an agent that lost the signal must not hang the test
	if wait_gone "$PID" 10; then
		wait "$PID"
		st=$?
	else
		st="still running"
		kill -KILL "$PID"
		wait "$PID"
	fi
	is "$st" 2 "-D, SIG$sig before its signal set-up: exit status 2"
	poll_until 5 not test -e "$SOCK"
	ok $? "-D, SIG$sig before its signal set-up: its socket is removed"
done

done_testing
