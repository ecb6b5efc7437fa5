#!/bin/bash
# ML-DSA-44 (crypto/mldsa44*.c) against a second, independent
# implementation: @noble/post-quantum (pure JavaScript), run with node.
# Both ways, thousands of keys: keyward's keys and signatures (random
# contexts, messages and rnd) are checked by noble -- its keygen from the
# same seed gives the same public key, the signature verifies, noble's own
# signature with the same rnd is the same bytes, one byte flipped fails;
# noble's are checked by keyward the same way (tests/tools/mldsa_tool.c).
# noble is first held against NIST's ACVP vectors. npm installs the pinned
# package into the build directory (tests/integration/lib-noble.sh);
# without the registry or node the checks are skipped, never passed.
#
# KW_MATRIX_SHARE=DIR (make check-integration sets it): the pass leaves
# noble's halves in DIR/noble/: its ACVP verdict, the tag and count of
# keyward's lines with noble's verdict on them, and noble's own lines.
# KW_STOCK_FROM=DIR (make check's ASan pass, DIR the plain pass's share):
# noble is the same JavaScript in both passes and runs none of keyward's
# code, so its halves are taken from DIR/noble/, not run again. keyward's
# halves run here, sanitized: signing from the same tag it must give the
# very bytes noble passed there, and it verifies noble's lines. Without
# those files (or with another count) everything runs here.
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-noble.sh"

COUNT=${MLDSA_NOBLE_COUNT:-2000}
TOOL=$KEYWARD_BUILD/tests/mldsa_tool
VECTORS=$REPO/tests/unit/vectors/mldsa44-acvp.txt

FROM=${KW_STOCK_FROM:+$KW_STOCK_FROM/noble}
if [ -n "$FROM" ] && [ -s "$FROM/kw.txt" ] && [ -s "$FROM/noble.txt" ] &&
	[ "$(cat "$FROM/count" 2>/dev/null)" = "$COUNT" ]; then
	diag "noble's halves: $FROM (the earlier pass's run; not run again)"
	is "$(cat "$FROM/acvp")" "good 30 bad 0" "noble agrees with the ACVP vectors (keyGen, sigGen, sigVer, pure and internal)"
	"$TOOL" sign "$COUNT" "$(cat "$FROM/tag")" >"$T/kw.txt"
	ok $? "keyward made and signed $COUNT keys"
	# the same tag: the same keys, messages, contexts and rnds, so the
	# same lines byte for byte are what noble's verdict was given on
	if cmp -s "$T/kw.txt" "$FROM/kw.txt"; then
		OUT=$(cat "$FROM/kw.verdict")
	else
		OUT="keyward's lines differ from those noble checked ($FROM/kw.txt)"
	fi
	is "$OUT" "good $COUNT bad 0" "noble: same public keys, signatures verify, same bytes with the same rnd, flips refused"
	cp "$FROM/noble.txt" "$T/noble.txt"
	is "$(wc -l <"$T/noble.txt" | tr -d ' ')" "$COUNT" "noble made and signed $COUNT keys"
	run "$TOOL" verify <"$T/noble.txt"
	is "$OUT" "good $COUNT bad 0" "keyward: same public keys, noble's signatures verify, flips refused"
	done_testing
	exit
fi

noble_setup
if ! have_noble; then
	skip_n 5 "@noble/post-quantum@$NOBLE_VERSION not installable (no node >= 18, no npm, or no registry)"
	done_testing
	exit
fi
diag "node $(node --version), @noble/post-quantum $NOBLE_VERSION"

# The oracle first: noble must itself agree with NIST's vectors (the
# same file test_mldsa reads) before its verdicts count.
run node "$NOBLE" acvp "$VECTORS"
ACVP=$OUT
is "$OUT" "good 30 bad 0" "noble agrees with the ACVP vectors (keyGen, sigGen, sigVer, pure and internal)"

TAG=keyward-$$-$RANDOM
"$TOOL" sign "$COUNT" "$TAG" >"$T/kw.txt"
ok $? "keyward made and signed $COUNT keys"
run node "$NOBLE" verify <"$T/kw.txt"
KWVERDICT=$OUT
is "$OUT" "good $COUNT bad 0" "noble: same public keys, signatures verify, same bytes with the same rnd, flips refused"

run node "$NOBLE" sign "$COUNT"
printf '%s\n' "$OUT" >"$T/noble.txt"
is "$(wc -l <"$T/noble.txt" | tr -d ' ')" "$COUNT" "noble made and signed $COUNT keys"
run "$TOOL" verify <"$T/noble.txt"
is "$OUT" "good $COUNT bad 0" "keyward: same public keys, noble's signatures verify, flips refused"

# for a later pass's KW_STOCK_FROM
if [ -n "${KW_MATRIX_SHARE:-}" ]; then
	d=$KW_MATRIX_SHARE/noble
	mkdir -p "$d" && printf '%s\n' "$ACVP" >"$d/acvp" &&
		printf '%s\n' "$TAG" >"$d/tag" && printf '%s\n' "$COUNT" >"$d/count" &&
		printf '%s\n' "$KWVERDICT" >"$d/kw.verdict" &&
		cp "$T/kw.txt" "$d/kw.txt" && cp "$T/noble.txt" "$d/noble.txt"
fi
done_testing
