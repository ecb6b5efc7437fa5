/*
 * mldsa44.c - ML-DSA-44 verification (FIPS 204, August 2024; algorithm
 * numbers in the comments are FIPS 204's), what policy links. Nothing
 * here is secret: the public key, the message and the signature are
 * anyone's. Key generation and signing are crypto/mldsa44_sign.c, what
 * both share crypto/mldsa44_common.c (crypto/mldsa44_int.h).
 */
#include "crypto/mldsa44_int.h"

#include <stdlib.h>
#include <string.h>

/* The working state of a verification, on the heap (some 40 KiB). */
struct vwork {
	poly a[K][L];
	poly t1[K], z[L], zhat[L], h[K];
	poly w[K], w1[K], c, chat, tmp;
	uint8_t mu[64], ctilde[CTILDE];
};

/* UseHint (algorithm 40). */
static int32_t
use_hint(int32_t a, int h)
{
	int32_t a0, a1;

	a1 = decompose(&a0, a);
	if (!h)
		return a1;
	if (a0 > 0)
		return a1 == 43 ? 0 : a1 + 1;
	return a1 == 0 ? 43 : a1 - 1;
}

/* HintBitUnpack (algorithm 21): -1 for a malformed hint (indexes not
 * increasing within a polynomial, counts decreasing or above omega, or
 * nonzero padding). */
static int
hint_decode(poly h[K], const uint8_t *in)
{
	int i, n = 0, first;

	memset(h, 0, K * sizeof(poly));
	for (i = 0; i < K; i++) {
		if (in[OMEGA + i] < n || in[OMEGA + i] > OMEGA)
			return -1;
		first = n;
		for (; n < in[OMEGA + i]; n++) {
			if (n > first && in[n - 1] >= in[n])
				return -1;
			h[i].c[in[n]] = 1;
		}
	}
	for (; n < OMEGA; n++)
		if (in[n] != 0)
			return -1;
	return 0;
}

/* Verify_internal (algorithm 8) over pre || m, pre being the pure form's
 * 0 || |ctx| || ctx (empty for the internal interface). */
static int
verify_core(const uint8_t pk[MLDSA44_PK_LEN], const uint8_t *pre,
    size_t prelen, const uint8_t *m, size_t mlen, const uint8_t *sig,
    size_t siglen)
{
	struct vwork *w;
	uint8_t tr[64];
	int i, j, ret = -1;

	if (siglen != MLDSA44_SIG_LEN)
		return -1;
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return -1;
	/* pkDecode (algorithm 23) and sigDecode (algorithm 27). */
	mldsa_unpack(w->t1, K, pk + 32, 10, 0, 1);
	mldsa_unpack(w->z, L, sig + CTILDE, 18, GAMMA1, -1);
	if (hint_decode(w->h, sig + CTILDE + L * Z_BYTES) != 0)
		goto out;
	for (i = 0; i < L; i++)
		if (mldsa_poly_exceeds(&w->z[i], GAMMA1 - BETA))
			goto out;

	mldsa_expand_a(w->a, pk);             /* rho: pk's first 32 bytes */
	mldsa44_shake(256, pk, MLDSA44_PK_LEN, tr, 64);
	mldsa_mu(w->mu, tr, pre, prelen, m, mlen);
	mldsa_sample_in_ball(&w->c, sig);     /* c~: sig's first 32 bytes */
	w->chat = w->c;
	mldsa_ntt(&w->chat);
	for (i = 0; i < L; i++) {
		w->zhat[i] = w->z[i];
		mldsa_ntt(&w->zhat[i]);
	}
	for (i = 0; i < K; i++) {
		/* A z - c t1 2^d. */
		for (j = 0; j < N; j++)
			w->t1[i].c[j] <<= D;
		mldsa_ntt(&w->t1[i]);
		mldsa_mat_row(&w->w[i], w->a[i], w->zhat, &w->tmp);
		mldsa_pointwise(&w->tmp, &w->chat, &w->t1[i]);
		mldsa_poly_sub(&w->w[i], &w->w[i], &w->tmp);
		mldsa_invntt(&w->w[i]);
		for (j = 0; j < N; j++)
			w->w1[i].c[j] = use_hint(freeze(w->w[i].c[j]),
			    w->h[i].c[j]);
	}
	mldsa_challenge(w->ctilde, w->mu, w->w1);
	if (memcmp(w->ctilde, sig, CTILDE) == 0)
		ret = 0;
 out:
	free(w);
	return ret;
}

int
mldsa44_verify_internal(const uint8_t pk[MLDSA44_PK_LEN], const uint8_t *m,
    size_t mlen, const uint8_t *sig, size_t siglen)
{
	return verify_core(pk, NULL, 0, m, mlen, sig, siglen);
}

int
mldsa44_verify(const uint8_t pk[MLDSA44_PK_LEN], const uint8_t *m,
    size_t mlen, const uint8_t *ctx, size_t ctxlen, const uint8_t *sig,
    size_t siglen)
{
	uint8_t pre[MLDSA_PRE_MAX];
	size_t prelen;

	if ((prelen = mldsa_pre(pre, ctx, ctxlen)) == 0)
		return -1;
	return verify_core(pk, pre, prelen, m, mlen, sig, siglen);
}
