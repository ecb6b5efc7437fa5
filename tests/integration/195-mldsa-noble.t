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
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-noble.sh"

COUNT=${MLDSA_NOBLE_COUNT:-2000}
TOOL=$KEYWARD_BUILD/tests/mldsa_tool
VECTORS=$REPO/tests/unit/vectors/mldsa44-acvp.txt

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
is "$OUT" "good 30 bad 0" "noble agrees with the ACVP vectors (keyGen, sigGen, sigVer, pure and internal)"

"$TOOL" sign "$COUNT" "keyward-$$-$RANDOM" >"$T/kw.txt"
ok $? "keyward made and signed $COUNT keys"
run node "$NOBLE" verify <"$T/kw.txt"
is "$OUT" "good $COUNT bad 0" "noble: same public keys, signatures verify, same bytes with the same rnd, flips refused"

run node "$NOBLE" sign "$COUNT"
printf '%s\n' "$OUT" >"$T/noble.txt"
is "$(wc -l <"$T/noble.txt" | tr -d ' ')" "$COUNT" "noble made and signed $COUNT keys"
run "$TOOL" verify <"$T/noble.txt"
is "$OUT" "good $COUNT bad 0" "keyward: same public keys, noble's signatures verify, flips refused"

done_testing
