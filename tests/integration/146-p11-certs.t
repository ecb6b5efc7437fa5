#!/bin/bash
# Associated certificates for PKCS#11 keys (doc/protocol.md §5.7, §6.7):
# the associated-certs-v00@openssh.com constraint that ssh-add -s
# PROVIDER cert.pub sends from OpenSSH 9.6 on. Debian's ssh-add 9.2 never
# sends it, so the requests are built here byte by byte (rawclient.pl)
# against a SoftHSM2 token (lib-p11.sh); what the agent then holds is
# checked with the real ssh-add -l/-L/-d/-e and an ssh login to an sshd
# that trusts only the CA. 147-p11-certs-openssh10.t runs the same with
# OpenSSH 10.5's own ssh-add when KEYWARD_OPENSSH_10 names a build.
#
# Debian's ssh-agent 9.2 predates the constraint: it refuses every such
# add, so for it each row is a skip (never a pass), with a note of what it
# answered. OpenSSH 10.5's ssh-agent (AGENT=$KEYWARD_OPENSSH_10/bin/ssh-agent)
# is held to every row, as keyward is.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"

OLD="Debian's ssh-agent 9.2 predates associated-certs (OpenSSH 9.6)"
p11_askpass
p11_token "$T/tok" p11- p256 rsa2048
ssh-keygen -q -N '' -t ed25519 -C ca -f "$T/ca" </dev/null || bail "no CA key"
ssh-keygen -q -N '' -t ed25519 -C other -f "$T/keys/other" </dev/null || bail "no key"
# a certificate per token key, one of a key the token does not hold, and
# one whose CA signature is broken
for k in p11-p256 p11-rsa2048 other; do
	ssh-keygen -q -s "$T/ca" -I "$k" -n "$(id -un)" "$T/keys/$k.pub" </dev/null ||
		bail "cannot certify $k"
done
CP256=$T/keys/p11-p256-cert.pub CRSA=$T/keys/p11-rsa2048-cert.pub COTHER=$T/keys/other-cert.pub
perl -MMIME::Base64 -ane '$b = decode_base64($F[1]); substr($b, -1, 1) ^= "\x01";
	print "$F[0] ", encode_base64($b, ""), " broken\n"' "$CP256" >"$T/keys/broken-cert.pub"

start_sshd hostA "AuthorizedKeysFile none" "TrustedUserCAKeys $T/ca.pub"
ok $? "sshd hostA started, trusting only the CA" || bail "sshd did not start"
p11_agent

# the wire pieces, in hex
blob_hex() { cut -d' ' -f2 "$1" | base64 -d | od -An -tx1 -v | tr -d ' \n'; }
sstr() { printf '%08x%s' $((${#1} / 2)) "$1"; }          # SSH string of hex
# certs_msg TYPE CERTS_ONLY FILE...: a PKCS#11 add with the constraint
certs_msg() {
	local type=$1 only=$2 list='' f; shift 2
	for f in "$@"; do list+=$(sstr "$(blob_hex "$f")"); done
	printf '%02x%s%s%s%s%02x%s' "$type" "$(hexstr "$P11_MODULE")" "$(hexstr "$P11_PIN")" \
		ff "$(hexstr associated-certs-v00@openssh.com)" "$only" "$(sstr "$list")"
}
# send MSG: the agent's one-byte answer (06 success, 05 failure) in $OUT
send() { run raw -t 20 "$SSH_AUTH_SOCK" "$1"; }
# row NAME CMD...: an assertion, a skip for ssh-agent 9.2
row() {
	local name=$1; shift
	if is_keyward || [ "$AGENT" = "${KEYWARD_OPENSSH_10:-/nonexistent}/bin/ssh-agent" ]; then
		"$@"
		ok $? "$name"
	else
		"$@" && diag "note: ssh-agent 9.2 did it after all: $name"
		skip "$OLD: $name"
	fi
}
# nothing held: ssh-add -l says so (its status 1 alone would also be a
# listing it could not read)
held_none() { local o; o=$(ssh-add -l 2>&1); [ "$o" = "The agent has no identities." ]; }
listed() {
	local l L
	l=$(ssh-add -l 2>&1) L=$(ssh-add -L 2>&1)
	grep -qF " $(fp "$1") " <<<"$l" && grep -qF "$(cut -d' ' -f1,2 "$1")" <<<"$L" && return 0
	diag "not listed: $1"; diag "$l"; return 1
}
not_listed() { local L; L=$(ssh-add -L 2>&1); ! grep -qF "$(cut -d' ' -f1,2 "$1")" <<<"$L"; }
# cert_before CERT-FILE KEY: the line after CERT's in ssh-add -L is KEY's
cert_before() {
	local L next
	L=$(ssh-add -L 2>&1)
	next=$(grep -A1 -F "$(cut -d' ' -f2 "$1")" <<<"$L" | sed -n 2p | cut -d' ' -f1,2)
	[ "$next" = "$(cut -d' ' -f1,2 "$(p11_pub "$2")")" ]
}
login_with() { # CERT-FILE: a login that only a CA-signed key passes
	local last
	run ssh_as hostA "$1" -- 'echo logged-in'
	last=$(grep -F "Accepted publickey for" "$(sshd_log hostA)" | tail -n 1)
	[ "$RC:$OUT" = "0:logged-in" ] && grep -qF "$(fp "$1")" <<<"$last" && grep -q -- '-CERT ' <<<"$last"
}

# --- the plain keys and their certificates (certs_only 0)
send "$(certs_msg 26 0 "$CP256" "$COTHER" "$CRSA")"
row "type 26 with two matching certificates and one of no token key: SUCCESS" \
	test "$OUT" = 06
row "the P-256 certificate is listed (-l and -L)" listed "$CP256"
row "the RSA certificate is listed" listed "$CRSA"
row "the plain token keys are listed too" eval 'listed "$(p11_pub p11-p256)" && listed "$(p11_pub p11-rsa2048)"'
row "a certificate of no token key is not listed" not_listed "$COTHER"
row "each certificate comes just before its own key in the list" \
	eval 'cert_before "$CP256" p11-p256 && cert_before "$CRSA" p11-rsa2048'
row "ssh-add -l shows the certificate with its key's comment (the token label)" \
	eval 'ssh-add -l >"$T/l" && grep -F "$(fp "$CP256")" "$T/l" | grep -q "p11-p256 (ECDSA-CERT)"'
row "login with the P-256 certificate to an sshd that trusts only the CA" login_with "$CP256"
row "login with the RSA certificate (rsa-sha2-512 by the token)" login_with "$CRSA"
# a plain token key is not in any authorized_keys: sshd must refuse it
run ssh_as hostA "$(p11_pub p11-p256)" -- true
ok $((RC == 0)) "the plain token key alone does not log in (only the CA is trusted)"

# --- ssh-add -d CERT removes that certificate only; -e removes the rest
run ssh-add -d "$CP256"
row "ssh-add -d removes the P-256 certificate" eval '[ $RC = 0 ] && not_listed "$CP256"'
row "its plain key stays, and signs (ssh-add -T)" eval 'listed "$(p11_pub p11-p256)" && ssh-add -T "$(p11_pub p11-p256)"'
row "the RSA certificate stays and still logs in" login_with "$CRSA"
p11_remove
row "ssh-add -e removes the provider's keys and certificates" eval '[ $RC = 0 ] && held_none'

# --- certs_only: the certificates alone
send "$(certs_msg 26 1 "$CRSA" "$CP256")"
row "certs_only: SUCCESS" test "$OUT" = 06
row "certs_only: both certificates listed, and only they" \
	eval 'listed "$CRSA" && listed "$CP256" && [ "$(count_ids)" = 2 ]'
row "certs_only: no plain key listed" eval 'not_listed "$(p11_pub p11-p256)" && not_listed "$(p11_pub p11-rsa2048)"'
row "certs_only: login with the P-256 certificate" login_with "$CP256"
p11_remove
row "ssh-add -e: nothing left" eval '[ $RC = 0 ] && held_none'

# --- what is refused, and leaves nothing behind
send "$(certs_msg 26 1 "$COTHER")"
row "certs_only with no certificate of a token key: FAILURE" test "$OUT" = 05
row "... and nothing is held" held_none
send "$(certs_msg 26 0 "$T/keys/broken-cert.pub" "$CRSA")"
row "a certificate whose CA signature does not verify: the whole add FAILS" test "$OUT" = 05
row "... and nothing is held, not even the plain keys" held_none
# keyward reads nothing after the PIN of a type 20 (doc/protocol.md
# §5.7); OpenSSH's agent parses constraints there as for 26
send "$(certs_msg 26 0 "$CRSA" | sed 's/^1a/14/')"
if is_keyward; then
	is "$OUT" 05 "type 20 (unconstrained add) with the constraint after the PIN: FAILURE"
else
	skip "OpenSSH's agent reads constraints after a type 20 too (it answered $OUT)"
	p11_remove
fi
# 1025 blobs, each a plain key: one more than AGENT_MAX_ASSOC_CERTS
many=$(sstr "$(blob_hex "$T/keys/other.pub")")
list=$(perl -e 'print $ARGV[0] x 1025' "$many")
send "1a$(hexstr "$P11_MODULE")$(hexstr "$P11_PIN")ff$(hexstr associated-certs-v00@openssh.com)00$(sstr "$list")"
is "$OUT" 05 "1025 blobs in the list: FAILURE at once"
row "... and nothing is held" held_none
# the agent still serves
run ssh-add -l
ok $((RC > 1)) "the agent still answers after every refusal"

done_testing
