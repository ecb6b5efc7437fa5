#!/bin/bash
# Peer credentials: a client of another uid (nobody) reaching an opened-up
# socket gets nothing (the connection is closed, no reply); the owner keeps
# working. An agent running as nobody still serves root.
. "$(dirname "$0")/lib.sh"

id nobody >/dev/null 2>&1 || { skip_n 15 "no user nobody"; done_testing; }
NOBODY_UID=$(id -u nobody) NOBODY_GID=$(id -g nobody)

chmod 711 "$T"
mkdir -m 755 "$T/sd"
cp "$RAWCLIENT" "$T/rawclient.pl"
chmod 755 "$T/rawclient.pl"
as_nobody() { runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME=/nonexistent SSH_AUTH_SOCK="$T/sd/agent.sock" "$@" </dev/null; }

gen_key k ed25519 || bail "ssh-keygen k"
AGENT_SOCK=$T/sd/agent.sock start_agent
ok $? "agent started on $T/sd/agent.sock" || bail "agent did not start"
run ssh-add "$T/keys/k"
ok $RC "owner adds a key"
chmod 666 "$T/sd/agent.sock"
FP=$(fp "$T/keys/k.pub")

run as_nobody perl "$T/rawclient.pl" "$T/sd/agent.sock" 0b
is "$RC:$OUT" "0:EOF" "another uid: connection closed without any reply to a list request"
run as_nobody perl "$T/rawclient.pl" "$T/sd/agent.sock" 13 09
is "$OUT" "EOF" "another uid: remove-all requests get no reply"
run as_nobody ssh-add -l
# ssh-add either dies of SIGPIPE (141) or reports the broken connection
# (exit 1); what it must never see is a list answer.
[ "$RC" -ge 2 ] || printf '%s\n' "$ERR" | grep -q 'error fetching identities: communication with agent failed'
ok $? "another uid: ssh-add -l fails at the connection (status $RC)"
unlike "$OUT" 'no identities|SHA256' "another uid: ssh-add -l got no list answer"
run as_nobody ssh-add -D
[ "$RC" != 0 ]
ok $? "another uid: ssh-add -D fails"

run ssh-add -l
is "$RC:$OUT" "0:$(fp_line "$T/keys/k.pub")" "the owner still lists the key afterwards"
run ssh-add -T "$T/keys/k.pub"
is "$RC" 0 "the owner still signs"

chmod 644 "$T/sd/agent.sock"
run as_nobody ssh-add -l
is "$RC" 2 "socket mode 0644: another uid cannot even connect (exit 2)"
stop_agent
ok $? "agent stopped"

# an agent running as nobody: root (uid 0) is always allowed
mkdir -m 700 "$T/nb"
chown nobody "$T/nb"
setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups env -i PATH=/usr/bin:/bin HOME=/nonexistent \
	"$AGENT" -D -a "$T/nb/agent.sock" >"$T/nb-agent.out" 2>"$T/agent-nb.log" </dev/null &
nbpid=$!
AGENT_PIDS+=("$nbpid")
wait_for_socket "$T/nb/agent.sock" 10
ok $? "agent running as nobody is listening"
is "$(awk '/^Uid:/ {print $2}' "/proc/$nbpid/status" 2>/dev/null)" "$NOBODY_UID" "it runs with uid nobody"
SSH_AUTH_SOCK=$T/nb/agent.sock run ssh-add -l
is "$RC:$OUT" "1:The agent has no identities." "root is served by another user's agent"
stop_pid "$nbpid"
ok $? "nobody's agent stopped"

done_testing
