#!/bin/bash
# Socket activation (doc/protocol.md §11.4), the way doc/keyward.socket and
# doc/keyward.service set it up, played by systemd-socket-activate (no
# running systemd needed): the supervisor owns the socket and passes it as
# fd 3; keyward -D prints nothing on stdout, ssh-add and ssh use the
# socket (add, list, test-sign, a real login), SIGTERM exits 0 and leaves
# the socket to the supervisor, other signals exit 2; bad LISTEN_*
# variables are fatal (255).
. "$(dirname "$0")/lib.sh"

SOCKET_UNIT=$REPO/doc/keyward.socket
SERVICE_UNIT=$REPO/doc/keyward.service

# --- the units themselves (whatever the agent under test)
listen=$(sed -n 's/^ListenStream=//p' "$SOCKET_UNIT")
like "$listen" '^%t/[^ ]+$' "keyward.socket listens on a path under %t (\$XDG_RUNTIME_DIR): $listen"
is "$(sed -n 's/^SocketMode=//p' "$SOCKET_UNIT")" 0600 "keyward.socket: SocketMode=0600"
is "$(sed -n 's/^DirectoryMode=//p' "$SOCKET_UNIT")" 0700 "keyward.socket: DirectoryMode=0700"
is "$(sed -n 's/^Service=//p' "$SOCKET_UNIT")" keyward.service "keyward.socket starts keyward.service"
exec_start=$(sed -n 's/^ExecStart=//p' "$SERVICE_UNIT")
is "$exec_start" "/usr/bin/keyward -D" "keyward.service runs 'keyward -D' (foreground, no -a, no command)"
grep -q '^Requires=keyward.socket$' "$SERVICE_UNIT"
ok $? "keyward.service requires keyward.socket"
is "$(sed -n 's/^KillMode=//p' "$SERVICE_UNIT")" mixed \
	"keyward.service: KillMode=mixed (SIGTERM to keyward alone; it ends its helpers itself)"
# hardening: each setting as doc/keyward.service gives it, and systemd's
# own rating of the unit (9.6 UNSAFE without them)
for kv in NoNewPrivileges=yes PrivateUsers=yes CapabilityBoundingSet= \
	ProtectSystem=strict ProtectHome=read-only PrivateNetwork=yes PrivateIPC=yes \
	PrivateMounts=yes RestrictAddressFamilies=AF_UNIX RestrictNamespaces=yes \
	SystemCallArchitectures=native LockPersonality=yes MemoryDenyWriteExecute=yes \
	RestrictRealtime=yes RestrictSUIDSGID=yes ProtectKernelTunables=yes \
	ProtectKernelModules=yes ProtectKernelLogs=yes ProtectControlGroups=yes \
	ProtectClock=yes ProtectHostname=yes ProtectProc=invisible UMask=0077; do
	grep -qx "$kv" "$SERVICE_UNIT"
	ok $? "keyward.service: $kv"
done
if command -v systemd-analyze >/dev/null; then
	mkdir "$T/unit" && cp "$SERVICE_UNIT" "$T/unit/keyward.service"
	exposure=$(cd "$T/unit" && systemd-analyze security --offline=true keyward.service 2>&1 |
		sed -n 's/.*Overall exposure level for keyward.service: \([0-9.]*\).*/\1/p')
	diag "systemd-analyze security: exposure $exposure"
	ok "$(awk -v e="${exposure:-99}" 'BEGIN { print (e <= 2.0) ? 0 : 1 }')" \
		"systemd-analyze security --offline rates keyward.service at most 2.0 (is ${exposure:-none})"
else
	skip "systemd-analyze is not installed (package systemd)"
fi

NTESTS=28
if ! is_keyward; then
	skip_n $NTESTS "not keyward: $AGENT (ssh-agent has socket activation only from OpenSSH 10.0)"
	done_testing
fi
command -v systemd-socket-activate >/dev/null
ok $? "systemd-socket-activate is installed (package systemd; make deps)" ||
	{ skip_n $((NTESTS - 1)) "no systemd-socket-activate"; done_testing; }

# The service's command line, with the binary under test.
args=${exec_start#/usr/bin/keyward}
read -r -a ARGS <<<"$args"
RUNDIR=$T/run                   # plays %t
SOCK=${listen/\%t/$RUNDIR}
mkdir -p "$RUNDIR" && chmod 700 "$RUNDIR"
mkdir -m 0700 "$(dirname "$SOCK")"

# activate SOCK: start "$AGENT ${ARGS[@]}" under systemd-socket-activate
# (umask 0177, as keyward makes its own sockets) with stdout in $T/sa.out and stderr in $T/agent.log; sets SA_PID (the
# supervisor execs keyward, so this is keyward's pid once it runs).
activate() {
	LAST_CMD="systemd-socket-activate -l $1 $AGENT ${ARGS[*]}" RUN_SHOWN=0
	# what of keyward.service's hardening runs without systemd as pid
	# 1: no new privileges, no capability (the rest: systemd-analyze)
	(umask 0177; exec systemd-socket-activate -l "$1" setpriv --no-new-privs \
		--bounding-set=-all --inh-caps=-all "$AGENT" "${ARGS[@]}") \
		>"$T/sa.out" 2>"$T/agent.log" &
	SA_PID=$!
	AGENT_PIDS+=("$SA_PID")
	wait_for_socket "$1" 10
}

activate "$SOCK"
ok $? "supervisor listening on $SOCK"
chmod 0600 "$SOCK"      # SocketMode=0600 (systemd-socket-activate has no such option)
is "$(stat -c %a "$(dirname "$SOCK")")" 700 "its directory has mode 0700 (DirectoryMode)"
export SSH_AUTH_SOCK=$SOCK

gen_key a ed25519 || bail "ssh-keygen a"
gen_key b ecdsa || bail "ssh-keygen b"
cat "$T/keys/a.pub" >>"$T/authorized_keys"

# The first connection makes the supervisor exec keyward.
run ssh-add "$T/keys/a"
is "$RC" 0 "ssh-add through the activated socket"
is "$ERR" "Identity added: $T/keys/a (a@kwtest)" "ssh-add says 'Identity added'"
is "$(readlink "/proc/$SA_PID/exe")" "$(readlink -f "$AGENT")" \
	"the supervisor has become keyward (LISTEN_PID is keyward's pid)"
run ssh-add "$T/keys/b"
is "$RC" 0 "a second key added"
run ssh-add -l
is "$RC" 0 "ssh-add -l exits 0"
is "$OUT" "$(fp_line "$T/keys/a.pub")"$'\n'"$(fp_line "$T/keys/b.pub")" \
	"ssh-add -l lists both keys, in order"
hide_key a
hide_key b
run ssh-add -T "$T/keys/a.pub" "$T/keys/b.pub"
is "$RC" 0 "ssh-add -T: the agent signs with both keys (private halves hidden)"
echo data >"$T/data"
run ssh-keygen -Y sign -n file -f "$T/keys/b.pub" "$T/data"
is "$RC" 0 "ssh-keygen -Y sign through the agent"
printf 'signer %s\n' "$(cut -d' ' -f1,2 "$T/keys/b.pub")" >"$T/allowed"
run ssh-keygen -Y verify -f "$T/allowed" -I signer -n file -s "$T/data.sig" <"$T/data"
is "$RC" 0 "and the signature verifies"

start_sshd hostA
ok $? "sshd hostA started"
run ssh_as hostA "$T/keys/a.pub" -- 'echo logged-in'
is "$RC:$OUT" "0:logged-in" "a real login through the activated agent" || diag_file "$(sshd_log hostA)"
sshd_accepted hostA "$T/keys/a.pub"
ok $? "sshd accepted the key the agent signed with"

# (a scan of /proc can miss processes while others come and go: retry)
for ((i = 0; i < 25; i++)); do
	kids=$(descendants "$SA_PID")
	[ "$(printf '%s\n' "$kids" | grep -c .)" -ge 2 ] && break
	sleep 0.2
done
[ "$(printf '%s\n' "$kids" | grep -c .)" -ge 2 ]
ok $? "keyward runs its helpers (policy, keyholder)"
kill -TERM "$SA_PID"
wait "$SA_PID"
is $? 0 "SIGTERM: keyward exits with status 0 under socket activation"
is "$(cat "$T/sa.out")" "" "nothing was printed on stdout"
contains "$(cat "$T/agent.log")" "listening on the activated socket" "the log (stderr) says it used the activated socket"
[ -S "$SOCK" ]
ok $? "the socket file is still there afterwards (the supervisor owns it)"
all_gone=0
for k in $kids; do wait_gone "$k" 10 || all_gone=1; done
ok $all_gone "policy and keyholder are gone too"
mv "$T/agent.log" "$T/agent-term.log.old"

# --- other signals exit 2 (SIGHUP here), socket left in place
SOCK2=$T/run/keyward/agent2.sock
activate "$SOCK2"
ok $? "second supervisor listening"
SSH_AUTH_SOCK=$SOCK2 run ssh-add -l
is "$RC" 1 "the new agent answers (no identities)"
kill -HUP "$SA_PID"
wait "$SA_PID"
is $? 2 "SIGHUP: exit status 2 (only SIGTERM gives 0)"
[ -S "$SOCK2" ]
ok $? "the socket is left in place"

# --- activation variables that do not fit are fatal
run env LISTEN_PID=1 LISTEN_FDS=1 "$AGENT" -D 3</dev/null
is "$RC:$OUT" "255:" "LISTEN_PID of another process: fatal (255), nothing printed"
run bash -c 'export LISTEN_PID=$$ LISTEN_FDS=2; exec "$0" -D 3</dev/null' "$AGENT"
is "$RC" 255 "LISTEN_FDS=2: fatal (255)"
run bash -c 'export LISTEN_PID=$$ LISTEN_FDS=1; exec 3>&-; exec "$0" -D' "$AGENT"
is "$RC" 255 "fd 3 not open: fatal (255)"

done_testing
