/*
 * mldsa44_common.c - ML-DSA-44 (FIPS 204, August 2024): what signing and
 * verifying share (crypto/mldsa44_int.h). Algorithm numbers in the
 * comments are those of FIPS 204.
 *
 * Keccak is our own: OpenSSL 3.0's EVP gives SHAKE only as one squeeze of
 * a length fixed in advance, and the rejection samplers (RejNTTPoly,
 * RejBoundedPoly, SampleInBall) read a stream of unknown length. A hand
 * Keccak-f[1600] streams, cannot fail, allocates nothing, and has no
 * data-dependent branch or index; the unit tests hold it against
 * OpenSSL's SHAKE.
 */
#include "crypto/mldsa44_int.h"

#include <openssl/crypto.h>
#include <string.h>

#ifdef MLDSA44_CTGRIND
/* Set by tests/unit/test_mldsa_ct.c to show that valgrind sees a
 * secret-dependent memory index (ct_abs); that test's copy only. */
static int ct_leaky;
#endif

/* ------------------------------------------------------------ Keccak */

static const uint64_t keccak_rc[24] = {
	0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
	0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
	0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
	0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
	0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
	0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
	0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
	0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/* rho's rotation of lane (x, y), indexed x + 5y. */
static const unsigned keccak_rot[25] = {
	0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39,
	41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

static uint64_t
rol64(uint64_t v, unsigned n)
{
	return (v << n) | (v >> ((64 - n) & 63));
}

static void
keccak_f(uint64_t a[25])
{
	uint64_t b[25], c[5], d;
	int r, x, y;

	for (r = 0; r < 24; r++) {
		for (x = 0; x < 5; x++)
			c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
		for (x = 0; x < 5; x++) {
			d = c[(x + 4) % 5] ^ rol64(c[(x + 1) % 5], 1);
			for (y = 0; y < 5; y++)
				a[x + 5 * y] ^= d;
		}
		/* rho and pi: lane (x, y) goes to (y, 2x + 3y). */
		for (x = 0; x < 5; x++)
			for (y = 0; y < 5; y++)
				b[y + 5 * ((2 * x + 3 * y) % 5)] =
				    rol64(a[x + 5 * y], keccak_rot[x + 5 * y]);
		for (y = 0; y < 5; y++)
			for (x = 0; x < 5; x++)
				a[x + 5 * y] = b[x + 5 * y] ^
				    (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
		a[0] ^= keccak_rc[r];
	}
	OPENSSL_cleanse(b, sizeof(b));
	OPENSSL_cleanse(c, sizeof(c));
}

void
mldsa_keccak_init(struct keccak *k, size_t rate)
{
	memset(k, 0, sizeof(*k));
	k->rate = rate;
}

void
mldsa_keccak_absorb(struct keccak *k, const uint8_t *in, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		k->s[k->pos / 8] ^= (uint64_t)in[i] << (8 * (k->pos % 8));
		if (++k->pos == k->rate) {
			keccak_f(k->s);
			k->pos = 0;
		}
	}
}

/* SHAKE's padding: the domain bits 1111 then pad10*1. */
void
mldsa_keccak_finish(struct keccak *k)
{
	k->s[k->pos / 8] ^= (uint64_t)0x1f << (8 * (k->pos % 8));
	k->s[(k->rate - 1) / 8] ^= (uint64_t)0x80 << (8 * ((k->rate - 1) % 8));
	keccak_f(k->s);
	k->pos = 0;
}

void
mldsa_keccak_squeeze(struct keccak *k, uint8_t *out, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (k->pos == k->rate) {
			keccak_f(k->s);
			k->pos = 0;
		}
		out[i] = (uint8_t)(k->s[k->pos / 8] >> (8 * (k->pos % 8)));
		k->pos++;
	}
}

void
mldsa_keccak_wipe(struct keccak *k)
{
	OPENSSL_cleanse(k, sizeof(*k));
}

void
mldsa44_shake(int bits, const uint8_t *in, size_t inlen, uint8_t *out,
    size_t outlen)
{
	struct keccak k;

	mldsa_keccak_init(&k, bits == 128 ? SHAKE128_RATE : SHAKE256_RATE);
	mldsa_keccak_absorb(&k, in, inlen);
	mldsa_keccak_finish(&k);
	mldsa_keccak_squeeze(&k, out, outlen);
	mldsa_keccak_wipe(&k);
}

/* H (SHAKE256) of up to three pieces. */
void
mldsa_shake256_3(uint8_t *out, size_t outlen, const uint8_t *a, size_t alen,
    const uint8_t *b, size_t blen, const uint8_t *c, size_t clen)
{
	struct keccak k;

	mldsa_keccak_init(&k, SHAKE256_RATE);
	mldsa_keccak_absorb(&k, a, alen);
	if (blen != 0)
		mldsa_keccak_absorb(&k, b, blen);
	if (clen != 0)
		mldsa_keccak_absorb(&k, c, clen);
	mldsa_keccak_finish(&k);
	mldsa_keccak_squeeze(&k, out, outlen);
	mldsa_keccak_wipe(&k);
}

size_t
mldsa_pre(uint8_t pre[MLDSA_PRE_MAX], const uint8_t *ctx, size_t ctxlen)
{
	if (ctxlen > MLDSA44_CTX_MAX)
		return 0;
	pre[0] = 0;
	pre[1] = (uint8_t)ctxlen;
	if (ctxlen != 0)
		memcpy(pre + 2, ctx, ctxlen);
	return 2 + ctxlen;
}

void
mldsa_mu(uint8_t mu[64], const uint8_t tr[64], const uint8_t *pre,
    size_t prelen, const uint8_t *m, size_t mlen)
{
	struct keccak k;

	mldsa_keccak_init(&k, SHAKE256_RATE);
	mldsa_keccak_absorb(&k, tr, 64);
	mldsa_keccak_absorb(&k, pre, prelen);
	mldsa_keccak_absorb(&k, m, mlen);
	mldsa_keccak_finish(&k);
	mldsa_keccak_squeeze(&k, mu, 64);
	mldsa_keccak_wipe(&k);
}

/* ------------------------------------------------------- arithmetic */

/* a * 2^-32 mod q, in (-q, q), for |a| < 2^31 q. */
static int32_t
mont_reduce(int64_t a)
{
	int32_t t;

	t = (int32_t)((uint32_t)a * (uint32_t)QINV);
	return (int32_t)((a - (int64_t)t * Q) >> 32);
}

/* |a|, without a branch (with a secret memory index in
 * tests/unit/test_mldsa_ct.c's copy when it asks, to show that valgrind
 * sees it). */
static int32_t
ct_abs(int32_t a)
{
	int32_t m = a >> 31;

#ifdef MLDSA44_CTGRIND
	/* A table look-up at a secret index (a branch the compiler would
	 * turn into a conditional move, which memcheck does not report). */
	if (ct_leaky) {
		static volatile int32_t zero[16];

		return (a ^ m) - m + zero[a & 15];
	}
#endif
	return (a ^ m) - m;
}

/* zeta^brv8(m) * 2^32 mod q, centred; zeta = 1753 (FIPS 204 appendix B,
 * in Montgomery form). */
static const int32_t zetas[N] = {
	-4186625, 25847, -2608894, -518909, 237124, -777960, -876248, 466468,
	1826347, 2353451, -359251, -2091905, 3119733, -2884855, 3111497, 2680103,
	2725464, 1024112, -1079900, 3585928, -549488, -1119584, 2619752, -2108549,
	-2118186, -3859737, -1399561, -3277672, 1757237, -19422, 4010497, 280005,
	2706023, 95776, 3077325, 3530437, -1661693, -3592148, -2537516, 3915439,
	-3861115, -3043716, 3574422, -2867647, 3539968, -300467, 2348700, -539299,
	-1699267, -1643818, 3505694, -3821735, 3507263, -2140649, -1600420, 3699596,
	811944, 531354, 954230, 3881043, 3900724, -2556880, 2071892, -2797779,
	-3930395, -1528703, -3677745, -3041255, -1452451, 3475950, 2176455, -1585221,
	-1257611, 1939314, -4083598, -1000202, -3190144, -3157330, -3632928, 126922,
	3412210, -983419, 2147896, 2715295, -2967645, -3693493, -411027, -2477047,
	-671102, -1228525, -22981, -1308169, -381987, 1349076, 1852771, -1430430,
	-3343383, 264944, 508951, 3097992, 44288, -1100098, 904516, 3958618,
	-3724342, -8578, 1653064, -3249728, 2389356, -210977, 759969, -1316856,
	189548, -3553272, 3159746, -1851402, -2409325, -177440, 1315589, 1341330,
	1285669, -1584928, -812732, -1439742, -3019102, -3881060, -3628969, 3839961,
	2091667, 3407706, 2316500, 3817976, -3342478, 2244091, -2446433, -3562462,
	266997, 2434439, -1235728, 3513181, -3520352, -3759364, -1197226, -3193378,
	900702, 1859098, 909542, 819034, 495491, -1613174, -43260, -522500,
	-655327, -3122442, 2031748, 3207046, -3556995, -525098, -768622, -3595838,
	342297, 286988, -2437823, 4108315, 3437287, -3342277, 1735879, 203044,
	2842341, 2691481, -2590150, 1265009, 4055324, 1247620, 2486353, 1595974,
	-3767016, 1250494, 2635921, -3548272, -2994039, 1869119, 1903435, -1050970,
	-1333058, 1237275, -3318210, -1430225, -451100, 1312455, 3306115, -1962642,
	-1279661, 1917081, -2546312, -1374803, 1500165, 777191, 2235880, 3406031,
	-542412, -2831860, -1671176, -1846953, -2584293, -3724270, 594136, -3776993,
	-2013608, 2432395, 2454455, -164721, 1957272, 3369112, 185531, -1207385,
	-3183426, 162844, 1616392, 3014001, 810149, 1652634, -3694233, -1799107,
	-3038916, 3523897, 3866901, 269760, 2213111, -975884, 1717735, 472078,
	-426683, 1723600, -1803090, 1910376, -1667432, -1104333, -260646, -3833893,
	-2939036, -2235985, -420899, -2286327, 183443, -976891, 1612842, -3545687,
	-554416, 3919660, -48306, -1362209, 3937738, 1400424, -846154, 1976782,
};

void
mldsa_ntt(poly *p)
{
	int len, start, j, m = 0;
	int32_t z, t;

	for (len = 128; len >= 1; len >>= 1) {
		for (start = 0; start < N; start += 2 * len) {
			z = zetas[++m];
			for (j = start; j < start + len; j++) {
				t = mont_reduce((int64_t)z * p->c[j + len]);
				p->c[j + len] = p->c[j] - t;
				p->c[j] = p->c[j] + t;
			}
		}
	}
}

void
mldsa_invntt(poly *p)
{
	int len, start, j, m = N;
	int32_t z, t, u;

	for (j = 0; j < N; j++)
		p->c[j] = reduce32(p->c[j]);
	for (len = 1; len < N; len <<= 1) {
		for (start = 0; start < N; start += 2 * len) {
			z = -zetas[--m];
			for (j = start; j < start + len; j++) {
				t = p->c[j];
				u = p->c[j + len];
				p->c[j] = reduce32(t + u);
				p->c[j + len] = mont_reduce((int64_t)z * (t - u));
			}
		}
	}
	for (j = 0; j < N; j++)
		p->c[j] = mont_reduce((int64_t)F_INV * p->c[j]);
}

void
mldsa_pointwise(poly *r, const poly *a, const poly *b)
{
	int i;

	for (i = 0; i < N; i++)
		r->c[i] = mont_reduce((int64_t)a->c[i] * b->c[i]);
}

void
mldsa_poly_add(poly *r, const poly *a, const poly *b)
{
	int i;

	for (i = 0; i < N; i++)
		r->c[i] = a->c[i] + b->c[i];
}

void
mldsa_poly_sub(poly *r, const poly *a, const poly *b)
{
	int i;

	for (i = 0; i < N; i++)
		r->c[i] = a->c[i] - b->c[i];
}

int
mldsa_poly_exceeds(const poly *p, int32_t bound)
{
	uint32_t bad = 0;
	int i;

	for (i = 0; i < N; i++)
		bad |= (uint32_t)(bound - 1 - ct_abs(p->c[i])) >> 31;
	return (int)bad;
}

void
mldsa_mat_row(poly *r, const poly a[L], const poly b[L], poly *tmp)
{
	int j;

	mldsa_pointwise(r, &a[0], &b[0]);
	for (j = 1; j < L; j++) {
		mldsa_pointwise(tmp, &a[j], &b[j]);
		mldsa_poly_add(r, r, tmp);
	}
}

/* ------------------------------------------------------ bit packing */

/* Every coefficient goes through the same shifts whatever its value (the
 * loop's shape depends on bits alone): secret coefficients (s1, s2, t0,
 * y) are packed and unpacked here too. */
uint8_t *
mldsa_pack(uint8_t *out, const poly *p, int n, unsigned bits, int32_t b,
    int32_t sgn)
{
	uint64_t acc = 0;
	unsigned have = 0;
	int i;

	for (i = 0; i < n * N; i++) {
		acc |= (uint64_t)(uint32_t)(b + sgn * p[i / N].c[i % N]) <<
		    have;
		for (have += bits; have >= 8; have -= 8) {
			*out++ = (uint8_t)acc;
			acc >>= 8;
		}
	}
	return out;
}

const uint8_t *
mldsa_unpack(poly *p, int n, const uint8_t *in, unsigned bits, int32_t b,
    int32_t sgn)
{
	uint64_t acc = 0;
	unsigned have = 0;
	int i;

	for (i = 0; i < n * N; i++) {
		for (; have < bits; have += 8)
			acc |= (uint64_t)*in++ << have;
		p[i / N].c[i % N] =
		    sgn * ((int32_t)(acc & ((1U << bits) - 1)) - b);
		acc >>= bits;
		have -= bits;
	}
	return in;
}

/* ----------------------------------------------------------- sampling */

/* RejNTTPoly (algorithm 30) of rho || s || r: A[r][s]. */
static void
rej_ntt_poly(poly *a, const uint8_t rho[32], uint8_t s, uint8_t r)
{
	struct keccak k;
	uint8_t b[3], idx[2] = { s, r };
	int j = 0;
	int32_t z;

	mldsa_keccak_init(&k, SHAKE128_RATE);
	mldsa_keccak_absorb(&k, rho, 32);
	mldsa_keccak_absorb(&k, idx, 2);
	mldsa_keccak_finish(&k);
	while (j < N) {
		mldsa_keccak_squeeze(&k, b, 3);
		z = (int32_t)b[0] | (int32_t)b[1] << 8 | (int32_t)(b[2] & 0x7f) << 16;
		if (z < Q)
			a->c[j++] = z;
	}
}

void
mldsa_expand_a(poly a[K][L], const uint8_t rho[32])
{
	int r, s;

	for (r = 0; r < K; r++)
		for (s = 0; s < L; s++)
			rej_ntt_poly(&a[r][s], rho, (uint8_t)s, (uint8_t)r);
}

void
mldsa_sample_in_ball(poly *c, const uint8_t ctilde[CTILDE])
{
	struct keccak k;
	uint8_t s[8], j;
	uint64_t signs = 0;
	int i;

	mldsa_keccak_init(&k, SHAKE256_RATE);
	mldsa_keccak_absorb(&k, ctilde, CTILDE);
	mldsa_keccak_finish(&k);
	mldsa_keccak_squeeze(&k, s, 8);
	for (i = 0; i < 8; i++)
		signs |= (uint64_t)s[i] << (8 * i);
	memset(c, 0, sizeof(*c));
	for (i = N - TAU; i < N; i++) {
		do
			mldsa_keccak_squeeze(&k, &j, 1);
		while (j > i);
		c->c[i] = c->c[j];
		c->c[j] = 1 - 2 * (int32_t)(signs & 1);
		signs >>= 1;
	}
}

/* w1Encode (algorithm 28) is SimpleBitPack of each w1[i], six bits; w1
 * comes from y, so its buffer is wiped. */
void
mldsa_challenge(uint8_t ctilde[CTILDE], const uint8_t mu[64],
    const poly w1[K])
{
	uint8_t buf[K * W1_BYTES];

	mldsa_pack(buf, w1, K, 6, 0, 1);
	mldsa_shake256_3(ctilde, CTILDE, mu, 64, buf, sizeof(buf), NULL, 0);
	OPENSSL_cleanse(buf, sizeof(buf));
}
