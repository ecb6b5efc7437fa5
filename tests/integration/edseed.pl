#!/usr/bin/perl
# edseed.pl KEYFILE - print the seed and the public key (hex, one per line)
# of an unencrypted OpenSSH Ed25519 private key file, for 94-memscan.t.
use strict;
use warnings;
use MIME::Base64;

local $/;
open(my $f, '<', $ARGV[0]) or die "$ARGV[0]: $!";
my $t = <$f>;
$t =~ s/-----[^-]+-----//g;
my $b = decode_base64($t);
my $p = 0;
my $take = sub { my $n = unpack('N', substr($b, $p, 4)); my $s = substr($b, $p + 4, $n); $p += 4 + $n; $s };
$p = length("openssh-key-v1\0");
$take->() for 1 .. 3;           # cipher, kdf, kdf options
$p += 4;                        # number of keys
$take->();                      # public key blob
my $priv = $take->();
my $q = 8;                      # two check ints
my $take2 = sub { my $n = unpack('N', substr($priv, $q, 4)); my $s = substr($priv, $q + 4, $n); $q += 4 + $n; $s };
$take2->();                     # "ssh-ed25519"
my $a = $take2->();
my $k = $take2->();
print unpack('H*', substr($k, 0, 32)), "\n", unpack('H*', $a), "\n";
