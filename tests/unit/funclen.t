#!/usr/bin/perl
# tests/tools/funclen.pl, the function-length check of make check-style,
# on small C files whose function lengths are known: one row per case,
# the file's text and the lines funclen.pl must print with -n 3 (a body
# of more than 3 lines is long), then the limit's edge at the default 60,
# the exit status, and which files a tree gives it (tests/ is not
# product code).
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Path qw(make_path);
use FindBin;
use Test::More;

my $tool = "$FindBin::Bin/../tools/funclen.pl";
my $dir = tempdir(CLEANUP => 1);

sub put {
	my ($path, $text) = @_;
	make_path($1) if $path =~ m{^(.*)/};
	open my $fh, '>', $path or die "$path: $!";
	print $fh $text;
	close $fh;
}

# funclen.pl ARGS..., its output and exit status.
sub run {
	my $out = `perl $tool @_ 2>&1`;
	return ($out, $? >> 8);
}

sub body { join '', map { "\tx += $_;\n" } 1 .. $_[0] }

my @cases = (
	# name, C text, expected output (FILE stands for the file)
	[ 'short function: not listed',
	  "int\nf(void)\n{\n\treturn 0;\n}\n", '' ],
	[ 'body of exactly 3: not listed',
	  "int\nf(void)\n{\n" . body(3) . "}\n", '' ],
	[ 'body of 4: listed with its name line',
	  "int\nf(void)\n{\n" . body(4) . "}\n", "FILE:2: f: 4 lines\n" ],
	[ 'blank lines and comments count',
	  "int\nf(void)\n{\n\t/* a */\n\n\t/* b */\n\treturn 0;\n}\n",
	  "FILE:2: f: 4 lines\n" ],
	[ 'parameters over several lines; the body from the brace',
	  "static int\nlong_args(int a,\n    int b,\n    int c)\n{\n" . body(5) . "}\n",
	  "FILE:2: long_args: 5 lines\n" ],
	[ 'inner braces are not the end',
	  "void\ng(int x)\n{\n\tif (x) {\n\t\tx++;\n\t}\n\tfor (;;) {\n\t\tbreak;\n\t}\n}\n",
	  "FILE:2: g: 6 lines\n" ],
	[ 'two functions, each its own length, longest first',
	  "void\na(void)\n{\n" . body(4) . "}\n\nvoid\nb(void)\n{\n" . body(6) . "}\n",
	  "FILE:11: b: 6 lines\nFILE:2: a: 4 lines\n" ],
	[ 'a prototype then a table: no function',
	  "int\nproto(int);\nstatic const int t[] =\n{\n\t1,\n\t2,\n\t3,\n\t4,\n};\n", '' ],
	[ 'a macro call at column 0 then a table: no function',
	  "DECLARE(x);\n{\n" . body(5) . "}\n", '' ],
	[ 'the brace on the name line: not this style, not seen',
	  "int f(void) {\n" . body(5) . "}\n", '' ],
	[ 'a body written by a macro: not a function',
	  "#define DEF(fn) \\\nvoid fn(void) \\\n{ \\\n\tx(); \\\n\tx(); \\\n\tx(); \\\n\tx(); \\\n}\n", '' ],
	[ 'main too',
	  "int\nmain(int argc, char **argv)\n{\n" . body(7) . "\treturn 0;\n}\n",
	  "FILE:2: main: 8 lines\n" ],
);

my $i = 0;
for my $c (@cases) {
	my ($name, $text, $want) = @$c;
	my $file = "$dir/case" . $i++ . ".c";
	put($file, $text);
	(my $w = $want) =~ s/FILE/$file/g;
	my ($out, $rc) = run('-n', 3, $file);
	is($out, $w, $name);
	is($rc, $want eq '' ? 0 : 1, "$name: exit status");
}

# The default limit is 60: a body of 60 lines passes, 61 does not.
put("$dir/edge60.c", "void\nf(void)\n{\n" . body(60) . "}\n");
put("$dir/edge61.c", "void\nf(void)\n{\n" . body(61) . "}\n");
my ($out, $rc) = run("$dir/edge60.c");
is("$out/$rc", "/0", 'default limit: a 60-line body passes');
($out, $rc) = run("$dir/edge61.c");
is("$out/$rc", "$dir/edge61.c:2: f: 61 lines\n/1", 'default limit: a 61-line body is named');

# A tree (no git): the product's C files, never those under tests/.
my $tree = "$dir/tree";
put("$tree/src/long.c", "void\nf(void)\n{\n" . body(61) . "}\n");
put("$tree/tests/unit/long.c", "void\nf(void)\n{\n" . body(99) . "}\n");
put("$tree/build/obj/x.c", "void\nf(void)\n{\n" . body(99) . "}\n");
($out, $rc) = run($tree);
is("$out/$rc", "src/long.c:2: f: 61 lines\n/1", 'a tree: tests/ and build trees are not product code');

($out, $rc) = run('-n', 'x', $tree);
is($rc, 2, 'a bad limit is a usage error');

done_testing;
