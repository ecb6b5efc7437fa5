#!/bin/bash
# Socket activation with named sockets (keyward(5) "socket", keyward(1)
# SOCKET ACTIVATION): systemd-socket-activate plays a socket unit with
# three sockets, the installed keyward.socket and two with
# FileDescriptorName=deploy and ci
# (--fdname=keyward.socket:deploy:ci, which becomes LISTEN_FDNAMES: the
# first as systemd names the sockets of a unit without one). keyward -D -O
# policy=FILE maps each fd to its declared socket: keys added on main,
# the deploy socket lists and signs with the deploy key alone and
# refuses management, ci (declared manage) takes a key of its own. A
# declared socket systemd did not pass, a name no declaration has, or
# several sockets without names are fatal (255) with a message.
. "$(dirname "$0")/lib.sh"

NTESTS=19
if ! is_keyward; then
	skip_n $NTESTS "not keyward: named sockets"
	done_testing
fi
command -v systemd-socket-activate >/dev/null ||
	{ skip_n $NTESTS "no systemd-socket-activate (package systemd)"; done_testing; }

RUN=$T/run/keyward
mkdir -p "$RUN" && chmod 700 "$T/run" "$RUN"
MAIN=$RUN/agent.sock DEPLOY=$RUN/deploy.sock CI=$RUN/ci.sock
cat >"$T/rules" <<EOF
socket deploy
socket ci manage
allow socket deploy key comment deploy-*
EOF
gen_key personal ed25519 || bail "ssh-keygen personal"
gen_key deploy-web ed25519 || bail "ssh-keygen deploy-web"
gen_key ci-key ed25519 || bail "ssh-keygen ci-key"

# activate NAMES SOCKET...: keyward -D -O policy= under the supervisor
activate() {
	local names=$1; shift
	local l=() s
	for s in "$@"; do l+=(-l "$s"); done
	LAST_CMD="systemd-socket-activate ${l[*]} --fdname=$names $AGENT -D -O policy=$T/rules" RUN_SHOWN=0
	(umask 0177; exec systemd-socket-activate "${l[@]}" "--fdname=$names" \
		"$AGENT" -D -O "policy=$T/rules") >"$T/sa.out" 2>"$T/agent.log" &
	SA_PID=$!
	AGENT_PIDS+=("$SA_PID")
	for s in "$@"; do wait_for_socket "$s" 10 || return 1; done
}

# the main socket as systemd names a unit's sockets when it sets no
# FileDescriptorName= (the installed keyward.socket)
activate keyward.socket:deploy:ci "$MAIN" "$DEPLOY" "$CI"
ok $? "the supervisor listens on three sockets (keyward.socket, deploy, ci)"
SSH_AUTH_SOCK=$MAIN run ssh-add "$T/keys/personal" "$T/keys/deploy-web"
is "$RC" 0 "two keys added through the main socket (keyward starts on it)"
SSH_AUTH_SOCK=$MAIN run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/personal.pub")"$'\n'"$(fp_line "$T/keys/deploy-web.pub")" \
	"main lists both"
SSH_AUTH_SOCK=$DEPLOY run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/deploy-web.pub")" "deploy lists the deploy key alone"
hide_key deploy-web
SSH_AUTH_SOCK=$DEPLOY run ssh-add -T "$T/keys/deploy-web.pub"
is "$RC" 0 "deploy signs with it (private half hidden: the agent's signature)"
SSH_AUTH_SOCK=$DEPLOY run ssh-add -D
is "$RC" 1 "ssh-add -D on deploy: refused"
SSH_AUTH_SOCK=$CI run ssh-add -l
is "$RC" 1 "ci lists nothing (no rule lets a key there)"
SSH_AUTH_SOCK=$CI run ssh-add "$T/keys/ci-key"
is "$RC" 0 "ci, declared manage, adds a key"
SSH_AUTH_SOCK=$CI run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/ci-key.pub")" "ci lists the key added through it (its scope)"
SSH_AUTH_SOCK=$DEPLOY run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/deploy-web.pub")" "deploy does not list ci's key"
SSH_AUTH_SOCK=$CI run ssh-add -D
SSH_AUTH_SOCK=$MAIN run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/personal.pub")"$'\n'"$(fp_line "$T/keys/deploy-web.pub")" \
	"ssh-add -D on ci removed ci's key alone"
kill -TERM "$SA_PID"
wait "$SA_PID"
is $? 0 "SIGTERM: exit status 0"
[ -S "$DEPLOY" ] && [ -S "$CI" ]
ok $? "the named sockets stay with the supervisor"
rm -f "$MAIN" "$DEPLOY" "$CI"

# --- what does not fit is fatal
activate main:deploy "$MAIN" "$DEPLOY"
SSH_AUTH_SOCK=$MAIN ssh-add -l >/dev/null 2>&1
wait "$SA_PID"
is $? 255 "a declared socket systemd did not pass: fatal (255)"
contains "$(cat "$T/agent.log")" "$T/rules:2:8: socket ci: systemd did not pass it (a socket unit line FileDescriptorName=ci)" \
	"and the log names it, at its place in the rules file" || diag_file "$T/agent.log"
rm -f "$MAIN" "$DEPLOY"
# keyward.socket alone, no names at all (the drop-in forgotten)
LAST_CMD="systemd-socket-activate -l $MAIN $AGENT -D -O policy=$T/rules" RUN_SHOWN=0
(umask 0177; exec systemd-socket-activate -l "$MAIN" "$AGENT" -D -O "policy=$T/rules") \
	>"$T/sa.out" 2>"$T/agent.log" &
SA_PID=$!
AGENT_PIDS+=("$SA_PID")
wait_for_socket "$MAIN" 10
SSH_AUTH_SOCK=$MAIN ssh-add -l >/dev/null 2>&1
wait "$SA_PID"
is $? 255 "the main socket alone, sockets declared: fatal (255)"
contains "$(cat "$T/agent.log")" "$T/rules:1:8: socket deploy: systemd did not pass it" \
	"and the log names the first declared socket not passed" || diag_file "$T/agent.log"
rm -f "$MAIN"
activate main:deploy:ci:web "$MAIN" "$DEPLOY" "$CI" "$RUN/web.sock"
SSH_AUTH_SOCK=$MAIN ssh-add -l >/dev/null 2>&1
wait "$SA_PID"
is $? 255 "a socket name the rules do not declare: fatal (255)"
contains "$(cat "$T/agent.log")" "systemd passed a socket named \"web\", which $T/rules does not declare" \
	"and the log names it" || diag_file "$T/agent.log"
done_testing
