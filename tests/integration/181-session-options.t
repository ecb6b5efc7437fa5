#!/bin/bash
# The session watch's options (keyward(1), SESSION WATCH) on a real
# dbus-daemon with python3-dbusmock's logind and notification_daemon
# templates (lib-session.sh), real ssh -A through loopback sshd:
#   -O session-lock=lock     the screen locked: the agent locked for local
#                            clients too (lists nothing, signs nothing),
#                            unlocked with the screen, no passphrase;
#   -O session-lock=ignore   the screen locked: a forwarded server served;
#   -O session-suspend=lock  suspend: the key kept but the agent locked
#                            until the screen's unlock, or the resume when
#                            the screen was not locked; after the logout
#                            locked for good, even when LockedHint goes
#                            false;
#   -O session-idle=4s       IdleHint true: keys without a token forgotten
#                            once 4 s pass with no signature; signatures
#                            keep them; IdleHint false stops the clock;
#   -O session-notify=all    a local signature raises a notice;
#   -O session-notify=none   a forwarded one raises none.
# Each fact and what was done about it is in the audit trail; no test
# sees a filter stop (the watcher's filter meets real sd-bus).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"
. "$LIBDIR/lib-session.sh"

NTESTS=67
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
session_deps
session_sysbus
session_sessbus
dest_hosts hopA
dest_key k

# agent LABEL OPTION...: a fresh agent following c1, the screen unlocked
agent() {
	local label=$1; shift
	[ -n "${AGENT_FG_PID:-}" ] && stop_pid "$AGENT_FG_PID"
	lcall "$S1" org.freedesktop.login1.Session.SetLockedHint false >/dev/null
	lcall "$S1" org.freedesktop.DBus.Mock.UpdateProperties \
		org.freedesktop.login1.Session "{'IdleHint': <false>}" >/dev/null
	DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS DBUS_SESSION_BUS_ADDRESS=$SESSBUS \
		XDG_SESSION_ID=c1 AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock" \
		-O audit="$T/audit-$label.log" "$@" || bail "agent $label did not start"
	logsays "following logind session c1" || bail "agent $label follows no session"
	dest_add_ok k
}
lock() { lcall "$S1" org.freedesktop.login1.Session.SetLockedHint "$1" >/dev/null; }
idle() {
	lcall "$S1" org.freedesktop.DBus.Mock.UpdateProperties \
		org.freedesktop.login1.Session "{'IdleHint': <$1>}" >/dev/null
}
CTL=$KEYWARD_BUILD/keyward-ctl
# ctl_line FIELD: the value of FIELD in keyward-ctl session's text
ctl_line() {
	run "$CTL" session
	printf '%s\n' "$OUT" | sed -n "s/^$1: *//p"
}
trail() { cat "$T/audit-$1.log"; }
# trail_has LABEL EVENT REASON: a record of EVENT with REASON in the trail
trail_has() {
	grep -F "\"event\":\"$2\"" "$T/audit-$1.log" | grep -qF "\"reason\":\"$3\""
}
nofilterstop() {
	unlike "$(cat "$T/agent.log")" 'stopped by its filter|SIGSYS' "$1: no filter stop"
}

# --- session-lock=lock
agent lock -O session-lock=lock
# Two local lists: the second is answered by the monitor from the answer
# policy lent it (doc/design.md §8), which the screen's lock must take back
ssh-add -l >/dev/null 2>&1
run ssh-add -l
contains "$OUT" "$(fp "$T/keys/k.pub")" "session-lock=lock: before the lock, a local list shows k"
poll_until 5 grep -q "list answered from policy's list answer" "$T/agent.log"
ok $? "... answered by the monitor from policy's list answer"
lock true
logsays "session c1 locked: the agent is locked until it is unlocked"
ok $? "session-lock=lock: the lock seen"
dest_ssh -m list k
dest_row lock-local-list DENY empty
is "$(ctl_line screen)/$(ctl_line agent)" "locked/locked by the session" \
	"keyward-ctl session (served while locked): screen locked, agent locked by it"
dest_ssh -m test k
dest_row lock-local-sign DENY refused
dest_ssh k hopA
dest_row lock-login DENY not-offered
printf '#!/bin/sh\necho any words\n' >"$T/pass.sh"
chmod 755 "$T/pass.sh"
SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0 run ssh-add -X </dev/null
dest_ssh -m list k
dest_row lock-after-ssh-add-X DENY empty
lock false
logsays "session c1 unlocked: requests are served again"
ok $? "session-lock=lock: the unlock seen"
dest_ssh -m list k
dest_row lock-unlocked-local-list ALLOW listed
is "$(ctl_line screen)/$(ctl_line agent)/$(ctl_line 'last suspend')" \
	"unlocked/not locked by the session/never" "keyward-ctl session: unlocked, never suspended"
dest_ssh -m sshsig -A k hopA
dest_row lock-unlocked-forwarded ALLOW ok
trail_has lock session-lock "the agent locked"
ok $? "trail: session-lock says the agent was locked"
trail_has lock sign "the agent is locked"
ok $? "trail: a signature refused while locked"
nofilterstop session-lock=lock

# --- session-lock=ignore
agent ignore -O session-lock=ignore
lock true
logsays "session c1 locked: nothing changes"
ok $? "session-lock=ignore: the lock seen"
dest_ssh -m sshsig -A k hopA
dest_row ignore-locked-forwarded ALLOW ok
dest_ssh -m list k
dest_row ignore-locked-local-list ALLOW listed

# --- session-suspend=lock
agent suspend -O session-suspend=lock
lock true
emit PrepareForSleep b "[<true>]"
logsays "suspend: the agent is locked until the session is unlocked"
ok $? "session-suspend=lock: suspend locks the agent"
emit PrepareForSleep b "[<false>]"
logsays "session c1 resumed"
ok $? "resumed"
dest_ssh -m list k
dest_row suspend-resumed-locked-screen DENY empty
like "$(ctl_line 'last suspend')" "^$(date -u +%Y-%m-%d)T[0-9:]{8}Z\$" \
	"keyward-ctl session: the last suspend, today, UTC"
is "$(ctl_line suspended)/$(ctl_line agent)" "no/locked by the session" \
	"keyward-ctl session: resumed, the agent still locked by the suspend"
lock false
logsays "session c1 unlocked: the agent is unlocked"
ok $? "the screen's unlock unlocks the agent"
dest_ssh -m list k
dest_row suspend-unlocked-list ALLOW listed
emit PrepareForSleep b "[<true>]"
poll_until 10 prints 2 count 'suspend: the agent is locked'
ok $? "a second suspend, the screen not locked"
dest_ssh -m list k
dest_row suspend-asleep DENY empty
emit PrepareForSleep b "[<false>]"
poll_until 10 prints 2 count 'the agent is unlocked'
ok $? "resumed with the screen not locked: the agent unlocked"
dest_ssh -m sshsig k
dest_row suspend-resumed-open ALLOW ok
emit SessionRemoved so "[<'c1'>, <objectpath '$S1'>]"
logsays "session ended: the agent is locked until the session is unlocked"
ok $? "session-suspend=lock: the logout locks the agent"
lock true
lock false
sleep 1
dest_ssh -m list k
dest_row suspend-ended-list DENY empty
is "$(ctl_line session)" "c1 (ended)" "keyward-ctl session: c1 (ended)"
is "$(count 'the agent is unlocked')" 2 "after the logout, LockedHint false unlocks nothing"
trail_has suspend session-suspend "the agent locked until the session is unlocked"
ok $? "trail: session-suspend says the agent was locked"
trail_has suspend session-end "the agent locked until the session is unlocked"
ok $? "trail: session-end says the agent was locked"
trail_has suspend session-unlock "the agent unlocked"
ok $? "trail: session-unlock says the agent was unlocked"
unlike "$(trail suspend)" '"event":"session-forget"' "trail: no key forgotten"
nofilterstop session-suspend=lock
# (SessionRemoved was only a signal: the mock still has c1)

# --- session-idle=4s
agent idle -O session-idle=4s
idle true
logsays "session c1 idle"
ok $? "IdleHint true seen"
like "$(ctl_line idle)" '^yes, for [0-9]+ s$' "keyward-ctl session: idle, for how long"
run "$CTL" --json session
is "$(jq -r '"\(.followed) \(.session) \(.locked) \(.idle) \(.agent_locked) \(.last_suspend)"' <<<"$OUT")" \
	"true c1 false true false null" "keyward-ctl --json session: the same facts"
# a signature every second for 7 s: the keys stay (4 s counts from the last)
for i in 1 2 3 4 5 6 7; do
	echo "data $i" >"$T/idle$i"
	unhide_key k
	ssh-keygen -Y sign -f "$T/keys/k.pub" -n file "$T/idle$i" >/dev/null 2>&1
	hide_key k
	sleep 1
done
is "$(ls "$T"/idle*.sig 2>/dev/null | wc -l)" 7 "7 signatures while idle, all made"
is "$(count 'idle timeout')" 0 "signatures keep the keys while idle"
poll_until 15 grep -qF "idle timeout: 1 key added without a token forgotten" "$T/agent.log"
ok $? "4 s idle with no signature: the key is forgotten"
agent_empty
ok $? "ssh-add -l: no identities after the idle timeout"
idle false
logsays "session c1 active"
ok $? "IdleHint false seen"
dest_add_ok k
idle true
poll_until 10 prints 2 count 'session c1 idle'
ok $? "idle again"
idle false
poll_until 10 prints 2 count 'session c1 active'
ok $? "active again at once"
sleep 6
agent_has "$T/keys/k.pub"
ok $? "activity stopped the clock: the key stays"
A=$(trail idle)
for ev in session-idle session-idle-timeout session-forget session-active; do
	contains "$A" "\"event\":\"$ev\"" "trail: $ev"
done
nofilterstop session-idle

# --- session-notify=all and none (the mock keeps every call: counted
# from here)
N0=$(nnotices)
is "$N0" 2 "by default (forwarded) the 2 forwarded signatures so far raised 2 notices, the local ones none"
agent notifyall -O session-notify=all
dest_ssh -m sshsig k
dest_row notify-all-local ALLOW ok
poll_until 10 prints_more "$N0" nnotices
is "$(nnotices 'keyward: key used|Used key k@kwtest')" 1 \
	"session-notify=all: a local signature raises one notice, titled as local"
is "$(nnotices)" $((N0 + 1)) "and no other"
agent notifynone -O session-notify=none
dest_ssh -m sshsig -A k hopA
dest_row notify-none-forwarded ALLOW ok
sleep 1
is "$(nnotices)" $((N0 + 1)) "session-notify=none: a forwarded signature raises none"
nofilterstop session-notify
done_testing
