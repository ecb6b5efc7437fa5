#!/bin/sh
# demo.sh BUILD_DIR - keyward for real, in a throw-away directory:
# start the agent, load a key, log in to a local sshd on loopback with
# the key held only by the agent, list the keys, stop everything.
set -eu
BUILD=$1
T=$(mktemp -d /tmp/keyward-demo.XXXXXX)
SSHD_PID=""
cleanup() {
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null || true
	[ -n "${SSH_AGENT_PID:-}" ] && "$BUILD/keyward" -k >/dev/null 2>&1 || true
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
say() { printf '\n== %s\n' "$*"; }

export HOME="$T/home"
mkdir -p "$HOME" /run/sshd 2>/dev/null || mkdir -p "$HOME"
ssh-keygen -q -t ed25519 -N '' -C 'demo key' -f "$T/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$T/host_key"
cp "$T/id_ed25519.pub" "$T/authorized_keys"

PORT=$(( 20000 + $$ % 20000 ))
cat > "$T/sshd_config" <<CONF
ListenAddress 127.0.0.1:$PORT
HostKey $T/host_key
PidFile none
AuthorizedKeysFile $T/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
CONF
/usr/sbin/sshd -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
SSHD_PID=$!
echo "perseus $(cat "$T/host_key.pub")" | sed "s/^perseus/[127.0.0.1]:$PORT/" > "$T/known_hosts"
cat > "$T/ssh_config" <<CONF
Host perseus
	HostName 127.0.0.1
	Port $PORT
	User $(id -un)
	UserKnownHostsFile $T/known_hosts
	StrictHostKeyChecking yes
	IdentitiesOnly yes
	IdentityFile $T/id_ed25519.pub
	BatchMode yes
CONF
i=0; until ssh -F "$T/ssh_config" -o ConnectTimeout=1 perseus true 2>/dev/null ||
	grep -q "Server listening" "$T/sshd.log" || [ $i -ge 50 ]; do sleep 0.1; i=$((i+1)); done

say "start keyward:  eval \"\$($BUILD/keyward -s -a $T/agent.sock)\""
eval "$("$BUILD/keyward" -s -a "$T/agent.sock")"
echo "SSH_AUTH_SOCK=$SSH_AUTH_SOCK SSH_AGENT_PID=$SSH_AGENT_PID"
for p in "$SSH_AGENT_PID" $(pgrep -P "$SSH_AGENT_PID"); do
	role=$(cat /proc/$p/comm)
	[ "$p" = "$SSH_AGENT_PID" ] && role="keyward (monitor)"
	[ "$role" = keyward ] && role="keyward (reaper)"
	printf '%-8s %-20s %s\n' "$p" "$role" \
	    "$(grep -E '^(Seccomp|NoNewPrivs|CapEff):' /proc/$p/status | tr '\n\t' '  ')"
done

say "ssh-add (then the private key file is moved away: only the agent can sign)"
ssh-add "$T/id_ed25519"
mv "$T/id_ed25519" "$T/id_ed25519.away"

say "ssh-add -l"
ssh-add -l

say "ssh perseus (a real sshd on 127.0.0.1:$PORT)"
ssh -F "$T/ssh_config" perseus 'echo "logged in as $(id -un) on $(hostname), authenticated by the agent"'

say "stop:  keyward -k"
"$BUILD/keyward" -k
unset SSH_AGENT_PID
