/*
 * mldsa44_sign.c - ML-DSA-44 key generation and signing (FIPS 204,
 * August 2024; algorithm numbers in the comments are FIPS 204's): the
 * keyholder's alone, in a file of its own so that policy, which links
 * verification (crypto/mldsa44.c), links none of it. What both share is
 * crypto/mldsa44_common.c (crypto/mldsa44_int.h, which says what is
 * secret and how the constant-time test sees it).
 */
#include "crypto/mldsa44_int.h"

#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

/* Power2Round (algorithm 35) of a in [0, q): a = a1 * 2^d + a0, a0 in
 * (-2^(d-1), 2^(d-1)]. */
static int32_t
power2round(int32_t *a0, int32_t a)
{
	int32_t a1 = (a + (1 << (D - 1)) - 1) >> D;

	*a0 = a - (a1 << D);
	return a1;
}

/* eta - (b mod 5) for b < 15 (CoeffFromHalfByte, algorithm 15), b mod 5
 * by a multiplication: 205 / 1024 is close enough to 1/5 below 15. */
static int32_t
half_byte(uint32_t b)
{
	return ETA - (int32_t)(b - 5 * ((b * 205) >> 10));
}

/* RejBoundedPoly (algorithm 31) of rho' || r (two bytes): secret input.
 * Whether a half-byte is kept (it is below 15) is revealed, as FIPS 204
 * allows; its value is not. */
static void
rej_bounded_poly(poly *a, const uint8_t rhop[64], uint16_t r)
{
	struct keccak k;
	uint8_t z, idx[2] = { (uint8_t)r, (uint8_t)(r >> 8) };
	uint32_t z0, z1;
	int j = 0, keep0, keep1;

	mldsa_keccak_init(&k, SHAKE256_RATE);
	mldsa_keccak_absorb(&k, rhop, 64);
	mldsa_keccak_absorb(&k, idx, 2);
	mldsa_keccak_finish(&k);
	while (j < N) {
		mldsa_keccak_squeeze(&k, &z, 1);
		z0 = z & 15;
		z1 = z >> 4;
		keep0 = (int)((z0 - 15) >> 31);
		keep1 = (int)((z1 - 15) >> 31);
		CT_PUBLIC(&keep0, sizeof(keep0));
		CT_PUBLIC(&keep1, sizeof(keep1));
		if (keep0)
			a->c[j++] = half_byte(z0);
		if (keep1 && j < N)
			a->c[j++] = half_byte(z1);
	}
	z = 0;
	z0 = z1 = 0;
	mldsa_keccak_wipe(&k);
}

/* ExpandMask (algorithm 34): y[r] from rho'' || (kappa + r). */
static void
expand_mask(poly y[L], const uint8_t rhopp[64], uint16_t kappa)
{
	uint8_t buf[Z_BYTES], idx[2];
	struct keccak k;
	int r;

	for (r = 0; r < L; r++) {
		idx[0] = (uint8_t)(kappa + r);
		idx[1] = (uint8_t)((kappa + r) >> 8);
		mldsa_keccak_init(&k, SHAKE256_RATE);
		mldsa_keccak_absorb(&k, rhopp, 64);
		mldsa_keccak_absorb(&k, idx, 2);
		mldsa_keccak_finish(&k);
		mldsa_keccak_squeeze(&k, buf, sizeof(buf));
		mldsa_unpack(&y[r], 1, buf, 18, GAMMA1, -1);
	}
	OPENSSL_cleanse(buf, sizeof(buf));
	mldsa_keccak_wipe(&k);
}

/* ------------------------------------------------------------ keys */

struct sk {
	uint8_t rho[32];
	uint8_t key[32];
	uint8_t tr[64];
	poly s1[L];
	poly s2[K];
	poly t0[K];
};

/* skEncode (algorithm 24). */
static void
sk_encode(uint8_t *out, const struct sk *sk)
{
	memcpy(out, sk->rho, 32);
	memcpy(out + 32, sk->key, 32);
	memcpy(out + 64, sk->tr, 64);
	out = mldsa_pack(out + 128, sk->s1, L, 3, ETA, -1);
	out = mldsa_pack(out, sk->s2, K, 3, ETA, -1);
	mldsa_pack(out, sk->t0, K, 13, 1 << (D - 1), -1);
}

/* skDecode (algorithm 25). A field of s1 or s2 above 2 eta (three bits
 * hold up to 7) makes no key KeyGen could have made: refused, the
 * refusal revealed and nothing else. */
static int
sk_decode(struct sk *sk, const uint8_t *in)
{
	uint32_t bad = 0;
	int i, j, refuse;

	memcpy(sk->rho, in, 32);
	memcpy(sk->key, in + 32, 32);
	memcpy(sk->tr, in + 64, 64);
	in = mldsa_unpack(sk->s1, L, in + 128, 3, ETA, -1);
	in = mldsa_unpack(sk->s2, K, in, 3, ETA, -1);
	mldsa_unpack(sk->t0, K, in, 13, 1 << (D - 1), -1);
	for (i = 0; i < L; i++)
		for (j = 0; j < N; j++)
			bad |= (uint32_t)(sk->s1[i].c[j] + ETA) >> 31;
	for (i = 0; i < K; i++)
		for (j = 0; j < N; j++)
			bad |= (uint32_t)(sk->s2[i].c[j] + ETA) >> 31;
	refuse = (int)bad;
	CT_PUBLIC(&refuse, sizeof(refuse));
	return refuse ? -1 : 0;
}

/* The working state of key generation and signing, on the heap (it is
 * some 60 KiB) and wiped before it is freed. */
struct work {
	poly a[K][L];
	struct sk sk;
	poly s1hat[L], s2hat[K], t0hat[K];
	poly y[L], yhat[L], z[L];
	poly w[K], w1[K], r0[K], ct0[K], h[K];
	poly c, chat, tmp;
	uint8_t seeds[128];
	uint8_t mu[64], rhopp[64];
	uint8_t ctilde[CTILDE];
};

static struct work *
work_new(void)
{
	return calloc(1, sizeof(struct work));
}

static void
work_free(struct work *w)
{
	if (w == NULL)
		return;
	OPENSSL_cleanse(w, sizeof(*w));
	free(w);
}

int
mldsa44_keygen(uint8_t pk[MLDSA44_PK_LEN], uint8_t *skout,
    const uint8_t xi[MLDSA44_SEED_LEN])
{
	static const uint8_t kl[2] = { K, L };
	struct work *w;
	poly *t1;
	int i, j;

	if ((w = work_new()) == NULL)
		return -1;
	/* (rho, rho', K) = H(xi || k || l, 128). */
	mldsa_shake256_3(w->seeds, 128, xi, MLDSA44_SEED_LEN, kl, 2, NULL, 0);
	memcpy(w->sk.rho, w->seeds, 32);
	memcpy(w->sk.key, w->seeds + 96, 32);
	/* rho is the public key's first 32 bytes. */
	CT_PUBLIC(w->sk.rho, sizeof(w->sk.rho));
	mldsa_expand_a(w->a, w->sk.rho);
	for (i = 0; i < L; i++)
		rej_bounded_poly(&w->sk.s1[i], w->seeds + 32, (uint16_t)i);
	for (i = 0; i < K; i++)
		rej_bounded_poly(&w->sk.s2[i], w->seeds + 32, (uint16_t)(L + i));
	for (i = 0; i < L; i++) {
		w->s1hat[i] = w->sk.s1[i];
		mldsa_ntt(&w->s1hat[i]);
	}
	t1 = w->w1;
	for (i = 0; i < K; i++) {
		mldsa_mat_row(&w->w[i], w->a[i], w->s1hat, &w->tmp);
		mldsa_invntt(&w->w[i]);
		mldsa_poly_add(&w->w[i], &w->w[i], &w->sk.s2[i]);
		for (j = 0; j < N; j++)
			t1[i].c[j] = power2round(&w->sk.t0[i].c[j],
			    freeze(w->w[i].c[j]));
	}
	/* t1 is public: pkEncode (algorithm 22). */
	CT_PUBLIC(t1, sizeof(w->w1));
	memcpy(pk, w->sk.rho, 32);
	mldsa_pack(pk + 32, t1, K, 10, 0, 1);
	mldsa44_shake(256, pk, MLDSA44_PK_LEN, w->sk.tr, 64);
	if (skout != NULL)
		sk_encode(skout, &w->sk);
	work_free(w);
	return 0;
}

/* HintBitPack (algorithm 20). */
static void
hint_encode(uint8_t *out, const poly h[K])
{
	int i, j, n = 0;

	memset(out, 0, OMEGA + K);
	for (i = 0; i < K; i++) {
		for (j = 0; j < N; j++)
			if (h[i].c[j] != 0)
				out[n++] = (uint8_t)j;
		out[OMEGA + i] = (uint8_t)n;
	}
}

/* Sign_internal (FIPS 204 algorithm 7), steps 1 to 7: the key decoded
 * and its vectors in the NTT domain, A expanded, mu and rho'' derived
 * from pre || m. -1 if skin does not decode. */
static int
sign_prepare(struct work *w, const uint8_t *skin, const uint8_t *pre,
    size_t prelen, const uint8_t *m, size_t mlen,
    const uint8_t rnd[MLDSA44_RND_LEN])
{
	int i;

	if (sk_decode(&w->sk, skin) != 0)
		return -1;
	CT_PUBLIC(w->sk.rho, sizeof(w->sk.rho));
	for (i = 0; i < L; i++) {
		w->s1hat[i] = w->sk.s1[i];
		mldsa_ntt(&w->s1hat[i]);
	}
	for (i = 0; i < K; i++) {
		w->s2hat[i] = w->sk.s2[i];
		mldsa_ntt(&w->s2hat[i]);
		w->t0hat[i] = w->sk.t0[i];
		mldsa_ntt(&w->t0hat[i]);
	}
	mldsa_expand_a(w->a, w->sk.rho);
	mldsa_mu(w->mu, w->sk.tr, pre, prelen, m, mlen);
	/* rho'' = H(K || rnd || mu, 64). */
	mldsa_shake256_3(w->rhopp, 64, w->sk.key, 32, rnd, MLDSA44_RND_LEN,
	    w->mu, 64);
	return 0;
}

/* Steps 11 to 17: the mask y for kappa, the commitment w and its high
 * bits w1, the challenge c~ (public) and c, in the NTT domain too. */
static void
sign_commit(struct work *w, uint16_t kappa)
{
	int i, j;

	expand_mask(w->y, w->rhopp, kappa);
	for (i = 0; i < L; i++) {
		w->yhat[i] = w->y[i];
		mldsa_ntt(&w->yhat[i]);
	}
	for (i = 0; i < K; i++) {
		mldsa_mat_row(&w->w[i], w->a[i], w->yhat, &w->tmp);
		mldsa_invntt(&w->w[i]);
		for (j = 0; j < N; j++) {
			w->w[i].c[j] = freeze(w->w[i].c[j]);
			w->w1[i].c[j] = decompose(&w->tmp.c[j],
			    w->w[i].c[j]);
		}
	}
	mldsa_challenge(w->ctilde, w->mu, w->w1);
	CT_PUBLIC(w->ctilde, sizeof(w->ctilde));
	mldsa_sample_in_ball(&w->c, w->ctilde);
	w->chat = w->c;
	mldsa_ntt(&w->chat);
}

/* Steps 18 to 23: z = y + c s1; r0 = LowBits(w - c s2). Whether either
 * is too large (made public: the round is then retried). */
static int
sign_response(struct work *w)
{
	int i, j, reject = 0;

	for (i = 0; i < L; i++) {
		mldsa_pointwise(&w->z[i], &w->chat, &w->s1hat[i]);
		mldsa_invntt(&w->z[i]);
		for (j = 0; j < N; j++)
			w->z[i].c[j] = w->y[i].c[j] +
			    centre(w->z[i].c[j]);
		reject |= mldsa_poly_exceeds(&w->z[i], GAMMA1 - BETA);
	}
	for (i = 0; i < K; i++) {
		/* w - c s2, kept in r0 for the hint below. */
		mldsa_pointwise(&w->tmp, &w->chat, &w->s2hat[i]);
		mldsa_invntt(&w->tmp);
		for (j = 0; j < N; j++)
			w->r0[i].c[j] = freeze(w->w[i].c[j] -
			    centre(w->tmp.c[j]));
		for (j = 0; j < N; j++)
			decompose(&w->tmp.c[j], w->r0[i].c[j]);
		reject |= mldsa_poly_exceeds(&w->tmp, GAMMA2 - BETA);
	}
	CT_PUBLIC(&reject, sizeof(reject));
	return reject;
}

/* Steps 25 to 28: h = MakeHint(-c t0, w - c s2 + c t0) (algorithm 39):
 * whether the high bits of w - c s2 + c t0 and of w - c s2 differ.
 * Whether c t0 is too large or h has more than OMEGA ones (public). */
static int
sign_hint(struct work *w)
{
	uint32_t ones = 0;
	int i, j, reject = 0;

	for (i = 0; i < K; i++) {
		mldsa_pointwise(&w->ct0[i], &w->chat, &w->t0hat[i]);
		mldsa_invntt(&w->ct0[i]);
		for (j = 0; j < N; j++) {
			int32_t c0 = centre(w->ct0[i].c[j]), lo;
			int32_t hi1 = decompose(&lo,
			    freeze(w->r0[i].c[j] + c0));
			int32_t hi2 = decompose(&lo, w->r0[i].c[j]);

			w->ct0[i].c[j] = c0;
			w->h[i].c[j] = (int32_t)
			    (((uint32_t)(hi1 ^ hi2) | (uint32_t)-(hi1 ^ hi2)) >> 31);
			ones += (uint32_t)w->h[i].c[j];
		}
		reject |= mldsa_poly_exceeds(&w->ct0[i], GAMMA2);
	}
	reject |= (int)((OMEGA - ones) >> 31);
	CT_PUBLIC(&reject, sizeof(reject));
	return reject;
}

/* Step 33: accepted, z and h are the signature, public from here
 * (sigEncode, algorithm 26). */
static void
sign_encode(uint8_t sig[MLDSA44_SIG_LEN], struct work *w)
{
	CT_PUBLIC(w->h, sizeof(w->h));
	memcpy(sig, w->ctilde, CTILDE);
	mldsa_pack(sig + CTILDE, w->z, L, 18, GAMMA1, -1);
	hint_encode(sig + CTILDE + L * Z_BYTES, w->h);
}

/* Sign_internal (algorithm 7) over pre || m, pre being the pure form's
 * 0 || |ctx| || ctx (empty for the internal interface): steps 10 to 32
 * are the loop, a round rejected at step 23 or 28 tried again with kappa
 * advanced by L (step 31), at most MLDSA44_SIGN_MAX_ROUNDS times. */
static int
sign_core(uint8_t sig[MLDSA44_SIG_LEN], const uint8_t *skin,
    const uint8_t *pre, size_t prelen, const uint8_t *m, size_t mlen,
    const uint8_t rnd[MLDSA44_RND_LEN])
{
	struct work *w;
	int rounds, ret = -1;
	uint16_t kappa = 0;

	if ((w = work_new()) == NULL)
		return -1;
	if (sign_prepare(w, skin, pre, prelen, m, mlen, rnd) != 0)
		goto out;
	for (rounds = 0; rounds < MLDSA44_SIGN_MAX_ROUNDS; rounds++,
	    kappa += L) {
		sign_commit(w, kappa);
		if (sign_response(w) || sign_hint(w))
			continue;
		sign_encode(sig, w);
		ret = 0;
		break;
	}
 out:
	work_free(w);
	return ret;
}

int
mldsa44_sign_internal(uint8_t sig[MLDSA44_SIG_LEN],
    const uint8_t sk[MLDSA44_SK_LEN], const uint8_t *m, size_t mlen,
    const uint8_t rnd[MLDSA44_RND_LEN])
{
	return sign_core(sig, sk, NULL, 0, m, mlen, rnd);
}

int
mldsa44_sign(uint8_t sig[MLDSA44_SIG_LEN], const uint8_t sk[MLDSA44_SK_LEN],
    const uint8_t *m, size_t mlen, const uint8_t *ctx, size_t ctxlen,
    const uint8_t rnd[MLDSA44_RND_LEN])
{
	uint8_t pre[MLDSA_PRE_MAX];
	size_t prelen;

	if ((prelen = mldsa_pre(pre, ctx, ctxlen)) == 0)
		return -1;
	return sign_core(sig, sk, pre, prelen, m, mlen, rnd);
}

int
mldsa44_sign_seed(uint8_t sig[MLDSA44_SIG_LEN],
    const uint8_t xi[MLDSA44_SEED_LEN], const uint8_t *m, size_t mlen,
    const uint8_t *ctx, size_t ctxlen, const uint8_t rnd[MLDSA44_RND_LEN])
{
	uint8_t pk[MLDSA44_PK_LEN], *sk;
	int r;

	if ((sk = malloc(MLDSA44_SK_LEN)) == NULL)
		return -1;
	r = mldsa44_keygen(pk, sk, xi);
	if (r == 0)
		r = mldsa44_sign(sig, sk, m, mlen, ctx, ctxlen, rnd);
	OPENSSL_cleanse(sk, MLDSA44_SK_LEN);
	free(sk);
	return r;
}
