#!/bin/bash
# Every rule of a seccomp filter has a reason in a comment beside it, and a
# reason names the code that needs the rule. Code moves (monitor/main.c's
# loop went to loop.c and clients.c) and the reasons kept naming functions
# that no longer existed; this test holds them to the code. Needs only the
# sources, not the agent.
#
# The convention (seccomp/sandbox.h), in the comments of seccomp/*.c:
#  - a function of keyward is named with empty parentheses, name(), and
#    may be preceded by its file as a path from the top of the tree,
#    monitor/loop.c:monitor_loop(). Syscalls and library functions are
#    named bare, without parentheses (read, getpid, pthread_cond_wait).
#  - a file is named by its path, folder/file.c.
# Checked: a function named with its file is defined in that file; one
# named alone is defined in some product source (a .c outside tests/); a
# file named by its path exists; a word that is the name of a function
# defined in the product, with an underscore in it, is written name(); and
# so is a word after a file's name that has an underscore or is a
# function, as in the old form "main.c accept_client" (gone or not). A
# definition is a line starting "name(" (doc/style.md: the return type on the
# line before).
. "$(dirname "$0")/lib.sh"

SECCOMP=$REPO/seccomp
ls "$SECCOMP"/*.c >/dev/null 2>&1 || bail "no $SECCOMP/*.c"

# The product's function definitions: "path name", one a line.
(cd "$REPO" && find . \( -path ./tests -o -path ./.git -o -path './build*' \
	-o -path ./debian \) -prune -o -name '*.c' -print | sed 's|^\./||' | sort |
	while IFS= read -r f; do
		sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$f" | sed "s|^|$f |"
	done) >"$T/defs"
ndefs=$(wc -l <"$T/defs")
[ "$ndefs" -gt 100 ] || bail "found only $ndefs function definitions under $REPO"

# The checks, one a line: STATUS<TAB>WHAT (STATUS 0: holds).
REPO=$REPO perl -e '
	my ($defs, @files) = @ARGV;
	my (%in, %any);
	open(my $d, "<", $defs) or die "$defs: $!";
	while (<$d>) { chomp; my ($f, $n) = split / /; $in{"$f:$n"} = 1; $any{$n} = 1 }
	my $cited = 0;
	for my $path (@files) {
		(my $rel = $path) =~ s{.*/(seccomp/[^/]+)$}{$1};
		open(my $fh, "<", $path) or die "$path: $!";
		local $/; my $src = <$fh>;
		my %seen;
		my $mine = 0;
		while ($src =~ m{/\*(.*?)\*/}gs) {
			my $c = $1;
			while ($c =~ m{(?:\b([a-z][\w/.-]*\.c):)?\b([A-Za-z_]\w*)\(\)}g) {
				my ($f, $n) = ($1, $2);
				my $k = (defined $f ? "$f:" : "") . "$n()";
				next if $seen{$k}++;
				$cited++; $mine++;
				if (defined $f) {
					printf "%d\t%s: %s is defined in %s\n",
					    $in{"$f:$n"} ? 0 : 1, $rel, "$n()", $f;
				} else {
					printf "%d\t%s: %s is a function of the product\n",
					    $any{$n} ? 0 : 1, $rel, "$n()";
				}
			}
			while ($c =~ m{\b([a-z]+/[\w/.-]*\.c)\b}g) {
				next if $seen{"file $1"}++;
				printf "%d\t%s: %s exists\n", -f "$ENV{REPO}/$1" ? 0 : 1,
				    $rel, $1;
			}
			while ($c =~ m{\b([A-Za-z]\w*_\w+)\b(?!\(\))}g) {
				next unless $any{$1};
				next if $seen{"bare $1"}++;
				printf "1\t%s: %s is named as %s() (a function of the product)\n",
				    $rel, $1, $1;
			}
			while ($c =~ m{\b(\w+\.c),?\s+([A-Za-z_]\w*)\b(?![(.])}g) {
				my ($f, $w) = ($1, $2);
				next unless $w =~ /_/ || $any{$w};
				printf "1\t%s: \"%s %s\" is written %s:%s()\n",
				    $rel, $f, $w, $f, $w;
			}
		}
		# An allowlist (it calls sandbox_allow) gives its reasons by
		# function: at least one named.
		printf "%d\t%s: its reasons name at least one function\n",
		    $mine > 0 ? 0 : 1, $rel if $src =~ /sandbox_allow(?:_fd)?\(ctx/;
	}
	printf "%d\tthe reasons name %d functions in all (at least 20)\n",
	    $cited >= 20 ? 0 : 1, $cited;
' "$T/defs" "$SECCOMP"/*.c >"$T/checks" ||
	bail "the checks could not be run"

[ -s "$T/checks" ] || bail "no checks"
while IFS=$'\t' read -r st what; do
	ok "$st" "$what"
done <"$T/checks"

done_testing
