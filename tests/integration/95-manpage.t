#!/bin/bash
# The man page: keyward(1) formats without a single warning (groff -ww and
# man --warnings), documents every option letter options.c accepts (and no
# other), every environment variable the code reads, and carries the one
# version of monitor/options.h, as do keyward -V and debian/changelog.
# keyward(5), the rules file: no warnings either, and every example is a
# rules file the parser reads (tests/tools/rules_check), whose rules are
# the ones tests/unit/test_rules.c decides on.
. "$(dirname "$0")/lib.sh"

PAGE=$REPO/doc/keyward.1
OPTIONS_C=$REPO/monitor/options.c
VERSION_H=$REPO/monitor/options.h

[ -f "$PAGE" ] || bail "no $PAGE"

# The checks of doc/ against the sources run no keyward program: make
# check's ASan pass leaves them out (lib.sh, stock_part); the version
# keyward -V prints and the rules examples read by rules_check it runs.
stock_part "the man pages' formatting and what they list, checks of doc/ and the sources" && DOCS=1 || DOCS=0
if [ $DOCS = 1 ]; then
	# --- formatting, no warnings
	for tool in groff man; do
		command -v "$tool" >/dev/null
		ok $? "$tool is installed (make deps)"
	done

	run groff -man -ww -z "$PAGE"
	is "$RC:$ERR" "0:" "groff -man -ww -z doc/keyward.1: exit 0, no warnings"
	run groff -man -ww -z -Tutf8 "$PAGE"
	is "$RC:$ERR" "0:" "groff -man -ww -Tutf8: no warnings"
	# man(1) formats for a terminal of its own width; try narrow and wide too.
	for width in 80 60 132; do
		LAST_CMD="MANWIDTH=$width man --warnings -l $PAGE >/dev/null" RUN_SHOWN=0
		ERR=$(MANWIDTH=$width man --warnings -l "$PAGE" 2>&1 >/dev/null)
		RC=$? OUT=
		is "$RC:$ERR" "0:" "man --warnings -l doc/keyward.1 (MANWIDTH=$width): no warnings"
	done
	LAST_CMD="man -l $PAGE | col -b" RUN_SHOWN=0
	TEXT=$(MANWIDTH=80 man -l "$PAGE" 2>/dev/null | col -b)
	for section in NAME SYNOPSIS DESCRIPTION OPTIONS "COMMAND MODE" "SOCKET LOCATION" \
		"SOCKET ACTIVATION" "PROCESS MODEL" "THREAT MODEL" "REFUSED ON PURPOSE" \
		ENVIRONMENT FILES SIGNALS LOGGING "EXIT STATUS" "DIFFERENCES FROM SSH-AGENT" \
		"SEE ALSO"; do
		printf '%s\n' "$TEXT" | grep -qx "$section"
		ok $? "section $section is there"
	done

	# --- every option letter of the getopt string, and nothing else
	optstring=$(sed -n 's/.*getopt(argc, argv, "\([^"]*\)").*/\1/p' "$OPTIONS_C")
	like "$optstring" '^\+?[A-Za-z:]+$' "getopt string found in options.c ($optstring)"
	letters=$(printf '%s' "${optstring#+}" | tr -d ':' | fold -w1 | sort)
	like "$(printf '%s' "$letters" | wc -l)" '^[1-9][0-9]*$' "options.c accepts some letters"
	# The OPTIONS section's items: ".TP" then ".B \-x" or ".BI \-x arg".
	items=$(awk '
		/^\.SH / { in_opts = ($0 == ".SH OPTIONS"); next }
		in_opts && prev == ".TP" && /^\.BI? \\-[A-Za-z]/ {
			sub(/^\.BI? \\-/, ""); print substr($0, 1, 1)
		}
		{ prev = $0 }' "$PAGE" | sort)
	for l in $letters; do
		printf '%s\n' "$items" | grep -qx -- "$l"
		ok $? "option -$l (accepted by options.c) has its own item in OPTIONS"
		printf '%s\n' "$TEXT" | grep -Eq -- "(^|[[ ])-[A-Za-z]*$l"
		ok $? "option -$l appears in the formatted page"
	done
	for l in $items; do
		printf '%s\n' "$letters" | grep -qx -- "$l"
		ok $? "documented option -$l is one options.c accepts"
	done
	# options that take an argument are documented with one
	for l in $(printf '%s' "${optstring#+}" | grep -o '[A-Za-z]:' | tr -d ':'); do
		grep -Eq "^\.BI \\\\-$l " "$PAGE"
		ok $? "option -$l is documented with its argument"
	done

	# --- every environment variable the programs read (KEYWARD_TEST_* are
	# hooks of test builds, make TESTING=1, which are never installed)
	envsec=$(printf '%s\n' "$TEXT" | awk '/^ENVIRONMENT$/ { on = 1; next } /^[A-Z][A-Z ]+$/ { on = 0 } on')
	vars=$(grep -rhoE 'getenv\("[A-Za-z_]+"\)' "$REPO"/monitor "$REPO"/policy "$REPO"/keyholder \
		"$REPO"/ipc "$REPO"/crypto "$REPO"/seccomp --include='*.c' | sed 's/getenv("\(.*\)")/\1/' | grep -v '^KEYWARD_TEST_' | sort -u)
	[ -n "$vars" ]
	ok $? "the sources read some environment variables"
	for v in $vars; do
		printf '%s\n' "$envsec" | grep -qw -- "$v"
		ok $? "ENVIRONMENT documents $v (read by the code)"
	done

fi

# --- one version: monitor/options.h
version=$(sed -n 's/^#define KEYWARD_VERSION "\(.*\)"$/\1/p' "$VERSION_H")
like "$version" '^[0-9]+\.[0-9]+\.[0-9]+' "KEYWARD_VERSION found in monitor/options.h ($version)"
run "$KEYWARD_BUILD/keyward" -V
is "$RC" 0 "keyward -V exits 0"
is "$OUT" "" "keyward -V prints nothing on stdout"
is "$ERR" "keyward $version" "keyward -V prints 'keyward $version' on stderr"
clog=$(sed -n '1s/^keyward (\([^)]*\)).*/\1/p' "$REPO/debian/changelog")
is "$clog" "$version" "debian/changelog's version is KEYWARD_VERSION"
if command -v dpkg-parsechangelog >/dev/null; then
	is "$(cd "$REPO" && dpkg-parsechangelog -S Version)" "$version" "dpkg-parsechangelog agrees"
else
	skip "dpkg-parsechangelog not installed"
fi
th=$(sed -n 's/^\.TH KEYWARD 1 "[^"]*" "keyward \([^"]*\)".*/\1/p' "$PAGE")
is "$th" "$version" "the man page's .TH line names KEYWARD_VERSION"

RULESPAGE=$REPO/doc/keyward.5
RULES_CHECK=$KEYWARD_BUILD/tests/rules_check
if [ $DOCS = 1 ]; then
	# --- keyward-ctl(1) and keyward(5): no warnings either, the same version
	page_clean() { # PAGE NAME SECTION
		local page=$1 name=$2 sec=$3 rel=doc/$(basename "$1") width th
		run groff -man -ww -z -Tutf8 "$page"
		is "$RC:$ERR" "0:" "groff -man -ww -z -Tutf8 $rel: exit 0, no warnings"
		for width in 80 60 132; do
			LAST_CMD="MANWIDTH=$width man --warnings -l $page >/dev/null" RUN_SHOWN=0
			ERR=$(MANWIDTH=$width man --warnings -l "$page" 2>&1 >/dev/null)
			RC=$? OUT=
			is "$RC:$ERR" "0:" "man --warnings -l $rel (MANWIDTH=$width): no warnings"
		done
		th=$(sed -n 's/^\.TH '"$name $sec"' "[^"]*" "keyward \([^"]*\)".*/\1/p' "$page")
		is "$th" "$version" "$(basename "$page" ".$sec" | tr A-Z a-z)($sec)'s .TH line names KEYWARD_VERSION"
	}
	page_clean "$REPO/doc/keyward-ctl.1" KEYWARD-CTL 1

	# --- keyward(5): every example read
	page_clean "$RULESPAGE" KEYWARD 5
	RTEXT=$(MANWIDTH=80 man -l "$RULESPAGE" 2>/dev/null | col -b)
	for section in NAME SYNOPSIS DESCRIPTION "FILE FORMAT" RULES PATTERNS SEMANTICS "FORWARDED REQUESTS" \
		"CANONICAL FORM" ERRORS LIMITS EXAMPLES "SEE ALSO"; do
		printf '%s\n' "$RTEXT" | grep -qx "$section"
		ok $? "keyward(5): section $section is there"
	done
	# the limits the page states are those of ipc/limits.h
	for lim in RULES_MAX_FILE:65536 RULES_MAX_RULES:256 RULES_MAX_LINE:1024 \
		RULES_MAX_PATTERNS:32 RULES_MAX_PATTERN:255; do
		name=${lim%%:*} val=${lim#*:}
		have=$(sed -n "s/^#define $name  *\(([^)]*)\|[0-9]*\).*/\1/p" "$REPO/ipc/limits.h")
		is "$(( have ))" "$val" "keyward(5) LIMITS: $name is $val"
	done
fi
[ -x "$RULES_CHECK" ]
ok $? "tests/rules_check is built (make tests)"
# Each .EX block of EXAMPLES, as a file: read without error; the rule
# lines of the first three (the worked examples) are in test_rules.c.
awk -v dir="$T" '
	/^\.SH / { ex = ($0 == ".SH EXAMPLES"); next }
	ex && /^\.EX/ { n++; f = dir "/example" n; printf "" >f; on = 1; next }
	ex && /^\.EE/ { on = 0; close(f); next }
	on { gsub(/\\e/, "\\"); print >>f }' "$RULESPAGE"
nex=$(ls "$T"/example* 2>/dev/null | wc -l)
is "$nex" 6 "keyward(5) has six example files (three worked examples, one whole file, two of the session clause)"
for f in "$T"/example*; do
	run "$RULES_CHECK" "$f"
	is "$RC:$ERR" "0:" "keyward(5) $(basename "$f") is read: $(head -c 60 "$f" | head -1)"
done
for f in "$T"/example1 "$T"/example2 "$T"/example3 "$T"/example5 "$T"/example6; do
	while IFS= read -r line; do
		case $line in allow*|deny*|confirm*) ;; *) continue ;; esac
		grep -qF "\"$line\\n\"" "$REPO/tests/unit/test_rules.c"
		ok $? "test_rules.c decides on the example rule: $line"
	done <"$f"
done

done_testing
