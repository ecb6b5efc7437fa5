#!/usr/bin/perl
# tests/tools/check-cost.pl - what each integration file costs in CPU.
#
#   check-cost.pl [-j N] [-o TABLE] FILE.t...
#
# Runs each file as check-integration does (its environment comes from
# the caller: KEYWARD_BUILD, AGENT, HOSTILE_REFERENCE, ...), the files
# with a "# check: serial" line in their head after the others, alone,
# the rest N at a time (default 1). Each file runs under its own
# wrapper process, a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so
# that a daemonised agent, its helpers and the sshd sessions a test
# leaves to init are reaped by the wrapper and their CPU time counted:
# /usr/bin/time on the file alone would miss every process that was
# not waited for by its own parent. CPU seconds (user + system) are
# the measure, not wall time: other work on the machine changes the
# wall time of a file, hardly its CPU time.
#
# Prints one line per file, most expensive first: CPU seconds (user,
# system), wall seconds, the number of test points ("ok" and "not ok"
# lines) and the file's exit status; then the totals. -o also writes the
# table (tab-separated: file cpu user sys wall tests rc) to TABLE, to
# compare two runs with check-cost.pl -c BEFORE AFTER.
use strict;
use warnings;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time);

# PR_SET_CHILD_SUBREAPER through prctl(2): the syscall number by machine
my %SYS_PRCTL = (x86_64 => 157, aarch64 => 167, i686 => 172, i386 => 172);
use constant PR_SET_CHILD_SUBREAPER => 36;

# A file that leaves something running after it exits has this long to
# have it end before the wrapper stops waiting for it (and kills it).
use constant LINGER_SECONDS => 20;

sub one {
	my ($file, $log) = @_;
	my $m = (POSIX::uname())[4];
	my $nr = $SYS_PRCTL{$m} or die "check-cost: no prctl number for $m\n";
	syscall($nr, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
	    or die "check-cost: prctl: $!\n";
	my $t0 = time;
	my $pid = fork // die "fork: $!";
	if ($pid == 0) {
		open(STDIN, '<', '/dev/null');
		open(STDOUT, '>', $log) or die "$log: $!";
		open(STDERR, '>&', \*STDOUT);
		setpgrp(0, 0);
		exec('bash', $file) or die "exec $file: $!";
	}
	waitpid($pid, 0);
	my $rc = $? >> 8 || $? & 127;
	my $wall = time - $t0;
	# then everything the file left to us, bounded
	my $until = time + LINGER_SECONDS;
	while ((my $k = waitpid(-1, WNOHANG)) != -1) {
		if ($k == 0) {
			if (time > $until) {
				kill 'KILL', -$pid;
				# what is left of our subtree outside that group
				for (qx{ps -o pid= --ppid $$}) {
					kill 'KILL', $1 if /(\d+)/;
				}
				$until = time + 5;
			}
			select(undef, undef, undef, 0.1);
		}
	}
	my (undef, undef, $cu, $cs) = times;
	my $n = 0;
	if (open(my $fh, '<', $log)) {
		while (<$fh>) { $n++ if /^(?:not )?ok \d+/ }
	}
	printf "%s\t%.2f\t%.2f\t%.2f\t%.1f\t%d\t%d\n",
	    $file, $cu + $cs, $cu, $cs, $wall, $n, $rc;
}

sub serial {
	my ($file) = @_;
	open(my $fh, '<', $file) or return 0;
	my $i = 0;
	while (my $l = <$fh>) {
		return 1 if $l =~ /^# check: serial/;
		last if ++$i > 60;
	}
	return 0;
}

sub readtable {
	my ($f) = @_;
	my %t;
	open(my $fh, '<', $f) or die "$f: $!\n";
	while (<$fh>) {
		chomp;
		my @c = split /\t/;
		next unless @c == 7;
		$t{$c[0]} //= \@c;	# a file measured twice: its first run
	}
	return \%t;
}

my $jobs = 1;
my ($table, @cmp);
while (@ARGV && $ARGV[0] =~ /^-/) {
	my $o = shift;
	if ($o eq '-j') { $jobs = shift }
	elsif ($o eq '-o') { $table = shift }
	elsif ($o eq '-c') { @cmp = splice(@ARGV, 0, 2) }
	elsif ($o eq '--one') { one(@ARGV); exit 0 }
	else { die "usage: check-cost.pl [-j N] [-o TABLE] FILE.t...\n" .
	    "       check-cost.pl -c BEFORE-TABLE AFTER-TABLE\n" }
}

if (@cmp) {
	my ($bt, $at) = map { readtable($_) } @cmp;
	my %all = map { $_ => 1 } keys %$bt, keys %$at;
	my $c = sub { my ($t, $f) = @_; $t->{$f} ? $t->{$f}[1] : 0 };
	my $n = sub { my ($t, $f) = @_; $t->{$f} ? $t->{$f}[5] : 0 };
	my ($sb, $sa, $nb, $na) = (0, 0, 0, 0);
	printf "%-44s %9s %9s %9s %6s %6s\n",
	    'file', 'cpu before', 'after', 'change', 'tests', 'after';
	my @only;
	for my $f (sort { $c->($bt, $b) <=> $c->($bt, $a) } keys %all) {
		# the totals are over the files measured in both
		if (!$bt->{$f} || !$at->{$f}) { push @only, $f; next }
		my ($x, $y) = ($c->($bt, $f), $c->($at, $f));
		$sb += $x; $sa += $y;
		$nb += $n->($bt, $f); $na += $n->($at, $f);
		printf "%-44s %9.1f %9.1f %+9.1f %6d %6d\n", $f, $x, $y, $y - $x,
		    $n->($bt, $f), $n->($at, $f);
	}
	printf "%-44s %9.1f %9.1f %+9.1f %6d %6d\n", 'total', $sb, $sa,
	    $sa - $sb, $nb, $na;
	print "measured in one table only: @only\n" if @only;
	exit 0;
}

@ARGV or die "usage: check-cost.pl [-j N] [-o TABLE] FILE.t...\n";
my $logdir = ($ENV{TMPDIR} || '/tmp') . "/check-cost.$$";
mkdir $logdir or die "$logdir: $!\n";
my @par = grep { !serial($_) } @ARGV;
my @ser = grep { serial($_) } @ARGV;
my (@rows, %running);
my $self = $0;

my $reap = sub {
	my $k = waitpid(-1, 0);
	return if $k <= 0 || !$running{$k};
	my $out = delete $running{$k};
	open(my $fh, '<', $out) or return;
	while (<$fh>) {
		chomp;
		my @c = split /\t/;
		push @rows, \@c if @c == 7;
		printf STDERR "  %-44s %7.1f cpu-s %6.1f s %4d tests%s\n",
		    $c[0], $c[1], $c[4], $c[5], $c[6] ? "  rc $c[6]" : ''
		    if @c == 7;
	}
};
my $start = sub {
	my ($f) = @_;
	(my $b = $f) =~ s{.*/}{};
	my $out = "$logdir/$b.cost";
	my $pid = fork // die "fork: $!";
	if ($pid == 0) {
		open(STDOUT, '>', $out) or die;
		exec($^X, $self, '--one', $f, "$logdir/$b.log") or die;
	}
	$running{$pid} = $out;
};
for my $f (@par) {
	$reap->() while keys %running >= $jobs;
	$start->($f);
}
$reap->() while %running;
for my $f (@ser) {
	$start->($f);
	$reap->() while %running;
}

my ($cpu, $u, $s, $n, $bad) = (0, 0, 0, 0, 0);
if ($table) {
	open(my $fh, '>', $table) or die "$table: $!\n";
	print $fh join("\t", @$_), "\n" for @rows;
}
printf "%-44s %8s %8s %8s %7s %6s %3s\n",
    'file', 'cpu-s', 'user', 'sys', 'wall', 'tests', 'rc';
for my $r (sort { $b->[1] <=> $a->[1] } @rows) {
	printf "%-44s %8.1f %8.1f %8.1f %7.1f %6d %3d\n", @$r;
	$cpu += $r->[1]; $u += $r->[2]; $s += $r->[3]; $n += $r->[5];
	$bad++ if $r->[6];
}
printf "%-44s %8.1f %8.1f %8.1f %7s %6d %3d\n",
    sprintf('total (%d files, %d failed)', scalar @rows, $bad),
    $cpu, $u, $s, '', $n, $bad;
print "logs: $logdir\n";
