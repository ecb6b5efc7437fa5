#!/bin/bash
# Starting is checked whole before anything is printed: values ssh-agent
# users write (a -P path with a space, an empty websafe-allow) start an
# agent that serves; a value keyward refuses, a helper that cannot run
# (keyward copied elsewhere, or a helper that is not a program) or
# -O audit=- without a terminal of its own exits 255 in every way of
# starting (background, command, -D), prints no variable, runs no
# command, leaves no socket and no process, and says why with the real
# errno. When the variables are printed, the agent's helpers are up.
# keyward(1) OPTIONS and EXIT STATUS. The shared cases run against
# /usr/bin/ssh-agent too.
. "$(dirname "$0")/lib.sh"

NTESTS=36

# --- values ssh-agent takes: the agent serves once the variables say so
AGENT_SOCK=$T/p.sock start_agent -P '/usr/lib/*,/opt/my lib/*'
ok $? "-P with a space in a path: started" || bail "agent did not start"
sleep 1
run ssh-add -l
is "$RC" 1 "-P with a space: the agent serves (ssh-add -l: no identities)"
stop_agent

if ! is_keyward; then
	# (Debian 12's ssh-agent has no websafe-allow)
	skip_n $((NTESTS - TESTNUM)) "keyward's own options and checks"
	done_testing
fi

AGENT_SOCK=$T/w.sock start_agent -O websafe-allow=
ok $? "-O websafe-allow= (empty, as ssh-agent takes it): started"
sleep 1 # a helper that refused its list would be gone by now
run ssh-add -l
is "$RC" 1 "-O websafe-allow=: a second later, the agent serves"
# printed after the fork: the helpers must be running already
# (/proc/PID/comm holds 15 characters)
kids=$(for p in $(descendants "$SSH_AGENT_PID"); do cat "/proc/$p/comm" 2>/dev/null; done | sort | tr '\n' ' ')
contains "$kids" "keyward-keyhold" "when the variables are printed, the keyholder runs"
contains "$kids" "keyward-policy" "when the variables are printed, policy runs"
stop_agent

# -d names the caller it inspected, not only how the inspection went
# (as an ordinary user: root's own processes are closed to the inspector)
as=()
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	mkdir -m 777 "$T/dd"
	chmod 711 "$T"
else
	mkdir "$T/dd"
fi
"${as[@]}" env HOME="$T/dd" "$AGENT" -d -a "$T/dd/d.sock" >/dev/null 2>"$T/d.log" &
DPID=$!
AGENT_PIDS+=("$DPID")
wait_for_socket "$T/dd/d.sock" 10
"${as[@]}" env SSH_AUTH_SOCK="$T/dd/d.sock" ssh-add -l >/dev/null 2>&1
poll_until 5 grep -q "keyward: connection 1: caller" "$T/d.log"
contains "$(cat "$T/d.log")" "keyward: connection 1: caller ok: $(readlink -f "$(command -v ssh-add)")" "-d: the caller is named (ssh-add)"
kill "$DPID"; wait_gone "$DPID" 10

# refused SOCK WORD ARGS...: exit 255, WORD in stderr, nothing on stdout,
# no socket, no process left with SOCK in its command line
refused() {
	local sock=$1 word=$2 label; shift 2
	label="keyward $*"
	run timeout 20 "$@"
	is "$RC" 255 "$label: exits 255"
	contains "$ERR" "$word" "$label: says $word"
	is "$OUT" "" "$label: prints nothing on stdout"
	ok "$([ -e "$sock" ] && echo 1 || echo 0)" "$label: leaves no socket"
	sleep 0.2
	ok "$(pgrep -f -- "$sock" >/dev/null && echo 1 || echo 0)" "$label: leaves no process"
}

refused "$T/c.sock" "control character" "$AGENT" -s -a "$T/c.sock" -P $'/usr/lib/*\t'
refused "$T/a.sock" "audit=- needs -d or -D" "$AGENT" -s -a "$T/a.sock" -O audit=-

# keyward copied elsewhere, without its helpers
mkdir "$T/copy" "$T/bad"
cp "$AGENT" "$T/copy/keyward"
if [ -e /usr/local/libexec/keyward/keyward-policy ]; then
	skip_n 5 "an installed keyward's helpers would be found"
else
	refused "$T/x.sock" "keyward-policy (looked for it beside keyward and in /usr/local/libexec/keyward): No such file or directory" \
		"$T/copy/keyward" -s -a "$T/x.sock"
fi

# all helpers there, but the keyholder is no program: ENOEXEC, in each way
cp "$KEYWARD_BUILD"/keyward "$KEYWARD_BUILD"/keyward-* "$T/bad/"
printf 'not a program\n' >"$T/bad/keyward-keyholder"
chmod 755 "$T/bad/keyward-keyholder"
refused "$T/b1.sock" "cannot start keyward-keyholder (beside keyward or in /usr/local/libexec/keyward): Exec format error" \
	"$T/bad/keyward" -s -a "$T/b1.sock"
refused "$T/b2.sock" "Exec format error" "$T/bad/keyward" -a "$T/b2.sock" touch "$T/ran"
ok "$([ -e "$T/ran" ] && echo 1 || echo 0)" "the command is not run when the agent cannot start"
run timeout 20 "$T/bad/keyward" -D -a "$T/b3.sock"
is "$RC" 255 "-D with a keyholder that is no program: exits 255"
contains "$ERR" "Exec format error" "-D: says Exec format error"
unlike "$OUT" "SSH_AUTH_SOCK" "-D: prints no variable"

done_testing
