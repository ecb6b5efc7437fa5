/*
 * privkey.c - the keyholder's private EVP_PKEY objects from SSH wire
 * fields, and the signatures made with them. Private material is copied
 * into BIGNUMs and OSSL_PARAM arrays only as long as it takes to build
 * the key; every such copy is cleared before it is freed. No other
 * program links this file (tests/integration/90-keyward-procs.t checks
 * keyward-policy with nm).
 */
#include "keyholder/privkey.h"
#include "crypto/composite.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <stdlib.h>
#include <string.h>

static BIGNUM *
bn(struct slice m)
{
	return BN_bin2bn(m.p, (int)m.len, NULL);
}

static unsigned
group_bits(enum key_kind kind)
{
	switch (kind) {
	case KEY_ECDSA_P256: return 256;
	case KEY_ECDSA_P384: return 384;
	case KEY_ECDSA_P521: return 521;
	default: return 0;
	}
}

/* The private scalar d of an ECDSA key belongs to its public point Q:
 * as OpenSSH (sshkey_ec_validate_private), d has more bits than half the
 * order and is below order - 1; then Q is a point of the curve, not the
 * point at infinity, and d·G = Q. One scalar multiplication (OpenSSL's
 * constant-time ladder for the generator), no more. */
static int
ec_consistent(enum key_kind kind, const BIGNUM *d, struct slice q,
    const char **why)
{
	const EC_GROUP *g = ecsign_group(kind);   /* built once */
	EC_POINT *pub = NULL, *dg = NULL;
	BN_CTX *bnctx = BN_CTX_secure_new();
	BIGNUM *lim = NULL;
	int ok = 0;

	if (g == NULL || bnctx == NULL || (pub = EC_POINT_new(g)) == NULL ||
	    (dg = EC_POINT_new(g)) == NULL ||
	    (lim = BN_dup(EC_GROUP_get0_order(g))) == NULL || !BN_sub_word(lim, 1)) {
		*why = "out of memory";
		goto out;
	}
	if ((unsigned)BN_num_bits(d) <= group_bits(kind) / 2) {
		*why = "ECDSA private scalar is too small";
		goto out;
	}
	if (BN_cmp(d, lim) >= 0) {
		*why = "ECDSA private scalar is not below the group order minus one";
		goto out;
	}
	if (EC_POINT_oct2point(g, pub, q.p, q.len, bnctx) != 1 ||
	    EC_POINT_is_at_infinity(g, pub) || EC_POINT_is_on_curve(g, pub, bnctx) != 1) {
		*why = "ECDSA point is not a valid point of its curve";
		goto out;
	}
	if (EC_POINT_mul(g, dg, d, NULL, NULL, bnctx) != 1) {
		*why = "out of memory";
		goto out;
	}
	if (EC_POINT_cmp(g, dg, pub, bnctx) != 0) {
		*why = "ECDSA private key does not match its public key";
		goto out;
	}
	ok = 1;
out:
	BN_free(lim);
	EC_POINT_clear_free(dg);
	EC_POINT_free(pub);
	BN_CTX_free(bnctx);
	return ok ? 0 : -1;
}

static EVP_PKEY *
ecdsa_private(const struct privkey *k, int checked, const char **why)
{
	OSSL_PARAM_BLD *bld = NULL;
	BIGNUM *d = NULL;
	EVP_PKEY *pkey = NULL;

	if ((d = BN_secure_new()) == NULL ||
	    BN_bin2bn(k->ec_d.p, (int)k->ec_d.len, d) == NULL) {
		*why = "out of memory";
		goto out;
	}
	BN_set_flags(d, BN_FLG_CONSTTIME);
	if (checked && ec_consistent(k->pub.kind, d, k->pub.ec_q, why) != 0)
		goto out;
	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
	    crypto_group_name(k->pub.kind), 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
	    k->pub.ec_q.p, k->pub.ec_q.len) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d)) {
		*why = "out of memory";
		goto out;
	}
	if ((pkey = crypto_from_params("EC", EVP_PKEY_KEYPAIR, bld, 1)) == NULL) {
		*why = "bad ECDSA private key";
		goto out;
	}
out:
	OSSL_PARAM_BLD_free(bld);
	BN_clear_free(d);
	return pkey;
}

/* 1 if a mod m == 1 (m > 1); t is scratch. */
static int
is_one_mod(BIGNUM *t, const BIGNUM *a, const BIGNUM *m, BN_CTX *bnctx)
{
	return BN_mod(t, a, m, bnctx) && BN_is_one(t);
}

/* The private half of an RSA key belongs to its public half, by
 * arithmetic only: n = p·q with p, q > 1 and distinct; 1 < e < n, e odd;
 * 1 < d < n with e·d = 1 mod (p-1) and mod (q-1), which is e·d = 1 mod
 * lcm(p-1, q-1); 0 < iqmp < p with iqmp·q = 1 mod p. A few
 * multiplications and divisions, about a millisecond even for 16384
 * bits. No primality test: that p and q are prime is the adder's
 * business (OpenSSH does not test it either), and a key that passes
 * signs correctly or not at all for that client only. */
static const char *
rsa_ranges(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
    const BIGNUM *p, const BIGNUM *q, const BIGNUM *iqmp, BIGNUM *t,
    BN_CTX *bnctx)
{
	if (BN_cmp(p, BN_value_one()) <= 0 || BN_cmp(q, BN_value_one()) <= 0 ||
	    BN_cmp(p, q) == 0)
		return "RSA private key has impossible factors";
	if (!BN_mul(t, p, q, bnctx))
		return "out of memory";
	if (BN_cmp(t, n) != 0)
		return "RSA private key does not match its public key (n != p*q)";
	if (!BN_is_odd(e) || BN_is_one(e) || BN_cmp(e, n) >= 0)
		return "RSA public exponent is out of range";
	if (BN_cmp(d, BN_value_one()) <= 0 || BN_cmp(d, n) >= 0)
		return "RSA private exponent is out of range";
	if (BN_is_zero(iqmp) || BN_cmp(iqmp, p) >= 0)
		return "RSA private key is inconsistent (d, e, iqmp)";
	return NULL;
}

/* e·d = 1 mod (p-1) and mod (q-1); iqmp·q = 1 mod p. t, ed, m: scratch. */
static const char *
rsa_inverses(const BIGNUM *e, const BIGNUM *d, const BIGNUM *p,
    const BIGNUM *q, const BIGNUM *iqmp, BIGNUM *t, BIGNUM *ed, BIGNUM *m,
    BN_CTX *bnctx)
{
	static const char inconsistent[] =
	    "RSA private key is inconsistent (d, e, iqmp)";

	/* ed = e·d - 1, a multiple of p-1 and of q-1 */
	if (!BN_mul(ed, e, d, bnctx) || !BN_sub_word(ed, 1) ||
	    !BN_sub(m, p, BN_value_one()) || !BN_mod(t, ed, m, bnctx))
		return "out of memory";
	if (!BN_is_zero(t))
		return inconsistent;
	if (!BN_sub(m, q, BN_value_one()) || !BN_mod(t, ed, m, bnctx))
		return "out of memory";
	if (!BN_is_zero(t))
		return inconsistent;
	if (!BN_mul(m, iqmp, q, bnctx))
		return "out of memory";
	if (!is_one_mod(t, m, p, bnctx))
		return inconsistent;
	return NULL;
}

static int
rsa_consistent(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
    const BIGNUM *p, const BIGNUM *q, const BIGNUM *iqmp, BN_CTX *bnctx,
    const char **why)
{
	BIGNUM *t = BN_secure_new(), *ed = BN_secure_new(), *m = BN_secure_new();
	const char *bad = "out of memory";

	if (t != NULL && ed != NULL && m != NULL) {
		BN_set_flags(t, BN_FLG_CONSTTIME);
		BN_set_flags(ed, BN_FLG_CONSTTIME);
		BN_set_flags(m, BN_FLG_CONSTTIME);
		if ((bad = rsa_ranges(n, e, d, p, q, iqmp, t, bnctx)) == NULL)
			bad = rsa_inverses(e, d, p, q, iqmp, t, ed, m, bnctx);
	}
	BN_clear_free(t);
	BN_clear_free(ed);
	BN_clear_free(m);
	if (bad != NULL)
		*why = bad;
	return bad != NULL ? -1 : 0;
}

/* The key pair from its numbers, as OpenSSL's RSA provider takes them. */
static EVP_PKEY *
rsa_keypair(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
    const BIGNUM *p, const BIGNUM *q, const BIGNUM *dmp1, const BIGNUM *dmq1,
    const BIGNUM *iqmp, const char **why)
{
	OSSL_PARAM_BLD *bld;
	EVP_PKEY *pkey = NULL;

	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, d) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR1, p) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR2, q) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT1, dmp1) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT2, dmq1) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, iqmp))
		*why = "out of memory";
	else if ((pkey = crypto_from_params("RSA", EVP_PKEY_KEYPAIR, bld,
	    1)) == NULL)
		*why = "bad RSA private key";
	OSSL_PARAM_BLD_free(bld);
	return pkey;
}

int
rsa_nums_get(const struct privkey *k, struct rsa_nums *r)
{
	BIGNUM **secret[] = { &r->d, &r->p, &r->q, &r->iqmp, &r->dmp1, &r->dmq1 };
	const struct slice *from[] = { &k->rsa_d, &k->rsa_p, &k->rsa_q,
	    &k->rsa_iqmp };
	int ok;

	memset(r, 0, sizeof(*r));
	ok = (r->n = bn(k->pub.rsa_n)) != NULL && (r->e = bn(k->pub.rsa_e)) != NULL;
	for (size_t i = 0; ok && i < sizeof(secret) / sizeof(secret[0]); i++) {
		ok = (*secret[i] = BN_secure_new()) != NULL;
		if (ok && i < sizeof(from) / sizeof(from[0]))
			ok = BN_bin2bn(from[i]->p, (int)from[i]->len, *secret[i]) != NULL;
		if (ok)
			BN_set_flags(*secret[i], BN_FLG_CONSTTIME);
	}
	if (!ok)
		rsa_nums_free(r);
	return ok ? 0 : -1;
}

int
rsa_nums_crt(struct rsa_nums *r, BN_CTX *bnctx)
{
	BIGNUM *t = BN_secure_new();
	int ok;

	/* CRT exponents derived from d, p and q, as the reference does. */
	if ((ok = t != NULL)) {
		BN_set_flags(t, BN_FLG_CONSTTIME);
		ok = BN_sub(t, r->p, BN_value_one()) && BN_mod(r->dmp1, r->d, t, bnctx) &&
		    BN_sub(t, r->q, BN_value_one()) && BN_mod(r->dmq1, r->d, t, bnctx);
	}
	BN_clear_free(t);
	return ok ? 0 : -1;
}

void
rsa_nums_free(struct rsa_nums *r)
{
	BN_free(r->n);
	BN_free(r->e);
	BN_clear_free(r->d);
	BN_clear_free(r->p);
	BN_clear_free(r->q);
	BN_clear_free(r->iqmp);
	BN_clear_free(r->dmp1);
	BN_clear_free(r->dmq1);
	memset(r, 0, sizeof(*r));
}

static EVP_PKEY *
rsa_private(const struct privkey *k, int checked, const char **why)
{
	struct rsa_nums r = { 0 };
	BN_CTX *bnctx = NULL;
	EVP_PKEY *pkey = NULL;

	if ((bnctx = BN_CTX_secure_new()) == NULL || rsa_nums_get(k, &r) != 0)
		*why = "out of memory";
	else if (checked && rsa_consistent(r.n, r.e, r.d, r.p, r.q, r.iqmp,
	    bnctx, why) != 0)
		;       /* *why says which check */
	else if (rsa_nums_crt(&r, bnctx) != 0)
		*why = "bad RSA private key";
	else
		pkey = rsa_keypair(r.n, r.e, r.d, r.p, r.q, r.dmp1, r.dmq1,
		    r.iqmp, why);
	rsa_nums_free(&r);
	BN_CTX_free(bnctx);
	return pkey;
}

/* ssh-mldsa44-ed25519: checked, the two seeds must make the public key
 * (an ML-DSA-44 key generation and an Ed25519 one). The EVP_PKEY is the
 * Ed25519 half, which shows the key is usable; signing takes the seeds
 * themselves (composite_sign, keyholder/keystore.c), never this. */
static EVP_PKEY *
mldsa_private(const struct privkey *k, int checked, const char **why)
{
	uint8_t pk[MLDSA44_ED25519_PK_LEN];
	EVP_PKEY *pkey;

	if (checked && (composite_public(k->mldsa_sk.p, pk) != 0 ||
	    k->pub.mldsa_pk.len != sizeof(pk) ||
	    memcmp(pk, k->pub.mldsa_pk.p, sizeof(pk)) != 0)) {
		*why = "ML-DSA-44/Ed25519 private key does not match its public key";
		return NULL;
	}
	if ((pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL,
	    k->mldsa_sk.p + MLDSA44_SEED_LEN, 32)) == NULL)
		*why = "bad ML-DSA-44/Ed25519 private key";
	return pkey;
}

static EVP_PKEY *
build_private(const struct privkey *k, int checked, const char **why)
{
	EVP_PKEY *pkey = NULL;
	uint8_t a[32];
	size_t alen = sizeof(a);
	const char *unasked;

	if (why == NULL)
		why = &unasked;         /* every failure below sets *why */
	switch (k->pub.kind) {
	case KEY_ED25519:
		if ((pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL,
		    k->ed_k.p, 32)) == NULL) {
			*why = "bad Ed25519 private key";
			goto out;
		}
		if (checked && (EVP_PKEY_get_raw_public_key(pkey, a, &alen) != 1 ||
		    alen != 32 || memcmp(a, k->pub.ed_a.p, 32) != 0)) {
			EVP_PKEY_free(pkey);
			pkey = NULL;
			*why = "Ed25519 private key does not match its public key";
			goto out;
		}
		return pkey;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		return ecdsa_private(k, checked, why);
	case KEY_RSA:
		return rsa_private(k, checked, why);
	case KEY_SK_ECDSA_P256:
	case KEY_SK_ED25519:
		/* The private key is in the authenticator; the agent holds a
		 * key handle, which no EVP_PKEY can be made of. */
		*why = "a FIDO key has no private key to build";
		goto out;
	case KEY_MLDSA44_ED25519:
		return mldsa_private(k, checked, why);
	case KEY_NONE:
		break;
	}
	*why = "unknown key type";
	goto out;
out:
	return pkey;
}

EVP_PKEY *
pkey_private(const struct privkey *k, const char **why)
{
	return build_private(k, 1, why);
}

EVP_PKEY *
pkey_private_trusted(const struct privkey *k)
{
	OSSL_PARAM_BLD *bld;
	EVP_PKEY *pkey = NULL;

	if (k->pub.kind != KEY_ED25519)
		return build_private(k, 0, NULL);
	/* Ed25519 from both halves: EVP_PKEY_new_raw_private_key would
	 * recompute the public key, a scalar multiplication as dear as the
	 * signature itself, for a key that was checked when it was added. */
	if ((bld = OSSL_PARAM_BLD_new()) != NULL &&
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PRIV_KEY,
	    k->ed_k.p, 32) &&
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
	    k->pub.ed_a.p, 32))
		pkey = crypto_from_params("ED25519", EVP_PKEY_KEYPAIR, bld, 1);
	OSSL_PARAM_BLD_free(bld);
	return pkey;
}

int
ecdsa_sig_write(const BIGNUM *r, const BIGNUM *s, enum sig_alg alg,
    struct wb *out)
{
	uint8_t rb[80], sb[80];
	size_t mark;
	int rl, sl;

	if (BN_num_bytes(r) > (int)sizeof(rb) || BN_num_bytes(s) > (int)sizeof(sb) ||
	    (rl = BN_bn2bin(r, rb)) < 0 || (sl = BN_bn2bin(s, sb)) < 0)
		return -1;
	wb_cstring(out, sig_alg_name(alg));
	mark = wb_begin_string(out);
	wb_mpint(out, rb, (size_t)rl);
	wb_mpint(out, sb, (size_t)sl);
	wb_end_string(out, mark);
	return out->err ? -1 : 0;
}

int
sig_make(EVP_PKEY *pkey, enum sig_alg alg, struct slice data, struct wb *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint8_t *sig = NULL;
	const unsigned char *der;
	const BIGNUM *br, *bs;
	ECDSA_SIG *es = NULL;
	size_t len = 0;
	int rc = -1;

	/* FIDO signatures come from an authenticator, never from here;
	 * ML-DSA-44/Ed25519 ones from the seeds (composite_sign). */
	if (ctx == NULL || alg == SIG_SK_ECDSA_P256 || alg == SIG_SK_ED25519 ||
	    alg == SIG_MLDSA44_ED25519 ||
	    EVP_DigestSignInit(ctx, NULL, sig_alg_md(alg), NULL, pkey) != 1 ||
	    EVP_DigestSign(ctx, NULL, &len, data.p, data.len) != 1 ||
	    (sig = malloc(len)) == NULL ||
	    EVP_DigestSign(ctx, sig, &len, data.p, data.len) != 1)
		goto out;
	if (!sig_alg_is_ecdsa(alg)) {
		/* Ed25519: 64 bytes; RSA: exactly the modulus length. */
		wb_cstring(out, sig_alg_name(alg));
		wb_string(out, sig, len);
	} else {
		der = sig;
		if ((es = d2i_ECDSA_SIG(NULL, &der, (long)len)) == NULL)
			goto out;
		ECDSA_SIG_get0(es, &br, &bs);
		if (ecdsa_sig_write(br, bs, alg, out) != 0)
			goto out;
	}
	rc = out->err ? -1 : 0;
out:
	ECDSA_SIG_free(es);
	free(sig);
	EVP_MD_CTX_free(ctx);
	return rc;
}
