#!/usr/bin/perl
# citations.pl ROOT [FILE...] - every citation in the tree leads to a file
# of the tree (tests/integration/99-citations.t runs it).
#
# With no FILE: the files git tracks under ROOT (every file under it when
# ROOT is not a git checkout), text only. Prints one line per fault,
# "FILE:LINE: KIND: TEXT", and exits 1 if there is any. KIND is one of
#   heading   doc/<name>.md and a section sign with number N, where doc/<name>.md
#             has no heading numbered N
#   no-file   a path doc/<name> names no file of the tree
#   bare      a section sign that names no document (neither doc/<name>.md,
#             an RFC, PKCS#11 N, PROTOCOL.x nor draft-x before it, nor a
#             list that began with one); doc/protocol.md's own are its
#             own sections
#   outside   a document outside the tree: the shared folder beside the
#             repository, the old design and style notes in capitals,
#             the protocol reference called "spec", a tracker's issue
#             number
#   no-test   a test named by its file, NN-name.t, that no tests/*/ holds;
#             or without ".t", NN-two-words at least, where NN is the
#             number of a test (so "64-bit" or "48-byte" are not names):
#             a renamed test leaves no citation of its old name
# Neither this file's comments nor its patterns match what they look for.
use strict;
use warnings;

my ($root, @files) = @ARGV;
die "usage: citations.pl ROOT [FILE...]\n" unless defined $root && -d $root;
chdir $root or die "citations.pl: $root: $!\n";

my $sect = "\xc2\xa7";          # the section sign, UTF-8 (files read as bytes)
if (!@files) {
	if (-e ".git") {
		@files = split /\0/, `git ls-files -z`;
	} else {
		@files = split /\n/, `find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\\./||'`;
	}
}
# Not prose: fuzz inputs are bytes, whatever they look like.
@files = grep { !m{^tests/fuzz/(corpus|regress|grown)/} && -f $_ && -T $_ } @files;

# The numbered headings of each doc/*.md: "## 8. Title" gives 8,
# "### 8.4 Title" gives 8.4.
my %heads;
sub heads_of {
	my ($doc) = @_;
	return $heads{$doc} if $heads{$doc};
	my %h;
	if (open my $fh, '<', $doc) {
		while (<$fh>) {
			$h{$1} = 1 if /^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s/;
		}
	}
	return $heads{$doc} = \%h;
}

my $docref = qr{doc/[\w.-]+\.md};
my $lead = qr{[\s*#/]*};         # blanks and comment leaders
my $external = qr{(?:$docref|RFC\s*\d+|PKCS#11\s+[\d.]+|PROTOCOL\.[\w.]+|draft-[\w-]+)$lead$};
my $num = qr{\d+(?:\.\d+)*};
my $joiner = qr{(?:[,;/-]|\xe2\x80\x93|\band\b|\bor\b|\bto\b)};
my $listed = qr{$sect\s?$num\s*$joiner[\s*#/]*$};
my @outside = (
	[ qr{\.\./shared},                     "a path outside the repository" ],
	[ qr{\bDESIGN[.]md\b},                  "a design document not in the tree (doc/design.md)" ],
	[ qr{\bSTYLE(?:[.]md\b|\s*$sect)},      "a style document not in the tree (doc/style.md)" ],
	[ qr{\bspec(?:\x27s)?\s*$sect},         "the protocol reference not in the tree (doc/protocol.md)" ],
	[ qr{\b[Ii]ssues?\s*#?\d+},             "a tracker a reader of the tree cannot see" ],
);

# The tests, by name and by number (tests/README.md, Numbering).
my (%test, %testnum);
for (glob 'tests/*/*.t') {
	my ($name) = m{([^/]+)\.t$} or next;
	$test{$name} = 1;
	$testnum{$1} = 1 if $name =~ /^(\d+)-/;
}
my $tname = qr{\d{2,3}-[a-z][a-z0-9]*(?:-[a-z0-9]+)*};

my $faults = 0;
sub fault {
	my ($file, $text, $pos, $kind, $what) = @_;
	my $line = 1 + (substr($text, 0, $pos) =~ tr/\n//);
	print "$file:$line: $kind: $what\n";
	$faults++;
}

for my $f (@files) {
	open my $fh, '<', $f or next;
	my $t = do { local $/; <$fh> };
	close $fh;
	my $self = $f eq 'doc/protocol.md';

	for my $o (@outside) {
		while ($t =~ /$o->[0]/g) {
			fault($f, $t, $-[0], 'outside', "\"$&\": $o->[1]");
		}
	}
	while ($t =~ m{(?<![\w/.-])(doc/[\w.-]*\w)}g) {
		my ($p, $at) = ($1, $-[0]);
		next if -e $p || -e "$p.in";
		fault($f, $t, $at, 'no-file', "$p");
	}
	while ($t =~ m{(?<![\w/.-])($tname)(\.t\b|(?![\w.-]))}g) {
		my ($n, $dot, $at) = ($1, $2, $-[0]);
		next if $test{$n};
		next if $dot eq '' && !($n =~ /^(\d+)-[^-]+-/ && $testnum{$1});
		fault($f, $t, $at, 'no-test', "$n$dot");
	}
	# Each section sign: which document it names, and is N a heading there?
	my $doc;
	while ($t =~ m{$sect\s?($num)}g) {
		my ($n, $at) = ($1, $-[0]);
		my $from = $at > 80 ? $at - 80 : 0;
		my $before = substr($t, $from, $at - $from);
		if ($before =~ m{($docref)$lead$}) {
			$doc = $1;
		} elsif ($before =~ $external) {
			$doc = undef;           # an RFC, PKCS#11, PROTOCOL.agent...
			next;
		} elsif ($before =~ $listed) {
			next unless defined $doc;       # the list goes on
		} elsif ($self) {
			$doc = 'doc/protocol.md';
		} else {
			fault($f, $t, $at, 'bare', "\"$sect$n\" names no document " .
			    "(doc/protocol.md $sect$n?)");
			$doc = undef;
			next;
		}
		next unless -f $doc;    # no-file says so
		fault($f, $t, $at, 'heading', "$doc has no section $n")
		    unless heads_of($doc)->{$n};
	}
}
exit($faults ? 1 : 0);
