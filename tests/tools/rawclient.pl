#!/usr/bin/perl
# rawclient.pl - speak raw bytes to an agent socket (integration tests).
#
#   rawclient.pl [-t SECS] [-n N] [-s FLAGFILE] [-i SECS] SOCK ITEM...
#
# ITEM is either
#   HEX        a message payload (type byte first); sent framed, i.e.
#              preceded by its uint32 big-endian length
#   raw:HEX    bytes sent exactly as given (for broken framing)
#   pad:HEX:N  a payload HEX followed by zero bytes up to N bytes in all,
#              sent framed (for big messages)
# All items are concatenated and sent with a single write (a pipelined
# burst). Then N replies are read (default: the number of framed items, or 1
# if there are none) and each is printed as one line:
#   the payload in lower-case hex   a complete reply frame
#   EOF                              the agent closed the connection
#   TIMEOUT                          nothing complete within -t SECS (default 10)
# Reading stops at the first EOF or TIMEOUT.
#   -n 0       send, then close at once without reading
#   -s FILE    create FILE once everything has been sent
#   -i SECS    after sending (and reading), stay connected SECS seconds
#              without sending anything (an idle client)
#   -b         send one byte per write, 10 ms apart (split frames)
# Exit status: 0 unless the socket could not be used (2).
use strict;
use warnings;
use IO::Socket::UNIX;
use IO::Select;

my ($timeout, $nreplies, $flag, $idle, $bytewise) = (10, undef, undef, 0, 0);
while (@ARGV && $ARGV[0] =~ /^-[tnsib]$/) {
	my $o = shift @ARGV;
	if ($o eq '-b') { $bytewise = 1; next }
	my $v = shift @ARGV;
	die "rawclient: $o needs a value\n" unless defined $v;
	if ($o eq '-t') { $timeout = $v }
	elsif ($o eq '-n') { $nreplies = $v }
	elsif ($o eq '-s') { $flag = $v }
	elsif ($o eq '-i') { $idle = $v }
}
my $path = shift @ARGV or die "usage: rawclient.pl [opts] SOCK ITEM...\n";
$SIG{PIPE} = 'IGNORE';
$| = 1;

my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $path)
	or do { print STDERR "rawclient: connect $path: $!\n"; exit 2 };

my ($out, $framed) = ('', 0);
for my $item (@ARGV) {
	if ($item =~ /^raw:([0-9a-fA-F]*)$/) {
		$out .= pack('H*', $1);
	} elsif ($item =~ /^pad:([0-9a-fA-F]+):(\d+)$/ && length($1) % 2 == 0) {
		my $p = pack('H*', $1);
		$p .= "\0" x ($2 - length $p) if $2 > length $p;
		$out .= pack('N', length $p) . $p;
		$framed++;
	} elsif ($item =~ /^[0-9a-fA-F]+$/ && length($item) % 2 == 0) {
		my $p = pack('H*', $item);
		$out .= pack('N', length $p) . $p;
		$framed++;
	} else {
		die "rawclient: bad item '$item'\n";
	}
}
$nreplies = $framed ? $framed : 1 unless defined $nreplies;

my $off = 0;
while ($off < length $out) {
	my $w = syswrite($s, $out, $bytewise ? 1 : length($out) - $off, $off);
	select(undef, undef, undef, 0.01) if $bytewise;
	if (!defined $w) { print "EOF\n"; exit 0 }	# peer closed while we wrote
	$off += $w;
}
if (defined $flag) { open(my $f, '>', $flag) or die "rawclient: $flag: $!\n"; close $f }

my $buf = '';
my $sel = IO::Select->new($s);
# read_bytes(N): wait until $buf holds N bytes; returns 1, 'EOF' or 'TIMEOUT'
sub read_bytes {
	my ($n, $deadline) = @_;
	while (length($buf) < $n) {
		my $left = $deadline - time;
		return 'TIMEOUT' if $left <= 0;
		next unless $sel->can_read($left > 0.5 ? 0.5 : $left);
		my $r = sysread($s, $buf, 65536, length $buf);
		return 'EOF' if !defined $r || $r == 0;
	}
	return 1;
}

for (my $i = 0; $i < $nreplies; $i++) {
	my $deadline = time + $timeout;
	my $st = read_bytes(4, $deadline);
	if ($st ne '1') { print "$st\n"; last }
	my $len = unpack('N', substr($buf, 0, 4));
	if ($len > 262144) { print "BADLEN $len\n"; last }
	$st = read_bytes(4 + $len, $deadline);
	if ($st ne '1') { print "$st\n"; last }
	print unpack('H*', substr($buf, 4, $len)), "\n";
	substr($buf, 0, 4 + $len) = '';
}
sleep $idle if $idle;
close $s;
exit 0;
