#!/bin/bash
# Every keyward -O option of keyward(1), once, as a user would run it: the
# agent in the foreground (-D, its log on stderr) with the option, then a
# key added, listed, used to sign, the agent locked and unlocked, listed
# again and stopped. After each step every keyward process that was there
# at the start is still there; the option did what keyward(1) says in one
# observable way; the log has no "stopped by its filter" or "killed by
# signal" line. Then an invalid value of each exits 255 naming the option
# (EXIT STATUS). The plain ssh-agent options are 170-cli-diff.t's.
# (keyward only.)
. "$(dirname "$0")/lib.sh"

NTESTS=119
if ! is_keyward; then
	skip_n $NTESTS "keyward's own -O options"
	done_testing
fi
. "$LIBDIR/lib-sk.sh"
CTL=$KEYWARD_BUILD/keyward-ctl

gen_key k ed25519 || bail "ssh-keygen k"
gen_key g ed25519 || bail "ssh-keygen g"
sk_key s ed25519-sk
sk_rekey s w web:example.org || bail "sk_rekey"
printf 'lock words\n' >"$T/pass"
printf '#!/bin/sh\ncase "$1" in *llow*) echo yes ;; *) cat %s ;; esac\n' "$T/pass" >"$T/askpass.sh"
chmod 755 "$T/askpass.sh"
export SSH_ASKPASS=$T/askpass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0
echo 'some data' >"$T/msg"

PROCS="" STEPS="" DEAD="" LABEL=""
procs_alive() { local p; for p in $PROCS; do pid_alive "$p" || return 1; done; }
# step NAME CMD...: CMD run, its status noted; every process still there
step() {
	local n=$1; shift
	run timeout 30 "$@" </dev/null
	STEPS+="$n=$RC "
	procs_alive || DEAD+="after $n: $(for p in $PROCS; do pid_alive "$p" || echo -n "$p "; done)"
}
# begin LABEL OPTION...: keyward -D with OPTION..., the FIDO middleware allowed
begin() {
	LABEL=$1; shift
	STEPS="" DEAD=""
	start_agent_fg "$T/$LABEL.sock" -P "$ALLOW" "$@" && poll_until 10 helpers_up "$AGENT_FG_PID"
	ok $? "$LABEL: keyward -D $* starts, its helpers up" || bail "agent did not start"
	# Not the session watcher: with no bus here it ends on its own, sooner
	# or later (keyward(1), SESSION WATCH; 180-session-logind tests it),
	# maybe while this list is made: one gone before its name is read was
	# not there at the start either.
	PROCS="$AGENT_FG_PID $(descendants "$AGENT_FG_PID" | while read -r p; do
		c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
		[ "$c" = keyward-session ] || echo "$p"
	done | tr '\n' ' ')"
}
# session [KEY]: add, list, sign, lock, list (nothing), unlock, list
session() {
	local k=${1:-k}
	step add ssh-add "$T/keys/$k"
	step list sh -c "ssh-add -l | grep -qF ' $(fp "$T/keys/$k.pub") '"
	rm -f "$T/msg.sig"
	step sign ssh-keygen -Y sign -f "$T/keys/$k.pub" -n file "$T/msg"
	step lock ssh-add -x
	step locked-list sh -c "! ssh-add -l"
	step unlock ssh-add -X
	step list2 ssh-add -l
	is "$STEPS" "add=0 list=0 sign=0 lock=0 locked-list=0 unlock=0 list2=0 " \
		"$LABEL: add, list, sign, lock, unlock, list all work"
}
# finish: every process lived to the stop; the agent stops; its log is clean
finish() {
	is "$DEAD" "" "$LABEL: every keyward process lives until the stop"
	stop_pid "$AGENT_FG_PID"
	ok $? "$LABEL: the agent stops on SIGTERM"
	unlike "$(cat "$T/agent.log")" 'stopped by its filter|killed by signal|ERROR|AddressSanitizer|runtime error' \
		"$LABEL: no process stopped by its filter or killed, no error in the log"
	mv "$T/agent.log" "$T/agent-$LABEL.log.old"
}

# --- audit=FILE, with audit-sync=yes
begin audit-file -O audit="$T/trail" -O audit-sync=yes
session
finish
is "$(jq -r 'select(.event == "sign" and .decision == "allow") | .event' "$T/trail" 2>/dev/null | sort -u)" sign \
	"audit-file: the signature is in the trail, a JSON line"
contains "$(jq -r .event "$T/trail" 2>/dev/null | tr '\n' ' ')" "lock" "audit-file: so is the lock"

# --- audit=- : the trail on stderr
begin audit-stderr -O audit=-
session
grep -q '^{"seq":' "$T/agent.log"
ok $? "audit-stderr: records are on the agent's stderr"
finish

# --- audit=syslog, audit-socket=, audit-facility=, audit-tag=
"$PY3" - "$T/log.sock" "$T/syslog" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], 'ab', buffering=0) as f:
    while True:
        d = s.recv(65536)
        f.write(d.rstrip(b'\0').rstrip(b'\n').replace(b'\n', b' ') + b'\n')
PY
EXTRA_PIDS+=($!)
poll_until 5 test -S "$T/log.sock" || bail "the syslog receiver did not start"
begin audit-syslog -O audit=syslog -O audit-socket="$T/log.sock" -O audit-facility=local5 -O audit-tag=kw.opt-1
session
poll_until 5 grep -q '"event":"lock"' "$T/syslog"
# local5 (21) * 8 + info (6) = 174
grep -q '^<174>.*kw\.opt-1\[[0-9]*\]: {"seq":.*"event":"sign"' "$T/syslog"
ok $? "audit-syslog: the sign record reaches audit-socket, facility local5, severity info, tag kw.opt-1"
finish

# --- audit-key=: a seal at exit, verified
run "$CTL" audit keygen "$T/audit.key"
ok $RC "audit-key: keyward-ctl audit keygen"
VKEY=$OUT
begin audit-key -O audit="$T/sealed" -O audit-key="$T/audit.key"
session
finish
grep -q '"event":"seal"' "$T/sealed"
ok $? "audit-key: a seal line at exit"
run "$CTL" audit verify "$T/sealed" "$VKEY"
ok $RC "audit-key: keyward-ctl audit verify finds the trail intact and sealed"

# --- policy=: key g signs only SSHSIG in namespace file
cat >"$T/rules" <<EOF
allow key $(fp "$T/keys/g.pub") purpose sshsig namespace file
deny  key $(fp "$T/keys/g.pub")
EOF
begin policy -O policy="$T/rules"
session g
rm -f "$T/msg.sig"
step sign-git ssh-keygen -Y sign -f "$T/keys/g.pub" -n git "$T/msg"
ok "$([ "$RC" != 0 ] && [ ! -s "$T/msg.sig" ] && echo 0 || echo 1)" \
	"policy: the rules refuse key g in namespace git"
finish

# --- confirm-timeout=: a prompt nobody answers is a refusal
printf '#!/bin/sh\necho $$ >%s/hang.pid\nexec sleep 120\n' "$T" >"$T/askpass-hang.sh"
chmod 755 "$T/askpass-hang.sh"
# the prompter runs the askpass of the agent's environment
SSH_ASKPASS=$T/askpass-hang.sh begin confirm-timeout -O confirm-timeout=2
session
step add-confirm ssh-add -c "$T/keys/g"
is "$RC" 0 "confirm-timeout: ssh-add -c adds a key to confirm"
rm -f "$T/msg.sig"
run timeout 30 ssh-keygen -Y sign -f "$T/keys/g.pub" -n file "$T/msg" </dev/null
ok "$([ "$RC" != 0 ] && [ "$RC" != 124 ] && echo 0 || echo 1)" \
	"confirm-timeout: an unanswered prompt counts as a refusal (before the 30 s bound)"
test -s "$T/hang.pid"
ok $? "confirm-timeout: the prompt was shown (the askpass ran)"
wait_gone "$(cat "$T/hang.pid" 2>/dev/null)" 10
ok $? "confirm-timeout: the askpass program is killed"
procs_alive || DEAD+="after the confirm timeout"
finish

# --- touch-timeout=: a FIDO key signs; a touch that never comes is refused
begin touch-timeout -O touch-timeout=3
session s
finish
KWSK_TEST_WAIT_MS=600000 begin touch-timeout-wait -O touch-timeout=2
step add ssh-add "$T/keys/s"
rm -f "$T/msg.sig"
run timeout 30 ssh-keygen -Y sign -f "$T/keys/s.pub" -n file "$T/msg" </dev/null
ok "$([ "$RC" != 0 ] && [ "$RC" != 124 ] && echo 0 || echo 1)" \
	"touch-timeout: a touch that never comes is refused (before the 30 s bound)"
poll_until 5 grep -qi 'touch' "$T/agent.log"
ok $? "touch-timeout: a line logged"
procs_alive || DEAD+="after the touch timeout"
finish

# --- the forwarded ones: a real ssh -A to hostA (sshd on loopback)
. "$LIBDIR/lib-dest.sh"
dest_hosts hostA
cat "$T/keys/k.pub" >>"$T/authorized_keys"
fwd() { # CMD on hostA through ssh -A with key k; $RC/$OUT/$ERR
	run timeout 60 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/k" -A hostA "$1"
}
ASK="SSH_ASKPASS=$(printf %q "$T/askpass.sh") SSH_ASKPASS_REQUIRE=force DISPLAY=:0"

# allow-remote-manage: hostA may lock and unlock
begin allow-remote-manage -O allow-remote-manage
session
fwd "$ASK ssh-add -x && $ASK ssh-add -X"
ok $RC "allow-remote-manage: on hostA (ssh -A) ssh-add -x and -X work"
procs_alive || DEAD+="after the forwarded lock"
finish

# allow-remote-pkcs11: hostA may add a FIDO key naming its provider
begin allow-remote-pkcs11 -O allow-remote-pkcs11
session
fwd "ssh-add -S $(printf %q "$SO") $(printf %q "$T/keys/s")"
ok $RC "allow-remote-pkcs11: on hostA (ssh -A) ssh-add -S provider adds the FIDO key"
rm -f "$T/msg.sig"
step sign-s ssh-keygen -Y sign -f "$T/keys/s.pub" -n file "$T/msg"
is "$RC" 0 "allow-remote-pkcs11: and it signs"
finish

# --- the web-origin rule: key w (application web:example.org)
begin websafe-default
step add ssh-add "$T/keys/w"
is "$STEPS" "add=0 " "websafe default: key w is added"
step test ssh-add -T "$T/keys/w.pub"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "by default key w does not sign arbitrary data (ssh-add -T)"
finish
begin no-restrict-websafe -O no-restrict-websafe
session w
step test ssh-add -T "$T/keys/w.pub"
is "$RC" 0 "no-restrict-websafe: key w signs arbitrary data (ssh-add -T)"
finish
begin websafe-allow -O websafe-allow='ssh:*,web:*'
session w
step test ssh-add -T "$T/keys/w.pub"
is "$RC" 0 "websafe-allow=ssh:*,web:*: key w signs arbitrary data (ssh-add -T)"
finish

# --- invalid values: exit 255, the option named in the message
bad() { # WORD OPTION...
	local w=$1; shift
	run timeout 10 "$AGENT" -D -a "$T/bad.sock" "$@"
	is "$RC" 255 "$* exits 255"
	contains "$ERR" "$w" "$*: the message names $w"
	rm -f "$T/bad.sock"
}
bad audit -O 'audit='
bad audit-sync -O 'audit-sync=maybe'
bad audit-facility -O 'audit-facility=kern'
bad audit-tag -O 'audit-tag=a b'
bad audit-socket -O 'audit-socket=relative'
bad 'audit key' -O audit="$T/x" -O 'audit-key=/nonexistent/key'
bad policy -O 'policy=/nonexistent/rules'
bad confirm-timeout -O 'confirm-timeout=2x'
bad touch-timeout -O 'touch-timeout=0'
bad allow-remote-pkcs11 -O 'allow-remote-pkcs11=yes'
bad allow-remote-manage -O 'allow-remote-manage=yes'
bad no-restrict-websafe -O 'no-restrict-websafe=yes'
bad websafe-allow -O 'websafe-allow=a' -O 'websafe-allow=b'
# the session watch's own (their effects: 181-session-options.t)
bad session-lock -O 'session-lock=forget'
bad session-suspend -O 'session-suspend=ignore'
bad session-notify -O 'session-notify=every'
bad session-idle -O 'session-idle=2x'
done_testing
