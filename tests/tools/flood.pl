#!/usr/bin/perl
# flood.pl - connect-and-vanish clients against an agent socket (151).
#
#   flood.pl SOCK procs N     N processes, forked at once, each connects,
#                             half of them send REQUEST_IDENTITIES, and
#                             exits without reading
#   flood.pl SOCK conns N     one process: N connect/close, every other one
#                             with a request sent first
# Prints "done N SECS" when all are gone.
use strict;
use warnings;
use IO::Socket::UNIX;
use Socket;
use POSIX ();
use Time::HiRes qw(time);

my ($sock, $mode, $n) = @ARGV;
my $req = pack('N', 1) . chr(11);
my $t0 = time;

sub one {
	my ($send) = @_;
	my $s = IO::Socket::UNIX->new(Peer => $sock, Type => SOCK_STREAM) or return 0;
	syswrite($s, $req) if $send;
	close($s);
	return 1;
}

my $ok = 0;
if ($mode eq 'procs') {
	my @kids;
	for my $i (1 .. $n) {
		my $p = fork;
		die "fork: $!" unless defined $p;
		if ($p == 0) {
			POSIX::_exit(one($i % 2) ? 0 : 1);
		}
		push @kids, $p;
	}
	for (@kids) {
		waitpid($_, 0);
		$ok++ if $? == 0;
	}
} else {
	for my $i (1 .. $n) {
		$ok += one($i % 2);
	}
}
printf "done %d %.2f\n", $ok, time - $t0;
