#!/bin/bash
# A lying keyward-peer, end to end: the test build's inspector
# answers every question with one kind of lie (KEYWARD_TEST_PEER_LIE, as
# an inspector a hostile peer had taken over could). Bytes that do not
# decode, an answer to a question never asked, or one over PEER_MAX_REPLY:
# the monitor gives the inspector up with one log line, every client is
# served from then on with its caller "unavailable", and nothing else of
# the agent notices. A well-formed forgery ("every caller is /usr/bin/ssh")
# is believed -- a caller is only as good as the inspector's reading, as
# keyward(5) TRUST says -- and still cannot make a key do what its own
# constraints refuse: a -c key asks, and a no refuses.
# keyward only (ssh-agent has no inspector); needs the test build.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

NTESTS=42
TB=${KEYWARD_TESTING_BUILD:-$(dirname "$AGENT")/../build-testing}
if ! is_keyward; then
	skip_n $NTESTS "not keyward: ssh-agent has no caller inspector"
	done_testing
fi
if [ ! -x "$TB/keyward" ]; then
	skip_n $NTESTS "no test build in $TB (make TESTING=1)"
	done_testing
fi

gen_key k ed25519 || bail "ssh-keygen k"
echo "some data" >"$T/data"
sign() { # KEY: ssh-keygen -Y sign -n file with it; 0 if a signature came
	rm -f "$T/data.sig"
	run nocaps ssh-keygen -Y sign -f "$T/keys/$1.pub" -n file "$T/data"
	[ "$RC" = 0 ] && [ -s "$T/data.sig" ]
}
inspector() { # the monitor's keyward-peer children
	local k
	for k in $(children "$MON"); do
		[ "$(cat "/proc/$k/comm" 2>/dev/null)" = keyward-peer ] && echo "$k"
	done
}
start() { # LIE
	: >"$AUDIT"
	KEYWARD_TEST_PEER_LIE=$1 AGENT=$TB/keyward AGENT_FG_FLAG=-d \
		start_agent_fg "$T/$1.sock" -O audit="$AUDIT" -O audit-sync=yes
	ok $? "lie $1: test-build keyward started"
	MON=$AGENT_FG_PID
}

# ------------------------------------------------- answers that are wrong
for lie in garbage wrong-id oversize; do
	case $lie in
	wrong-id) why="answered a request it was not asked" ;;
	*) why="sent a malformed answer" ;;
	esac
	start "$lie"
	poll_until 5 prints_some inspector
	ok $? "lie $lie: keyward-peer runs ($(inspector))"
	run nocaps ssh-add -l
	is "$RC" 1 "lie $lie: the first client is served (no identities)"
	poll_until 5 grep -qF "keyward-peer $why; callers are unavailable" "$T/agent.log"
	ok $? "lie $lie: the monitor says the inspector $why, and gives it up"
	poll_until 5 prints_none inspector
	ok $? "lie $lie: the inspector is gone (its channel closed), the monitor is not"
	run nocaps ssh-add "$T/keys/k"
	ok $RC "lie $lie: ssh-add k"
	sign k
	ok $? "lie $lie: ssh-keygen -Y sign with k"
	for i in 1 2 3; do nocaps ssh-add -l >/dev/null 2>&1; done
	is "$(grep -cF "keyward-peer $why" "$T/agent.log")" 1 "lie $lie: logged once, not once a client"
	is "$(audit_sel 'select(.event == "sign") | .peer.status')" '"unavailable"' \
		"lie $lie: the signature's record has its caller unavailable"
	pid_alive "$MON"
	ok $? "lie $lie: the monitor is alive"
	stop_pid "$MON"
	ok $? "lie $lie: and stops cleanly"
done

# --------------------------------------------------- a well-formed forgery
gen_key conf ed25519 || bail "ssh-keygen conf"
POL=$(rules_file forge \
	"allow key comment k@* caller /usr/bin/ssh" \
	"deny  key comment k@*" \
	"allow key comment conf@* caller /usr/bin/ssh")
rules_askpass
SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force start forge -O "policy=$POL"
run nocaps ssh-add "$T/keys/k"
ok $RC "forge: ssh-add k"
run nocaps ssh-add -c "$T/keys/conf"
ok $RC "forge: ssh-add -c conf"
sign k
ok $? "forge: ssh-keygen, named /usr/bin/ssh by the inspector, may sign with k (the forgery is believed)"
is "$(audit_sel 'select(.event == "sign") | .peer.exe' | tail -n 1)" '"/usr/bin/ssh"' \
	"forge: and its record says /usr/bin/ssh: a caller is as good as the inspector"
echo no >"$T/askpass.mode"
before=$(prompts)
sign conf
ok $(($? == 0)) "forge: the rule allows conf for that caller, but conf's -c still asks and a no refuses"
is "$(($(prompts) - before))" 1 "forge: the one prompt was shown"
echo yes >"$T/askpass.mode"
sign conf
ok $? "forge: and a yes signs"
stop_pid "$MON"
ok $? "forge: the agent stops cleanly"

[ "$TESTNUM" = "$NTESTS" ] || diag "test count $TESTNUM != NTESTS $NTESTS: fix NTESTS"
done_testing
