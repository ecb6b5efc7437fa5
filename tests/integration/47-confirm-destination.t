#!/bin/bash
# keyward's confirm prompt says where a key is going: which key, for which
# user, to which host, through which hops (names from the key's own -h
# constraints), or that it cannot tell where an unbound request comes
# from, and only what it verified; a prompt left unanswered past
# -O confirm-timeout is a refusal, and other clients are served
# meanwhile. (keyward only: ssh-agent's prompt names the key alone.)
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

NTESTS=26
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi

cat >"$T/askpass.sh" <<EOF
#!/bin/sh
printf '%s\n' "\$1" >"$T/askpass.prompt"
case \$(cat "$T/askpass.mode") in
yes) echo yes; exit 0 ;;
block) echo \$\$ >"$T/askpass.pid"; : >"$T/askpass.waiting"; sleep 30; exit 0 ;;
esac
exit 1
EOF
chmod 755 "$T/askpass.sh"
echo yes >"$T/askpass.mode"
prompt() { cat "$T/askpass.prompt" 2>/dev/null; }

SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force \
	start_agent -O confirm-timeout=2
ok $? "agent started with -O confirm-timeout=2" || bail "agent did not start"
dest_hosts perseus scylla
dest_key k
dest_key local
dest_add_ok k -c -h perseus -h "perseus>scylla"
dest_add_ok local -c
kfp=$(dest_fp k)

dest_ssh k perseus
dest_row "confirmed origin>perseus" ALLOW ok
contains "$(prompt)" "$kfp" "the prompt names the key's fingerprint"
contains "$(prompt)" 'Login as user "root" to perseus.' "the prompt names the user and the host"
contains "$(prompt)" "Path: origin -> perseus." "the prompt shows the one hop"
unlike "$(prompt)" "forwarded agent" "a direct login is not called forwarded"

rm -f "$T/askpass.prompt"
dest_ssh k perseus scylla
dest_row "confirmed perseus>scylla" ALLOW ok
contains "$(prompt)" 'Login as user "root" to scylla.' "through perseus: the prompt names the final host"
contains "$(prompt)" "Path: origin -> perseus (forwarding) -> scylla." "and every hop by its name from the constraints"
contains "$(prompt)" "The request comes through a forwarded agent." "and says it comes through a forwarded agent"

rm -f "$T/askpass.prompt"
echo "data" >"$T/data"
run ssh-keygen -Y sign -f "$T/keys/local.pub" -n file "$T/data"
ok $RC "a local ssh-keygen -Y sign with a confirm key is confirmed and signs"
contains "$(prompt)" "No session-bind: usual for local tools (ssh-keygen, git), or an old ssh." \
	"the prompt says plainly what an unbound request is (local tools, or an old ssh)"
unlike "$(prompt)" "cannot tell where" "and does not alarm about a local ssh-keygen"
unlike "$(prompt)" "local program" "and does not claim a local program asks"
contains "$(prompt)" 'An SSHSIG signature (namespace "file")' "the prompt names the SSHSIG namespace"

# An unanswered prompt: refused after the timeout, nobody else waits.
echo block >"$T/askpass.mode"
rm -f "$T/data.sig" "$T/askpass.waiting"
ssh-keygen -Y sign -f "$T/keys/local.pub" -n file "$T/data" >"$T/slow.out" 2>&1 &
slow=$!
poll_until 10 test -e "$T/askpass.waiting"
ok $? "the prompt is open"
run ssh-add -l
ok $RC "another client is answered while the prompt is open"
poll_until 15 not pid_alive "$slow"
ok $? "the signer got its answer (the prompt did not stay open)"
wait "$slow"
rc=$?
ok "$([ "$rc" != 0 ] && echo 0 || echo 1)" "an unanswered prompt is a refusal (ssh-keygen exit $rc)"
ok "$([ ! -s "$T/data.sig" ] && echo 0 || echo 1)" "and no signature was written"
poll_until 5 not pid_alive "$(cat "$T/askpass.pid")"
ok $? "the askpass program was ended"
run ssh-add -l
ok $RC "the agent still serves after the timed-out prompt"
stop_agent
ok $? "agent stopped"
done_testing
