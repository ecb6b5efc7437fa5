#!/bin/bash
# ML-DSA-44 (crypto/mldsa44.c) against a second, independent
# implementation: @noble/post-quantum (pure JavaScript), run with node.
# Both ways, thousands of keys: keyward's keys and signatures (random
# contexts, messages and rnd) are checked by noble -- its keygen from the
# same seed gives the same public key, the signature verifies, noble's own
# signature with the same rnd is the same bytes, one byte flipped fails;
# noble's are checked by keyward the same way (tests/tools/mldsa_tool.c).
# npm installs the pinned package into the build directory; without the
# registry or node the checks are skipped, never passed.
. "$(dirname "$0")/lib.sh"

NOBLE_VERSION=0.7.1
COUNT=${MLDSA_NOBLE_COUNT:-2000}
TOOL=$KEYWARD_BUILD/tests/mldsa_tool
ND=$KEYWARD_BUILD/noble

# @noble/post-quantum 0.7.1 asks node >= 20.19 (Debian 12's is 18).
node_ok() {
	command -v node >/dev/null &&
		node -e 'const [a, b] = process.versions.node.split(".").map(Number);
			process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' 2>/dev/null
}
have_noble() {
	node_ok || return 1

	[ -f "$ND/node_modules/@noble/post-quantum/package.json" ] &&
		grep -q "\"version\": \"$NOBLE_VERSION\"" \
			"$ND/node_modules/@noble/post-quantum/package.json"
}
if command -v node >/dev/null && command -v npm >/dev/null && ! have_noble; then
	mkdir -p "$ND"
	timeout 180 npm install --silent --no-audit --no-fund --prefix "$ND" \
		"@noble/post-quantum@$NOBLE_VERSION" >"$T/npm.log" 2>&1
fi
if ! have_noble; then
	diag "no @noble/post-quantum@$NOBLE_VERSION: no node >= 20.19, no npm, or no registry"
	skip_n 4 "@noble/post-quantum not installable"
	done_testing
	exit
fi
cp "$LIBDIR/mldsa-noble.mjs" "$ND/mldsa-noble.mjs"

"$TOOL" sign "$COUNT" "keyward-$$-$RANDOM" >"$T/kw.txt"
ok $? "keyward made and signed $COUNT keys"
run node "$ND/mldsa-noble.mjs" verify <"$T/kw.txt"
is "$OUT" "good $COUNT bad 0" "noble: same public keys, signatures verify, same bytes with the same rnd, flips refused"

run node "$ND/mldsa-noble.mjs" sign "$COUNT"
printf '%s\n' "$OUT" >"$T/noble.txt"
is "$(wc -l <"$T/noble.txt" | tr -d ' ')" "$COUNT" "noble made and signed $COUNT keys"
run "$TOOL" verify <"$T/noble.txt"
is "$OUT" "good $COUNT bad 0" "keyward: same public keys, noble's signatures verify, flips refused"

done_testing
