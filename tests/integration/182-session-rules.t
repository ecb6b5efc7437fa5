#!/bin/bash
# keyward(5)'s "session" clause against a real forwarded server: the
# example of keyward(5) (forwarded requests only while the screen is seen
# unlocked) in force with -O session-lock=ignore, so the rules alone
# decide; a private dbus-daemon with python3-dbusmock's logind template
# (lib-session.sh) says locked or unlocked; real ssh -A through loopback
# sshd hopA, where ssh-keygen -Y sign asks through the forwarded agent.
# Locked: the server's request is refused by the rule's deny, a local one
# served. Unlocked: the server gets it, by the rule's allow. Locked again:
# refused again. No session followed (another user's session named): the
# deny holds, since nothing says the user is there. keyward-ctl policy
# show prints the clause back; the trail names the rule. Stock ssh-agent
# has no rules and no session: keyward only.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"
. "$LIBDIR/lib-rules.sh"
. "$LIBDIR/lib-session.sh"

NTESTS=34
if ! is_keyward; then
	skip_n $NTESTS "keyward's rules and session watch"
	done_testing
fi
CTL=$KEYWARD_BUILD/keyward-ctl
session_deps
session_sysbus
dest_hosts hopA
dest_key k
RULES=$(rules_file example \
	"allow origin forwarded session unlocked" \
	"deny  origin forwarded")

start() { # XDG_SESSION_ID
	[ -n "${AGENT_FG_PID:-}" ] && stop_pid "$AGENT_FG_PID"
	DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS XDG_SESSION_ID=$1 AGENT_FG_FLAG=-d \
		start_agent_fg "$T/agent.sock" -O session-lock=ignore \
		-O policy="$RULES" -O audit="$AUDIT" -O audit-sync=yes ||
		bail "agent did not start"
}
lock() { lcall "$S1" org.freedesktop.login1.Session.SetLockedHint "$1" >/dev/null; }
# the rule line of the last sign record of a forwarded request
last_fwd_rule() {
	audit_sel 'select(.event == "sign" and .origin == "forwarded")' | tail -n1 |
		jq -r '"\(.decision) \(.rule.line) \(.rule.action)"'
}
# the sign records of forwarded requests
FWDSIGN='select(.event == "sign" and .origin == "forwarded")'

start c1
logsays "following logind session c1"
ok $? "the agent follows c1"
run "$CTL" policy show
is "$OUT" "allow origin forwarded session unlocked
deny origin forwarded" "keyward-ctl policy show: the clause in canonical form"
dest_add_ok k

dest_ssh -m sshsig -A k hopA
dest_row unlocked-forwarded ALLOW ok
# the forwarded server asks for the session state: refused (keyward's
# own requests are the user's, not a server's)
dest_ssh -A -c "SSH_AUTH_SOCK=\$SSH_AUTH_SOCK $(printf %q "$CTL") session; echo rc=\$?" k hopA
like "$OUT" 'rc=[1-9]' "a forwarded keyward-ctl session fails"
contains "$ERR" "the agent refused for the session it follows" "refused, as keyward-ctl says"
unlike "$OUT" 'screen:|c1' "and learns nothing of the session"
is "$(last_fwd_rule)" "allow 1 allow" "the trail: allowed by line 1 (session unlocked)"

lock true
logsays "session c1 locked: nothing changes"
ok $? "locked (session-lock=ignore: the rules decide)"
n=$(audit_count "$FWDSIGN")
dest_ssh -m sshsig -A k hopA
dest_row locked-forwarded DENY refused
audit_await "$n" "$FWDSIGN"
is "$(last_fwd_rule)" "refuse 2 deny" "the trail: refused by line 2"
dest_ssh -m sshsig k
dest_row locked-local ALLOW ok

lock false
poll_until 10 grep -qF "session c1 unlocked" "$T/agent.log"
ok $? "unlocked"
dest_ssh -m sshsig -A k hopA
dest_row unlocked-again-forwarded ALLOW ok
lock true
poll_until 10 prints 2 count 'session c1 locked'
ok $? "locked again"
dest_ssh -m sshsig -A k hopA
dest_row locked-again-forwarded DENY refused

# no session followed: neither state matches, the deny holds
lock false
lcall $LOGIND org.freedesktop.DBus.Mock.AddSession c9 seat0 54321 someone false >/dev/null
start c9
logsays "no session followed (the session found is not the agent user's)"
ok $? "no session followed"
run "$CTL" session
is "$OUT" "no session followed (the session found is not the agent user's)" \
	"keyward-ctl session says none is followed, and why"
run "$CTL" --json session
is "$OUT" '{"followed":false,"reason":"the session found is not the agent user'"'"'s"}' \
	"keyward-ctl --json session: the same"
dest_add_ok k
dest_ssh -m sshsig -A k hopA
dest_row nosession-forwarded DENY refused
dest_ssh -m sshsig k
dest_row nosession-local ALLOW ok
unlike "$(cat "$T/agent.log")" 'stopped by its filter|SIGSYS' "no filter stop"

# A remembered yes does not outlive a screen lock (the default
# -O session-lock): the user said yes at the keyboard and has since left it.
stop_pid "$AGENT_FG_PID"
AGENT_FG_PID=
rules_askpass
YES=$(rules_file yes "confirm remember=10m key comment k*")
DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS XDG_SESSION_ID=c1 AGENT_FG_FLAG=-d \
	SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force \
	start_agent_fg "$T/agent.sock" -O policy="$YES" || bail "agent did not start"
logsays "following logind session c1"
ok $? "the agent follows c1 again, with a remember= rule"
dest_add_ok k
dest_ssh -m sshsig k
dest_row remember-first ALLOW ok
is "$(prompts)" 1 "the user's signature is asked once (yes)"
dest_ssh -m sshsig k
dest_row remember-again ALLOW ok
is "$(prompts)" 1 "... and the yes remembered"
lock true
logsays "screen lock: every remembered yes forgotten"
ok $? "the screen lock forgets the remembered yes"
lock false
poll_until 10 prints_more 0 count 'session c1 unlocked'
ok $? "unlocked"
dest_ssh -m sshsig k
dest_row remember-after-lock ALLOW ok
is "$(prompts)" 2 "after the screen lock the user is asked again"
done_testing
