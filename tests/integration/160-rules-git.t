#!/bin/bash
# keyward(5), first example: key X signs only SSHSIG signatures in the
# namespace git, and only for a program that runs under git:
#   allow key X ancestor /usr/bin/git origin local purpose sshsig namespace git
#   deny  key X
# A real "git commit -S" (gpg.format=ssh) is signed and verifies; the same
# key for "ssh-keygen -Y sign -n file" (from a shell or under git), for
# namespace git outside git, or for a login is refused; the audit trail
# says which rule decided. Stock ssh-agent has no rules: its baseline is
# that every one of these signs; the refusals are skipped there.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

command -v git >/dev/null || bail "git is not installed (make deps)"

gen_key x ed25519 || bail "ssh-keygen x"
cat "$T/keys/x.pub" >>"$T/authorized_keys"
XFP=$(fp "$T/keys/x.pub")
POL=$(rules_file git \
	"# keyward(5): key X signs git commits only" \
	"allow key $XFP ancestor /usr/bin/git origin local purpose sshsig namespace git" \
	"deny  key $XFP")

rules_agent "$POL"
run ssh-add "$T/keys/x"
ok $RC "ssh-add X"
hide_key x
start_sshd hostA || bail "sshd did not start"

# The repository, and who may sign in it.
echo "x@kwtest namespaces=\"git\" $(cut -d' ' -f1,2 "$T/keys/x.pub")" >"$T/allowed_signers"
git init -q "$T/repo" || bail "git init"
G=(git -C "$T/repo" -c user.name="Key X" -c user.email=x@kwtest
	-c gpg.format=ssh -c user.signingkey="$T/keys/x.pub"
	-c gpg.ssh.allowedSignersFile="$T/allowed_signers")
echo "a file" >"$T/repo/f"
"${G[@]}" add f || bail "git add"

# --- git commit -S: git runs ssh-keygen -Y sign -n git, under git
run nocaps "${G[@]}" commit -q -S -m "signed with X through the agent"
ok $RC "git commit -S with key X through the agent"
run nocaps "${G[@]}" verify-commit -v HEAD
ok $RC "git verify-commit accepts the commit's signature"
contains "$ERR" "Good \"git\" signature for x@kwtest" "git verify-commit: a good git signature by X"

# the same signature checked by ssh-keygen -Y verify itself: the commit
# object without its gpgsig header is what was signed
git -C "$T/repo" cat-file commit HEAD >"$T/commit.raw" 2>/dev/null
perl -e '
	open(my $p, ">", $ARGV[1]) or die; open(my $s, ">", $ARGV[2]) or die;
	open(my $c, "<", $ARGV[0]) or die; my $in = 0;
	while (<$c>) {
		if (/^gpgsig (.*)$/) { $in = 1; print $s "$1\n"; next }
		if ($in && /^ (.*)$/) { print $s "$1\n"; next }
		$in = 0; print $p $_;
	}' "$T/commit.raw" "$T/commit.payload" "$T/commit.sig"
run sh -c "ssh-keygen -Y verify -f '$T/allowed_signers' -I x@kwtest -n git -s '$T/commit.sig' <'$T/commit.payload'"
ok $RC "ssh-keygen -Y verify -n git accepts the commit's signature"
contains "$OUT" "Good \"git\" signature for x@kwtest with ED25519 key $XFP" \
	"ssh-keygen names X as the signer"

# --- the refusals (stock ssh-agent has no rules: it signs each of them)
echo "data for another namespace" >"$T/data"
sign_file() { # NAMESPACE [under-git]: ssh-keygen -Y sign with X
	rm -f "$T/data.sig"
	if [ "${2:-}" = under-git ]; then
		run nocaps "${G[@]}" -c alias.signdata="!ssh-keygen -Y sign -f '$T/keys/x.pub' -n $1 '$T/data'" signdata
	else
		run nocaps ssh-keygen -Y sign -f "$T/keys/x.pub" -n "$1" "$T/data"
	fi
	[ "$RC" = 0 ] && [ -s "$T/data.sig" ]
}
refused() { # WHAT: the last command failed, the agent refused, no signature
	[ "$RC" != 0 ] && [ ! -s "$T/data.sig" ] && printf '%s\n' "$ERR" | grep -q 'agent refused operation'
	ok $? "$1"
}

if is_keyward; then
	sign_file file
	refused "ssh-keygen -Y sign -n file with X from a shell is refused"
	sign_file file under-git
	refused "ssh-keygen -Y sign -n file with X under git is refused"
	sign_file git
	refused "ssh-keygen -Y sign -n git with X outside git is refused"
	run ssh_as hostA "$T/keys/x.pub" -- true
	is "$RC" 255 "a login with X is refused"
	contains "$ERR" "agent refused operation" "... because the agent refused to sign"
	# a refusal leaves the key as it was: git still signs
	echo "another change" >>"$T/repo/f"
	run nocaps "${G[@]}" commit -q -a -S -m "signed again after the refusals"
	ok $RC "git commit -S still signs after the refusals"
	run nocaps "${G[@]}" verify-commit HEAD
	ok $RC "and the second commit verifies"
else
	sign_file file
	ok $? "baseline: stock ssh-agent signs -n file with X (it has no rules)"
	sign_file git
	ok $? "baseline: stock ssh-agent signs -n git outside git"
	run ssh_as hostA "$T/keys/x.pub" -- true
	ok $RC "baseline: stock ssh-agent logs in with X"
	skip_n 7 "not keyward: rules (the refusals)"
fi

# --- the audit trail: what was signed and which rule decided
if is_keyward; then
	run jq -e . "$AUDIT"
	ok $RC "the audit trail is JSON"
	allowed=$(audit_sel 'select(.event == "sign" and .decision == "allow")')
	is "$(printf '%s\n' "$allowed" | grep -c .)" 2 "two signatures allowed: the two commits"
	first=$(printf '%s\n' "$allowed" | head -n 1)
	is "$(jq -r '[.purpose, .namespace, .key.fingerprint] | join(" ")' <<<"$first")" \
		"sshsig git $XFP" "the commit's record: purpose sshsig, namespace git, key X"
	is "$(jq -c .rule <<<"$first")" '{"line":2,"action":"allow"}' "decided by the allow rule (line 2)"
	is "$(jq -r .peer.exe <<<"$first")" /usr/bin/ssh-keygen "the caller is ssh-keygen"
	is "$(jq -r '[.peer.ancestors[].exe] | index("/usr/bin/git") != null' <<<"$first")" true \
		"with git among its ancestors"
	refusals=$(audit_sel 'select(.event == "sign" and .decision == "refuse")')
	is "$(printf '%s\n' "$refusals" | jq -r '.rule | "\(.line) \(.action)"' | sort -u)" "3 deny" \
		"every refusal was the deny rule's, line 3"
	contains "$(printf '%s\n' "$refusals" | jq -r .reason)" "denied by rule at line 3" \
		"the reason names the rule's line"
	is "$(printf '%s\n' "$refusals" | jq -r 'select(.purpose == "sshsig") | .namespace' | sort | tr '\n' ' ')" \
		"file file git " "refused: namespace file twice (shell, under git), git once (outside git); no commit"
	is "$(printf '%s\n' "$refusals" | jq -r 'select(.purpose == "login") | .user')" "$(id -un)" \
		"and the login, for user $(id -un)"
	under=$(printf '%s\n' "$refusals" | jq -c 'select(.namespace == "file" and
		([.peer.ancestors[]?.exe] | index("/usr/bin/git") != null))')
	is "$(printf '%s\n' "$under" | grep -c .)" 1 \
		"the -n file refusal under git names git among the caller's ancestors"
	is "$(jq -r .peer.exe <<<"$under" 2>/dev/null)" /usr/bin/ssh-keygen "and ssh-keygen as the caller"
else
	skip_n 12 "not keyward: audit trail"
fi

done_testing
