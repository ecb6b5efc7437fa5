#!/bin/bash
# check: plain only (a check of doc/threat-model.md against seccomp/*.c, the sources only)
# doc/threat-model.md names, process by process, the syscalls each filter
# allows (the prompter: denies); this test reads the same lists out of
# seccomp/*.c and fails with a diff when the two differ, so the page cannot
# drift from the filters again. Needs only the sources, not the agent.
#
# What it reads: in seccomp/sandbox.c, sandbox_allow_common() and
# sandbox_deny_reach() (for the files that call them); in every
# other seccomp/*.c (but landlock.c), each SCMP_SYS(name) and each
# sandbox_allow_futex(); in both, rules under #ifdef KEYWARD_SANITIZE are
# left out (never in a release build).
# In the page: the paragraph that starts "Common to all filters" and, in
# each "## NAME" section, the one that starts "May do", take every
# `name` in backquotes; "the common ones" adds the common list; "(N calls"
# must be the size of the list.
. "$(dirname "$0")/lib.sh"

DOC=$REPO/doc/threat-model.md
SECCOMP=$REPO/seccomp

[ -f "$DOC" ] || bail "no $DOC"

# src_list FILE [FUNCTION]: the syscalls FILE's rules name, one a line,
# sorted; only inside FUNCTION's body when given.
src_list() {
	perl -ne '
		BEGIN { $fn = shift @ARGV; $in = $fn eq "" ? 1 : 0 }
		if ($fn ne "") {
			$in = 1 if /^\Q$fn\E\(/;
			$in = 0 if $in && /^}/;
		}
		$san = 1 if /^#\s*ifdef\s+KEYWARD_SANITIZE/;
		$san = 0 if $san && /^#\s*endif/;
		next if !$in || $san;
		print "$1\n" while /SCMP_SYS\((\w+)\)/g;
		print "futex\n" if /sandbox_allow_futex\(ctx/;
	' "${2:-}" "$1" | sort -u
}

# doc_para START [SECTION]: the paragraph of the page that starts with
# START, inside "## SECTION" when given, on one line.
doc_para() {
	perl -ne '
		BEGIN { ($start, $sec) = (shift @ARGV, shift @ARGV); $insec = $sec eq "" }
		if (/^## (\S+)/) { $insec = $sec eq "" || $1 eq $sec; $on = 0 }
		if ($insec && /^\Q$start\E/) { $on = 1 }
		elsif (/^\s*$/) { $on = 0 }
		if ($on) { chomp; print "$_ " }
	' "$1" "${2:-}" "$DOC"
}

# shellcheck disable=SC2016 # the backquotes are Markdown's, not the shell's
doc_names() { grep -o '`[a-z_0-9]*`' | tr -d '`' | sort -u; }
doc_count() { sed -n 's/.*(\([0-9][0-9]*\) calls.*/\1/p' | head -n 1; }

# compare WHAT DOC_LIST SRC_LIST COUNT_IN_DOC
compare() {
	local what=$1 doc=$2 src=$3 count=$4 n
	n=$(printf '%s' "$src" | grep -c .)
	LAST_CMD="" RUN_SHOWN=0
	if [ "$doc" != "$src" ]; then
		diag "$what: - listed in doc/threat-model.md, + in seccomp/:"
		diff -u <(grep . <<<"$doc") <(grep . <<<"$src") | tail -n +3 |
			grep '^[-+]' | sed 's/^/    /' | while IFS= read -r l; do diag "$l"; done
	fi
	[ "$doc" = "$src" ]
	ok $? "$what: the page lists exactly the syscalls of its filter"
	is "$count" "$n" "$what: the page counts $n calls"
}

# ----------------------------------------------------------- common list
common_src=$(src_list "$SECCOMP/sandbox.c" sandbox_allow_common)
para=$(doc_para "Common to all filters")
[ -n "$para" ] || bail "doc/threat-model.md: no paragraph starting 'Common to all filters'"
compare "common rules (sandbox_allow_common)" "$(doc_names <<<"$para")" \
	"$common_src" "$(doc_count <<<"$para")"

# The deny list of the filters that allow by default (prompter, broker).
deny_src=$(src_list "$SECCOMP/sandbox.c" sandbox_deny_reach)
[ -n "$deny_src" ] || bail "seccomp/sandbox.c: no sandbox_deny_reach list"

# ----------------------------------------------------------- each process
# every filter file is compared, the token helper's (sk.c) among them
[ -f "$SECCOMP/sk.c" ]
ok $? "the token helper's filter, seccomp/sk.c, is one of those compared"
for f in "$SECCOMP"/*.c; do
	proc=$(basename "$f" .c)
	case $proc in sandbox|landlock|trap) continue ;; esac
	src=$(src_list "$f")
	grep -q 'sandbox_allow_common' "$f" &&
		src=$(printf '%s\n%s\n' "$src" "$common_src" | sort -u | grep .)
	grep -q 'sandbox_deny_reach' "$f" &&
		src=$(printf '%s\n%s\n' "$src" "$deny_src" | sort -u | grep .)
	para=$(doc_para "May do" "$proc")
	if [ -z "$para" ]; then
		ok 1 "$proc: doc/threat-model.md has a '## $proc' section with a 'May do' paragraph"
		continue
	fi
	doc=$(doc_names <<<"$para")
	grep -q 'the common ones' <<<"$para" &&
		doc=$(printf '%s\n%s\n' "$doc" "$common_src" | sort -u | grep .)
	compare "$proc (seccomp/$proc.c)" "$doc" "$src" "$(doc_count <<<"$para")"
done

done_testing
