#!/bin/bash
# keyward(5) socket declarations that cannot be honoured stop keyward
# before it starts, with FILE:LINE:COLUMN, and leave no socket behind
# (neither the main one nor the named ones made before the bad one):
# an existing file that is not a socket, a path outside a directory the
# user owns, a missing directory, a socket another agent listens on, the
# main socket's path, a name or a path twice. A stale socket is replaced.
# keyward -s / -c print KEYWARD_SOCK_NAME for each; a command sees them
# in its environment. keyward-ctl policy load that would change the
# sockets is refused with why, and the agent refuses it too.
. "$(dirname "$0")/lib.sh"

NTESTS=57
if ! is_keyward; then
	skip_n $NTESTS "not keyward: named sockets"
	done_testing
fi
CTL=$KEYWARD_BUILD/keyward-ctl
S=$T/s
mkdir -m 700 "$S"
MAIN=$S/main.sock

# refused FILE-CONTENT WANT-FRAGMENT NAME LEFT [STATUS]: keyward does not
# start (exit STATUS: 1 for a socket it cannot make, 255 for a file that
# does not parse: an invalid -O); stderr has "RULES:WANT"; no socket is
# left in $S but LEFT
refused() {
	printf '%s' "$1" >"$T/r.rules"
	run "$AGENT" -s -a "$MAIN" -O "policy=$T/r.rules"
	is "$RC" "${5:-1}" "$3: keyward exits ${5:-1}"
	contains "$ERR" "keyward: $T/r.rules:$2" "$3: the error names its place"
	is "$OUT" "" "$3: nothing printed on stdout"
	is "$(find "$S" -type s | sort | tr '\n' ' ')" "$4" "$3: no socket made is left"
}

touch "$S/file.sock"
refused "socket a $S/a.sock
socket b $S/file.sock
" "2:10: socket b: $S/file.sock exists and is not a socket" \
	"an existing regular file" ""

mkdir "$T/other" && chown nobody "$T/other"
refused "socket a $S/a.sock
# another user's directory
  socket c $T/other/c.sock manage
" "3:12: socket c: $T/other/c.sock is outside a directory you own (" \
	"a directory another user owns" ""

refused "socket a $S/nowhere/a.sock
" "1:10: socket a: its directory $S/nowhere: No such file or directory" \
	"a missing directory" ""

refused "socket a $MAIN
" "1:10: socket a: $MAIN is the main socket" "the main socket's path" ""

refused "socket a $S/a.sock
socket b $S/a.sock
" "2:10: socket path \"$S/a.sock\" declared twice (line 1)" "a path twice" "" 255

refused "socket a $S/a.sock
socket a $S/b.sock
" "2:8: socket \"a\" declared twice" "a name twice" "" 255

# another agent listens there: not taken over
AGENT_SOCK=$S/live.sock start_agent
ok $? "another keyward listens on $S/live.sock"
OTHER_PID=$SSH_AGENT_PID
refused "socket a $S/a.sock
socket live $S/live.sock
" "2:13: socket live: $S/live.sock is in use (another agent listens there)" \
	"a socket in use" "$S/live.sock "
SSH_AUTH_SOCK=$S/live.sock run ssh-add -l
is "$RC" 1 "the other agent still answers on it"
kill "$OTHER_PID"
wait_gone "$OTHER_PID" 10
unset SSH_AUTH_SOCK SSH_AGENT_PID

# --- a stale socket is replaced; -s and -c print the variables
perl -e 'use IO::Socket::UNIX; IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $ARGV[0], Listen => 1) or die' "$S/stale.sock"
[ -S "$S/stale.sock" ]
ok $? "a stale socket (nobody listening) at $S/stale.sock"
printf 'socket deploy-web %s\nsocket ci manage\n' "$S/stale.sock" >"$T/ok.rules"
run "$AGENT" -s -a "$MAIN" -O "policy=$T/ok.rules"
is "$RC" 0 "keyward -s starts with the stale socket's path declared"
is "$(printf '%s\n' "$OUT" | grep KEYWARD_SOCK)" \
	"KEYWARD_SOCK_DEPLOY_WEB=$S/stale.sock; export KEYWARD_SOCK_DEPLOY_WEB;"$'\n'"KEYWARD_SOCK_CI=$MAIN.ci; export KEYWARD_SOCK_CI;" \
	"-s: a variable a socket, the name in upper case with '_' for '-'"
eval "$OUT" >/dev/null
AGENT_PIDS+=("$SSH_AGENT_PID")
SSH_AUTH_SOCK=$S/stale.sock run ssh-add -l
is "$RC" 1 "the stale path is keyward's now (it answers: no identities)"
# keyward-ctl on a named socket not declared "manage": refused, and
# the reason it gives includes that one
SSH_AUTH_SOCK=$S/stale.sock run "$CTL"
contains "$ERR" 'the socket is a named one not declared "manage"' \
	"keyward-ctl (list) on a socket without manage: the message names that reason"
SSH_AUTH_SOCK=$S/stale.sock run "$CTL" policy show
contains "$ERR" 'the socket is a named one not declared "manage"' \
	"keyward-ctl policy show on a socket without manage: the message names that reason"

# the peer-uid check holds on a named socket as on the main one
if id nobody >/dev/null 2>&1; then
	chmod 711 "$T" "$S"
	cp "$RAWCLIENT" "$T/rawclient.pl"
	chmod 755 "$T/rawclient.pl"
	chmod 666 "$S/stale.sock"
	run runuser -u nobody -- env -i PATH=/usr/bin:/bin perl "$T/rawclient.pl" "$S/stale.sock" 0b
	is "$RC:$OUT" "0:EOF" "another uid on an opened-up named socket: closed without a reply"
	chmod 600 "$S/stale.sock"
	chmod 700 "$S"
else
	skip "no user nobody"
fi

# --- policy load may change the rules, not the sockets
printf 'socket deploy-web %s\nsocket ci manage\ndeny key comment nothing\n' "$S/stale.sock" >"$T/same.rules"
run "$CTL" policy load "$T/same.rules"
is "$RC" 0 "policy load with the same sockets: accepted"
printf 'socket deploy-web %s\nsocket ci manage\nsocket web\n' "$S/stale.sock" >"$T/more.rules"
run "$CTL" policy load "$T/more.rules"
ok $((RC == 0)) "policy load adding a socket: refused"
contains "$ERR" "declares other sockets than the agent listens on: sockets are made when keyward starts" \
	"keyward-ctl says why"
: >"$T/empty.rules"
run "$CTL" policy load "$T/empty.rules"
ok $((RC == 0)) "policy load of an empty file with sockets declared: refused (keyward-ctl(1))"
printf 'socket deploy-web %s\n' "$S/stale.sock" >"$T/less.rules"
run "$CTL" policy load "$T/less.rules"
ok $((RC == 0)) "policy load removing a socket: refused"
# the agent refuses it too, whoever asks (a raw load of the bigger file)
hex() { od -An -tx1 -v | tr -d ' \n'; }
str() { printf '%08x%s' $((${#1} / 2)) "$1"; }
run raw "$MAIN" "1b$(str "$(printf policy@keyward.dev | hex)")$(str "$(printf load | hex)")$(str "$(hex <"$T/more.rules")")"
is "$OUT" 1c "the agent refuses a raw load that adds a socket (EXTENSION_FAILURE)"
run "$CTL" policy show
is "$OUT" "socket deploy-web $S/stale.sock"$'\n'"socket ci manage"$'\n'"deny key comment nothing" \
	"the rules in force are the last accepted ones"
[ ! -e "$MAIN.web" ]
ok $? "no web socket was made"
kill "$SSH_AGENT_PID"
wait_gone "$SSH_AGENT_PID" 10
poll_until 5 not test -e "$S/stale.sock"
ok $? "the named sockets go with keyward (the reapers)"
[ ! -e "$MAIN.ci" ] && [ ! -e "$MAIN" ]
ok $? "ci's and main's too"

run "$AGENT" -c -a "$MAIN" -O "policy=$T/ok.rules"
is "$(printf '%s\n' "$OUT" | grep KEYWARD_SOCK)" \
	"setenv KEYWARD_SOCK_DEPLOY_WEB $S/stale.sock;"$'\n'"setenv KEYWARD_SOCK_CI $MAIN.ci;" "-c: csh syntax"
PID=$(printf '%s\n' "$OUT" | sed -n 's/^setenv SSH_AGENT_PID \([0-9]*\);$/\1/p')
AGENT_PIDS+=("$PID")
kill "$PID"
wait_gone "$PID" 10
poll_until 5 not test -e "$MAIN"

run "$AGENT" -a "$MAIN" -O "policy=$T/ok.rules" sh -c 'echo "$KEYWARD_SOCK_CI"; ssh-add -l >/dev/null 2>&1; echo $?'
is "$OUT" "$MAIN.ci"$'\n'"1" "a command sees KEYWARD_SOCK_CI and the agent"

# -T: a bare name lands in the private directory, which goes with it
printf 'socket ci manage\n' >"$T/t.rules"
run "$AGENT" -s -T -O "policy=$T/t.rules"
is "$RC" 0 "keyward -s -T starts with a bare-name socket"
CIS=$(printf '%s\n' "$OUT" | sed -n 's/^KEYWARD_SOCK_CI=\([^;]*\);.*/\1/p')
MS=$(printf '%s\n' "$OUT" | sed -n 's/^SSH_AUTH_SOCK=\([^;]*\);.*/\1/p')
PID=$(printf '%s\n' "$OUT" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
AGENT_PIDS+=("$PID")
[ -n "$MS" ] && [ "$CIS" = "$MS.ci" ] && [ -S "$CIS" ]
ok $? "the ci socket is beside the main one in the -T directory ($CIS)"
kill "$PID"
wait_gone "$PID" 10
poll_until 5 not test -e "$(dirname "$MS")"
ok $? "the -T directory is gone with both sockets"

# keyward(5)'s example under SOCKETS is a file keyward reads, and so is
# keyward(1)'s under SOCKET ACTIVATION (its rules part)
awk '/^\.SH / { on = ($0 == ".SH SOCKETS"); next }
	on && /^\.EX/ { ex = 1; next } on && /^\.EE/ { ex = 0; take = 0; next }
	on && ex && /^# ~\/.config\/keyward\/policy/ { take = 1 }
	on && ex && take { gsub(/\\-/, "-"); print }' "$REPO/doc/keyward.5" >"$T/ex5.rules"
awk '/^\.SH / { on = ($0 == ".SH SOCKET ACTIVATION"); next }
	on && /^# ~\/.config\/keyward\/policy/ { take = 1; next }
	on && /^\.EE/ { take = 0 }
	on && take { gsub(/\\-/, "-"); print }' "$REPO/doc/keyward.1" >"$T/ex1.rules"
for f in ex5 ex1; do
	grep -q '^socket deploy' "$T/$f.rules"
	ok $? "the $f example was found: $(head -c 70 "$T/$f.rules" | tr '\n' '|')"
	run "$KEYWARD_BUILD/tests/rules_check" "$T/$f.rules"
	is "$RC:$ERR" "0:" "the $f example is read"
done
# and keyward starts with keyward(5)'s, on any machine (no /run/user/UID
# assumed: a machine without logind has none)
run "$AGENT" -s -a "$S/ex.sock" -O "policy=$T/ex5.rules"
is "$RC" 0 "keyward starts with keyward(5)'s SOCKETS example"
PID=$(printf '%s\n' "$OUT" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
[ -n "$PID" ] && { AGENT_PIDS+=("$PID"); kill "$PID"; wait_gone "$PID" 10; }
done_testing
