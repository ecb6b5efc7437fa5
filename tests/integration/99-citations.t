#!/bin/bash
# check: plain only (a check of the sources and documents only)
# Every citation in the code, the tests and the documents leads to a file
# of the repository (tests/tools/citations.pl): a doc/<name>.md with a
# section sign names a heading of that file; a path doc/<name> exists; a
# section sign names its document; and nothing points outside the tree
# (the shared folder, the old design and style notes, the protocol
# reference called "spec", a tracker's issue numbers, a test no file of
# tests/ is). First the checker is shown a small tree with one fault of
# each kind and must name each; then the repository itself must have none. A tree check: the same for
# any AGENT.
. "$(dirname "$0")/lib.sh"

CHECK=$REPO/tests/tools/citations.pl
S=$(printf '\302\247')          # the section sign, as the files have it
# What the fixture cites wrongly, written in pieces so that this file,
# which the checker reads too, cites none of it.
NOFILE="do""c/nothing.md" ISSUE="iss""ue 12" DES="DESIGN"".md" SHR="..""/shared"

# --- the checker finds what it looks for
F=$T/fixture
mkdir -p "$F/doc" "$F/src"
cat >"$F/doc/protocol.md" <<DOC
# a protocol
## 7. Session binding
### 7.2 Processing
See ${S}7.2.
DOC
cat >"$F/src/good.c" <<SRC
/* doc/protocol.md ${S}7.2, ${S}7 and ${S}7.2-${S}7; RFC 4252 ${S}7; PKCS#11 2.40 ${S}5.1 */
/* a key spec is a host key; the issue is the length */
SRC
cat >"$F/src/bad.c" <<SRC
/* doc/protocol.md ${S}7.3 */
/* doc/protocol.md ${S}7.2, ${S}8.1 */
/* a bare ${S}7.2 */
/* see $NOFILE */
/* as the spec ${S}7.2 says */
/* ($ISSUE item 3) */
/* $DES, STYLE ${S}2 */
/* $SHR/spec */
SRC
run perl "$CHECK" "$F" doc/protocol.md src/good.c
is "$RC:$OUT" "0:" "a tree whose citations all lead somewhere passes"
run perl "$CHECK" "$F" src/bad.c
ok $((RC != 1)) "a tree with faults fails"
want=(
	"src/bad.c:1: heading: doc/protocol.md has no section 7.3"
	"src/bad.c:2: heading: doc/protocol.md has no section 8.1"
	"src/bad.c:3: bare: "
	"src/bad.c:4: no-file: $NOFILE"
	"src/bad.c:5: outside: "
	"src/bad.c:6: outside: \"$ISSUE\""
	"src/bad.c:7: outside: \"$DES\""
	"src/bad.c:7: outside: \"STYLE ${S}\""
	"src/bad.c:8: outside: \"$SHR\""
)
for w in "${want[@]}"; do
	contains "$OUT" "$w" "the checker reports: $w"
done
echo "And ${S}7.9." >>"$F/doc/protocol.md"
run perl "$CHECK" "$F" doc/protocol.md
contains "$OUT" "doc/protocol.md:5: heading: doc/protocol.md has no section 7.9" \
	"doc/protocol.md's own bare section signs are its own headings"

# --- tests cited by name: each is a file of tests/, so a renamed test
# leaves none of its old names behind (pieces again: the repository has
# none of these tests).
HERE="10-he""re" GONE="11-go""ne" GONE2="10-gone""-too"
mkdir -p "$F/tests/integration"
: >"$F/tests/integration/$HERE.t"
cat >"$F/src/tests.c" <<SRC
/* $HERE.t, $HERE, 64-bit, 10-bit, 1NN-here-*.t */
/* $GONE.t */
/* $GONE2 */
SRC
run perl "$CHECK" "$F" src/tests.c
is "$RC:$OUT" "1:src/tests.c:2: no-test: $GONE.t
src/tests.c:3: no-test: $GONE2" \
	"a test cited by a name no file has is named; a test that is there, a number with a unit, a family are not"

# --- the repository
run perl "$CHECK" "$REPO"
diag "$OUT"
is "$RC:$(printf '%s\n' "$OUT" | grep -c .)" "0:0" \
	"every citation in the repository leads to a file and heading of it"

# The documents the citations lead to are there; doc/protocol.md has a
# heading for each of the protocol's fifteen sections.
for d in protocol design style; do
	[ -s "$REPO/doc/$d.md" ]
	ok $? "doc/$d.md exists"
done
missing=
for n in $(seq 1 15); do
	grep -qE "^## $n\\. " "$REPO/doc/protocol.md" || missing="$missing $n"
done
is "$missing" "" "doc/protocol.md has the sections 1 to 15"

done_testing
