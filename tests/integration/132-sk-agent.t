#!/bin/bash
# FIDO (sk-) keys through the agent under test, with the real OpenSSH tools
# and the test middleware (tests/sk/provider.c) allowed by -P: enrolment,
# ssh-add -S, -l, -L, -T; ssh logins to sshd (which checks the user-presence
# flag); ssh-keygen -Y sign/verify; -c, -t, -x/-X; a PIN asked through
# SSH_ASKPASS; providers outside -P; an add naming a provider through a
# forwarded agent; a key for a web origin (doc/protocol.md §8.9).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-sk.sh"

sk_askpass
echo yes >"$T/confirm.mode"

# --- enrolment: ssh-keygen through the middleware
sk_key sk1 ed25519-sk
like "$(cut -d' ' -f1 "$T/keys/sk1.pub")" '^sk-ssh-ed25519@openssh\.com$' \
	"ssh-keygen -t ed25519-sk made an sk-ssh-ed25519 key"
sk_key sk2 ecdsa-sk
like "$(cut -d' ' -f1 "$T/keys/sk2.pub")" '^sk-ecdsa-sha2-nistp256@openssh\.com$' \
	"ssh-keygen -t ecdsa-sk made an sk-ecdsa-sha2-nistp256 key"
gen_key login ed25519 || bail "ssh-keygen login"
cat "$T/keys/sk1.pub" "$T/keys/sk2.pub" "$T/keys/login.pub" >>"$T/authorized_keys"
start_sshd hostA
ok $? "sshd hostA started" || bail "sshd did not start"

sk_agent

# --- add, list, test
for k in sk1 sk2; do
	sk_add "$k"
	ok $RC "ssh-add -S provider $k"
	hide_key "$k"
done
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/sk1.pub")"$'\n'"$(fp_line "$T/keys/sk2.pub")" \
	"ssh-add -l lists both keys, in add order"
like "$OUT" '\(ED25519-SK\)' "ssh-add -l names the type ED25519-SK"
like "$OUT" '\(ECDSA-SK\)' "ssh-add -l names the type ECDSA-SK"
run ssh-add -L
is "$OUT" "$(cat "$T/keys/sk1.pub" "$T/keys/sk2.pub")" "ssh-add -L prints both public keys as ssh-keygen wrote them"
for k in sk1 sk2; do
	run ssh-add -T "$T/keys/$k.pub"
	ok $RC "ssh-add -T $k: the agent signs and the signature verifies"
done

# --- signatures: SSHSIG and logins (sshd checks the flags)
for k in sk1 sk2; do
	sk_sign "$k"
	ok $? "$k: ssh-keygen -Y sign through the agent"
	sk_verify "$k"
	ok $RC "$k: ssh-keygen -Y verify accepts it"
	contains "$OUT" "Good \"file\" signature for $k@kwtest" "$k: verify names the signer"
	run sk_login hostA "$k" -- 'echo logged-in-as-$(id -un)'
	is "$RC:$OUT" "0:logged-in-as-$(id -un)" "$k: ssh logs in to sshd through the agent"
	sshd_accepted hostA "$T/keys/$k.pub"
	ok $? "$k: sshd logged the accepted publickey login with it"
done
like "$(grep 'Accepted publickey' "$(sshd_log hostA)")" 'ED25519-SK|ECDSA-SK' \
	"sshd names the sk key types it accepted"

# --- providers outside -P
mkdir -p "$T/elsewhere"
cp "$SO" "$T/elsewhere/libkwsk-test.so"
ids=$(count_ids)
unhide_key sk2
run ssh-add -d "$T/keys/sk2.pub"
ok $RC "ssh-add -d sk2 (to add it again)"
run ssh-add -S "$T/elsewhere/libkwsk-test.so" "$T/keys/sk2" </dev/null
is "$RC" 1 "ssh-add -S with a copy of the provider outside -P is refused"
contains "$ERR" "agent refused operation" "ssh-add reports the agent's refusal"
agent_has "$T/keys/sk2.pub"
is $? 1 "the key is not listed"
run ssh-add -S "$T/elsewhere/nonexistent.so" "$T/keys/sk2" </dev/null
is "$RC" 1 "ssh-add -S with a provider that does not exist is refused"
# a path outside -P that resolves (realpath) into it is the allowed provider
ln -s "$SO" "$T/elsewhere/link.so"
run ssh-add -S "$T/elsewhere/link.so" "$T/keys/sk2" </dev/null
ok $RC "ssh-add -S with a symlink outside -P to the allowed provider is accepted (the resolved path counts)"
hide_key sk2
sk_sign sk2
ok $? "... and the key added through the symlink signs"
is "$(count_ids)" "$ids" "as many keys listed as before"

# --- confirm (ssh-add -c): the agent asks through SSH_ASKPASS
run ssh-add -D
ok $RC "ssh-add -D"
sk_add sk1 -c
ok $RC "ssh-add -c -S provider sk1"
like "$ERR" 'The user must confirm each use of the key' "ssh-add announces the confirm constraint"
echo yes >"$T/confirm.mode"
before=$(askpass_calls confirm)
sk_sign sk1
ok $? "confirm answered yes: the sk key signs"
is "$(askpass_calls confirm)" $((before + 1)) "askpass was asked to confirm once"
contains "$(grep '^confirm' "$T/askpass.log")" "$(fp "$T/keys/sk1.pub")" "the confirm prompt names the key's fingerprint"
sk_verify sk1
ok $RC "the confirmed signature verifies"
run sk_login hostA sk1 -- true
ok $RC "confirm answered yes: login with the sk key"
echo no >"$T/confirm.mode"
sk_sign sk1
is $? 1 "confirm answered no: the sk key does not sign"
run sk_login hostA sk1 -- true
is "$RC" 255 "confirm answered no: the login is refused"
contains "$ERR" "agent refused operation" "... by the agent (it refused to sign)"
agent_has "$T/keys/sk1.pub"
ok $? "a refused confirmation keeps the key"
echo yes >"$T/confirm.mode"

# --- lifetime (ssh-add -t 2)
sk_add sk2 -t 2
ok $RC "ssh-add -t 2 -S provider sk2"
like "$ERR" '^Lifetime set to 2 seconds$' "ssh-add reports the lifetime"
sk_sign sk2
ok $? "the sk key with a lifetime signs before it expires"
poll_until 15 not agent_has "$T/keys/sk2.pub"
ok $? "it is gone after its lifetime (polled up to 15 s)"
sk_sign sk2
is $? 1 "the expired sk key no longer signs"
agent_has "$T/keys/sk1.pub"
ok $? "the key without a lifetime is still there"

# --- lock and unlock
run ssh-add -D
sk_add sk2
ok $RC "ssh-add -S provider sk2"
lockcmd() { # -x|-X PASSPHRASE
	printf '%s\n' "$2" >"$T/pass"
	run ssh-add "$1" </dev/null
}
lockcmd -x "sk lock"
is "$RC:$ERR" "0:Agent locked." "ssh-add -x locks the agent"
run ssh-add -l
is "$RC:$OUT" "1:The agent has no identities." "while locked the sk key is not listed"
sk_sign sk2
is $? 1 "while locked the sk key does not sign (-Y sign)"
run ssh-add -T "$T/keys/sk2.pub"
is "$RC" 1 "while locked ssh-add -T fails"
run sk_login hostA sk2 -- true
is "$RC" 255 "while locked the login fails"
lockcmd -X "wrong"
is "$RC" 1 "unlock with a wrong password fails"
run ssh-add -l
is "$RC" 1 "still nothing listed"
lockcmd -X "sk lock"
is "$RC:$ERR" "0:Agent unlocked." "ssh-add -X unlocks"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/sk2.pub")" "after unlock the sk key is listed again"
sk_sign sk2
ok $? "after unlock the sk key signs"
sk_verify sk2
ok $RC "and the signature verifies"

# --- an add naming a provider through a forwarded agent (doc/protocol.md §8.10, §6.5):
# refused unless the agent runs with -O allow-remote-pkcs11 (OpenSSH 9.4;
# Debian's 9.2p1 has it too, from the CVE-2023-38408 fix)
run ssh-add -D
run ssh-add "$T/keys/login"
ok $RC "ssh-add login (an ordinary key to reach hostA)"
unhide_key sk1
fwd_add() { # ssh -A hostA "ssh-add -S provider sk1"
	run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/login" -A hostA \
		"ssh-add -S $(printf %q "$SO") $(printf %q "$T/keys/sk1")"
}
fwd_add
is "$RC" 1 "on hostA (ssh -A) ssh-add -S provider sk1 is refused"
contains "$ERR" "agent refused operation" "ssh-add on hostA reports the agent's refusal"
agent_has "$T/keys/sk1.pub"
is $? 1 "the key is not listed"
run ssh-add -d "$T/keys/sk1.pub"
sk_add sk1
ok $RC "the same add locally succeeds"
hide_key sk1
sk_sign sk1
ok $? "and the key signs"

# --- a key for a web origin (doc/protocol.md §8.9): SSHSIG and logins, nothing else
sk_key websrc ed25519-sk
sk_rekey websrc web example.com
ok $? "an ed25519-sk key for the application example.com (rewritten from an ssh: one)"
is "$(ssh-keygen -y -f "$T/keys/web" 2>&1 | cut -d' ' -f1,2)" "$(cut -d' ' -f1,2 "$T/keys/web.pub")" \
	"ssh-keygen reads the rewritten key and derives its public key"
cat "$T/keys/web.pub" >>"$T/authorized_keys"
sk_add web
ok $RC "ssh-add -S provider web"
hide_key web
run ssh-add -T "$T/keys/web.pub"
is "$RC" 1 "the web-origin key may not sign arbitrary data (ssh-add -T)"
contains "$ERR" "agent refused operation" "... the agent refused it"
sk_sign web
ok $? "the web-origin key may sign an SSHSIG (-Y sign)"
sk_verify web
ok $RC "and the signature verifies"
run sk_login hostA web -- true
ok $RC "the web-origin key may sign a login"
sshd_accepted hostA "$T/keys/web.pub"
ok $? "sshd logged the accepted login with it"
sk_add websrc
ok $RC "ssh-add the same key pair for application ssh:"
run ssh-add -T "$T/keys/websrc.pub"
ok $RC "the ssh: key signs arbitrary data (ssh-add -T)"
stop_agent
ok $? "agent stopped"

# --- a token that wants a PIN: the agent asks through SSH_ASKPASS
KWSK_TEST_PIN=4711 sk_agent
sk_add sk1
ok $RC "ssh-add -S provider sk1"
echo 4711 >"$T/pin"
pin_prompts() { grep -c "^ask"$'\t'".*PIN" "$T/askpass.log"; }
before=$(pin_prompts)
sk_sign sk1
ok $? "PIN required: the agent asks for it and signs"
is "$(pin_prompts)" $((before + 1)) "askpass was asked for the PIN once"
sk_verify sk1
ok $RC "the signature made with the PIN verifies"
run sk_login hostA sk1 -- true
ok $RC "PIN required: login through the agent"
echo 1111 >"$T/pin"
sk_sign sk1
is $? 1 "a wrong PIN: no signature"
run sk_login hostA sk1 -- true
is "$RC" 255 "a wrong PIN: the login is refused"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/sk1.pub")" "the agent keeps the key and keeps serving"
stop_agent

# --- -O allow-remote-pkcs11: the forwarded add naming a provider is allowed;
# the key is then hostA's own (keyward(1): keys a forwarded host adds), so
# a local signature with it is refused, unless -O allow-remote-add too
sk_agent -O allow-remote-pkcs11
run ssh-add "$T/keys/login"
ok $RC "ssh-add login"
unhide_key sk1
fwd_add
ok $RC "with -O allow-remote-pkcs11 the add through hostA (ssh -A) succeeds"
hide_key sk1
not sk_sign sk1
ok $? "the key hostA added is hostA's: no local signature with it"
stop_agent
sk_agent -O allow-remote-pkcs11 -O allow-remote-add
run ssh-add "$T/keys/login"
ok $RC "ssh-add login"
unhide_key sk1
fwd_add
ok $RC "with -O allow-remote-add too, the add through hostA succeeds"
hide_key sk1
sk_sign sk1
ok $? "and the key it added signs locally"
stop_agent

# --- a token that reports no user presence: the agent passes the signature
# on (its flags are the token's to state); sshd refuses the login
KWSK_TEST_FLAGS=00 sk_agent
sk_add sk2
ok $RC "ssh-add -S provider sk2 (token reports flags 0x00)"
run ssh-add -T "$T/keys/sk2.pub"
ok $RC "the agent relays the signature without user presence (ssh-add -T)"
sk_sign sk2
ok $? "and ssh-keygen -Y sign gets one"
run sk_login hostA sk2 -- true
is "$RC" 255 "the login is refused"
poll_until 5 grep -q 'user presence' "$(sshd_log hostA)"
ok $? "by sshd: 'user presence (authenticator touch) requirement not met'"
stop_agent

# --- the built-in provider (ssh-add sends "internal" when SSH_SK_PROVIDER
# is unset) with no token plugged in: a clear refusal, and the agent serves on
sk_agent
unhide_key sk1
run env -u SSH_SK_PROVIDER ssh-add "$T/keys/sk1" </dev/null
hide_key sk1
ok $RC "ssh-add sk1 with the internal provider"
run ssh-add -T "$T/keys/sk1.pub"
unlike "$RC" "^0$" "with no token present its signature is refused"
gen_key plain ed25519 || bail "ssh-keygen plain"
run ssh-add "$T/keys/plain" </dev/null
hide_key plain
ok $RC "the agent still adds an ordinary key"
run ssh-add -T "$T/keys/plain.pub"
ok $RC "and signs with it"
stop_agent

# --- keyward goes further: keyward-ctl names each sk key's
# provider, and the audit trail records the provider and what the token
# asserted (user presence, user verification, counter) for every signature.
if is_keyward; then
	sk_agent -O "audit=$T/audit.json"
	sk_add sk1
	ok $RC "ssh-add -S provider sk1 (audit trail on)"
	run "$KEYWARD_BUILD/keyward-ctl"
	contains "$OUT" "provider: $(realpath "$SO")" "keyward-ctl names the provider, resolved"
	sk_sign sk1
	ok $? "sk1 signs"
	# the token's record is not waited for (policy/token.c: it is sent
	# as the signature is answered): it can reach the trail after
	poll_until 10 file_has "$T/audit.json" '"event":"token-signature"'
	run jq -c 'select(.event == "token-signature")' "$T/audit.json"
	like "$OUT" '"provider":"[^"]*libkwsk-test.so"' "the audit trail names the provider"
	like "$OUT" '"token":\{"user_presence":true,"user_verification":false,"counter":[0-9]+\}' \
		"and what the token asserted: presence, no verification, its counter"
	stop_agent
else
	skip_n 6 "keyward-ctl and the audit trail are keyward's"
fi

done_testing
