#!/bin/bash
# Every program is one folder, every library a folder, and no program's
# folder is linked into another program. A program folder is
# one with a C file defining main, at any depth (monitor/, policy/, ctl/,
# token/sk/, token/pkcs11/...); the others (ipc/, keys/, wire/, rules/,
# crypto/, seccomp/, token/common/) are libraries. A source belongs to the
# program folder its path is beneath.
#
# Read from the programs as built ($KEYWARD_BUILD, with -g): the DWARF
# compile units name every source file linked in, so each program must
# name exactly one program folder, its own. Then with nm: the rules
# language keyward, keyward-ctl and keyward-policy use is rules/'s, and
# the pattern matcher one. keyward only: skipped for another agent.
. "$(dirname "$0")/lib.sh"

PROGS="keyward keyward-policy keyward-keyholder keyward-ctl keyward-sk keyward-pkcs11 keyward-peer
	keyward-broker keyward-prompter keyward-auditor keyward-session"
NTESTS=$((2 * 11 + 6))
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
if ! command -v nm >/dev/null || ! command -v readelf >/dev/null; then
	skip_n $NTESTS "no nm or readelf (binutils)"
	done_testing
fi

# The program folders: the folder of each C file defining main, outside
# tests/ (and the build trees).
PFOLDERS=$(cd "$REPO" && find . \( -path ./tests -o -path ./.git -o -path './build*' \) \
	-prune -o -name '*.c' -exec grep -l '^main(' -- {} + | sed 's|^\./||; s|/[^/]*$||' |
	sort -u | tr '\n' ' ')
diag "program folders: $PFOLDERS"
like "$PFOLDERS" '(^| )token/sk ' "token/sk/ is a program folder (keyward-sk)"
like "$PFOLDERS" '(^| )token/pkcs11 ' "token/pkcs11/ is a program folder (keyward-pkcs11)"

# units PROG: the sources linked into PROG, from the top of the tree.
units() {
	readelf --debug-dump=info --dwarf-depth=1 "$KEYWARD_BUILD/$1" 2>/dev/null |
		grep -A8 'DW_TAG_compile_unit' | grep 'DW_AT_name' |
		sed 's/.*: //' | grep -v '^/' | grep / | sort -u
}
# beneath FILE: the program folders the sources listed in FILE are
# beneath, on one line (a source beneath none is a library's).
beneath() {
	local d
	for d in $PFOLDERS; do
		grep -q "^$d/" "$1" && printf '%s\n' "$d"
	done | tr '\n' ' ' | sed 's/ $//'
}

for p in $PROGS; do
	units "$p" >"$T/units.$p"
	if [ ! -s "$T/units.$p" ]; then
		skip_n 2 "$p: no debug information (stripped?)"
		continue
	fi
	diag "$p links sources of: $(sed 's|/[^/]*$||' "$T/units.$p" | sort -u | tr '\n' ' ')"
	mine=$(beneath "$T/units.$p")
	like "$mine" '^[a-z0-9/]+$' "$p links one program folder (${mine:-none})"
	case $p in
	keyward) own=monitor ;;
	keyward-sk) own=token/sk ;;
	keyward-pkcs11) own=token/pkcs11 ;;
	*) own=${p#keyward-} ;;
	esac
	is "$mine" "$own" "$p: that folder is its own, $own/"
done

# What keyward, keyward-ctl and keyward-policy need of the rules language
# is rules/'s, one copy: nm finds it there and no second matcher.
# (90-keyward-procs.t checks with nm that keyward and keyward-ctl define
# no symbol of a policy/ object.)
defines() { nm --defined-only "$KEYWARD_BUILD/$1" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }
for p in keyward keyward-ctl keyward-policy; do
	defines "$p" >"$T/$p.syms"
done
grep -qx rules_parse "$T/keyward.syms" && ! grep -qx rules_read_file "$T/keyward-policy.syms"
ok $? "keyward has rules_parse; keyward-policy reads no rules file"
grep -qx rules_read_file "$T/keyward-ctl.syms" && grep -qx rules_read_file "$T/keyward.syms"
ok $? "keyward and keyward-ctl read a rules file with rules_read_file (rules/file.c)"
grep -qx match_list "$T/keyward-policy.syms" && grep -qx wmatch_n "$T/keyward-policy.syms" &&
	! grep -qx pattern_list_match "$T/keyward-policy.syms"
ok $? "keyward-policy matches with rules/match.c (match_list, wmatch_n), no matcher of its own"
is "$(grep -c '^wmatch_n$' "$T/keyward-policy.syms")" 1 "one wmatch_n in keyward-policy"

done_testing
