#!/bin/bash
# ssh-keygen -Y sign through the agent (private key files removed), checked
# with ssh-keygen -Y verify against an allowed_signers file; ssh-add -T.
. "$(dirname "$0")/lib.sh"

start_agent
ok $? "agent started" || bail "agent did not start"

printf 'the data %s\n' "$$" >"$T/data"
: >"$T/allowed_signers"
for k in ed25519:ed25519 ecdsa:"ecdsa 384" rsa:"rsa 3072"; do
	name=${k%%:*}
	gen_key "$name" ${k#*:} || bail "ssh-keygen $name"
	echo "$name@signers $(cut -d' ' -f1,2 "$T/keys/$name.pub")" >>"$T/allowed_signers"
	run ssh-add "$T/keys/$name"
	ok $RC "ssh-add $name"
	hide_key "$name"
done
gen_key stranger ed25519 || bail "ssh-keygen stranger"
hide_key stranger

verify() { # PRINCIPAL NAMESPACE SIGFILE DATAFILE
	run sh -c "ssh-keygen -Y verify -f '$T/allowed_signers' -I '$1' -n '$2' -s '$3' <'$4'"
}

for name in ed25519 ecdsa rsa; do
	rm -f "$T/data.sig"
	run ssh-keygen -Y sign -f "$T/keys/$name.pub" -n file "$T/data"
	ok $RC "$name: ssh-keygen -Y sign through the agent"
	cp "$T/data.sig" "$T/$name.sig" 2>/dev/null
	like "$(head -n 1 "$T/$name.sig" 2>/dev/null)" '^-----BEGIN SSH SIGNATURE-----$' "$name: armoured signature written"
	verify "$name@signers" file "$T/$name.sig" "$T/data"
	ok $RC "$name: ssh-keygen -Y verify accepts the signature"
	contains "$OUT" "Good \"file\" signature for $name@signers with" "$name: verify names the signer"
	verify "$name@signers" email "$T/$name.sig" "$T/data"
	is "$RC" 255 "$name: verify with another namespace fails"
	other=ed25519; [ "$name" = ed25519 ] && other=rsa
	verify "$other@signers" file "$T/$name.sig" "$T/data"
	is "$RC" 255 "$name: verify as another principal fails"
	run ssh-add -T "$T/keys/$name.pub"
	is "$RC" 0 "$name: ssh-add -T succeeds"
done

printf 'other data\n' >"$T/data2"
verify ed25519@signers file "$T/ed25519.sig" "$T/data2"
is "$RC" 255 "a signature does not verify for different data"

run ssh-keygen -Y sign -f "$T/keys/stranger.pub" -n file "$T/data2"
[ "$RC" != 0 ] && [ ! -e "$T/data2.sig" ]
ok $? "signing with a key the agent does not hold fails"
run ssh-add -T "$T/keys/stranger.pub"
is "$RC" 1 "ssh-add -T of a key the agent does not hold fails"

run ssh-add -D
ok $RC "ssh-add -D"
rm -f "$T/data.sig"
run ssh-keygen -Y sign -f "$T/keys/ed25519.pub" -n file "$T/data"
[ "$RC" != 0 ] && [ ! -e "$T/data.sig" ]
ok $? "after -D the agent no longer signs"

stop_agent
ok $? "agent stopped"
done_testing
