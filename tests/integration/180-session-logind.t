#!/bin/bash
# The session watcher against a real dbus-daemon: a private system-style
# bus started here, python3-dbusmock's logind template on it, and the
# agent pointed at it with DBUS_SYSTEM_BUS_ADDRESS (keyward(1), SESSION
# WATCH). With the screen locked (Session.Lock, LockedHint) a real
# ssh -A server's ssh-keygen -Y sign is refused and a local one served;
# unlocked, served again; PrepareForSleep(true) and the session's removal
# forget the keys added without a token; each fact is in the audit trail.
# On a private session bus with dbusmock's notification_daemon, a
# forwarded signature raises one notice whose body is the confirm
# prompt's words (read back with GetCalls, compared whole); a flood from
# one forwarding host gets NOTICE_PER_HOST; local signatures none.
# A session of another user is not followed. No bus at all: the agent
# serves as today and says so once, and keyward-session, which nothing
# can reach then, ends and is reaped. While it watches it runs under its
# filter. No test sees a filter stop.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"
. "$LIBDIR/lib-session.sh"

NTESTS=62
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
session_deps
session_sysbus

# watchers: the pids of keyward-session among the agent's processes, a
# zombie too (children lists live ones only; ps lists every child)
watchers() {
	local c
	for c in "$AGENT_FG_PID" $(descendants "$AGENT_FG_PID"); do
		ps -o pid=,comm= --ppid "$c" 2>/dev/null |
			awk '$2 == "keyward-session" { print $1 }'
	done
}
no_watcher() { [ -z "$(watchers)" ]; }
status_field() { # PID FIELD
	awk -v f="$2:" '$1 == f {print $2; exit}' "/proc/$1/status" 2>/dev/null
}
contains "$(lcall "$S1" org.freedesktop.DBus.Properties.Get \
	org.freedesktop.login1.Session Name)" "'$(id -un)'" "mock logind: session c1 of $(id -un)"

dest_hosts hopA
dest_key k
DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS XDG_SESSION_ID=c1 AGENT_FG_FLAG=-d \
	start_agent_fg "$T/agent.sock" -O audit="$T/audit.log"
ok $? "agent started" || bail "agent did not start"
logsays "following logind session c1"
ok $? "the agent follows session c1 (\$XDG_SESSION_ID)"
W=$(watchers)
like "$W" '^[0-9]+$' "keyward-session runs while it follows c1"
is "$(status_field "${W:-0}" State)" S "keyward-session ($W) waits, not a zombie"
is "$(status_field "${W:-0}" Seccomp)" 2 "keyward-session ($W): Seccomp: 2 (filter mode)"
is "$(status_field "${W:-0}" NoNewPrivs)" 1 "keyward-session ($W): NoNewPrivs: 1"
for cap in CapEff CapPrm CapInh CapBnd CapAmb; do
	is "$(status_field "${W:-0}" $cap)" 0000000000000000 "keyward-session ($W): $cap all zero"
done
dest_add_ok k

dest_ssh -m sshsig -A k hopA
dest_row unlocked-forwarded ALLOW ok

lcall "$S1" org.freedesktop.login1.Session.Lock >/dev/null
logsays "session c1 locked"
ok $? "Session.Lock: the agent saw the screen locked"
dest_ssh -m sshsig -A k hopA
dest_row locked-forwarded DENY refused
contains "$(cat "$T/agent.log")" "the session is locked and the request is forwarded" \
	"the refusal says why"
dest_ssh -m sshsig k
dest_row locked-local ALLOW ok
dest_ssh k hopA
dest_row locked-local-login ALLOW ok

lcall "$S1" org.freedesktop.login1.Session.SetLockedHint false >/dev/null
logsays "session c1 unlocked"
ok $? "LockedHint false: unlocked"
dest_ssh -m sshsig -A k hopA
dest_row unlocked-again-forwarded ALLOW ok
lcall "$S1" org.freedesktop.login1.Session.SetLockedHint true >/dev/null
poll_until 10 prints 2 count 'session c1 locked'
ok $? "LockedHint true: locked again"
dest_ssh -m sshsig -A k hopA
dest_row hint-locked-forwarded DENY refused
lcall "$S1" org.freedesktop.login1.Session.Unlock >/dev/null
poll_until 10 prints 2 count 'session c1 unlocked'
ok $? "Session.Unlock: unlocked"

emit PrepareForSleep b "[<true>]"
logsays "suspend: 1 key added without a token forgotten"
ok $? "PrepareForSleep(true): the key is forgotten"
agent_empty
ok $? "ssh-add -l: no identities after the suspend"
emit PrepareForSleep b "[<false>]"
logsays "session c1 resumed"
ok $? "PrepareForSleep(false): resumed"
dest_add_ok k
emit SessionRemoved so "[<'c1'>, <objectpath '$S1'>]"
logsays "session ended: 1 key added without a token forgotten"
ok $? "SessionRemoved(c1): the key is forgotten"
agent_empty
ok $? "ssh-add -l: no identities after the logout"

# only a signature waits for its record: the session's (the logout's
# last) can reach the trail after the log line and ssh-add -l
poll_until 10 file_has "$T/audit.log" '"event":"session-end"'
A=$(cat "$T/audit.log")
for ev in session-follow session-lock session-unlock session-suspend \
    session-forget session-end; do
	contains "$A" "\"event\":\"$ev\"" "audit trail: $ev"
done
unlike "$(cat "$T/agent.log")" 'stopped by its filter|SIGSYS' "no filter stop"

# Notices: a private session bus with dbusmock's notification_daemon.
# Each signature for a forwarded connection raises one, with the words of
# the confirm prompt (read back from the mock, compared whole); a server
# asking FLOOD signatures at once gets NOTICE_PER_HOST.
NOTICE_PER_HOST=3
FLOOD=8
session_sessbus
cat >"$T/askpass.sh" <<ASK
#!/bin/sh
printf '%s\0' "\$1" >>"$T/prompts"
echo yes
ASK
chmod 755 "$T/askpass.sh"
# the last lock left LockedHint true: a new agent reads it and starts
# locked; unlocked here so forwarded requests are served
lcall "$S1" org.freedesktop.login1.Session.SetLockedHint false >/dev/null
stop_pid "$AGENT_FG_PID"
DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS DBUS_SESSION_BUS_ADDRESS=$SESSBUS XDG_SESSION_ID=c1 \
	SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force \
	AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock"
logsays "following logind session c1"
ok $? "agent with both buses follows c1"
dest_key c
dest_add_ok k
dest_add_ok c -c
dest_ssh -m sshsig -A -i k c hopA
dest_row notice-forwarded-confirmed ALLOW ok
poll_until 10 prints_more 0 nnotices
N=$(notices | tr '\0' '\n' | grep -c '^keyward|')
is "$N" 1 "one signature for a forwarded connection: one notice"
PROMPT=$(tr -d '\0' <"$T/prompts")
BODY=$(notices | cut -d'|' -f3- | tr -d '\0')
is "$BODY" "Used key c@kwtest
${PROMPT#*$'\n'}" "the notice's body is the confirm prompt's words, word for word"
like "$(notices | cut -d'|' -f2 | tr -d '\0')" 'forwarded' "its summary says forwarded"
dest_ssh -m sshsig k
is "$(notices | tr '\0' '\n' | grep -c '^keyward|')" 1 "a local signature raises none"
par="i=1; while [ \$i -le $FLOOD ]; do ssh-keygen -Y sign -f $(printf %q "$T/keys/k.pub") -n file $(printf %q "$T/par")\$i >/dev/null 2>&1 & i=\$((i + 1)); done; wait; ls $(printf %q "$T")/par*.sig | wc -l"
for i in $(seq "$FLOOD"); do echo "data $i" >"$T/par$i"; done
dest_ssh -A -c "$par" k hopA
is "$(ls "$T"/par*.sig 2>/dev/null | wc -l)" "$FLOOD" "the flood's $FLOOD signatures were all made"
# The notices reach the mock after the signatures, through keyward-session
# and the bus: wait for the NOTICE_PER_HOST it should get (at most 10 s),
# then a second for any it should not.
poll_until 10 prints_more $((NOTICE_PER_HOST - 1)) nnotices
sleep 1
is "$(notices | tr '\0' '\n' | grep -c '^keyward|')" "$NOTICE_PER_HOST" \
	"hopA got NOTICE_PER_HOST ($NOTICE_PER_HOST) notices in its window, not $((FLOOD + 1))"
unlike "$(cat "$T/agent.log")" 'stopped by its filter|SIGSYS' "no filter stop with notices"

# A session of another user is not followed, whatever $XDG_SESSION_ID says.
lcall $LOGIND org.freedesktop.DBus.Mock.AddSession c9 seat0 54321 someone false >/dev/null
stop_pid "$AGENT_FG_PID"
DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS XDG_SESSION_ID=c9 AGENT_FG_FLAG=-d \
	start_agent_fg "$T/agent.sock"
logsays "no session followed (the session found is not the agent user's)"
ok $? "another user's session (c9): not followed, said in the log"

# Without $XDG_SESSION_ID: logind's GetSessionByPID of the agent. The
# template has no such method: first none is found (and said), then the
# mock gets one that names c1 only when asked for the monitor's pid
# (a process named keyward, not keyward-policy or keyward-session).
stop_pid "$AGENT_FG_PID"
DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS XDG_SESSION_ID= AGENT_FG_FLAG=-d \
	start_agent_fg "$T/agent.sock"
logsays "no session followed (logind knows no session of the agent or its user)"
ok $? "no \$XDG_SESSION_ID, no GetSessionByPID: not followed, said in the log"
lcall $LOGIND org.freedesktop.DBus.Mock.AddMethod org.freedesktop.login1.Manager \
	GetSessionByPID u o \
	"ret = dbus.ObjectPath('$S1') if open('/proc/%d/comm' % args[0]).read().strip() == 'keyward' else None" >/dev/null
stop_pid "$AGENT_FG_PID"
DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS XDG_SESSION_ID= AGENT_FG_FLAG=-d \
	start_agent_fg "$T/agent.sock"
logsays "following logind session c1"
ok $? "no \$XDG_SESSION_ID: GetSessionByPID of the agent finds c1"

# No bus at all: the agent serves as today and says so once. Nothing can
# reach keyward-session then: it ends, and policy (which may not wait()
# under its filter) leaves no zombie behind (SA_NOCLDWAIT).
stop_pid "$AGENT_FG_PID"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/no-such-bus XDG_SESSION_ID=c1 \
	DBUS_SESSION_BUS_ADDRESS=unix:path=$T/no-such-session-bus \
	AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock"
logsays "no session followed (no system bus)"
ok $? "no system bus: said in the log"
poll_until 5 no_watcher
ok $? "no bus at all: keyward-session ended and was reaped (left: $(watchers))"
logsays "keyward-session: no bus to watch: ending"
ok $? "no bus at all: keyward-session said why it ended"
run "$KEYWARD_BUILD/keyward-ctl" session
contains "$OUT" "no session followed (no system bus)" \
	"keyward-ctl session still says why no session is followed"
dest_add_ok k
dest_ssh -m sshsig -A k hopA
dest_row nobus-forwarded ALLOW ok
dest_ssh -m sshsig k
dest_row nobus-local ALLOW ok
is "$(grep -c 'no session followed' "$T/agent.log")" 1 "said once"
unlike "$(cat "$T/agent.log")" 'keyward-session ended' "policy took the watcher's end as ordered"
unlike "$(cat "$T/agent.log")" 'stopped by its filter|SIGSYS' "no filter stop without a bus"
done_testing
