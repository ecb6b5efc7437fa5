#!/bin/bash
# PKCS#11 (smartcard) keys through the agent under test, with the real
# OpenSSH 9.2 tools and a SoftHSM2 token (lib-p11.sh): ssh-add -s / -e /
# -l / -L / -T, ssh logins to sshd with each key type, a wrong PIN, a
# provider outside -P, two providers at once, -c, -t, -x/-X (doc/protocol.md §5.7,
# §13.5).
#
# Debian's ssh-agent 9.2 (its ssh-pkcs11-helper) does not know Ed25519
# PKCS#11 keys: it lists the token's RSA and ECDSA keys only. Every
# Ed25519 assertion is skipped for it (never counted as a pass), with a
# note of what it did.
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"

NOED="Debian's ssh-agent 9.2 (ssh-pkcs11-helper) has no Ed25519 PKCS#11 support"
p11_askpass
echo yes >"$T/confirm.mode"
p11_token "$T/tok"
p11_second "$T/tok2"
A4="p11-rsa2048 p11-rsa3072 p11-p256 p11-p384" # what both agents list
ED=p11-ed25519
B2="p11b-p256 p11b-rsa2048"
cat "$T"/keys/*.pub >>"$T/authorized_keys"
start_sshd hostA
ok $? "sshd hostA started" || bail "sshd did not start"

# sorted fingerprint lines / public keys of the named keys
want_l() { local k; for k in "$@"; do fp_line "$(p11_pub "$k")"; done | sort; }
want_L() { local k; for k in "$@"; do cat "$(p11_pub "$k")"; done | sort; }
got_l() { printf '%s\n' "$OUT" | grep -v " $ED " | sort; }
got_L() { printf '%s\n' "$OUT" | grep -v '^ssh-ed25519 ' | sort; }
# ed_row DESCRIPTION CMD...: an Ed25519 assertion, skipped for ssh-agent
ed_row() {
	local name=$1; shift
	if p11_has_ed25519; then
		"$@"
		ok $? "$name"
	else
		"$@" && diag "note: ssh-agent 9.2 did it after all: $name"
		skip "$NOED: $name"
	fi
}
ed_listed() { printf '%s\n' "$OUT" | grep -qxF "$(fp_line "$(p11_pub $ED)")"; }
ed_listed_L() { printf '%s\n' "$OUT" | grep -qxF "$(cat "$(p11_pub $ED)")"; }

p11_agent

# --- ssh-add -s: the PIN through askpass
before=$(p11_prompts)
p11_add
ok $RC "ssh-add -s $P11_MODULE loads the token's keys"
contains "$ERR" "Card added: $P11_MODULE" "ssh-add reports the card added"
is "$(p11_prompts)" $((before + 1)) "ssh-add asked askpass for the PIN once"
contains "$(grep '^ask' "$T/askpass.log" | tail -n 1)" "PKCS#11" "the prompt names PKCS#11"

# --- -l, -L: the comment is the key's label on the token
run ssh-add -l
ok $RC "ssh-add -l"
is "$(got_l)" "$(want_l $A4)" "ssh-add -l lists the RSA and ECDSA token keys, each commented with its CKA_LABEL"
ed_row "ssh-add -l lists the Ed25519 token key (comment p11-ed25519)" ed_listed
p11_has_ed25519 || diag "note: ssh-agent 9.2 listed $(count_ids) keys (the token holds 5)"
run ssh-add -L
is "$(got_L)" "$(want_L $A4)" "ssh-add -L prints the RSA and ECDSA public keys as exported from openssl"
ed_row "ssh-add -L prints the Ed25519 public key" ed_listed_L

# --- ssh-add -T (ssh-rsa / SHA-1 for RSA, ECDSA), logins (rsa-sha2-*)
for k in $A4; do
	run ssh-add -T "$(p11_pub "$k")"
	ok $RC "ssh-add -T $k: the token signs and the signature verifies"
done
ed_row "ssh-add -T $ED" run ssh-add -T "$(p11_pub $ED)"
login_as() { # KEY [ssh options]
	local k=$1; shift
	run ssh_as hostA "$(p11_pub "$k")" "$@" -- 'echo logged-in-as-$(id -un)'
	[ "$RC:$OUT" = "0:logged-in-as-$(id -un)" ] && sshd_accepted hostA "$(p11_pub "$k")"
}
login_as p11-rsa2048 -o PubkeyAcceptedAlgorithms=rsa-sha2-256
ok $? "p11-rsa2048: login to sshd with rsa-sha2-256 through the agent (sshd logged it)"
login_as p11-rsa3072 -o PubkeyAcceptedAlgorithms=rsa-sha2-512
ok $? "p11-rsa3072: login to sshd with rsa-sha2-512"
login_as p11-p256
ok $? "p11-p256: login to sshd with ecdsa-sha2-nistp256"
login_as p11-p384
ok $? "p11-p384: login to sshd with ecdsa-sha2-nistp384"
ed_row "$ED: login to sshd with ssh-ed25519" login_as $ED

# --- ssh-add -e removes them all
p11_remove
ok $RC "ssh-add -e $P11_MODULE"
contains "$ERR" "Card removed: $P11_MODULE" "ssh-add reports the card removed"
agent_empty
ok $? "no identity is left"
run ssh-add -T "$(p11_pub p11-p256)"
is "$RC" 1 "a removed token key no longer signs"

# --- the PIN on stdin (no askpass, no terminal)
run sh -c "echo $P11_PIN | env -u SSH_ASKPASS -u SSH_ASKPASS_REQUIRE -u DISPLAY setsid -w ssh-add -s $P11_MODULE"
ok $RC "ssh-add -s with the PIN on stdin"
is "$(ssh-add -l | grep -v " $ED " | sort)" "$(want_l $A4)" "the token keys are listed"
p11_remove
ok $RC "ssh-add -e"

# --- a wrong PIN: refused, nothing loaded
echo 1111 >"$T/pin"
p11_add
is "$RC" 1 "a wrong PIN: ssh-add -s fails"
contains "$ERR" "agent refused operation" "ssh-add reports the agent's refusal"
agent_empty
ok $? "nothing is loaded"
echo "$P11_PIN" >"$T/pin"
p11_add
ok $RC "the right PIN afterwards loads the keys"
is "$(count_ids)" "$(p11_has_ed25519 && echo 5 || echo 4)" "all of them"
p11_remove

# --- providers outside -P
mkdir -p "$T/elsewhere"
cp "$P11_REAL" "$T/elsewhere/libsofthsm2.so"
p11_add "$T/elsewhere/libsofthsm2.so"
is "$RC" 1 "ssh-add -s with a copy of the module outside -P is refused"
contains "$ERR" "agent refused operation" "ssh-add reports the agent's refusal"
agent_empty
ok $? "nothing is loaded"
p11_add "$T/elsewhere/nonexistent.so"
is "$RC" 1 "ssh-add -s with a module that does not exist is refused"
ln -s "$T/elsewhere/libsofthsm2.so" "$(dirname "$P11_MODULE_B")/escape.so"
p11_add "$(dirname "$P11_MODULE_B")/escape.so"
is "$RC" 1 "a symlink inside -P to a module outside it is refused (the resolved path counts)"
agent_empty
ok $? "nothing is loaded"

# --- two providers at once (the second one a patched copy reading
# SOFTHSM2_CONB, so it shows its own token)
p11_add
ok $RC "ssh-add -s provider A"
p11_add "$P11_MODULE_B"
ok $RC "ssh-add -s provider B ($P11_MODULE_B)"
run ssh-add -l
is "$(got_l)" "$(want_l $A4 $B2)" "both providers' keys are listed"
for k in $B2; do
	run ssh-add -T "$(p11_pub "$k")"
	ok $RC "ssh-add -T $k (provider B)"
done
login_as p11b-p256
ok $? "login with provider B's p256 key"
p11_remove "$P11_MODULE_B"
ok $RC "ssh-add -e provider B"
run ssh-add -l
is "$(got_l)" "$(want_l $A4)" "only provider A's keys are left"
run ssh-add -T "$(p11_pub p11-p384)"
ok $RC "provider A's keys still sign"
run ssh-add -T "$(p11_pub p11b-p256)"
is "$RC" 1 "provider B's keys do not"
p11_remove
ok $RC "ssh-add -e provider A"
agent_empty
ok $? "nothing is left"

# --- confirm (ssh-add -c -s): the agent asks through SSH_ASKPASS
p11_add -c
ok $RC "ssh-add -c -s"
echo yes >"$T/confirm.mode"
before=$(askpass_calls confirm)
run ssh-add -T "$(p11_pub p11-p256)"
ok $RC "confirm answered yes: the token key signs"
is "$(askpass_calls confirm)" $((before + 1)) "askpass was asked to confirm once"
contains "$(grep '^confirm' "$T/askpass.log" | tail -n 1)" "$(fp "$(p11_pub p11-p256)")" \
	"the confirm prompt names the key's fingerprint"
login_as p11-rsa3072
ok $? "confirm answered yes: login with the RSA-3072 token key"
echo no >"$T/confirm.mode"
run ssh-add -T "$(p11_pub p11-p256)"
is "$RC" 1 "confirm answered no: the token key does not sign"
run ssh_as hostA "$(p11_pub p11-rsa2048)" -- true
is "$RC" 255 "confirm answered no: the login is refused"
contains "$ERR" "agent refused operation" "... by the agent (it refused to sign)"
is "$(ssh-add -l | grep -v " $ED " | sort)" "$(want_l $A4)" "a refused confirmation keeps the keys"
echo yes >"$T/confirm.mode"
p11_remove
ok $RC "ssh-add -e"

# --- lifetime (ssh-add -t 2 -s)
p11_add -t 2
ok $RC "ssh-add -t 2 -s"
run ssh-add -T "$(p11_pub p11-p384)"
ok $RC "a token key with a lifetime signs before it expires"
poll_until 15 agent_empty
ok $? "all the token keys are gone after their lifetime (polled up to 15 s)"
run ssh-add -T "$(p11_pub p11-p384)"
is "$RC" 1 "an expired token key no longer signs"
run ssh-add -e "$P11_MODULE" </dev/null
diag "note: ssh-add -e after the keys expired: status $RC ($(printf '%s' "$ERR" | head -n 1))"

# --- lock and unlock
p11_add
ok $RC "ssh-add -s (again)"
lockcmd() { # -x|-X PASSPHRASE
	printf '%s\n' "$2" >"$T/pass"
	run ssh-add "$1" </dev/null
}
lockcmd -x "p11 lock"
is "$RC:$ERR" "0:Agent locked." "ssh-add -x locks the agent"
run ssh-add -l
is "$RC:$OUT" "1:The agent has no identities." "while locked no token key is listed"
for k in p11-rsa2048 p11-p256; do
	run ssh-add -T "$(p11_pub "$k")"
	is "$RC" 1 "while locked $k does not sign"
done
run ssh_as hostA "$(p11_pub p11-p384)" -- true
is "$RC" 255 "while locked the login fails"
lockcmd -X "wrong"
is "$RC" 1 "unlock with a wrong password fails"
run ssh-add -T "$(p11_pub p11-p256)"
is "$RC" 1 "still locked: nothing signs"
lockcmd -X "p11 lock"
is "$RC:$ERR" "0:Agent unlocked." "ssh-add -X unlocks"
run ssh-add -l
is "$(got_l)" "$(want_l $A4)" "after unlock the token keys are listed again"
for k in $A4; do
	run ssh-add -T "$(p11_pub "$k")"
	ok $RC "after unlock $k signs (no new PIN asked)"
done
login_as p11-p256
ok $? "after unlock: login"
p11_remove
ok $RC "ssh-add -e"
stop_agent
ok $? "agent stopped"

# --- -P naming the symlink's directory: the module resolves elsewhere
start_agent -P "$(dirname "$P11_MODULE")/*"
ok $? "agent started with -P $(dirname "$P11_MODULE")/* (the directory of the symlink only)"
p11_add
is "$RC" 1 "ssh-add -s $P11_MODULE is refused: -P is matched against $P11_REAL"
agent_empty
ok $? "nothing is loaded"
stop_agent

done_testing
