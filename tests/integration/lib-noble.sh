# shellcheck shell=bash
# tests/integration/lib-noble.sh - the ML-DSA-44 oracle of 195-mldsa-noble.t
# and 196-mldsa-key.t: @noble/post-quantum, pure JavaScript and written
# apart from crypto/mldsa44*.c, run with node (tests/tools/
# mldsa-noble.mjs). Source it after lib.sh.
#
#   noble_setup     npm installs the pinned version into $KEYWARD_BUILD/noble
#                   unless it is there (files running side by side take
#                   turns, flock), and copies mldsa-noble.mjs beside it
#   have_noble      node and the pinned version are there; NOBLE is then
#                   the script to run with node
#
# No node (18 or later), no npm or no registry: have_noble fails and the
# files skip those checks, counted as skips, never as passes.
#
# Pinned exactly: 0.4.1 is the last version that runs on Debian 12's node
# 18 (0.5.0 and later ask node >= 20.19; its one dependency,
# @noble/hashes 1.8.0, asks node 16), and it implements final FIPS 204:
# 195-mldsa-noble.t holds it against the ACVP vectors of
# tests/unit/vectors/ before it is trusted as an oracle. Its API is
# 0.4's: sign(secretKey, msg, ctx, rnd), verify(publicKey, msg, sig, ctx).

NOBLE_VERSION=0.4.1
NOBLE_DIR=$KEYWARD_BUILD/noble
NOBLE=$NOBLE_DIR/mldsa-noble.mjs

_noble_node_ok() {
	command -v node >/dev/null &&
		node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' \
			2>/dev/null
}

have_noble() {
	_noble_node_ok && [ -f "$NOBLE" ] &&
		grep -qs "\"version\": \"$NOBLE_VERSION\"" \
			"$NOBLE_DIR/node_modules/@noble/post-quantum/package.json"
}

noble_setup() {
	_noble_node_ok && command -v npm >/dev/null || return 0
	mkdir -p "$NOBLE_DIR"
	(
		flock -w 300 9 || exit 0
		grep -qs "\"version\": \"$NOBLE_VERSION\"" \
			"$NOBLE_DIR/node_modules/@noble/post-quantum/package.json" ||
			timeout 180 npm install --silent --no-audit --no-fund --save-exact \
				--prefix "$NOBLE_DIR" "@noble/post-quantum@$NOBLE_VERSION" \
				>"$T/npm.log" 2>&1
		cp "$REPO/tests/tools/mldsa-noble.mjs" "$NOBLE.tmp" && mv -f "$NOBLE.tmp" "$NOBLE"
	) 9>"$NOBLE_DIR.lock"
	have_noble || diag "no @noble/post-quantum@$NOBLE_VERSION: $(tail -n 3 "$T/npm.log" 2>/dev/null)"
}
