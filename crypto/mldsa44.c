/*
 * mldsa44.c - ML-DSA-44, written from FIPS 204 (August 2024). Algorithm
 * numbers in the comments are those of FIPS 204.
 *
 * Keccak is our own (keccak_*): OpenSSL 3.0's EVP gives SHAKE only as
 * one squeeze of a length fixed in advance, and the rejection samplers
 * (RejNTTPoly, RejBoundedPoly, SampleInBall) read a stream of unknown
 * length. A hand Keccak-f[1600] streams, cannot fail, allocates nothing,
 * and has no data-dependent branch or index; the unit tests hold it
 * against OpenSSL's SHAKE.
 *
 * Secret data (the seed, rho', K, s1, s2, t0, y, w, the private key and
 * every value computed from them) never steers a branch or a memory
 * index. What FIPS 204 lets a signer reveal is marked CT_PUBLIC: the
 * outcome of each rejection test (section 3.6.3: rejected candidates
 * carry no information about the key that an attacker can use), and the
 * challenge c~, a hash output that becomes part of the signature.
 * tests/unit/test_mldsa_ct.c runs key generation and signing under
 * valgrind with the seed marked undefined; CT_PUBLIC is where it is told
 * that a value may be revealed, and nowhere else.
 *
 * Arithmetic: coefficients are int32_t; products are reduced with
 * Montgomery reduction (R = 2^32), sums with reduce32 (a multiply-free
 * approximation of division by q), neither with a branch or a division.
 */
#include "crypto/mldsa44.h"

#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#ifdef MLDSA44_CTGRIND
#include <valgrind/memcheck.h>
#define CT_PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
/* Set by tests/unit/test_mldsa_ct.c to show that valgrind sees a
 * secret-dependent branch (ct_abs); that test's copy only. */
static int ct_leaky;
#else
#define CT_PUBLIC(p, n) do { (void)(p); (void)(n); } while (0)
#endif

#define N        256
#define Q        8380417
#define QINV     58728449        /* q^-1 mod 2^32 */
#define D        13
#define K        4
#define L        4
#define ETA      2
#define TAU      39
#define BETA     78              /* tau * eta */
#define GAMMA1   (1 << 17)
#define GAMMA2   ((Q - 1) / 88)
#define OMEGA    80
#define CTILDE   32              /* lambda / 4 */
#define F_INV    41978           /* 2^64 / 256 mod q: the inverse NTT's scale */

#define T1_BYTES   320           /* 10 bits a coefficient */
#define ETA_BYTES  96            /* 3 bits */
#define T0_BYTES   416           /* 13 bits */
#define Z_BYTES    576           /* 18 bits */
#define W1_BYTES   192           /* 6 bits */

typedef struct {
	int32_t c[N];
} poly;

/* ------------------------------------------------------------ Keccak */

#define SHAKE128_RATE 168
#define SHAKE256_RATE 136

struct keccak {
	uint64_t s[25];
	size_t pos;
	size_t rate;
};

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

static void
keccak_init(struct keccak *k, size_t rate)
{
	memset(k, 0, sizeof(*k));
	k->rate = rate;
}

static void
keccak_absorb(struct keccak *k, const uint8_t *in, size_t len)
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
static void
keccak_finish(struct keccak *k)
{
	k->s[k->pos / 8] ^= (uint64_t)0x1f << (8 * (k->pos % 8));
	k->s[(k->rate - 1) / 8] ^= (uint64_t)0x80 << (8 * ((k->rate - 1) % 8));
	keccak_f(k->s);
	k->pos = 0;
}

static void
keccak_squeeze(struct keccak *k, uint8_t *out, size_t len)
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

static void
keccak_wipe(struct keccak *k)
{
	OPENSSL_cleanse(k, sizeof(*k));
}

void
mldsa44_shake(int bits, const uint8_t *in, size_t inlen, uint8_t *out,
    size_t outlen)
{
	struct keccak k;

	keccak_init(&k, bits == 128 ? SHAKE128_RATE : SHAKE256_RATE);
	keccak_absorb(&k, in, inlen);
	keccak_finish(&k);
	keccak_squeeze(&k, out, outlen);
	keccak_wipe(&k);
}

/* H (SHAKE256) of up to three pieces. */
static void
shake256_3(uint8_t *out, size_t outlen, const uint8_t *a, size_t alen,
    const uint8_t *b, size_t blen, const uint8_t *c, size_t clen)
{
	struct keccak k;

	keccak_init(&k, SHAKE256_RATE);
	keccak_absorb(&k, a, alen);
	if (blen != 0)
		keccak_absorb(&k, b, blen);
	if (clen != 0)
		keccak_absorb(&k, c, clen);
	keccak_finish(&k);
	keccak_squeeze(&k, out, outlen);
	keccak_wipe(&k);
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

/* A representative of a mod q in [-6283008, 6283008], for
 * a <= 2^31 - 2^22 - 1. */
static int32_t
reduce32(int32_t a)
{
	int32_t t;

	t = (a + (1 << 22)) >> 23;
	return a - t * Q;
}

/* [0, q) from (-q, q). */
static int32_t
caddq(int32_t a)
{
	return a + ((a >> 31) & Q);
}

static int32_t
freeze(int32_t a)
{
	return caddq(reduce32(a));
}

/* The centred representative, in (-(q-1)/2, (q-1)/2], of any a. */
static int32_t
centre(int32_t a)
{
	a = freeze(a);
	return a - (((((Q - 1) / 2) - a) >> 31) & Q);
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

/* NTT (algorithm 41). Each layer adds less than q to a coefficient's
 * size: an input below q in size leaves it below 9q. */
static void
ntt(poly *p)
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

/* NTT^-1 (algorithm 42), for inputs below 2^31 - 2^22 in size; the
 * output is in (-q, q). */
static void
invntt(poly *p)
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

/* r = a * b * 2^-32 in the NTT domain. */
static void
pointwise(poly *r, const poly *a, const poly *b)
{
	int i;

	for (i = 0; i < N; i++)
		r->c[i] = mont_reduce((int64_t)a->c[i] * b->c[i]);
}

static void
poly_add(poly *r, const poly *a, const poly *b)
{
	int i;

	for (i = 0; i < N; i++)
		r->c[i] = a->c[i] + b->c[i];
}

static void
poly_sub(poly *r, const poly *a, const poly *b)
{
	int i;

	for (i = 0; i < N; i++)
		r->c[i] = a->c[i] - b->c[i];
}

/* 1 if some centred coefficient has |c| >= bound, else 0; every
 * coefficient is looked at. */
static int
poly_exceeds(const poly *p, int32_t bound)
{
	uint32_t bad = 0;
	int i;

	for (i = 0; i < N; i++)
		bad |= (uint32_t)(bound - 1 - ct_abs(p->c[i])) >> 31;
	return (int)bad;
}

/* Power2Round (algorithm 35) of a in [0, q): a = a1 * 2^d + a0, a0 in
 * (-2^(d-1), 2^(d-1)]. */
static int32_t
power2round(int32_t *a0, int32_t a)
{
	int32_t a1 = (a + (1 << (D - 1)) - 1) >> D;

	*a0 = a - (a1 << D);
	return a1;
}

/* Decompose (algorithm 36) of a in [0, q): a = a1 * 2 gamma2 + a0 with a0
 * in (-gamma2, gamma2], except that a1 = 44 becomes 0 and a0 one less.
 * a1 = floor((a + gamma2 - 1) / (2 gamma2)) by a multiplication:
 * 1477838210 = ceil(2^48 / 190464), exact for every a below 2^24
 * (tests/unit/test_mldsa.c tries all of [0, q)). */
static int32_t
decompose(int32_t *a0, int32_t a)
{
	int32_t a1, top;

	a1 = (int32_t)(((uint64_t)(uint32_t)(a + GAMMA2 - 1) *
	    1477838210ULL) >> 48);
	*a0 = a - a1 * 2 * GAMMA2;
	/* top: all ones when a1 == 44 ((q - 1) / (2 gamma2)). */
	top = -(int32_t)(((uint32_t)(a1 ^ 44) - 1) >> 31);
	*a0 -= top & 1;
	return a1 & ~top;
}

/* UseHint (algorithm 40); public data only. */
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

/* ------------------------------------------------------ bit packing */

/* Coefficients, each already in [0, 2^bits), little-endian bit by bit
 * (algorithm 16 SimpleBitPack, and BitPack once offset). */
static void
pack(uint8_t *out, const uint32_t *v, unsigned bits)
{
	uint64_t acc = 0;
	unsigned n = 0;
	int i;

	for (i = 0; i < N; i++) {
		acc |= (uint64_t)v[i] << n;
		n += bits;
		while (n >= 8) {
			*out++ = (uint8_t)acc;
			acc >>= 8;
			n -= 8;
		}
	}
}

static void
unpack(uint32_t *v, const uint8_t *in, unsigned bits)
{
	uint64_t acc = 0;
	unsigned n = 0;
	int i;

	for (i = 0; i < N; i++) {
		while (n < bits) {
			acc |= (uint64_t)*in++ << n;
			n += 8;
		}
		v[i] = (uint32_t)(acc & ((1U << bits) - 1));
		acc >>= bits;
		n -= bits;
	}
}

/* BitPack(w, b - ... ) with the offset form of FIPS 204: b - c. */
static void
pack_offset(uint8_t *out, const poly *p, int32_t b, unsigned bits)
{
	uint32_t v[N];
	int i;

	for (i = 0; i < N; i++)
		v[i] = (uint32_t)(b - p->c[i]);
	pack(out, v, bits);
	OPENSSL_cleanse(v, sizeof(v));
}

static void
unpack_offset(poly *p, const uint8_t *in, int32_t b, unsigned bits)
{
	uint32_t v[N];
	int i;

	unpack(v, in, bits);
	for (i = 0; i < N; i++)
		p->c[i] = b - (int32_t)v[i];
	OPENSSL_cleanse(v, sizeof(v));
}

static void
w1_encode(uint8_t out[K * W1_BYTES], const poly w1[K])
{
	uint32_t v[N];
	int i, j;

	for (i = 0; i < K; i++) {
		for (j = 0; j < N; j++)
			v[j] = (uint32_t)w1[i].c[j];
		pack(out + i * W1_BYTES, v, 6);
	}
	OPENSSL_cleanse(v, sizeof(v));
}

/* ----------------------------------------------------------- sampling */

/* RejNTTPoly (algorithm 30) of rho || s || r: A[r][s] (ExpandA,
 * algorithm 32). Public. */
static void
rej_ntt_poly(poly *a, const uint8_t rho[32], uint8_t s, uint8_t r)
{
	struct keccak k;
	uint8_t b[3], idx[2] = { s, r };
	int j = 0;
	int32_t z;

	keccak_init(&k, SHAKE128_RATE);
	keccak_absorb(&k, rho, 32);
	keccak_absorb(&k, idx, 2);
	keccak_finish(&k);
	while (j < N) {
		keccak_squeeze(&k, b, 3);
		z = (int32_t)b[0] | (int32_t)b[1] << 8 | (int32_t)(b[2] & 0x7f) << 16;
		if (z < Q)
			a->c[j++] = z;
	}
}

static void
expand_a(poly a[K][L], const uint8_t rho[32])
{
	int r, s;

	for (r = 0; r < K; r++)
		for (s = 0; s < L; s++)
			rej_ntt_poly(&a[r][s], rho, (uint8_t)s, (uint8_t)r);
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

	keccak_init(&k, SHAKE256_RATE);
	keccak_absorb(&k, rhop, 64);
	keccak_absorb(&k, idx, 2);
	keccak_finish(&k);
	while (j < N) {
		keccak_squeeze(&k, &z, 1);
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
	keccak_wipe(&k);
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
		keccak_init(&k, SHAKE256_RATE);
		keccak_absorb(&k, rhopp, 64);
		keccak_absorb(&k, idx, 2);
		keccak_finish(&k);
		keccak_squeeze(&k, buf, sizeof(buf));
		unpack_offset(&y[r], buf, GAMMA1, 18);
	}
	OPENSSL_cleanse(buf, sizeof(buf));
	keccak_wipe(&k);
}

/* SampleInBall (algorithm 29) of c~; public once revealed. */
static void
sample_in_ball(poly *c, const uint8_t ctilde[CTILDE])
{
	struct keccak k;
	uint8_t s[8], j;
	uint64_t signs = 0;
	int i;

	keccak_init(&k, SHAKE256_RATE);
	keccak_absorb(&k, ctilde, CTILDE);
	keccak_finish(&k);
	keccak_squeeze(&k, s, 8);
	for (i = 0; i < 8; i++)
		signs |= (uint64_t)s[i] << (8 * i);
	memset(c, 0, sizeof(*c));
	for (i = N - TAU; i < N; i++) {
		do
			keccak_squeeze(&k, &j, 1);
		while (j > i);
		c->c[i] = c->c[j];
		c->c[j] = 1 - 2 * (int32_t)(signs & 1);
		signs >>= 1;
	}
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

static void
pk_encode(uint8_t pk[MLDSA44_PK_LEN], const uint8_t rho[32], const poly t1[K])
{
	uint32_t v[N];
	int i, j;

	memcpy(pk, rho, 32);
	for (i = 0; i < K; i++) {
		for (j = 0; j < N; j++)
			v[j] = (uint32_t)t1[i].c[j];
		pack(pk + 32 + i * T1_BYTES, v, 10);
	}
}

static void
pk_decode(uint8_t rho[32], poly t1[K], const uint8_t pk[MLDSA44_PK_LEN])
{
	uint32_t v[N];
	int i, j;

	memcpy(rho, pk, 32);
	for (i = 0; i < K; i++) {
		unpack(v, pk + 32 + i * T1_BYTES, 10);
		for (j = 0; j < N; j++)
			t1[i].c[j] = (int32_t)v[j];
	}
}

static void
sk_encode(uint8_t *out, const struct sk *sk)
{
	int i;

	memcpy(out, sk->rho, 32);
	memcpy(out + 32, sk->key, 32);
	memcpy(out + 64, sk->tr, 64);
	out += 128;
	for (i = 0; i < L; i++, out += ETA_BYTES)
		pack_offset(out, &sk->s1[i], ETA, 3);
	for (i = 0; i < K; i++, out += ETA_BYTES)
		pack_offset(out, &sk->s2[i], ETA, 3);
	for (i = 0; i < K; i++, out += T0_BYTES)
		pack_offset(out, &sk->t0[i], 1 << (D - 1), 13);
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
	in += 128;
	for (i = 0; i < L; i++, in += ETA_BYTES)
		unpack_offset(&sk->s1[i], in, ETA, 3);
	for (i = 0; i < K; i++, in += ETA_BYTES)
		unpack_offset(&sk->s2[i], in, ETA, 3);
	for (i = 0; i < K; i++, in += T0_BYTES)
		unpack_offset(&sk->t0[i], in, 1 << (D - 1), 13);
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
	uint8_t w1buf[K * W1_BYTES];
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

/* r = sum_j a[j] * b[j] in the NTT domain. */
static void
mat_row(poly *r, const poly a[L], const poly b[L], poly *tmp)
{
	int j;

	pointwise(r, &a[0], &b[0]);
	for (j = 1; j < L; j++) {
		pointwise(tmp, &a[j], &b[j]);
		poly_add(r, r, tmp);
	}
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
	shake256_3(w->seeds, 128, xi, MLDSA44_SEED_LEN, kl, 2, NULL, 0);
	memcpy(w->sk.rho, w->seeds, 32);
	memcpy(w->sk.key, w->seeds + 96, 32);
	/* rho is the public key's first 32 bytes. */
	CT_PUBLIC(w->sk.rho, sizeof(w->sk.rho));
	expand_a(w->a, w->sk.rho);
	for (i = 0; i < L; i++)
		rej_bounded_poly(&w->sk.s1[i], w->seeds + 32, (uint16_t)i);
	for (i = 0; i < K; i++)
		rej_bounded_poly(&w->sk.s2[i], w->seeds + 32, (uint16_t)(L + i));
	for (i = 0; i < L; i++) {
		w->s1hat[i] = w->sk.s1[i];
		ntt(&w->s1hat[i]);
	}
	t1 = w->w1;
	for (i = 0; i < K; i++) {
		mat_row(&w->w[i], w->a[i], w->s1hat, &w->tmp);
		invntt(&w->w[i]);
		poly_add(&w->w[i], &w->w[i], &w->sk.s2[i]);
		for (j = 0; j < N; j++)
			t1[i].c[j] = power2round(&w->sk.t0[i].c[j],
			    freeze(w->w[i].c[j]));
	}
	/* t1 is public. */
	CT_PUBLIC(t1, sizeof(w->w1));
	pk_encode(pk, w->sk.rho, t1);
	mldsa44_shake(256, pk, MLDSA44_PK_LEN, w->sk.tr, 64);
	if (skout != NULL)
		sk_encode(skout, &w->sk);
	work_free(w);
	return 0;
}

/* mu || w1Encode(w1) hashed to c~. */
static void
challenge(struct work *w)
{
	w1_encode(w->w1buf, w->w1);
	shake256_3(w->ctilde, CTILDE, w->mu, 64, w->w1buf, sizeof(w->w1buf),
	    NULL, 0);
}

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

/* Sign_internal (algorithm 7) over pre || m, pre being the external
 * form's 0 || |ctx| || ctx (empty for the internal interface). */
static int
sign_core(uint8_t sig[MLDSA44_SIG_LEN], const uint8_t *skin,
    const uint8_t *pre, size_t prelen, const uint8_t *m, size_t mlen,
    const uint8_t rnd[MLDSA44_RND_LEN])
{
	struct keccak kc;
	struct work *w;
	uint32_t ones;
	int i, j, rounds, reject, ret = -1;
	uint16_t kappa = 0;

	if ((w = work_new()) == NULL)
		return -1;
	if (sk_decode(&w->sk, skin) != 0)
		goto out;
	CT_PUBLIC(w->sk.rho, sizeof(w->sk.rho));
	for (i = 0; i < L; i++) {
		w->s1hat[i] = w->sk.s1[i];
		ntt(&w->s1hat[i]);
	}
	for (i = 0; i < K; i++) {
		w->s2hat[i] = w->sk.s2[i];
		ntt(&w->s2hat[i]);
		w->t0hat[i] = w->sk.t0[i];
		ntt(&w->t0hat[i]);
	}
	expand_a(w->a, w->sk.rho);
	/* mu = H(tr || M', 64). */
	keccak_init(&kc, SHAKE256_RATE);
	keccak_absorb(&kc, w->sk.tr, 64);
	keccak_absorb(&kc, pre, prelen);
	keccak_absorb(&kc, m, mlen);
	keccak_finish(&kc);
	keccak_squeeze(&kc, w->mu, 64);
	keccak_wipe(&kc);
	/* rho'' = H(K || rnd || mu, 64). */
	shake256_3(w->rhopp, 64, w->sk.key, 32, rnd, MLDSA44_RND_LEN,
	    w->mu, 64);

	for (rounds = 0; rounds < MLDSA44_SIGN_MAX_ROUNDS; rounds++,
	    kappa += L) {
		expand_mask(w->y, w->rhopp, kappa);
		for (i = 0; i < L; i++) {
			w->yhat[i] = w->y[i];
			ntt(&w->yhat[i]);
		}
		for (i = 0; i < K; i++) {
			mat_row(&w->w[i], w->a[i], w->yhat, &w->tmp);
			invntt(&w->w[i]);
			for (j = 0; j < N; j++) {
				w->w[i].c[j] = freeze(w->w[i].c[j]);
				w->w1[i].c[j] = decompose(&w->tmp.c[j],
				    w->w[i].c[j]);
			}
		}
		challenge(w);
		CT_PUBLIC(w->ctilde, sizeof(w->ctilde));
		sample_in_ball(&w->c, w->ctilde);
		w->chat = w->c;
		ntt(&w->chat);

		/* z = y + c s1; r0 = LowBits(w - c s2). */
		reject = 0;
		for (i = 0; i < L; i++) {
			pointwise(&w->z[i], &w->chat, &w->s1hat[i]);
			invntt(&w->z[i]);
			for (j = 0; j < N; j++)
				w->z[i].c[j] = w->y[i].c[j] +
				    centre(w->z[i].c[j]);
			reject |= poly_exceeds(&w->z[i], GAMMA1 - BETA);
		}
		for (i = 0; i < K; i++) {
			/* w - c s2, kept in r0 for the hint below. */
			pointwise(&w->tmp, &w->chat, &w->s2hat[i]);
			invntt(&w->tmp);
			for (j = 0; j < N; j++)
				w->r0[i].c[j] = freeze(w->w[i].c[j] -
				    centre(w->tmp.c[j]));
			for (j = 0; j < N; j++)
				decompose(&w->tmp.c[j], w->r0[i].c[j]);
			reject |= poly_exceeds(&w->tmp, GAMMA2 - BETA);
		}
		CT_PUBLIC(&reject, sizeof(reject));
		if (reject)
			continue;

		/* h = MakeHint(-c t0, w - c s2 + c t0) (algorithm 39):
		 * whether the high bits of w - c s2 + c t0 and of w - c s2
		 * differ. */
		ones = 0;
		for (i = 0; i < K; i++) {
			pointwise(&w->ct0[i], &w->chat, &w->t0hat[i]);
			invntt(&w->ct0[i]);
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
			reject |= poly_exceeds(&w->ct0[i], GAMMA2);
		}
		reject |= (int)((OMEGA - ones) >> 31);
		CT_PUBLIC(&reject, sizeof(reject));
		if (reject)
			continue;

		/* Accepted: z and h are the signature, public from here. */
		CT_PUBLIC(w->h, sizeof(w->h));
		memcpy(sig, w->ctilde, CTILDE);
		for (i = 0; i < L; i++)
			pack_offset(sig + CTILDE + i * Z_BYTES, &w->z[i],
			    GAMMA1, 18);
		hint_encode(sig + CTILDE + L * Z_BYTES, w->h);
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
	uint8_t pre[2 + MLDSA44_CTX_MAX];

	if (ctxlen > MLDSA44_CTX_MAX)
		return -1;
	pre[0] = 0;
	pre[1] = (uint8_t)ctxlen;
	if (ctxlen != 0)
		memcpy(pre + 2, ctx, ctxlen);
	return sign_core(sig, sk, pre, 2 + ctxlen, m, mlen, rnd);
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

/* Verification uses the same work area; nothing in it is secret. */
static int
verify_core(const uint8_t pk[MLDSA44_PK_LEN], const uint8_t *pre,
    size_t prelen, const uint8_t *m, size_t mlen, const uint8_t *sig,
    size_t siglen)
{
	struct keccak kc;
	struct work *w;
	uint8_t rho[32], tr[64], ctilde2[CTILDE];
	poly *t1;
	int i, j, ret = -1;

	if (siglen != MLDSA44_SIG_LEN)
		return -1;
	if ((w = work_new()) == NULL)
		return -1;
	t1 = w->t0hat;
	pk_decode(rho, t1, pk);
	memcpy(w->ctilde, sig, CTILDE);
	for (i = 0; i < L; i++)
		unpack_offset(&w->z[i], sig + CTILDE + i * Z_BYTES, GAMMA1, 18);
	if (hint_decode(w->h, sig + CTILDE + L * Z_BYTES) != 0)
		goto out;
	for (i = 0; i < L; i++)
		if (poly_exceeds(&w->z[i], GAMMA1 - BETA))
			goto out;

	expand_a(w->a, rho);
	mldsa44_shake(256, pk, MLDSA44_PK_LEN, tr, 64);
	keccak_init(&kc, SHAKE256_RATE);
	keccak_absorb(&kc, tr, 64);
	keccak_absorb(&kc, pre, prelen);
	keccak_absorb(&kc, m, mlen);
	keccak_finish(&kc);
	keccak_squeeze(&kc, w->mu, 64);
	sample_in_ball(&w->c, w->ctilde);
	w->chat = w->c;
	ntt(&w->chat);
	for (i = 0; i < L; i++) {
		w->yhat[i] = w->z[i];
		ntt(&w->yhat[i]);
	}
	for (i = 0; i < K; i++) {
		/* A z - c t1 2^d. */
		for (j = 0; j < N; j++)
			t1[i].c[j] <<= D;
		ntt(&t1[i]);
		mat_row(&w->w[i], w->a[i], w->yhat, &w->tmp);
		pointwise(&w->tmp, &w->chat, &t1[i]);
		poly_sub(&w->w[i], &w->w[i], &w->tmp);
		invntt(&w->w[i]);
		for (j = 0; j < N; j++)
			w->w1[i].c[j] = use_hint(freeze(w->w[i].c[j]),
			    w->h[i].c[j]);
	}
	challenge(w);
	memcpy(ctilde2, w->ctilde, CTILDE);
	if (memcmp(ctilde2, sig, CTILDE) == 0)
		ret = 0;
 out:
	work_free(w);
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
	uint8_t pre[2 + MLDSA44_CTX_MAX];

	if (ctxlen > MLDSA44_CTX_MAX)
		return -1;
	pre[0] = 0;
	pre[1] = (uint8_t)ctxlen;
	if (ctxlen != 0)
		memcpy(pre + 2, ctx, ctxlen);
	return verify_core(pk, pre, 2 + ctxlen, m, mlen, sig, siglen);
}
