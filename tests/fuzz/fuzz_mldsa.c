/*
 * fuzz_mldsa.c - libFuzzer harness for ML-DSA-44 verification
 * (crypto/mldsa44.c): the decoders of public keys (pkDecode) and
 * signatures (sigDecode, HintBitUnpack, the bound on z) and the
 * verification that follows, on bytes anyone can send (a key blob, a
 * session-bind or certificate signature).
 *
 * The input's first byte picks the context length (0..63 of the next
 * bytes); then:
 *  1. the rest as a signature over a fixed message under a fixed key (the
 *     seed corpus holds a valid signature and mutations of it): pure
 *     Verify must agree with Verify_internal over 0 || |ctx| || ctx || M,
 *     and a signature that verifies must fail with its first byte flipped;
 *  2. when long enough, the rest as public key || signature || message:
 *     the same two checks, under a key from the input.
 */
#include "tests/fuzz/fuzz.h"
#include "crypto/mldsa44.h"

static uint8_t fixed_pk[MLDSA44_PK_LEN];
static int have_pk;

static void
both(const uint8_t *pk, const uint8_t *ctx, size_t ctxlen, const uint8_t *m,
    size_t mlen, const uint8_t *sig, size_t siglen)
{
	uint8_t *pre, *flip;
	int pure, internal;

	pure = mldsa44_verify(pk, m, mlen, ctx, ctxlen, sig, siglen);
	CHECK((pre = malloc(2 + ctxlen + mlen + 1)) != NULL);
	pre[0] = 0;
	pre[1] = (uint8_t)ctxlen;
	memcpy(pre + 2, ctx, ctxlen);
	if (mlen != 0)
		memcpy(pre + 2 + ctxlen, m, mlen);
	internal = mldsa44_verify_internal(pk, pre, 2 + ctxlen + mlen, sig,
	    siglen);
	free(pre);
	CHECK(pure == internal);
	if (pure == 0) {
		CHECK((flip = malloc(siglen)) != NULL);
		memcpy(flip, sig, siglen);
		flip[0] ^= 1;
		CHECK(mldsa44_verify(pk, m, mlen, ctx, ctxlen, flip, siglen) != 0);
		free(flip);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t msg[] = "fuzz_mldsa fixed message";
	size_t ctxlen;

	if (!have_pk) {
		uint8_t xi[MLDSA44_SEED_LEN];

		memset(xi, 0x5a, sizeof(xi));
		CHECK(mldsa44_keygen(fixed_pk, NULL, xi) == 0);
		have_pk = 1;
	}
	if (size < 1)
		return 0;
	ctxlen = data[0] % 64;
	if (size < 1 + ctxlen)
		return 0;
	both(fixed_pk, data + 1, ctxlen, msg, sizeof(msg) - 1, data + 1 + ctxlen,
	    size - 1 - ctxlen);
	if (size >= 1 + ctxlen + MLDSA44_PK_LEN + MLDSA44_SIG_LEN) {
		const uint8_t *p = data + 1 + ctxlen;

		both(p, data + 1, ctxlen, p + MLDSA44_PK_LEN + MLDSA44_SIG_LEN,
		    size - 1 - ctxlen - MLDSA44_PK_LEN - MLDSA44_SIG_LEN,
		    p + MLDSA44_PK_LEN, MLDSA44_SIG_LEN);
	}
	return 0;
}
