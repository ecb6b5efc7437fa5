#!/bin/bash
# Log hygiene: a normal session -- start, add, sign, add and sign with a
# confirm key (askpass says yes), lock, unlock, list, stop -- as root and
# as an ordinary user (nobody), daemonised (-s), in the foreground (-D)
# and running a command (whose normal end is no error either),
# writes nothing at warning level or above to syslog, and nothing at all
# to the starting shell's stderr. keyward(1) LOGGING says what goes where.
#
# syslog is caught by a private /dev/log: the session runs in a mount
# namespace of its own whose /dev is a tmpfs holding bind mounts of the
# real /dev's entries and, as /dev/log, a datagram socket this test reads
# (so libcap-ng's own syslog lines, which bypass keyward's logger, are
# caught too). The same session runs against /usr/bin/ssh-agent.
. "$(dirname "$0")/lib.sh"

NTESTS=42
[ "$(id -u)" = 0 ] || { skip_n $NTESTS "needs root (mount namespace, setpriv)"; done_testing; }
command -v unshare >/dev/null && command -v setpriv >/dev/null && [ -x "$PY3" ] ||
	bail "unshare, setpriv and python3 are needed (util-linux, python3)"
id nobody >/dev/null 2>&1 || { skip_n $NTESTS "no user nobody"; done_testing; }

chmod 711 "$T"
mkdir -m 755 "$T/bin" "$T/olddev"

# ns.sh SOCK DIR CMD...: CMD in a mount namespace where /dev/log is SOCK
# (the real /dev is bound at the empty directory DIR in there).
cat >"$T/bin/ns.sh" <<'EOF'
#!/bin/sh
set -e
sock=$1 old=$2; shift 2
mount --rbind /dev "$old"
mount -t tmpfs -o mode=755 kwdev /dev
for e in "$old"/*; do
	n=${e##*/}
	[ "$n" = log ] && continue
	if [ -L "$e" ]; then cp -P "$e" "/dev/$n"
	elif [ -d "$e" ]; then mkdir "/dev/$n"; mount --rbind "$e" "/dev/$n"
	else : >"/dev/$n"; mount --bind "$e" "/dev/$n"; fi
done
: >/dev/log
mount --bind "$sock" /dev/log
exec "$@"
EOF
# logrecv.py SOCK FILE: every datagram on SOCK, one line each, into FILE
cat >"$T/bin/logrecv.py" <<'EOF'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
with open(sys.argv[2], 'ab', buffering=0) as f:
    while True:
        d = s.recv(65536)
        f.write(d.rstrip(b'\0').rstrip(b'\n').replace(b'\n', b' ') + b'\n')
EOF
# session.sh AGENT MODE DIR: the session, run as the user; MODE -s or -D.
# Each step's status goes to DIR/steps, the agent's start stderr to
# DIR/start.err (-s) or its whole stderr to DIR/fg.err (-D).
cat >"$T/bin/session.sh" <<'EOF'
#!/bin/bash
AGENT=$1 MODE=$2 D=$3
cd "$D" || exit 1
export HOME=$D/home SSH_ASKPASS=$D/askpass.sh SSH_ASKPASS_REQUIRE=force
not() { ! "$@"; }
step() { local n=$1; shift; "$@" </dev/null >/dev/null 2>&1; echo "$n $?" >>"$D/steps"; }
if [ "$MODE" = cmd ]; then
	# command mode: this script again, as the agent's command; its end
	# ends the agent (within keyward(1)'s 10 s parent check)
	"$AGENT" -a "$D/agent.sock" "$0" "$AGENT" in-cmd "$D" 2>"$D/start.err"
	echo "stop $?" >>"$D/steps"
	for i in $(seq 150); do [ -e "$D/agent.sock" ] || break; sleep 0.1; done
	echo "socket-gone $([ -e "$D/agent.sock" ] && echo 1 || echo 0)" >>"$D/steps"
	exit 0
fi
if [ "$MODE" = -s ]; then
	eval "$("$AGENT" -s -a "$D/agent.sock" 2>"$D/start.err")" >/dev/null
elif [ "$MODE" = in-cmd ]; then
	: # SSH_AUTH_SOCK and SSH_AGENT_PID are the agent's
else
	"$AGENT" -D -a "$D/agent.sock" >/dev/null 2>"$D/fg.err" &
	SSH_AGENT_PID=$! SSH_AUTH_SOCK=$D/agent.sock
	export SSH_AUTH_SOCK
	for i in $(seq 50); do [ -S "$D/agent.sock" ] && break; sleep 0.1; done
fi
echo "start $([ -S "$D/agent.sock" ] && echo 0 || echo 1)" >>"$D/steps"
step add ssh-add "$D/k"
step add-confirm ssh-add -c "$D/c"
echo data >"$D/data"
step sign ssh-keygen -Y sign -f "$D/k.pub" -n file "$D/data"
rm -f "$D/data.sig"
step sign-confirm ssh-keygen -Y sign -f "$D/c.pub" -n file "$D/data"
echo pw >"$D/pw"
step lock ssh-add -x
step list-locked not ssh-add -l
step unlock ssh-add -X
step list ssh-add -l
if [ "$MODE" = -s ]; then
	step stop "$AGENT" -k
elif [ "$MODE" = in-cmd ]; then
	exit 0
else
	kill "$SSH_AGENT_PID"; wait "$SSH_AGENT_PID"
	echo "stop $([ $? = 2 ] && echo 0 || echo 1)" >>"$D/steps"
fi
for i in $(seq 50); do [ -e "$D/agent.sock" ] || break; sleep 0.1; done
echo "socket-gone $([ -e "$D/agent.sock" ] && echo 1 || echo 0)" >>"$D/steps"
EOF
chmod 755 "$T/bin/ns.sh" "$T/bin/session.sh"

"$PY3" "$T/bin/logrecv.py" "$T/log.sock" "$T/syslog" &
EXTRA_PIDS+=($!)
poll_until 5 test -S "$T/log.sock" || bail "the syslog receiver did not start"

# mkdir_session DIR OWNER: keys, askpass and a home for one session
mkdir_session() {
	local d=$1 owner=$2
	mkdir -m 700 "$d" "$d/home"
	ssh-keygen -q -N '' -t ed25519 -C "k@kwtest" -f "$d/k" </dev/null >/dev/null
	ssh-keygen -q -N '' -t ed25519 -C "c@kwtest" -f "$d/c" </dev/null >/dev/null
	printf '#!/bin/sh\ncase "$1" in *Allow*) echo yes ;; *) cat %s/pw ;; esac\n' "$d" >"$d/askpass.sh"
	chmod 755 "$d/askpass.sh"
	chown -R "$owner" "$d"
}

# session WHO MODE: run it; its steps and its syslog lines are checked
session() {
	local who=$1 mode=$2 d=$T/s-$1$2 as=() lines bad steps
	case $who in
	root) mkdir_session "$d" root ;;
	user) mkdir_session "$d" nobody
		as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups) ;;
	esac
	: >"$T/syslog"
	timeout 60 unshare -m --propagation private "$T/bin/ns.sh" "$T/log.sock" "$T/olddev" \
		"${as[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$T/bin/session.sh" "$AGENT" "$mode" "$d"
	steps=$(cat "$d/steps" 2>/dev/null)
	is "$(printf '%s\n' "$steps" | awk '{print $2}' | tr -d '\n')" 00000000000 \
		"$who $mode: start, add, add -c, sign, sign confirmed, lock, list (none), unlock, list, stop, socket gone all succeed"
	[ "$(printf '%s\n' "$steps" | awk '$2 != 0' | wc -l)" = 0 ] ||
		diag "steps: $(printf '%s\n' "$steps" | tr '\n' ' ')"
	sleep 0.5 # the stop's last lines, if any, reach the receiver
	# <PRI>: severity = PRI & 7; 0-4 is emergency to warning
	bad=$(awk 'match($0, /^<[0-9]+>/) { p = substr($0, 2, RLENGTH - 2) % 8; if (p <= 4) print }' "$T/syslog")
	is "$bad" "" "$who $mode: nothing at warning level or above in syslog"
	if [ "$mode" != -D ]; then
		is "$(cat "$d/start.err")" "" "$who $mode: nothing on the starting shell's stderr"
	else
		unlike "$(cat "$d/fg.err")" 'libcap-ng|error|failed|warning' \
			"$who $mode: no error or warning on the foreground agent's stderr"
	fi
	if ! is_keyward; then
		skip "$(basename "$AGENT") logs nothing at info level"
	elif [ "$mode" != -D ]; then
		grep -q '^<38>.*keyward.*listening on' "$T/syslog"
		ok $? "$who $mode: keyward's info lines do reach this syslog (LOG_AUTH|LOG_INFO)"
	else
		grep -q '^keyward: keyward .* listening on' "$d/fg.err"
		ok $? "$who $mode: keyward's info lines are on its stderr"
	fi
	lines=$(wc -l <"$T/syslog")
	diag "$who $mode: $lines syslog lines"
	cp "$T/syslog" "$T/syslog.$who$mode"
	[ -n "$bad" ] && diag_file "$T/syslog" "syslog"
	ok "$(pgrep -f -- "-a $d/agent.sock" >/dev/null && echo 1 || echo 0)" "$who $mode: no agent process left"
	ok "$([ -e "$d/agent.sock" ] && echo 1 || echo 0)" "$who $mode: no socket left"
	ok "$(ls "$d/home/.ssh/agent" 2>/dev/null | grep -q . && echo 1 || echo 0)" "$who $mode: nothing left in ~/.ssh/agent"
}

for who in root user; do
	for mode in -s -D cmd; do
		session "$who" "$mode"
	done
done
# 6 sessions x 7 checks
done_testing
