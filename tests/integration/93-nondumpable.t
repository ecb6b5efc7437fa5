#!/bin/bash
# No keyward process can be read by its own uid: each is not dumpable, so
# a same-uid ptrace attach or a read of /proc/PID/mem or environ fails.
# The agent runs as nobody and nobody tries; a plain process of nobody's
# is the control that shows the same reads work where they are allowed.
. "$(dirname "$0")/lib.sh"

# the agent's 9 processes (the monitor, its 2 reapers, keyholder, policy,
# 2 peer processes, prompter, broker), 2 checks each, and 7 others
NPROCS=9
NTESTS=$((NPROCS * 2 + 7))
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
if [ "$(id -u)" != 0 ]; then
	skip_n $NTESTS "needs root to run the agent and the reader as nobody"
	done_testing
fi
NOBODY_UID=$(id -u nobody) NOBODY_GID=$(id -g nobody)
as_nobody_cmd() { setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups "$@"; }

exe_name() { local e; e=$(readlink "/proc/$1/exe" 2>/dev/null) && basename "$e"; }
chmod 711 "$T"                  # nobody must reach its socket directory
mkdir -m 700 "$T/nb" && chown nobody "$T/nb"
# not through as_nobody_cmd: a function in the background is a subshell,
# and $! must be the monitor itself (setpriv and env exec it)
setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups \
	env -i PATH=/usr/bin:/bin HOME=/nonexistent \
	"$AGENT" -D -a "$T/nb/agent.sock" >/dev/null 2>"$T/nb.log" </dev/null &
mon=$!
AGENT_PIDS+=("$mon")
# every process started before they are listed: one still to come, or
# between its fork and its exec, would not be checked
wait_for_socket "$T/nb/agent.sock" 10 && poll_until 10 helpers_up "$mon"
ok $? "agent running as nobody, its helpers up"
is "$(exe_name "$mon")" keyward "the pid started is the monitor itself"
procs="$mon $(descendants "$mon" | tr '\n' ' ')"

setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups sleep 30 &
control=$!
is_nobodys() { grep -Eq "^Uid:[[:space:]]+${NOBODY_UID}[[:space:]]" "/proc/$1/status" &&
	[ "$(cat /proc/$1/comm)" = sleep ]; }
poll_until 10 is_nobodys "$control"
ok $? "control: a plain process of nobody's is running"
run as_nobody_cmd head -c 1 "/proc/$control/environ"
is "$RC" 0 "control: nobody reads the environ of its own plain process"

checked=0
for p in $procs; do
	name=$(cat "/proc/$p/comm" 2>/dev/null)
	# comm is cut at 15 bytes: keyward-keyhold(er), keyward-prompte(r)
	case $name in keyward|keyward-policy|keyward-keyhold|keyward-peer|keyward-broker|keyward-prompte|keyward-auditor) ;;
	*) continue ;;
	esac
	[ "$p" = "$mon" ] && name="keyward (monitor)"
	run as_nobody_cmd head -c 1 "/proc/$p/environ"
	ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "$name: same-uid read of /proc/$p/environ fails"
	run as_nobody_cmd perl -e 'open(my $f, "<", "/proc/'"$p"'/mem") or exit 1; exit 0'
	ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "$name: same-uid open of /proc/$p/mem fails"
	checked=$((checked + 1))
done
is "$checked" "$NPROCS" "every one of the agent's $NPROCS processes was checked"
kill "$control" 2>/dev/null
kill "$mon"
wait_gone "$mon" 10
ok $? "agent stopped"
all_gone() { local p; for p in $procs; do pid_alive "$p" && return 1; done; return 0; }
poll_until 10 all_gone
ok $? "and every process it started is gone"
done_testing
