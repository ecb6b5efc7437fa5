# shellcheck shell=bash
# tests/integration/lib-sk.sh - helpers for the FIDO (sk-) key tests
# 132-sk-agent.t, 133-sk-dest.t, 134-sk-hostile.t. Source it after lib.sh.
#
# The token is the test middleware tests/sk/provider.c ($SO), a software
# SecurityKeyProvider that keeps the private key inside the key handle. It
# reads KWSK_TEST_* from the environment of whoever loads it: ssh-keygen
# for enrolment, the agent (and whatever process the agent signs in) for
# signatures, so a behaviour of the token is chosen by the environment the
# agent is started with (KWSK_TEST_PIN=4711 sk_agent ...).
#
#   SO, ALLOW        the middleware (a realpath) and the -P pattern that
#                    allows it (its directory, /*); SSH_SK_PROVIDER=$SO
#   sk_key NAME TYPE [ssh-keygen args]
#                    ssh-keygen -t TYPE (ed25519-sk, ecdsa-sk) through the
#                    middleware, no passphrase: $T/keys/NAME{,.pub}, comment
#                    NAME@kwtest; bails on failure
#   sk_agent [args]  start_agent -P "$ALLOW" [args] (bails on failure)
#   sk_agent_fg [args]
#                    the same in the foreground (log in $T/agent.log)
#   sk_add NAME [ssh-add options]
#                    ssh-add OPTIONS -S $SO KEY (the private half, a key
#                    handle, is shown to ssh-add only for the add); $RC...
#   sk_sign NAME     ssh-keygen -Y sign -n file of $T/data with only the
#                    public key (the agent signs); status 0 only if
#                    $T/data.sig was written
#   sk_verify NAME   ssh-keygen -Y verify of $T/data.sig against
#                    $T/allowed_signers (principal NAME@kwtest)
#   sk_login HOST NAME [ssh options] -- CMD
#                    ssh_as with the public key only
#   sk_rekey SRC DST APPLICATION
#                    $T/keys/DST{,.pub}: the ed25519-sk key SRC re-made for
#                    another FIDO application (ssh-keygen 9.2 enrols only
#                    "ssh:" ones): the same key pair, the application
#                    replaced in the key and its handle re-bound to it as the
#                    test token binds handles (SHA-256 of the application)
#   sk_askpass       writes $T/askpass.sh, exported as SSH_ASKPASS with
#                    SSH_ASKPASS_REQUIRE=force and DISPLAY=:0. It logs each
#                    call as "KIND<TAB>PROMPT" (newlines as spaces) to $T/askpass.log (KIND is
#                    $SSH_ASKPASS_PROMPT or "ask") and answers
#                      none (a notice such as "Confirm user presence"): nothing
#                      confirm: as $T/confirm.mode says (yes | no | block)
#                      a prompt naming a PIN: $T/pin (after waiting for
#                        $T/pin.release when $T/pin.block exists)
#                      any other prompt (lock passwords): $T/pass
#                    "block" and pin.block touch $T/askpass.waiting and wait
#                    (at most 30 s) for their release file.
#   askpass_calls KIND   how many calls of that kind were logged

SO=$KEYWARD_BUILD/tests/libkwsk-test.so
[ -f "$SO" ] || bail "$SO missing (make tests)"
SO=$(realpath "$SO")
ALLOW="$(dirname "$SO")/*"
export SSH_SK_PROVIDER=$SO

printf 'signed with a FIDO key %s\n' "$$" >"$T/data"
: >"$T/allowed_signers"

sk_key() {
	local name=$1 type=$2; shift 2
	rm -f "$T/keys/$name" "$T/keys/$name.pub"
	ssh-keygen -q -N '' -t "$type" -C "$name@kwtest" "$@" \
		-f "$T/keys/$name" </dev/null >/dev/null 2>"$T/keygen.err" ||
		{ diag_file "$T/keygen.err"; bail "ssh-keygen -t $type $name failed"; }
	echo "$name@kwtest $(cut -d' ' -f1,2 "$T/keys/$name.pub")" >>"$T/allowed_signers"
}

sk_agent() { token_agent "$ALLOW" "$@"; }
sk_agent_fg() { token_agent_fg "$ALLOW" "$@"; }

sk_add() {
	local k=$1 hidden=0; shift
	[ -e "$T/hidden/$k" ] && { unhide_key "$k"; hidden=1; }
	run ssh-add "$@" -S "$SO" "$T/keys/$k" </dev/null
	[ $hidden = 1 ] && hide_key "$k"
	return "$RC"
}

sk_sign() {
	rm -f "$T/data.sig"
	run ssh-keygen -Y sign -f "$T/keys/$1.pub" -n file "$T/data" </dev/null
	[ "$RC" = 0 ] && [ -s "$T/data.sig" ]
}

sk_verify() {
	run sh -c "ssh-keygen -Y verify -f '$T/allowed_signers' -I '$1@kwtest' -n file -s '$T/data.sig' <'$T/data'"
}

sk_login() {
	local host=$1 k=$2; shift 2
	ssh_as "$host" "$T/keys/$k.pub" "$@"
}

sk_rekey() {
	local src=$1 dst=$2 app=$3
	[ -e "$T/keys/$src" ] || { diag "sk_rekey: $src is hidden"; return 1; }
	perl -e '
use strict;
use warnings;
use MIME::Base64;
use Digest::SHA qw(sha256);
my ($src, $dst, $app) = @ARGV;
my $MAGIC = "openssh-key-v1\0";
open(my $f, "<", $src) or die "$src: $!\n";
my $text = do { local $/; <$f> };
close $f;
$text =~ /-----BEGIN OPENSSH PRIVATE KEY-----\n(.*?)-----END OPENSSH PRIVATE KEY-----/s
	or die "$src: not an OpenSSH private key\n";
my $b = decode_base64($1);
sub str { # BUFREF POSREF: the next SSH string
	my ($buf, $pos) = @_;
	die "truncated\n" if $$pos + 4 > length $$buf;
	my $n = unpack("N", substr($$buf, $$pos, 4));
	die "truncated\n" if $$pos + 4 + $n > length $$buf;
	my $s = substr($$buf, $$pos + 4, $n);
	$$pos += 4 + $n;
	return $s;
}
sub put { pack("N", length $_[0]) . $_[0] }
substr($b, 0, length $MAGIC) eq $MAGIC or die "bad magic\n";
my $p = length $MAGIC;
str(\$b, \$p) eq "none" or die "encrypted key\n";
str(\$b, \$p);
str(\$b, \$p);
unpack("N", substr($b, $p, 4)) == 1 or die "not one key\n";
$p += 4;
my $pub = str(\$b, \$p);
my $sec = str(\$b, \$p);
my $q = 0;
my $type = str(\$pub, \$q);
$type eq "sk-ssh-ed25519\@openssh.com" or die "$type: not ed25519-sk\n";
my $pk = str(\$pub, \$q);
my $newpub = put($type) . put($pk) . put($app);
$q = 8;					# the two check words
str(\$sec, \$q) eq $type or die "private type\n";
str(\$sec, \$q) eq $pk or die "private public key\n";
str(\$sec, \$q);			# the old application
my $flags = substr($sec, $q, 1);
$q++;
my $kh = str(\$sec, \$q);
my $reserved = str(\$sec, \$q);
my $comment = str(\$sec, \$q);
# the test token handle: "KWSKTEST", algorithm, SHA-256(application), secret
length($kh) == 73 && substr($kh, 0, 8) eq "KWSKTEST"
	or die "not a test token key handle\n";
substr($kh, 9, 32) = sha256($app);
my $newsec = substr($sec, 0, 8) . put($type) . put($pk) . put($app) .
	$flags . put($kh) . put($reserved) . put($comment);
my $i = 1;
$newsec .= chr($i++) while length($newsec) % 8;
my $out = $MAGIC . put("none") . put("none") . put("") . pack("N", 1) .
	put($newpub) . put($newsec);
umask 077;
open(my $o, ">", $dst) or die "$dst: $!\n";
print $o "-----BEGIN OPENSSH PRIVATE KEY-----\n",
	join("\n", unpack("(A70)*", encode_base64($out, ""))),
	"\n-----END OPENSSH PRIVATE KEY-----\n";
close $o or die "$dst: $!\n";
open($o, ">", "$dst.pub") or die "$dst.pub: $!\n";
print $o "$type ", encode_base64($newpub, ""), " $comment\n";
close $o or die "$dst.pub: $!\n";
' "$T/keys/$src" "$T/keys/$dst" "$app" || return 1
	chmod 600 "$T/keys/$dst"
	echo "$dst@kwtest $(cut -d' ' -f1,2 "$T/keys/$dst.pub")" >>"$T/allowed_signers"
}

sk_askpass() { token_askpass "$T/askpass.sh" '*PIN*'; }

