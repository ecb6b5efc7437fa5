#!/bin/bash
# The audit trail of a real session names who asked: each login signature
# made for /usr/bin/ssh, started from a bash, carries a "peer" object with
# ssh's pid, exe and command line and bash as its first ancestor
# (README.md, "The audit trail"). The programs run without capabilities
# (nocaps), so that keyward-peer, which has none, may read them.
# Stock ssh-agent keeps no trail: its baseline is the logins themselves.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

gen_key k ed25519 || bail "ssh-keygen k"
cat "$T/keys/k.pub" >>"$T/authorized_keys"
rules_agent ""
run ssh-add "$T/keys/k"
ok $RC "ssh-add k"
hide_key k
start_sshd hostA || bail "sshd did not start"

# session N: a bash that runs ssh and waits for it, saying both pids
session() {
	run nocaps /bin/bash -c '
		echo "$$" >"$1.bash"
		/usr/bin/ssh -F "$2" -o IdentityFile="$3" hostA "echo in-session-$4" </dev/null &
		echo "$!" >"$1.ssh"
		wait "$!"
		rc=$?
		exit "$rc"' session "$T/session$1" "$T/ssh_config" "$T/keys/k.pub" "$1"
	is "$OUT" "in-session-$1" "session $1: bash ran ssh, which logged in"
}
session 1
session 2
run nocaps ssh-add -l
ok $RC "ssh-add -l"

if ! is_keyward; then
	skip_n 15 "not keyward: no audit trail"
	done_testing
fi
logins=$(audit_sel 'select(.event == "sign" and .purpose == "login")')
is "$(printf '%s\n' "$logins" | grep -c .)" 2 "two login signatures recorded"
for n in 1 2; do
	sshpid=$(cat "$T/session$n.ssh") bashpid=$(cat "$T/session$n.bash")
	rec=$(printf '%s\n' "$logins" | jq -c --argjson p "$sshpid" 'select(.peer_pid == $p)')
	is "$(jq -r .peer.status <<<"$rec" 2>/dev/null)" ok "session $n: the login's record has the peer of ssh's pid $sshpid, read (status ok)"
	is "$(jq -r .peer.exe <<<"$rec" 2>/dev/null)" /usr/bin/ssh "session $n: peer.exe is /usr/bin/ssh"
	like "$(jq -r .peer.cmdline <<<"$rec" 2>/dev/null)" "^/usr/bin/ssh -F $T/ssh_config -o IdentityFile=$T/keys/k.pub hostA echo in-session-$n\$" \
		"session $n: peer.cmdline is ssh's argv"
	is "$(jq -r '.peer.ancestors[0] | "\(.pid) \(.exe) \(.argv0)"' <<<"$rec" 2>/dev/null)" "$bashpid /usr/bin/bash /bin/bash" \
		"session $n: its first ancestor is the bash that started it (pid $bashpid)"
	is "$(jq -r '.peer.pid == .peer_pid' <<<"$rec" 2>/dev/null)" true "session $n: peer.pid is the socket's peer pid"
	is "$(jq -r .decision <<<"$rec" 2>/dev/null)" allow "session $n: allowed"
done
audit_await 0 'select(.event == "list" and .peer.exe == "/usr/bin/ssh-add")'
list=$(audit_sel 'select(.event == "list")' | tail -n 1)
is "$(jq -r .peer.exe <<<"$list")" /usr/bin/ssh-add "ssh-add -l's record names ssh-add"
like "$(jq -r '.peer.ancestors | length' <<<"$list")" '^[1-8]$' "with 1 to 8 ancestors"
done_testing
