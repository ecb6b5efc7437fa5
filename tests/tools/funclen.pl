#!/usr/bin/perl
# funclen.pl [-n MAX] [ROOT | FILE...] - the product functions longer than
# MAX lines (60), for make check-style.
#
# With no FILE: every C file ROOT (the current directory) has outside
# tests/, the ones git tracks when ROOT is a checkout. A function is
# found as doc/style.md writes it: the return type on its own line, the
# name at column 0 followed by its parameter list, the opening brace
# alone at column 0 and the closing one at column 0. Its length is the
# lines between the two braces (blank lines and comments included: they
# are read too). A definition written otherwise is not seen.
#
# Prints "FILE:LINE: NAME: N lines" for each function over MAX, longest
# first, and exits 1 if there is any, 0 if none, 2 on a usage error.
# tests/unit/funclen.t checks the counting on small files of known
# lengths.
use strict;
use warnings;

my $max = 60;
if (@ARGV >= 2 && $ARGV[0] eq '-n') {
	shift;
	$max = shift;
}
if (!defined $max || $max !~ /^\d+$/ || (@ARGV && $ARGV[0] =~ /^-/)) {
	print STDERR "usage: funclen.pl [-n MAX] [ROOT | FILE...]\n";
	exit 2;
}

my @files = @ARGV;
if (@files <= 1 && (!@files || -d $files[0])) {
	my $root = @files ? $files[0] : '.';
	chdir $root or die "funclen.pl: $root: $!\n";
	if (-e '.git') {
		@files = split /\0/, `git ls-files -z -- '*.c'`;
	} else {
		@files = split /\n/,
		    `find . -name '*.c' ! -path './.git/*' ! -path './build*' | sed 's|^\\./||'`;
	}
	@files = sort grep { !m{^tests/} && -f $_ } @files;
}

# The functions of one file: [name, line of the name, body lines].
sub functions {
	my ($file) = @_;
	open my $fh, '<', $file or die "funclen.pl: $file: $!\n";
	my (@found, $name, $at, $open);
	while (my $line = <$fh>) {
		if (defined $open) {
			next unless $line =~ /^\}/;
			push @found, [$name, $at, $. - $open - 1];
			undef $open;
			undef $name;
		} elsif ($line =~ /^([A-Za-z_]\w*)\s*\(/) {
			($name, $at) = ($1, $.);
			undef $name if $line =~ /;\s*$/;    # a prototype or a macro call
		} elsif ($line =~ /^\{/ && defined $name) {
			$open = $.;
		} elsif (defined $name && $line =~ /;\s*$/) {
			undef $name;    # the end of a prototype over several lines
		} elsif ($line =~ /^\S/) {
			undef $name;    # anything else at column 0 between name and brace
		}
	}
	return @found;
}

my @long;
for my $f (@files) {
	for my $fn (functions($f)) {
		push @long, [$f, @$fn] if $fn->[2] > $max;
	}
}
for (sort { $b->[3] <=> $a->[3] || $a->[0] cmp $b->[0] } @long) {
	my ($f, $name, $at, $n) = @$_;
	print "$f:$at: $name: $n lines\n";
}
exit(@long ? 1 : 0);
