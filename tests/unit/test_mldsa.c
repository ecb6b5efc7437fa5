/*
 * test_mldsa.c - ML-DSA-44 (crypto/mldsa44*.c): the Keccak against
 * OpenSSL's SHAKE, Decompose and Power2Round against their definitions
 * over all of [0, q), NIST's ACVP vectors for ML-DSA-44 keyGen, sigGen
 * and sigVer (tests/unit/vectors/README), key generation against
 * @noble/post-quantum's for a fixed seed, signing and verification round trips, and refusals of
 * malformed signatures (hint encodings, z out of range, lengths,
 * contexts). tests/integration/195-mldsa-noble.t holds keyward against
 * noble both ways over thousands of keys; test_mldsa_ct runs under
 * valgrind for constant time.
 *
 * The files under test (crypto/mldsa44_common.c, mldsa44.c,
 * mldsa44_sign.c) are included so that their static helpers can be
 * reached; the archive's copies are then not linked.
 */
#include "tests/unit/tap.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>

#include "crypto/mldsa44_common.c"
#include "crypto/mldsa44.c"
#include "crypto/mldsa44_sign.c"

static void
sha256hex(const uint8_t *p, size_t n, char out[65])
{
	uint8_t d[32];
	int i;

	SHA256(p, n, d);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
unhex(const char *h, uint8_t *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sscanf(h + 2 * i, "%2hhx", &o[i]);
}

static void
test_shake(void)
{
	uint8_t in[700], a[1000], b[1000];
	size_t n;
	int bits, bad = 0;

	for (n = 0; n < sizeof(in); n++)
		in[n] = (uint8_t)(n * 131 + 7);
	for (bits = 128; bits <= 256; bits += 128) {
		/* Lengths around the rates (136, 168) and their multiples. */
		for (n = 0; n < sizeof(in); n += (n < 340 ? 1 : 17)) {
			EVP_MD_CTX *c = EVP_MD_CTX_new();

			mldsa44_shake(bits, in, n, a, sizeof(a));
			EVP_DigestInit_ex(c, bits == 128 ? EVP_shake128() :
			    EVP_shake256(), NULL);
			EVP_DigestUpdate(c, in, n);
			EVP_DigestFinalXOF(c, b, sizeof(b));
			EVP_MD_CTX_free(c);
			bad += memcmp(a, b, sizeof(b)) != 0;
		}
	}
	is_int(bad, 0, "SHAKE128/256 equal OpenSSL's, inputs 0..700 bytes, 1000 out");
}

static void
test_rounding(void)
{
	int32_t r, r0, r1, w0, w1, bad_d = 0, bad_p = 0;

	for (r = 0; r < Q; r++) {
		/* Decompose by its definition: r0 = r mod+- 2 gamma2. */
		w0 = r % (2 * GAMMA2);
		if (w0 > GAMMA2)
			w0 -= 2 * GAMMA2;
		if (r - w0 == Q - 1) {
			w1 = 0;
			w0 = w0 - 1;
		} else
			w1 = (r - w0) / (2 * GAMMA2);
		r1 = decompose(&r0, r);
		bad_d += r1 != w1 || r0 != w0;
		/* Power2Round: r0 = r mod+- 2^d. */
		w0 = r % (1 << D);
		if (w0 > (1 << (D - 1)))
			w0 -= 1 << D;
		r1 = power2round(&r0, r);
		bad_p += r0 != w0 || r1 != (r - w0) >> D;
	}
	is_int(bad_d, 0, "Decompose agrees with its definition on all of [0, q)");
	is_int(bad_p, 0, "Power2Round agrees with its definition on all of [0, q)");
}

/* SHA-256 of noble's (@noble/post-quantum 0.7.1 and 0.4.1, ml_dsa44.keygen(seed))
 * public and secret keys for two seeds. */
static const struct {
	const char *seed, *pk, *sk;
} kg[] = {
	{ "B33AAB183CD32A4B63A468529BD69FB69C8F33AA0AAFE44FD152BB5E68226951",
	  "3833ea338d0cf90df77b5f4e712cad9ab1d78e1e2be44672fffcd6f0868ef391",
	  "d6a914210782f2625d44c5a9d7b4596e69faddaa2d49f3ec4d23eaab06bf4550" },
};

static void
test_keygen(void)
{
	uint8_t xi[32], pk[MLDSA44_PK_LEN], sk[MLDSA44_SK_LEN];
	char h[65];
	size_t i;

	for (i = 0; i < sizeof(kg) / sizeof(kg[0]); i++) {
		unhex(kg[i].seed, xi, 32);
		ok(mldsa44_keygen(pk, sk, xi) == 0, "keygen %zu", i);
		sha256hex(pk, sizeof(pk), h);
		is_str(h, kg[i].pk, "keygen %zu: public key as noble's", i);
		sha256hex(sk, sizeof(sk), h);
		is_str(h, kg[i].sk, "keygen %zu: private key as noble's", i);
	}
}

static void
test_sign_verify(void)
{
	uint8_t xi[32], pk[MLDSA44_PK_LEN], sk[MLDSA44_SK_LEN];
	uint8_t sig[MLDSA44_SIG_LEN], sig2[MLDSA44_SIG_LEN], bad[MLDSA44_SIG_LEN];
	uint8_t rnd[32] = { 0 }, rnd2[32], ctx[256];
	const uint8_t *m = (const uint8_t *)"a message";
	uint8_t *hint;
	int i, flips = 0;

	memset(xi, 0x42, sizeof(xi));
	memset(ctx, 'c', sizeof(ctx));
	memset(rnd2, 0x99, sizeof(rnd2));
	mldsa44_keygen(pk, sk, xi);
	is_int(mldsa44_sign(sig, sk, m, 9, ctx, 5, rnd), 0, "sign");
	is_int(mldsa44_verify(pk, m, 9, ctx, 5, sig, sizeof(sig)), 0, "verify");
	is_int(mldsa44_sign(sig2, sk, m, 9, ctx, 5, rnd), 0, "sign again");
	ok(memcmp(sig, sig2, sizeof(sig)) == 0, "rnd = 0: deterministic");
	is_int(mldsa44_sign(sig2, sk, m, 9, ctx, 5, rnd2), 0, "hedged sign");
	ok(memcmp(sig, sig2, sizeof(sig)) != 0, "another rnd, another signature");
	is_int(mldsa44_verify(pk, m, 9, ctx, 5, sig2, sizeof(sig2)), 0,
	    "hedged signature verifies");
	is_int(mldsa44_sign_seed(sig2, xi, m, 9, ctx, 5, rnd), 0, "sign from seed");
	ok(memcmp(sig, sig2, sizeof(sig)) == 0, "from seed: the same signature");
	is_int(mldsa44_verify(pk, m, 8, ctx, 5, sig, sizeof(sig)), -1,
	    "another message: refused");
	is_int(mldsa44_verify(pk, m, 9, ctx, 4, sig, sizeof(sig)), -1,
	    "another context: refused");
	is_int(mldsa44_verify_internal(pk, m, 9, sig, sizeof(sig)), -1,
	    "internal interface: refused (no 0 || |ctx| || ctx)");
	is_int(mldsa44_verify(pk, m, 9, ctx, 5, sig, sizeof(sig) - 1), -1,
	    "short signature: refused");
	is_int(mldsa44_sign(sig2, sk, m, 9, ctx, 256, rnd), -1,
	    "256-byte context: refused to sign");
	is_int(mldsa44_verify(pk, m, 9, ctx, 256, sig, sizeof(sig)), -1,
	    "256-byte context: refused to verify");
	is_int(mldsa44_sign(sig2, sk, m, 9, ctx, 255, rnd), 0, "255-byte context");
	is_int(mldsa44_verify(pk, m, 9, ctx, 255, sig2, sizeof(sig2)), 0,
	    "255-byte context verifies");
	is_int(mldsa44_sign_internal(sig2, sk, m, 9, rnd), 0, "sign internal");
	is_int(mldsa44_verify_internal(pk, m, 9, sig2, sizeof(sig2)), 0,
	    "verify internal");
	/* Every bit of c~ and a sample of z's: each flip refused. */
	for (i = 0; i < 8 * (CTILDE + L * Z_BYTES); i += (i < 8 * CTILDE ? 1 : 37)) {
		memcpy(bad, sig, sizeof(sig));
		bad[i / 8] ^= (uint8_t)(1 << (i % 8));
		flips += mldsa44_verify(pk, m, 9, ctx, 5, bad, sizeof(bad)) == 0;
	}
	is_int(flips, 0, "no flipped bit of c~ or z verifies");

	hint = sig + CTILDE + L * Z_BYTES;
	memcpy(bad, sig, sizeof(sig));
	bad[CTILDE + L * Z_BYTES + OMEGA + K - 1] = OMEGA + 1;
	is_int(mldsa44_verify(pk, m, 9, ctx, 5, bad, sizeof(bad)), -1,
	    "hint count above omega: refused");
	memcpy(bad, sig, sizeof(sig));
	bad[CTILDE + L * Z_BYTES + OMEGA + 1] = 0;
	ok(hint[OMEGA] > 0 || hint[OMEGA + 1] > 0, "the hint has ones");
	if (hint[OMEGA] > 0)
		bad[CTILDE + L * Z_BYTES + OMEGA] = hint[OMEGA];
	bad[CTILDE + L * Z_BYTES + OMEGA + 1] = hint[OMEGA] > 0 ?
	    (uint8_t)(hint[OMEGA] - 1) : 0;
	is_int(mldsa44_verify(pk, m, 9, ctx, 5, bad, sizeof(bad)), -1,
	    "hint counts decreasing: refused");
	memcpy(bad, sig, sizeof(sig));
	bad[CTILDE + L * Z_BYTES + OMEGA - 1] = 1;
	ok(hint[OMEGA + K - 1] < OMEGA, "the hint leaves padding");
	is_int(mldsa44_verify(pk, m, 9, ctx, 5, bad, sizeof(bad)), -1,
	    "nonzero hint padding: refused");
	/* Two equal indexes in one polynomial's run of the hint. */
	for (i = 0; i < K; i++)
		if (hint[OMEGA + i] - (i ? hint[OMEGA + i - 1] : 0) >= 2)
			break;
	ok(i < K, "some polynomial's hint has two ones");
	if (i < K) {
		int at = i ? hint[OMEGA + i - 1] : 0;

		memcpy(bad, sig, sizeof(sig));
		bad[CTILDE + L * Z_BYTES + at + 1] = bad[CTILDE + L * Z_BYTES + at];
		is_int(mldsa44_verify(pk, m, 9, ctx, 5, bad, sizeof(bad)), -1,
		    "repeated hint index: refused");
	}
	/* z = gamma1 - v with v = 0: z = gamma1, beyond gamma1 - beta. */
	memcpy(bad, sig, sizeof(sig));
	bad[CTILDE] = 0;
	bad[CTILDE + 1] = 0;
	bad[CTILDE + 2] &= 0xfc;
	is_int(mldsa44_verify(pk, m, 9, ctx, 5, bad, sizeof(bad)), -1,
	    "z at gamma1: refused");
}

/* An expanded private key whose s1 holds a field above 2 eta. */
static void
test_bad_sk(void)
{
	uint8_t xi[32] = { 1 }, pk[MLDSA44_PK_LEN], sk[MLDSA44_SK_LEN];
	uint8_t sig[MLDSA44_SIG_LEN], rnd[32] = { 0 };

	mldsa44_keygen(pk, sk, xi);
	sk[128] |= 7;   /* the first s1 field: eta - 7 = -5 */
	is_int(mldsa44_sign(sig, sk, (const uint8_t *)"m", 1, NULL, 0, rnd), -1,
	    "private key with s1 out of range: refused");
}

/* tests/unit/vectors/mldsa44-acvp.txt, one case a line:
 *   keygen TC seed pk sk
 *   sign-ext TC sk ctx msg rnd sig     (pure ML-DSA.Sign)
 *   sign-int TC sk - msg rnd sig       (ML-DSA.Sign_internal)
 *   verify-ext TC pk ctx msg sig 0|1, verify-int TC pk - msg sig 0|1 */
static size_t
field(const char *h, uint8_t **out)
{
	size_t n = strcmp(h, "-") == 0 ? 0 : strlen(h) / 2;

	*out = malloc(n + 1);
	unhex(h, *out, n);
	return n;
}

static void
test_acvp(void)
{
	static char line[80000];
	char path[512], *f[8], *slash;
	uint8_t *b[6], pk[MLDSA44_PK_LEN], sk[MLDSA44_SK_LEN];
	uint8_t sig[MLDSA44_SIG_LEN];
	size_t n[6];
	int i, nf, counts[5] = { 0 }, fails[5] = { 0 }, invalid = 0, k;
	FILE *fp;

	snprintf(path, sizeof(path), "%s", __FILE__);
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, sizeof(path) - (size_t)(slash ?
	    slash + 1 - path : 0), "vectors/mldsa44-acvp.txt");
	fp = fopen(path, "r");
	ok(fp != NULL, "ACVP vectors open");
	if (fp == NULL)
		printf("# cannot open %s\n", path);
	if (fp == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		nf = 0;
		for (f[nf] = strtok(line, " \n"); f[nf] != NULL && nf < 7;
		    f[++nf] = strtok(NULL, " \n"))
			;
		for (i = 2; i < nf && i - 2 < 6; i++)
			n[i - 2] = field(f[i], &b[i - 2]);
		if (strcmp(f[0], "keygen") == 0 && nf == 5) {
			k = 0;
			fails[k] += mldsa44_keygen(pk, sk, b[0]) != 0 ||
			    n[1] != sizeof(pk) || n[2] != sizeof(sk) ||
			    memcmp(pk, b[1], sizeof(pk)) != 0 ||
			    memcmp(sk, b[2], sizeof(sk)) != 0;
		} else if (strncmp(f[0], "sign-", 5) == 0 && nf == 7) {
			k = f[0][5] == 'e' ? 1 : 2;
			if (k == 1)
				fails[k] += mldsa44_sign(sig, b[0], b[2], n[2],
				    b[1], n[1], b[3]) != 0;
			else
				fails[k] += mldsa44_sign_internal(sig, b[0], b[2],
				    n[2], b[3]) != 0;
			fails[k] += n[4] != sizeof(sig) ||
			    memcmp(sig, b[4], sizeof(sig)) != 0;
		} else if (strncmp(f[0], "verify-", 7) == 0 && nf == 7) {
			int want = strcmp(f[6], "1") == 0, got;

			k = f[0][7] == 'e' ? 3 : 4;
			if (k == 3)
				got = mldsa44_verify(b[0], b[2], n[2], b[1], n[1],
				    b[3], n[3]) == 0;
			else
				got = mldsa44_verify_internal(b[0], b[2], n[2],
				    b[3], n[3]) == 0;
			fails[k] += got != want;
			invalid += !want;
		} else {
			fails[0]++;
			k = 0;
		}
		counts[k]++;
		for (i = 2; i < nf && i - 2 < 6; i++)
			free(b[i - 2]);
	}
	fclose(fp);
	ok(counts[0] >= 4 && fails[0] == 0, "ACVP keyGen: %d of %d", counts[0] - fails[0], counts[0]);
	ok(counts[1] >= 6 && fails[1] == 0, "ACVP sigGen pure external (deterministic and hedged): %d right of %d", counts[1] - fails[1], counts[1]);
	ok(counts[2] >= 6 && fails[2] == 0, "ACVP sigGen internal: %d right of %d", counts[2] - fails[2], counts[2]);
	ok(counts[3] >= 7 && fails[3] == 0, "ACVP sigVer pure external: %d right of %d", counts[3] - fails[3], counts[3]);
	ok(counts[4] >= 7 && fails[4] == 0, "ACVP sigVer internal: %d right of %d", counts[4] - fails[4], counts[4]);
	ok(invalid >= 9, "ACVP sigVer: %d of the cases are invalid signatures", invalid);
}

int
main(void)
{
	test_acvp();
	test_shake();
	test_rounding();
	test_keygen();
	test_sign_verify();
	test_bad_sk();
	return done_testing();
}
