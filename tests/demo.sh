#!/bin/sh
# demo.sh BUILD_DIR - keyward for real, in a throw-away directory.
# Three sshd instances on loopback play perseus, scylla and charybdis, each
# with its own host key. A key is loaded with
#     ssh-add -h perseus -h "perseus>scylla"
# so it may log in to perseus, and from perseus (through the forwarded
# agent) on to scylla, and nowhere else. The demo shows the permitted path
# working and two forbidden ones refused, with keyward's log line.
set -eu
BUILD=$1
T=$(mktemp -d /tmp/keyward-demo.XXXXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	[ -n "${SSH_AGENT_PID:-}" ] && kill "$SSH_AGENT_PID" 2>/dev/null || true
	[ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT INT TERM
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
mkdir -p /run/sshd 2>/dev/null || true
export HOME="$T/home"
mkdir -p "$HOME"
ME=$(id -un)

ssh-keygen -q -t ed25519 -N '' -C 'demo key' -f "$T/id_ed25519"
cp "$T/id_ed25519.pub" "$T/authorized_keys"
: > "$T/known_hosts"
port=$(( 20000 + $$ % 20000 ))
for host in perseus scylla charybdis; do
	port=$((port + 1))
	ssh-keygen -q -t ed25519 -N '' -f "$T/$host.key"
	cat > "$T/$host.sshd_config" <<CONF
ListenAddress 127.0.0.1:$port
HostKey $T/$host.key
PidFile none
AuthorizedKeysFile $T/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
AllowAgentForwarding yes
CONF
	/usr/sbin/sshd -D -e -f "$T/$host.sshd_config" 2>"$T/$host.log" &
	PIDS="$PIDS $!"
	echo "$host $(cut -d' ' -f1,2 "$T/$host.key.pub")" >> "$T/known_hosts"
	cat >> "$T/ssh_config" <<CONF
Host $host
	HostName 127.0.0.1
	Port $port
	HostKeyAlias $host
	User $ME
	UserKnownHostsFile $T/known_hosts
	StrictHostKeyChecking yes
	IdentitiesOnly yes
	IdentityFile $T/id_ed25519.pub
	BatchMode yes
	ConnectTimeout 5
CONF
done
for host in perseus scylla charybdis; do
	i=0
	until grep -q "Server listening" "$T/$host.log" || [ $i -ge 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
done
SSH="ssh -F $T/ssh_config"

say "start keyward (foreground, its log in a file)"
"$BUILD/keyward" -D -a "$T/agent.sock" 2>"$T/keyward.log" >/dev/null &
SSH_AGENT_PID=$!
export SSH_AUTH_SOCK="$T/agent.sock"
i=0; until [ -S "$SSH_AUTH_SOCK" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
for p in "$SSH_AGENT_PID" $(pgrep -P "$SSH_AGENT_PID"); do
	role=$(cat /proc/$p/comm)
	[ "$p" = "$SSH_AGENT_PID" ] && role="keyward (monitor)"
	[ "$role" = keyward ] && role="keyward (reaper)"
	printf '  %-8s %-20s %s\n' "$p" "$role" \
	    "$(grep -E '^(Seccomp|NoNewPrivs|CapEff):' /proc/$p/status | tr '\n\t' '  ')"
done

say "ssh-add -H known_hosts -h perseus -h 'perseus>scylla' id_ed25519"
ssh-add -H "$T/known_hosts" -h perseus -h "perseus>scylla" "$T/id_ed25519" 2>&1
mv "$T/id_ed25519" "$T/id_ed25519.away"      # only the agent can sign now
ssh-add -l

attempt() {  # attempt DESCRIPTION COMMAND...
	desc=$1; shift
	if out=$("$@" 2>&1); then
		printf '  \033[32mpermitted\033[0m  %-34s %s\n' "$desc" "$out"
	else
		printf '  \033[31mrefused\033[0m    %-34s %s\n' "$desc" \
		    "$(echo "$out" | tail -n 1)"
	fi
}
say "hops"
attempt "origin -> perseus" $SSH perseus 'echo logged in to perseus'
attempt "origin -> perseus -> scylla" $SSH -A perseus \
	"$SSH scylla 'echo logged in to scylla through perseus'"
attempt "origin -> scylla" $SSH scylla 'echo logged in to scylla'
attempt "origin -> perseus -> charybdis" $SSH -A perseus \
	"$SSH charybdis 'echo logged in to charybdis'"

say "why: keyward's log"
grep -E "refused|not listed" "$T/keyward.log" | sed 's/^/  /' || true
echo "  (a key not permitted for a destination is not even listed to it, so"
echo "  ssh never offers it: origin -> scylla fails without a signing attempt)"

say "stop"
kill "$SSH_AGENT_PID"
wait "$SSH_AGENT_PID" 2>/dev/null || true
SSH_AGENT_PID=""
[ -e "$T/agent.sock" ] && echo "  socket still there!" || echo "  keyward stopped, socket removed"
