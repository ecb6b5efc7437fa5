#!/bin/bash
# Associated certificates for PKCS#11 keys with OpenSSH 10.x's own tools
# (doc/protocol.md §5.7, §6.7): 10.5's ssh-add -s PROVIDER CERT... (and
# -C, -h, -d, -e) with a SoftHSM2 token, logins by 10.5's ssh to a 10.5
# sshd that trusts only the CA. Needs KEYWARD_OPENSSH_10=PREFIX
# (lib-openssh10.sh); without it every row is a skip. Run it beside 10.5's
# own ssh-agent with AGENT=PREFIX/bin/ssh-agent: every row holds for both.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-openssh10.sh"

openssh10_require 30

p11_askpass
p11_token "$T/tok" p11- p256 rsa2048 ed25519
KEYS="p11-p256 p11-rsa2048 p11-ed25519"
ssh-keygen -q -N '' -t ed25519 -C ca -f "$T/ca" </dev/null || bail "no CA key"
ssh-keygen -q -N '' -t ed25519 -C other -f "$T/keys/other" </dev/null || bail "no key"
for k in $KEYS other; do
	ssh-keygen -q -s "$T/ca" -I "$k" -n "$(id -un)" "$T/keys/$k.pub" </dev/null ||
		bail "cannot certify $k"
done
cert() { printf '%s' "$T/keys/$1-cert.pub"; }
CERTS="$(cert p11-p256) $(cert p11-rsa2048) $(cert p11-ed25519)"

for h in hostA hostB; do
	start_sshd "$h" "AuthorizedKeysFile none" "TrustedUserCAKeys $T/ca.pub"
	ok $? "10.x sshd $h started, trusting only the CA" || bail "sshd did not start"
done
p11_agent

# nothing held: ssh-add -l says so (its status 1 alone would also be a
# listing it could not read)
held_none() { local o; o=$(ssh-add -l 2>&1); [ "$o" = "The agent has no identities." ]; }
# (whole outputs first, then grep: no pipe cut short)
listed() { local L; L=$(ssh-add -L 2>&1); grep -qF "$(cut -d' ' -f1,2 "$1")" <<<"$L"; }
all_listed() { local f; for f in "$@"; do listed "$f" || { diag "not listed: $f"; return 1; }; done; }
none_listed() { local f; for f in "$@"; do ! listed "$f" || { diag "listed: $f"; return 1; }; done; }
plains() { local k; for k in $KEYS; do p11_pub "$k"; echo; done; }
login_with() { # HOST CERT-FILE: a login only a CA-signed key passes
	local last
	run ssh_as "$1" "$2" -- 'echo logged-in'
	last=$(grep -F "Accepted publickey for" "$(sshd_log "$1")" | tail -n 1)
	[ "$RC:$OUT" = "0:logged-in" ] && grep -qF "$(fp "$2")" <<<"$last" && grep -q -- '-CERT ' <<<"$last"
}
refused_at() { # HOST CERT-FILE
	run ssh_as "$1" "$2" -- 'echo logged-in'
	[ "$RC" != 0 ] && [ "$OUT" != logged-in ]
}

# --- ssh-add -s PROVIDER CERT...
# shellcheck disable=SC2086
run ssh-add -s "$P11_MODULE" $CERTS </dev/null
ok $RC "10.x ssh-add -s with three certificates"
contains "$ERR" "Card added: $P11_MODULE" "ssh-add reports the card added"
all_listed $CERTS
ok $? "each certificate is listed"
# shellcheck disable=SC2046
all_listed $(plains)
ok $? "the plain token keys are listed too"
is "$(count_ids)" 6 "six identities: three keys, three certificates"
for k in $KEYS; do
	login_with hostA "$(cert "$k")"
	ok $? "login with $k's certificate to the sshd that trusts only the CA"
done
login_with hostB "$(cert p11-p256)"
ok $? "... and to hostB (no destination constraint yet)"
run ssh_as hostA "$(p11_pub p11-p256)" -- 'echo logged-in'
ok $((RC == 0)) "the plain token key alone does not log in"
run ssh-add -d "$(cert p11-rsa2048)"
ok $RC "ssh-add -d removes one certificate"
none_listed "$(cert p11-rsa2048)" && all_listed "$(p11_pub p11-rsa2048)"
ok $? "... that certificate only: its key stays"
run ssh-add -e "$P11_MODULE"
ok $RC "ssh-add -e"
held_none
ok $? "ssh-add -e removed every key and certificate of the provider"

# --- -C: certificates only
# shellcheck disable=SC2086
run ssh-add -C -s "$P11_MODULE" $CERTS </dev/null
ok $RC "10.x ssh-add -C -s: certificates only"
all_listed $CERTS
ok $? "-C: the certificates are listed"
# shellcheck disable=SC2046
none_listed $(plains)
ok $? "-C: no plain key"
login_with hostA "$(cert p11-ed25519)"
ok $? "-C: login with the Ed25519 certificate"
run ssh-add -e "$P11_MODULE"
ok $? "ssh-add -e" && held_none
ok $? "nothing left"

# --- -h: destination constraints on the certificates too
# shellcheck disable=SC2086
run ssh-add -H "$T/known_hosts" -h hostA -s "$P11_MODULE" $CERTS </dev/null
ok $RC "10.x ssh-add -h hostA -s with the certificates"
login_with hostA "$(cert p11-p256)"
ok $? "-h hostA: the certificate logs in to hostA"
refused_at hostB "$(cert p11-p256)"
ok $? "-h hostA: the certificate is refused for hostB"
refused_at hostB "$(p11_pub p11-p256)"
ok $? "-h hostA: the plain key is refused for hostB too"
run ssh-add -e "$P11_MODULE"
ok $RC "ssh-add -e"

# --- a certificate of no token key, alone with -C: refused
run ssh-add -C -s "$P11_MODULE" "$(cert other)" </dev/null
ok $((RC == 0)) "-C with only a certificate of no token key: refused"
held_none
ok $? "... nothing held"

done_testing
