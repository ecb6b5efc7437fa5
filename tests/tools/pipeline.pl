#!/usr/bin/perl
# pipeline.pl - one raw client that pipelines requests on one connection
# as fast as the agent takes them (205-audit-flood, 206-audit-kinds).
#
#   pipeline.pl SOCK N sign PUB...   N sign requests, with each PUB in
#                                    turn (over "data", flags 0)
#   pipeline.pl SOCK N list          N REQUEST_IDENTITIES
#
# Prints "ANSWERS EXPECTED PID" once all N are answered: EXPECTED counts
# the answers of the type the mode expects (sign: FAILURE, every key here
# being one the agent refuses; list: IDENTITIES). Dies if the agent
# stalls for 30 s.
use strict;
use warnings;
use IO::Socket::UNIX;
use Socket;
use MIME::Base64;

my ($sock, $n, $mode, @pubs) = @ARGV;
my (@reqs, $want);
if ($mode eq 'list') {
	@reqs = (pack('N', 1) . chr(11));
	$want = 12;
} else {
	for my $p (@pubs) {
		open(my $f, '<', $p) or die "$p: $!";
		my (undef, $b64) = split ' ', <$f>;
		close $f;
		my $blob = decode_base64($b64);
		my $body = chr(13) . pack('N', length $blob) . $blob . pack('N', 4) . 'data' . pack('N', 0);
		push @reqs, pack('N', length $body) . $body;
	}
	$want = 5;
}
my $s = IO::Socket::UNIX->new(Peer => $sock, Type => SOCK_STREAM) or die "connect: $!";
my ($sent, $got, $matched, $buf, $out) = (0, 0, 0, '', '');
my $rin = ''; vec($rin, fileno($s), 1) = 1;
while ($got < $n) {
	while ($sent < $n && length($out) < 65536) { $out .= $reqs[$sent % @reqs]; $sent++; }
	my ($r, $w) = ($rin, length($out) ? $rin : '');
	select($r, $w, undef, 30) or die "stalled after $got replies\n";
	if (length($out) && vec($w, fileno($s), 1)) {
		my $k = syswrite($s, $out); die "write: $!" unless defined $k;
		substr($out, 0, $k) = '';
	}
	if (vec($r, fileno($s), 1)) {
		my $k = sysread($s, $buf, 65536, length $buf); die "read: $!" unless $k;
		while (length($buf) >= 4) {
			my $len = unpack('N', $buf); last if length($buf) < 4 + $len;
			$matched++ if ord(substr($buf, 4, 1)) == $want;
			substr($buf, 0, 4 + $len) = ''; $got++;
		}
	}
}
print "$got $matched $$\n";
