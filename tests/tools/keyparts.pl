#!/usr/bin/perl
# keyparts.pl KEYFILE - for an unencrypted OpenSSH private key file, print
# two lines of hex: a 32-byte piece of each private value (Ed25519 seed;
# ECDSA scalar; RSA d, p and q), space-separated, then a 32-byte piece of
# its public value (Ed25519 point; ECDSA point; RSA modulus). Pieces are
# taken from the middle of each magnitude, so they are the same in the key
# file, in the agent protocol and (byte-reversed) in an OpenSSL BIGNUM.
# For 94-memscan.t.
use strict;
use warnings;
use MIME::Base64;

local $/;
open(my $f, '<', $ARGV[0]) or die "$ARGV[0]: $!";
my $t = <$f>;
$t =~ s/-----[^-]+-----//g;
my $b = decode_base64($t);
my $string = sub {
	my ($buf, $pos) = @_;
	my $n = unpack('N', substr($buf, $$pos, 4));
	my $s = substr($buf, $$pos + 4, $n);
	$$pos += 4 + $n;
	return $s;
};
my $p = length("openssh-key-v1\0");
$string->($b, \$p) for 1 .. 3;  # cipher, kdf, kdf options
$p += 4;                        # number of keys
$string->($b, \$p);             # public key blob
my $priv = $string->($b, \$p);
my $q = 8;                      # two check ints
my $type = $string->($priv, \$q);
# the middle 32 bytes of a value's magnitude (an mpint's 0x00 lead cut)
my $mid = sub { my $s = shift; $s =~ s/^\x00+//; my $o = int((length($s) - 32) / 2); unpack('H*', substr($s, $o, 32)) };
my (@secret, $public);
if ($type eq 'ssh-ed25519') {
	$public = $string->($priv, \$q);
	@secret = (substr($string->($priv, \$q), 0, 32));
} elsif ($type =~ /^ecdsa-sha2-/) {
	$string->($priv, \$q);  # curve
	$public = $string->($priv, \$q);
	@secret = ($string->($priv, \$q));
} elsif ($type eq 'ssh-rsa') {
	$public = $string->($priv, \$q);        # n
	$string->($priv, \$q);                  # e
	my $d = $string->($priv, \$q);
	$string->($priv, \$q);                  # iqmp
	@secret = ($d, $string->($priv, \$q), $string->($priv, \$q));
} else {
	die "$type: not handled";
}
print join(' ', map { $mid->($_) } @secret), "\n", $mid->($public), "\n";
