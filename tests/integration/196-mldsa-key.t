#!/bin/bash
# ssh-mldsa44-ed25519@openssh.com keys (OpenSSH 10.5's composite of
# ML-DSA-44 and Ed25519) through the agent protocol, beside no OpenSSH
# tool (9.2's ssh-add cannot read such a key): a raw client adds a key
# made from fixed seeds (tests/tools/mldsa_tool.c), lists it, has it sign
# (each signature's ML-DSA-44 half checked by @noble/post-quantum, its
# Ed25519 half by OpenSSL through node), locks and unlocks, removes it;
# a key whose seeds do not make its public key is refused, and so are
# malformed ones (lengths, truncation) with the agent still answering. The same with
# OpenSSH 10.5's own tools is 197-mldsa-openssh10.t.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-noble.sh"

TOOL=$KEYWARD_BUILD/tests/mldsa_tool

# hex -> SSH string (uint32 length, then the bytes), in hex
hs() { printf '%08x%s' $((${#1} / 2)) "$1"; }
rawc() { perl "$RAWCLIENT" -t 30 "$SSH_AUTH_SOCK" "$@"; }
ascii() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

noble_setup
# check_sig DATAHEX SIGBLOBHEX NAME: both halves, independently
check_sig() {
	if have_noble; then
		is "$(node "$NOBLE" composite "$PUB" "$1" "$2")" \
			"mldsa ok ed25519 ok" "$3: ML-DSA-44 half (noble) and Ed25519 half (OpenSSL) verify"
	else
		skip "@noble/post-quantum not installable: $3 not checked"
	fi
}

"$TOOL" composite "keyward-mldsa-test" >"$T/key.txt"
PUB=$(sed -n 's/^pub //p' "$T/key.txt")
ADD=$(sed -n 's/^add //p' "$T/key.txt")
ADDBAD=$(sed -n 's/^addbad //p' "$T/key.txt")
is "${#PUB}" $(( (4 + 31 + 4 + 1344) * 2 )) "public blob is name and 1344-byte key"

start_agent
ok $? "agent started"

if is_keyward; then
	run rawc "$ADDBAD"
	is "$OUT" "05" "ADD with seeds that do not make the public key: failure"
	run rawc 0b
	is "$OUT" "0c00000000" "nothing was added"
else
	# OpenSSH 10.5's ssh-agent takes such a key as given (SUCCESS); keyward
	# checks the seeds against the public key.
	skip_n 2 "keyward's own check: $AGENT adds a key whose seeds do not make its public key"
fi

# Malformed keys from a hostile client: a clear failure each, and the
# agent goes on answering.
NAMEHEX=$(hs "$(ascii ssh-mldsa44-ed25519@openssh.com)")
KEYHEX=${PUB:${#NAMEHEX}+8}
run rawc "11${NAMEHEX}$(hs "${KEYHEX:0:2686}")$(hs "$(printf '%0128d' 0)")$(hs 00)"
is "$OUT" "05" "ADD with a 1343-byte public key: failure"
run rawc "11${NAMEHEX}$(hs "$KEYHEX")$(hs "$(printf '%0126d' 0)")$(hs 00)"
is "$OUT" "05" "ADD with 63 bytes of seeds: failure"
run rawc "${ADD:0:2000}"
is "$OUT" "05" "ADD cut inside the public key: failure"
run rawc "0d$(hs "${PUB:0:2000}")$(hs 00)00000000"
is "$OUT" "05" "SIGN_REQUEST with a cut key blob: failure"

run rawc "$ADD"
is "$OUT" "06" "ADD ssh-mldsa44-ed25519@openssh.com: success"
run rawc 0b
is "$OUT" "0c00000001$(hs "$PUB")$(hs "$(ascii keyward-mldsa-test)")" \
	"listed: its blob and comment"

DATA=$(ascii "data to sign, as a session would have it")
run rawc "0d$(hs "$PUB")$(hs "$DATA")00000000"
like "$OUT" "^0e" "SIGN_REQUEST answered with a signature"
SIG1=${OUT#0e}; SIG1=${SIG1:8}
is "${SIG1:0:8}" "0000001f" "signature names its algorithm first"
is "${#SIG1}" $(( (4 + 31 + 4 + 2484) * 2 )) "signature blob is 2420 + 64 bytes"
check_sig "$DATA" "$SIG1" "first signature"
run rawc "0d$(hs "$PUB")$(hs "$DATA")00000000"
SIG2=${OUT#0e}; SIG2=${SIG2:8}
isnt_same=$([ "$SIG1" != "$SIG2" ] && echo differ || echo same)
is "$isnt_same" "differ" "two signatures of the same data differ (hedged, as OpenSSH signs)"
check_sig "$DATA" "$SIG2" "second signature"
if have_noble; then
	is "$(node "$NOBLE" composite "$PUB" "$(ascii 'other data')" "$SIG1")" \
		"mldsa bad ed25519 bad" "the checker refuses the signature over other data"
else
	skip "@noble/post-quantum not installable"
fi

# Locked: no signature; unlocked: signs again.
run rawc "16$(hs "$(ascii pass)")"
is "$OUT" "06" "locked"
run rawc "0d$(hs "$PUB")$(hs "$DATA")00000000"
is "$OUT" "05" "locked: SIGN_REQUEST refused"
run rawc "17$(hs "$(ascii pass)")"
is "$OUT" "06" "unlocked"
run rawc "0d$(hs "$PUB")$(hs "$DATA")00000000"
SIG3=${OUT#0e}; SIG3=${SIG3:8}
check_sig "$DATA" "$SIG3" "signature after unlock"

run rawc "12$(hs "$PUB")"
is "$OUT" "06" "REMOVE_IDENTITY: success"
run rawc 0b
is "$OUT" "0c00000000" "removed"
run rawc "0d$(hs "$PUB")$(hs "$DATA")00000000"
is "$OUT" "05" "removed key: SIGN_REQUEST refused"

done_testing
