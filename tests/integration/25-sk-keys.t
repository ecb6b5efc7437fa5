#!/bin/bash
# FIDO (sk-) keys held, with no token: sk-ssh-ed25519 and sk-ecdsa key
# files written around software keys (mk_sk_key), certified by the real
# ssh-keygen -s, added in the ADD encoding ssh-add sends (without the
# sk-provider constraint, which the token helper's work will bring), then
# listed (-l/-L) as ssh-keygen prints them, shown by keyward-ctl with
# their application, kept through a lock, refused for signing (no token:
# keyward's keyholder never signs with one), removed. Against
# /usr/bin/ssh-agent the same, but keyward-ctl.
. "$(dirname "$0")/lib.sh"

mk_script "$T/pass.sh" "cat '$T/pass'"
lockcmd() { # -x|-X PASSPHRASE
	printf '%s\n' "$2" >"$T/pass"
	SSH_ASKPASS=$T/pass.sh SSH_ASKPASS_REQUIRE=force run ssh-add "$1" </dev/null
}

gen_key edsoft ed25519 && gen_key ecsoft ecdsa 256 && gen_key ca ed25519 ||
	bail "ssh-keygen failed"
mk_sk_key sked sk-ssh-ed25519@openssh.com edsoft &&
	mk_sk_key skec sk-ecdsa-sha2-nistp256@openssh.com ecsoft ||
	bail "FIDO key files failed"
run ssh-keygen -lf "$T/keys/sked"
like "$OUT" '^256 SHA256:[A-Za-z0-9+/]{43} sk-ssh-ed25519@openssh.com@kwtest \(ED25519-SK\)$' \
	"ssh-keygen reads the sk-ssh-ed25519 key file"
run ssh-keygen -lf "$T/keys/skec"
like "$OUT" '^256 SHA256:[A-Za-z0-9+/]{43} sk-ecdsa-sha2-nistp256@openssh.com@kwtest \(ECDSA-SK\)$' \
	"ssh-keygen reads the sk-ecdsa key file"
run ssh-keygen -q -s "$T/keys/ca" -I sked-cert -n alice "$T/keys/sked.pub"
ok $RC "ssh-keygen -s certifies the sk-ssh-ed25519 key"
run ssh-keygen -q -s "$T/keys/ca" -I skec-cert -n bob "$T/keys/skec.pub"
ok $RC "ssh-keygen -s certifies the sk-ecdsa key"

start_agent
ok $? "agent started" || bail "agent did not start"
S=$SSH_AUTH_SOCK
for k in sked skec; do
	run raw "$S" "$(cat "$T/keys/$k.add")"
	is "$OUT" 06 "$k: ADD of the key: SUCCESS"
	run raw "$S" "$(sk_cert_add "$k")"
	is "$OUT" 06 "$k: ADD of its certificate (with the key's private fields): SUCCESS"
done
want_l="$(fp_line "$T/keys/sked.pub")
$(fp_line "$T/keys/sked-cert.pub")
$(fp_line "$T/keys/skec.pub")
$(fp_line "$T/keys/skec-cert.pub")"
run ssh-add -l
is "$RC:$OUT" "0:$want_l" "ssh-add -l lists keys and certificates as ssh-keygen -l prints them"
want_L="$(cat "$T/keys/sked.pub" "$T/keys/sked-cert.pub" "$T/keys/skec.pub" \
	"$T/keys/skec-cert.pub" | cut -d' ' -f1,2)"
run ssh-add -L
is "$(printf '%s\n' "$OUT" | cut -d' ' -f1,2)" "$want_L" "ssh-add -L gives the public blobs back"

# no token: a signature is refused, and the agent keeps serving
echo "data" >"$T/data"
for k in sked skec sked-cert; do
	rm -f "$T/data.sig"
	run ssh-keygen -Y sign -f "$T/keys/$k.pub" -n file "$T/data"
	[ "$RC" != 0 ] && [ ! -e "$T/data.sig" ]
	ok $? "$k: no signature without a token"
done
run ssh-add -l
is "$RC" 0 "the agent still answers after the refusals"

if is_keyward; then
	CTL=$KEYWARD_BUILD/keyward-ctl
	run "$CTL"
	contains "$OUT" "$(fp_line "$T/keys/sked.pub")
    application: ssh:" "keyward-ctl: ED25519-SK, then its application"
	contains "$OUT" "$(fp_line "$T/keys/skec-cert.pub")
    application: ssh:" "keyward-ctl: ECDSA-SK-CERT, then its application"
	run "$CTL" --json
	is "$(printf '%s\n' "$OUT" | jq -c '[.[] | [.type, .bits, .application]]')" \
		'[["ED25519-SK",256,"ssh:"],["ED25519-SK-CERT",256,"ssh:"],["ECDSA-SK",256,"ssh:"],["ECDSA-SK-CERT",256,"ssh:"]]' \
		"keyward-ctl --json: type, bits and application of each"
else
	skip_n 3 "keyward-ctl asks keyward's own extension"
fi

# the lock seals them with the others
lockcmd -x "correct horse"
ok $RC "ssh-add -x locks the agent"
run ssh-add -l
is "$RC" 1 "while locked nothing is listed"
lockcmd -X "correct horse"
ok $RC "ssh-add -X unlocks it"
run ssh-add -l
is "$RC:$OUT" "0:$want_l" "after the unlock all four are listed again"

run ssh-add -d "$T/keys/skec.pub"
ok $RC "ssh-add -d of the sk-ecdsa key"
is "$(count_ids)" 3 "it is gone, its certificate stays"
run ssh-add -D
ok $RC "ssh-add -D"
agent_empty
ok $? "the agent is empty"
done_testing
