#!/bin/bash
# Keys: every supported type added with ssh-add, listed (-l/-L) exactly as
# ssh-keygen prints it, used for real logins with the private key hidden;
# RSA against sshds limited to rsa-sha2-256 / rsa-sha2-512; -d, -D, order.
. "$(dirname "$0")/lib.sh"

KEYS="ed25519 ecdsa256 ecdsa384 ecdsa521 rsa3072 rsa1024"
keyspec() {
	case $1 in
	ed25519) echo "ed25519" ;;
	ecdsa*) echo "ecdsa ${1#ecdsa}" ;;
	rsa*) echo "rsa ${1#rsa}" ;;
	esac
}

start_agent
ok $? "agent started" || bail "agent did not start"

start_sshd hostA
ok $? "sshd hostA started"
SSHD_HOSTKEYS="ed25519 rsa" start_sshd host256 "PubkeyAcceptedAlgorithms rsa-sha2-256"
ok $? "sshd host256 (rsa-sha2-256 only) started"
SSHD_HOSTKEYS="ed25519 rsa" start_sshd host512 "PubkeyAcceptedAlgorithms rsa-sha2-512"
ok $? "sshd host512 (rsa-sha2-512 only) started"

want_l="" want_L=""
for k in $KEYS; do
	gen_key "$k" $(keyspec "$k") || bail "ssh-keygen $k failed"
	cat "$T/keys/$k.pub" >>"$T/authorized_keys"
	run ssh-add "$T/keys/$k"
	ok $RC "ssh-add $k"
	is "$ERR" "Identity added: $T/keys/$k ($k@kwtest)" "ssh-add $k: 'Identity added' message"
	want_l+="$(fp_line "$T/keys/$k.pub")"$'\n'
	want_L+="$(cat "$T/keys/$k.pub")"$'\n'
done
want_l=${want_l%$'\n'} want_L=${want_L%$'\n'}

run ssh-add -l
is "$RC" 0 "ssh-add -l exits 0 with keys loaded"
is "$OUT" "$want_l" "ssh-add -l lists every key as ssh-keygen -l prints it, in add order"
like "$(printf '%s\n' "$OUT" | sed -n 1p)" '^256 SHA256:[A-Za-z0-9+/]{43} ed25519@kwtest \(ED25519\)$' "list line format: BITS SHA256:... COMMENT (TYPE)"
like "$OUT" '^1024 SHA256:[^ ]+ rsa1024@kwtest \(RSA\)$' "a 1024-bit RSA key is accepted"
like "$OUT" '^521 SHA256:[^ ]+ ecdsa521@kwtest \(ECDSA\)$' "an ECDSA P-521 key is listed with 521 bits"
run ssh-add -L
is "$RC" 0 "ssh-add -L exits 0"
is "$OUT" "$want_L" "ssh-add -L prints every public key exactly as the .pub files, in add order"

# Only the agent can sign from now on.
for k in $KEYS; do hide_key "$k"; done

for k in $KEYS; do
	run ssh_as hostA "$T/keys/$k.pub" -- true
	is "$RC" 0 "login to hostA with $k through the agent" || diag_file "$(sshd_log hostA)"
	sshd_accepted hostA "$T/keys/$k.pub"
	ok $? "hostA logged an accepted publickey login with the $k key"
	run ssh_as hostA "$T/keys/$k.pub" -- 'exit 7'
	is "$RC" 7 "remote exit status 7 passed back ($k)"
done

# sshd 9.2 advertises every algorithm in server-sig-algs, whatever its
# PubkeyAcceptedAlgorithms says, and ssh prefers rsa-sha2-512: so the client
# is told the one algorithm too (it then sends the matching sign flag).
for k in rsa3072 rsa1024; do
	for h in host256 host512; do
		run ssh_as "$h" "$T/keys/$k.pub" -o "PubkeyAcceptedAlgorithms=rsa-sha2-${h#host}" -- 'echo remote-ok'
		is "$RC:$OUT" "0:remote-ok" "$k login to $h" || diag_file "$(sshd_log "$h")"
		sshd_accepted "$h" "$T/keys/$k.pub"
		ok $? "$h accepted the $k key"
	done
done
run ssh_as host256 "$T/keys/rsa3072.pub" -o PubkeyAcceptedAlgorithms=rsa-sha2-512 -- true
is "$RC" 255 "host256 refuses an rsa-sha2-512 signature (its algorithm limit is real)"
run ssh_as host256 "$T/keys/ed25519.pub" -- true
is "$RC" 255 "host256 refuses an ed25519 key"

# --- remove one key
run ssh-add -d "$T/keys/ed25519.pub"
is "$RC" 0 "ssh-add -d ed25519 exits 0"
like "$ERR" "^Identity removed: $T/keys/ed25519.pub" "ssh-add -d says 'Identity removed'"
is "$(count_ids)" 5 "five identities left"
agent_has "$T/keys/ed25519.pub"
is $? 1 "ed25519 no longer listed"
run ssh_as hostA "$T/keys/ed25519.pub" -- true
is "$RC" 255 "login with the removed key fails (nothing else can sign)"
run ssh-add -d "$T/keys/ed25519.pub"
is "$RC" 1 "ssh-add -d of a key that is not in the agent fails (exit 1)"
like "$ERR" 'Could not remove identity' "and says 'Could not remove identity'"
is "$(count_ids)" 5 "failed remove changed nothing"

# --- order: re-adding keeps the position, new keys go last
for k in $KEYS; do unhide_key "$k"; done
run ssh-add "$T/keys/ecdsa384"
ok $RC "re-add ecdsa384 (already present)"
run ssh-add "$T/keys/ed25519"
ok $RC "re-add ed25519 (removed before)"
want_order=""
for k in ecdsa256 ecdsa384 ecdsa521 rsa3072 rsa1024 ed25519; do
	want_order+="$(fp "$T/keys/$k.pub")"$'\n'
done
is "$(ssh-add -l | awk '{print $2}')" "${want_order%$'\n'}" "re-added key keeps its place, new key is appended"
is "$(count_ids)" 6 "no duplicate after re-adding"

# --- remove all
run ssh-add -D
is "$RC" 0 "ssh-add -D exits 0"
is "$ERR" "All identities removed." "ssh-add -D message"
run ssh-add -l
is "$RC" 1 "agent empty after -D (ssh-add -l exits 1)"
for k in $KEYS; do hide_key "$k"; done
run ssh_as hostA "$T/keys/ecdsa256.pub" -- true
is "$RC" 255 "login fails after -D"
for k in $KEYS; do unhide_key "$k"; done

# --- key types keyward refuses on purpose (ssh-agent 9.2 accepts DSA)
if is_keyward; then
	gen_key dsa dsa
	run ssh-add "$T/keys/dsa"
	[ "$RC" != 0 ]
	ok $? "keyward refuses a DSA key"
	is "$(count_ids)" 0 "nothing stored after a refused add"
else
	skip_n 2 "not keyward"
fi

stop_agent
ok $? "agent stopped with -k"

done_testing
