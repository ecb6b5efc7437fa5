#!/bin/bash
# check: plain only (the test FIDO middleware (never sanitized) against /usr/bin/ssh-agent only)
# The test FIDO middleware (tests/sk/provider.c) against the real OpenSSH
# tools: ssh-keygen -t ed25519-sk/ecdsa-sk with SSH_SK_PROVIDER, ssh-add -S,
# ssh-keygen -Y sign through the agent, -Y verify, ssh logins to sshd; a PIN
# asked through SSH_ASKPASS; a refusing token; flags without user presence
# (sshd refuses them); the counter.
# The agent here is always /usr/bin/ssh-agent, whatever AGENT says: this
# test is the oracle for the middleware itself, not a test of keyward.
AGENT=/usr/bin/ssh-agent
. "$(dirname "$0")/lib.sh"

SO=$KEYWARD_BUILD/tests/libkwsk-test.so
[ -f "$SO" ] || bail "$SO missing (make tests)"
SO=$(realpath "$SO")
ALLOW=$(dirname "$SO")/*
export SSH_SK_PROVIDER=$SO

printf 'signed by a test token %s\n' "$$" >"$T/data"
: >"$T/allowed_signers"

# --- enrolment: ssh-keygen through the middleware
for t in ed25519-sk ecdsa-sk; do
	run ssh-keygen -q -N '' -t "$t" -C "$t@kwtest" -f "$T/keys/$t"
	ok $RC "ssh-keygen -t $t through the middleware"
	like "$(cut -d' ' -f1 "$T/keys/$t.pub" 2>/dev/null)" \
		"^sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh.com$" "$t: public key type"
	echo "$t@signers $(cut -d' ' -f1,2 "$T/keys/$t.pub")" >>"$T/allowed_signers"
done
KWSK_TEST_REFUSE=1 run ssh-keygen -q -N '' -t ed25519-sk -f "$T/keys/refused"
[ "$RC" != 0 ] && [ ! -e "$T/keys/refused" ]
ok $? "a refusing token: ssh-keygen fails and writes no key"

verify() { # PRINCIPAL SIGFILE [SIGNERS]
	run sh -c "ssh-keygen -Y verify -f '${3:-$T/allowed_signers}' -I '$1' -n file -s '$2' <'$T/data'"
}
sign() { # NAME: ssh-keygen -Y sign with the public key only (the agent signs)
	rm -f "$T/data.sig"
	run ssh-keygen -Y sign -f "$T/keys/$1.pub" -n file "$T/data"
}

# --- ssh-agent with the middleware allowed by -P
KWSK_TEST_COUNTER=$T/counter start_agent -P "$ALLOW"
ok $? "ssh-agent started with -P $ALLOW" || bail "agent did not start"
for t in ed25519-sk ecdsa-sk; do
	run ssh-add -S "$SO" "$T/keys/$t"
	ok $RC "ssh-add -S provider $t"
	hide_key "$t"
done
run ssh-add -l
like "$OUT" "SHA256:.* ed25519-sk@kwtest \(ED25519-SK\)" "ssh-add -l lists the ed25519-sk key"
like "$OUT" "SHA256:.* ecdsa-sk@kwtest \(ECDSA-SK\)" "ssh-add -l lists the ecdsa-sk key"
for t in ed25519-sk ecdsa-sk; do
	sign "$t"
	ok $RC "$t: ssh-keygen -Y sign through the agent"
	cp "$T/data.sig" "$T/$t.sig" 2>/dev/null
	verify "$t@signers" "$T/$t.sig"
	ok $RC "$t: ssh-keygen -Y verify accepts the signature"
	contains "$OUT" "Good \"file\" signature for $t@signers" "$t: verify names the signer"
done
is "$(cat "$T/counter" 2>/dev/null)" 2 "the counter counted both signatures"
stop_agent
ok $? "agent stopped"

# --- flags without user presence: sshd demands a touch unless the key's
# authorized_keys line says no-touch-required (ssh-keygen -Y verify of
# OpenSSH 9.2 does not look at the flag)
start_sshd hostA
ok $? "sshd hostA started" || bail "sshd did not start"
cut -d' ' -f1,2 "$T/keys/ed25519-sk.pub" >"$T/authorized_keys"
KWSK_TEST_FLAGS=00 start_agent -P "$ALLOW"
ok $? "ssh-agent started, token reports flags 0x00" || bail "agent did not start"
run ssh-add -S "$SO" "$T/hidden/ed25519-sk"
ok $RC "ssh-add ed25519-sk"
run ssh_as hostA "$T/keys/ed25519-sk.pub" -- true
is "$RC" 255 "login refused: the signature lacks the user-presence flag"
printf 'no-touch-required %s\n' "$(cut -d' ' -f1,2 "$T/keys/ed25519-sk.pub")" >"$T/authorized_keys"
run ssh_as hostA "$T/keys/ed25519-sk.pub" -- true
ok $RC "login accepted with no-touch-required" || diag_file "$(sshd_log hostA)"
stop_agent
cut -d' ' -f1,2 "$T/keys/ed25519-sk.pub" >"$T/authorized_keys"
start_agent -P "$ALLOW"
ok $? "ssh-agent started, token reports user presence" || bail "agent did not start"
run ssh-add -S "$SO" "$T/hidden/ed25519-sk"
ok $RC "ssh-add ed25519-sk"
run ssh_as hostA "$T/keys/ed25519-sk.pub" -- true
ok $RC "login accepted when the token reports user presence" || diag_file "$(sshd_log hostA)"
sshd_accepted hostA "$T/keys/ed25519-sk.pub"
ok $? "sshd logged the accepted ed25519-sk login"
stop_agent

# --- a token that refuses
KWSK_TEST_REFUSE=1 start_agent -P "$ALLOW"
ok $? "ssh-agent started, token refuses" || bail "agent did not start"
run ssh-add -S "$SO" "$T/hidden/ecdsa-sk"
ok $RC "ssh-add ecdsa-sk (adding does not call the token)"
sign ecdsa-sk
[ "$RC" != 0 ] && [ ! -e "$T/data.sig" ]
ok $? "a refusing token: the agent signs nothing"
stop_agent

# --- a PIN, asked by the agent through SSH_ASKPASS
mk_script "$T/askpass.sh" "printf '%s\\n' \"\$1\" >>'$T/askpass.log'; cat '$T/pin'"
export SSH_ASKPASS=$T/askpass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0
echo 4711 >"$T/pin"
KWSK_TEST_PIN=4711 start_agent -P "$ALLOW"
ok $? "ssh-agent started, token wants PIN 4711" || bail "agent did not start"
run ssh-add -S "$SO" "$T/hidden/ed25519-sk"
ok $RC "ssh-add ed25519-sk"
: >"$T/askpass.log"
sign ed25519-sk
ok $RC "PIN required: the agent asks for it and signs"
contains "$(cat "$T/askpass.log")" "Enter PIN" "the askpass prompt asked for the PIN"
cp "$T/data.sig" "$T/pin.sig" 2>/dev/null
verify ed25519-sk@signers "$T/pin.sig"
ok $RC "the signature made with the PIN verifies"
echo 1111 >"$T/pin"
sign ed25519-sk
[ "$RC" != 0 ] && [ ! -e "$T/data.sig" ]
ok $? "a wrong PIN: the agent signs nothing"
: >"$T/pin"
sign ed25519-sk
[ "$RC" != 0 ] && [ ! -e "$T/data.sig" ]
ok $? "an empty PIN: the agent signs nothing"

# ssh-add -K lists resident keys (this token keeps none) behind the PIN.
echo 4711 >"$T/pin"
KWSK_TEST_PIN=4711 run ssh-add -K -S "$SO" </dev/null
unlike "$ERR" "returned failure|Unable to load" "ssh-add -K with the right PIN: the token answers"
echo 1111 >"$T/pin"
KWSK_TEST_PIN=4711 run ssh-add -K -S "$SO" </dev/null
contains "$ERR" "returned failure -1" "ssh-add -K with a wrong PIN: the token says -1"
stop_agent

unset SSH_ASKPASS SSH_ASKPASS_REQUIRE DISPLAY

done_testing
