#!/bin/bash
# Certificates: key + certificate through ssh-add, login against an sshd that
# trusts the user CA (and has no authorized_keys), -d / -d -k / -k, and an
# expired user certificate still added and used for ssh-keygen -Y sign.
. "$(dirname "$0")/lib.sh"

USER_NAME=$(id -un)
start_agent
ok $? "agent started" || bail "agent did not start"

gen_key ca ed25519 || bail "ssh-keygen ca"
start_sshd hostCA "TrustedUserCAKeys $T/keys/ca.pub" "AuthorizedKeysFile none"
ok $? "sshd hostCA (TrustedUserCAKeys, no authorized_keys) started"

for k in ced25519:ed25519 cecdsa:ecdsa crsa:rsa; do
	name=${k%%:*} type=${k#*:}
	gen_key "$name" "$type" || bail "ssh-keygen $name"
	ssh-keygen -q -s "$T/keys/ca" -I "id-$name" -n "$USER_NAME" -V -5m:+1h "$T/keys/$name.pub" ||
		bail "ssh-keygen -s $name"
	run ssh-add "$T/keys/$name"
	ok $RC "ssh-add $name (key + certificate)"
	like "$ERR" "^Certificate added: $T/keys/$name-cert.pub \\(id-$name\\)\$" "ssh-add $name: 'Certificate added'"
	run ssh-add -l
	is "$OUT" "$(fp_line "$T/keys/$name.pub")
$(fp_line "$T/keys/$name-cert.pub")" "$name: plain key and certificate both listed, in that order"
	run ssh-add -L
	is "$(printf '%s\n' "$OUT" | sed -n 2p | cut -d' ' -f1,2)" "$(cut -d' ' -f1,2 "$T/keys/$name-cert.pub")" \
		"$name: ssh-add -L prints the full certificate"
	hide_key "$name"
	# IdentityFile without .pub: ssh loads NAME.pub and NAME-cert.pub and
	# finds both identities in the agent (private half hidden).
	run ssh_as hostCA "$T/keys/$name" -- 'exit 5'
	is "$RC" 5 "$name: certificate login through the agent (remote status passed back)" ||
		diag_file "$(sshd_log hostCA)"
	grep "Accepted publickey for $USER_NAME" "$(sshd_log hostCA)" | grep -q "ID id-$name "
	ok $? "$name: sshd accepted the certificate (ID id-$name)"
	run ssh_as hostCA "$T/keys/$name.pub" -- true
	is "$RC" 255 "$name: the plain key alone is refused (not in any authorized_keys)"
	# -d KEY removes both identities
	run ssh-add -d "$T/keys/$name"
	is "$RC" 0 "$name: ssh-add -d exits 0"
	run ssh-add -l
	is "$RC" 1 "$name: ssh-add -d removed key and certificate"
	unhide_key "$name"
done

# -k: plain key only
run ssh-add -k "$T/keys/ced25519"
ok $RC "ssh-add -k"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/ced25519.pub")" "ssh-add -k added only the plain key"
hide_key ced25519
run ssh_as hostCA "$T/keys/ced25519.pub" -- true
is "$RC" 255 "plain key only in the agent, no certificate anywhere: CA login fails"
# certificate on disk only, plain key in the agent: ssh has the agent sign
# with the plain key over data carrying the certificate (doc/protocol.md §13.4 cert-file)
run ssh_as hostCA "$T/keys/ced25519.pub" -o "CertificateFile=$T/keys/ced25519-cert.pub" -- 'echo cert-file'
is "$RC:$OUT" "0:cert-file" "certificate on disk + plain key in the agent logs in"
unhide_key ced25519

# -d -k: removes the plain key, leaves the certificate
run ssh-add "$T/keys/ced25519"
is "$(count_ids)" 2 "key and certificate re-added"
run ssh-add -d -k "$T/keys/ced25519"
ok $RC "ssh-add -d -k"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/ced25519-cert.pub")" "ssh-add -d -k left only the certificate"
hide_key ced25519
# (IdentityFile is the certificate itself: given the plain .pub too, ssh 9.2
# would insist on signing with the plain key)
run ssh_as hostCA "$T/keys/ced25519-cert.pub" -- 'echo cert-only'
is "$RC:$OUT" "0:cert-only" "the certificate identity alone (plain key gone, private hidden) still logs in"
unhide_key ced25519
run ssh-add -D
ok $RC "ssh-add -D"

# --- expired user certificate (1984-1986): added and used for signing
gen_key old ed25519 || bail "ssh-keygen old"
ssh-keygen -q -s "$T/keys/ca" -I id-old -n "$USER_NAME" -V 19840101:19860101 "$T/keys/old.pub" ||
	bail "ssh-keygen -s old"
run ssh-add "$T/keys/old"
ok $RC "ssh-add of a key with an expired certificate succeeds"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/old.pub")
$(fp_line "$T/keys/old-cert.pub")" "the agent holds the expired certificate (not refused)"
hide_key old
echo "signed data $$" >"$T/data"
run ssh-keygen -Y sign -f "$T/keys/old-cert.pub" -n file "$T/data"
ok $RC "ssh-keygen -Y sign with the expired certificate, key only in the agent"
[ -s "$T/data.sig" ]
ok $? "signature file written"
run sh -c "ssh-keygen -Y check-novalidate -n file -s '$T/data.sig' <'$T/data'"
ok $RC "ssh-keygen -Y check-novalidate accepts it"
contains "$OUT" "Good \"file\" signature with ED25519-CERT key $(fp "$T/keys/old.pub")" "signature was made with the certificate identity"
echo "$USER_NAME cert-authority $(cat "$T/keys/ca.pub")" >"$T/allowed_signers"
run sh -c "ssh-keygen -Y verify -f '$T/allowed_signers' -I '$USER_NAME' -n file -s '$T/data.sig' -Overify-time=19850101 <'$T/data'"
ok $RC "ssh-keygen -Y verify (at a time inside the validity) accepts it"
echo "tampered" >>"$T/data"
run sh -c "ssh-keygen -Y verify -f '$T/allowed_signers' -I '$USER_NAME' -n file -s '$T/data.sig' -Overify-time=19850101 <'$T/data'"
[ "$RC" != 0 ]
ok $? "ssh-keygen -Y verify rejects tampered data"

stop_agent
ok $? "agent stopped"
done_testing
