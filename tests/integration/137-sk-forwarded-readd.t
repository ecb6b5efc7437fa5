#!/bin/bash
# A forwarded host replacing the user's FIDO key. The user adds the FIDO key
# "user" (test middleware tests/sk/provider.c, whose key handle carries the
# private key) with -c and -t 3600, logs in to hostA with the real ssh -A,
# and hostA, through the forwarded socket:
#   - reads the user's public key from the listing (ssh-add -L);
#   - sends a raw ADD of that public key with a key handle of its own (its
#     own FIDO key "evil", same application), no constraints, no provider
#     (the ADD any agent client can write; tests/tools/rawclient.pl).
# keyward refuses it as management (keyward(1) -O allow-remote-manage): the
# key keeps its comment, -c, lifetime, provider and key handle, is still
# the user's (keyward-ctl: added by: local) and still makes a signature
# that verifies. The same bytes sent by the user's own client replace it,
# as a local re-add does (so the refusal is not the payload's fault).
# With -O allow-remote-manage the re-add is served: the key becomes hostA's
# own (keyward-ctl names hostA's host key), and with -O allow-remote-add
# too it serves the user's clients again, with hostA's handle, and signs
# nothing that verifies: ssh-agent's behaviour.
# Against /usr/bin/ssh-agent (the baseline) the forwarded re-add is served
# and replaces the key: this file asserts that it does.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-sk.sh"

sk_askpass
echo yes >"$T/confirm.mode"
sk_key user ed25519-sk
sk_key evil ed25519-sk
gen_key login ed25519 || bail "ssh-keygen login"
cat "$T/keys/login.pub" >>"$T/authorized_keys"
start_sshd hostA || bail "sshd hostA"
UFP=$(fp "$T/keys/user.pub")
HFP=$(fp "$T/hostA/host_ed25519.pub")

# On hostA: the listed key with evil's handle, as a raw ADD; the agent's
# reply (hex: 06 success, 05 failure) in $T/readd.reply.
cat >"$T/readd.pl" <<'EOF'
use strict; use warnings; use MIME::Base64;
my ($listed, $own) = @ARGV;
sub str { my ($b, $p) = @_; my $n = unpack('N', substr($$b, $$p, 4));
	my $s = substr($$b, $$p + 4, $n); $$p += 4 + $n; $s }
sub put { pack('N', length $_[0]) . $_[0] }
# the user's public key, as the listing gave it
open(my $f, '<', $listed) or die "$listed: $!";
my ($blob) = map { decode_base64((split ' ')[1]) } grep { /^sk-ssh-ed25519/ } <$f>;
defined $blob or die "no FIDO key listed\n";
my $p = 0;
my ($type, $pk, $app) = (str(\$blob, \$p), str(\$blob, \$p), str(\$blob, \$p));
# hostA's own FIDO key file: its flags, key handle, reserved
open($f, '<', $own) or die "$own: $!";
my $t = do { local $/; <$f> };
$t =~ s/-----[^-]+-----//g;
my $b = decode_base64($t);
$p = length("openssh-key-v1\0");
str(\$b, \$p) for 1 .. 3;
$p += 4;
str(\$b, \$p);
my $sec = str(\$b, \$p);
my $q = 8;
str(\$sec, \$q) for 1 .. 3;     # type, public key, application
my $flags = substr($sec, $q, 1); $q++;
my $kh = str(\$sec, \$q);
my $reserved = str(\$sec, \$q);
# SSH_AGENTC_ADD_IDENTITY (17), no constraints
print unpack('H*', "\x11" . put($type) . put($pk) . put($app) . $flags .
	put($kh) . put($reserved) . put("planted by hostA")), "\n";
EOF
cat >"$T/readd.sh" <<EOF
ssh-add -L >$(printf %q "$T/listed.pub") || exit 3
hex=\$(perl $(printf %q "$T/readd.pl") $(printf %q "$T/listed.pub") $(printf %q "$T/keys/evil")) || exit 4
printf '%s\n' "\$hex" >$(printf %q "$T/readd.hex")
perl $(printf %q "$RAWCLIENT") -t 10 "\$SSH_AUTH_SOCK" "\$hex" >$(printf %q "$T/readd.reply")
EOF
readd_fwd() { # hostA, through the user's ssh -A
	rm -f "$T/readd.reply" "$T/listed.pub"
	run timeout 60 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/login" -A hostA \
		"sh $(printf %q "$T/readd.sh")"
	REPLY=$(cat "$T/readd.reply" 2>/dev/null)
}
ctl() { run "$KEYWARD_BUILD/keyward-ctl"; }
block() { # FP: keyward-ctl's lines for that key
	printf '%s\n' "$OUT" | awk -v fp="$1" '/^[^ ]/ { on = index($0, " " fp " ") > 0 } on'
}
start() {
	sk_agent "$@"
	run ssh-add "$T/keys/login"
	ok "$RC" "ssh-add login (to reach hostA)"
	sk_add user -c -t 3600
	ok "$RC" "the user adds the FIDO key with -c -t 3600 through the provider"
	[ -e "$T/keys/user" ] && hide_key user
	return 0
}
signs() { # the user's key makes a signature that verifies
	sk_sign user && sk_verify user && [ "$RC" = 0 ]
}

# --- the attack
start
signs
ok $? "before: the user's key signs, and the signature verifies"
readd_fwd
ok "$RC" "hostA ran the attack (ssh -A)"
grep -qF "$(cut -d' ' -f2 "$T/keys/user.pub")" "$T/listed.pub" 2>/dev/null
ok $? "hostA took the user's public key from the listing (ssh-add -L)"
if is_keyward; then
	is "$REPLY" 05 "keyward: hostA's re-add of the user's FIDO key with its own handle is refused"
	run ssh-add -l
	contains "$OUT" "$UFP user@kwtest" "the key keeps its comment"
	ctl
	b=$(block "$UFP")
	contains "$b" "    provider: $SO" "keyward-ctl: it keeps its provider"
	contains "$b" "    confirm: yes" "keyward-ctl: it keeps its -c"
	like "$b" $'\n    lifetime: [0-9]+ s left' "keyward-ctl: it keeps its lifetime"
	contains "$b" "    added by: local" "keyward-ctl: it is still the user's own"
	before=$(askpass_calls confirm)
	signs
	ok $? "the user's key still signs with its own handle, and the signature verifies"
	is "$(askpass_calls confirm)" $((before + 1)) "... after the confirm its -c asks for"

	# the same bytes from the user's own client: a local re-add replaces
	run perl "$RAWCLIENT" -t 10 "$SSH_AUTH_SOCK" "$(cat "$T/readd.hex")"
	is "$OUT" 06 "the same ADD sent locally is served (a local re-add replaces, as in ssh-agent)"
	ctl
	contains "$(block "$UFP")" "    confirm: no" "... and takes the -c away: the payload does what hostA wanted"
	signs
	is $? 1 "... and the key no longer makes a signature that verifies (hostA's handle)"
	stop_agent

	# --- -O allow-remote-manage: served; the key is hostA's own now
	start -O allow-remote-manage
	readd_fwd
	is "$REPLY" 06 "-O allow-remote-manage: hostA's re-add is served"
	run ssh-add -l
	lacks() { if grep -qF -- "$2" <<<"$1"; then ok 1 "$3"; else ok 0 "$3"; fi; }
	lacks "$OUT" "$UFP" "the key is hostA's own now: the user's ssh-add -l does not list it"
	signs
	is $? 1 "and the user's local signature with it is refused"
	ctl
	b=$(block "$UFP")
	contains "$b" "    added by: forwarded host $HFP" "keyward-ctl names hostA's host key as the key's adder"
	contains "$b" "    confirm: no" "keyward-ctl: the constraints are hostA's (none)"
	stop_agent

	# --- and -O allow-remote-add: ssh-agent's behaviour
	start -O allow-remote-manage -O allow-remote-add
	readd_fwd
	is "$REPLY" 06 "-O allow-remote-manage -O allow-remote-add: hostA's re-add is served"
	run ssh-add -l
	contains "$OUT" "$UFP planted by hostA" "the user's clients see the key, with hostA's comment"
	ctl
	contains "$(block "$UFP")" "    added by: forwarded host $HFP" "keyward-ctl says hostA added it"
	signs
	is $? 1 "it makes no signature that verifies: hostA's handle replaced the user's"
	stop_agent
else
	is "$REPLY" 06 "ssh-agent (baseline): hostA's re-add of the user's FIDO key is served"
	run ssh-add -l
	contains "$OUT" "$UFP planted by hostA" "ssh-agent: the key now has hostA's comment"
	signs
	is $? 1 "ssh-agent: the user's key no longer makes a signature that verifies"
	stop_agent
	skip_n 23 "keyward's management refusal and options"
fi
done_testing
