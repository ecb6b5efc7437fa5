/*
 * mldsa44_int.h - what the three parts of ML-DSA-44 share: the
 * parameters of FIPS 204 table 1 for ML-DSA-44, the polynomial type,
 * Keccak, and the arithmetic and encodings both signing and verifying
 * use (crypto/mldsa44_common.c). Verification (crypto/mldsa44.c) is what
 * policy links; key generation and signing (crypto/mldsa44_sign.c) are
 * the keyholder's alone, kept in a file of their own so that policy's
 * link takes none of them (tests/integration/90-keyward-procs.t reads
 * keyward-policy with nm).
 *
 * Secret data (the seed, rho', K, s1, s2, t0, y, w, the private key and
 * every value computed from them) never steers a branch or a memory
 * index in any of the three files. What FIPS 204 lets a signer reveal is
 * marked CT_PUBLIC: the outcome of each rejection test (section 3.6.3:
 * rejected candidates carry no information about the key that an
 * attacker can use), and the challenge c~, a hash output that becomes
 * part of the signature. tests/unit/test_mldsa_ct.c includes the three
 * files, runs key generation and signing under valgrind with the seed
 * marked undefined; CT_PUBLIC is where it is told that a value may be
 * revealed, and nowhere else.
 *
 * Arithmetic: coefficients are int32_t; products are reduced with
 * Montgomery reduction (R = 2^32), sums with reduce32 (a multiply-free
 * approximation of division by q), neither with a branch or a division.
 */
#ifndef KEYWARD_MLDSA44_INT_H
#define KEYWARD_MLDSA44_INT_H

#include "crypto/mldsa44.h"

#include <stddef.h>
#include <stdint.h>

#ifdef MLDSA44_CTGRIND
#include <valgrind/memcheck.h>
#define CT_PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
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

void mldsa_keccak_init(struct keccak *, size_t rate);
void mldsa_keccak_absorb(struct keccak *, const uint8_t *, size_t);
/* SHAKE's padding; squeezing may follow. */
void mldsa_keccak_finish(struct keccak *);
void mldsa_keccak_squeeze(struct keccak *, uint8_t *, size_t);
void mldsa_keccak_wipe(struct keccak *);
/* H (SHAKE256) of up to three pieces (a later one may be empty). */
void mldsa_shake256_3(uint8_t *out, size_t outlen, const uint8_t *a,
    size_t alen, const uint8_t *b, size_t blen, const uint8_t *c,
    size_t clen);
/* The pure form's prefix of the message, 0 || |ctx| || ctx (ML-DSA.Sign,
 * algorithm 2, and ML-DSA.Verify, algorithm 3): its length, 0 for a
 * context longer than MLDSA44_CTX_MAX. */
#define MLDSA_PRE_MAX (2 + MLDSA44_CTX_MAX)
size_t mldsa_pre(uint8_t pre[MLDSA_PRE_MAX], const uint8_t *ctx,
    size_t ctxlen);
/* mu = H(tr || pre || m, 64): pre is the pure form's 0 || |ctx| || ctx,
 * empty for the internal interface. */
void mldsa_mu(uint8_t mu[64], const uint8_t tr[64], const uint8_t *pre,
    size_t prelen, const uint8_t *m, size_t mlen);

/* ------------------------------------------------------- arithmetic */

/* A representative of a mod q in [-6283008, 6283008], for
 * a <= 2^31 - 2^22 - 1. Inline, like the four below: they run on every
 * coefficient. */
static inline int32_t
reduce32(int32_t a)
{
	int32_t t;

	t = (a + (1 << 22)) >> 23;
	return a - t * Q;
}

/* [0, q) from (-q, q). */
static inline int32_t
caddq(int32_t a)
{
	return a + ((a >> 31) & Q);
}

static inline int32_t
freeze(int32_t a)
{
	return caddq(reduce32(a));
}

/* The centred representative, in (-(q-1)/2, (q-1)/2], of any a. */
static inline int32_t
centre(int32_t a)
{
	a = freeze(a);
	return a - (((((Q - 1) / 2) - a) >> 31) & Q);
}

/* Decompose (algorithm 36) of a in [0, q): a = a1 * 2 gamma2 + a0 with a0
 * in (-gamma2, gamma2], except that a1 = 44 becomes 0 and a0 one less.
 * a1 = floor((a + gamma2 - 1) / (2 gamma2)) by a multiplication:
 * 1477838210 = ceil(2^48 / 190464), exact for every a below 2^24
 * (tests/unit/test_mldsa.c tries all of [0, q)). */
static inline int32_t
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

/* NTT (algorithm 41): each layer adds less than q to a coefficient's
 * size, so an input below q in size leaves it below 9q. NTT^-1
 * (algorithm 42), for inputs below 2^31 - 2^22 in size: the output is in
 * (-q, q). */
void mldsa_ntt(poly *);
void mldsa_invntt(poly *);
/* r = a * b * 2^-32 in the NTT domain. */
void mldsa_pointwise(poly *r, const poly *a, const poly *b);
void mldsa_poly_add(poly *r, const poly *a, const poly *b);
void mldsa_poly_sub(poly *r, const poly *a, const poly *b);
/* 1 if some centred coefficient has |c| >= bound, else 0; every
 * coefficient is looked at. */
int mldsa_poly_exceeds(const poly *, int32_t bound);
/* r = sum_j a[j] * b[j] in the NTT domain; tmp is scratch. */
void mldsa_mat_row(poly *r, const poly a[L], const poly b[L], poly *tmp);

/* ------------------------------------------------------ bit packing */

/* n polynomials, one after another, bits bits a coefficient, little-
 * endian bit by bit. The value stored is b - c with sgn -1 (BitPack,
 * algorithm 17, every b - c in [0, 2^bits)) or c with sgn 1 and b 0
 * (SimpleBitPack, algorithm 16); the unpacking gives c back from it.
 * Each returns the position after what it wrote or read. */
uint8_t *mldsa_pack(uint8_t *out, const poly *p, int n, unsigned bits,
    int32_t b, int32_t sgn);
const uint8_t *mldsa_unpack(poly *p, int n, const uint8_t *in,
    unsigned bits, int32_t b, int32_t sgn);

/* ----------------------------------------------------------- sampling */

/* ExpandA (algorithm 32): public. */
void mldsa_expand_a(poly a[K][L], const uint8_t rho[32]);
/* SampleInBall (algorithm 29) of c~: public once revealed. */
void mldsa_sample_in_ball(poly *c, const uint8_t ctilde[CTILDE]);
/* c~ = H(mu || w1Encode(w1), lambda / 4). */
void mldsa_challenge(uint8_t ctilde[CTILDE], const uint8_t mu[64],
    const poly w1[K]);

#endif
