#!/usr/bin/perl
# memscan.pl PID HEX... - look for byte strings in the writable memory of a
# process (as root: /proc/PID/maps and /proc/PID/mem). Prints, for each
# HEX, "HEX found" or "HEX absent". Used by 94-memscan.t.
use strict;
use warnings;
no warnings "portable";

my ($pid, @hex) = @ARGV;
my @needles = map { pack('H*', $_) } @hex;
my %found;
open(my $maps, '<', "/proc/$pid/maps") or die "maps: $!";
open(my $mem, '<:raw', "/proc/$pid/mem") or die "mem: $!";
my $overlap = 64;
while (my $line = <$maps>) {
	my ($lo, $hi, $perm, $name) = $line =~ /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/;
	next unless defined $perm && $perm =~ /^rw/;
	next if $name =~ /^\[(vvar|vsyscall|vdso)/;
	my ($a, $b) = (hex($lo), hex($hi));
	my $prev = '';
	for (my $off = $a; $off < $b; $off += 1 << 20) {
		my $len = $b - $off < (1 << 20) ? $b - $off : 1 << 20;
		my $buf;
		next unless sysseek($mem, $off, 0);
		my $got = sysread($mem, $buf, $len);
		next unless defined $got && $got > 0;
		my $hay = $prev . $buf;
		for my $i (0 .. $#needles) {
			$found{$i} = 1 if index($hay, $needles[$i]) >= 0;
		}
		$prev = substr($buf, -$overlap);
	}
}
for my $i (0 .. $#needles) {
	printf "%s %s\n", $hex[$i], $found{$i} ? 'found' : 'absent';
}
