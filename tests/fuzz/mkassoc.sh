#!/bin/bash
# tests/fuzz/mkassoc.sh - seeds for the associated-certs constraint
# (doc/protocol.md §6.7), made with ssh-keygen: certsblobs for fuzz_assoc,
# PKCS#11 adds carrying one for fuzz_proto (type 26, as OpenSSH 9.6+'s
# ssh-add -s PROVIDER CERT... sends it) and the MSG_P11_ADD datagrams the
# monitor forwards for fuzz_msg (wire/monitor.c). Run from the repository:
#   bash tests/fuzz/mkassoc.sh [OUTDIR]      (default tests/fuzz/corpus)
# The keys are new on every run; commit a run only when the seeds should
# change.
set -eu
OUT=$(realpath -m "${1:-tests/fuzz/corpus}")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$OUT/fuzz_assoc" "$OUT/fuzz_proto" "$OUT/fuzz_msg"
ssh-keygen -q -N '' -t ed25519 -f "$T/ca"
for t in ed25519 ecdsa rsa; do
	ssh-keygen -q -N '' -t "$t" -f "$T/$t"
	ssh-keygen -q -s "$T/ca" -I "$t" -n perseus "$T/$t.pub"
done
perl - "$T" "$OUT" <<'PERL'
use strict; use warnings; use MIME::Base64;
my ($t, $out) = @ARGV;
sub blob { open(my $f, '<', $_[0]) or die; my @w = split ' ', <$f>; decode_base64($w[1]) }
sub str { pack('N', length $_[0]) . $_[0] }
sub put { my ($h, $n, $d) = @_; open(my $f, '>', "$out/$h/$n") or die; binmode $f; print $f $d; close $f }
my %c = map { $_ => blob("$t/$_-cert.pub") } qw(ed25519 ecdsa rsa);
my %k = map { $_ => blob("$t/$_.pub") } qw(ed25519 ecdsa rsa);
my $mod = '/usr/lib/softhsm/libsofthsm2.so';
my %lists = (
	'one-cert' => str($c{ed25519}),
	'three-certs' => join('', map { str($c{$_}) } qw(ed25519 ecdsa rsa)),
	'plain-and-cert' => str($k{ecdsa}) . str($c{ecdsa}),
	'empty' => '',
);
for my $n (sort keys %lists) {
	put('fuzz_assoc', $n, $lists{$n});
	for my $only (0, 1) {
		my $ext = "\xff" . str('associated-certs-v00@openssh.com') . chr($only) . str($lists{$n});
		put('fuzz_proto', "p11-add-certs-$n-$only", "\x1a" . str($mod) . str('4711') . $ext);
		# MSG_P11_ADD (wire/monitor.h), request 1, connection 7:
		# provider, pin, then the constraints as one shape
		put('fuzz_msg', "p11-add-certs-$n-$only", pack('CNN', 14, 1, 7) . str($mod) .
			str('4711') . "\0" . pack('N', 0) . "\0" . "\0" . str('') . "\0" . str('') .
			"\1" . chr($only) . str($lists{$n}));
	}
}
# with a lifetime first, as ssh-add -t 60 -s sends it
put('fuzz_proto', 'p11-add-certs-lifetime', "\x1a" . str($mod) . str('4711') .
	"\x01" . pack('N', 60) . "\xff" . str('associated-certs-v00@openssh.com') . "\0" .
	str($lists{'three-certs'}));
PERL
