/*
 * rsasign.c - RSA PKCS#1 v1.5 signatures (RFC 8017 §8.2, §9.2) with a
 * blinding pair kept between signatures. The key is rebuilt from its
 * unsealed numbers for each signature, as before; what OpenSSL then did
 * each time was set up a fresh blinding for the new key object, whose
 * modular inverse of a random number mod n cost a fifth of an RSA-3072
 * signature (0.4 ms of 2.3 ms, measured), where an agent that keeps its
 * key object pays it once in 32 signatures. Here the blinding pair (A =
 * r^e, Ai = 1/r mod n) is kept, in a small table keyed by the public key,
 * and OpenSSL's own BN_BLINDING squares it after each use and draws a new
 * one every 32, as it does for a key object it keeps; the private
 * exponentiation itself is OpenSSL's (CRT, constant time, and its check
 * of the result against e), on the blinded value, with OpenSSL's blinding
 * off since this one is on. A blinding pair is not key material: it is
 * random, made from n and e, and says nothing of d, p or q; the
 * numbers of the key are wiped as the RSA object is freed.
 *
 * OpenSSL 3.0 has no EVP way to keep a blinding apart from the private
 * key, so this file uses the RSA interface, deprecated in 3.0 but kept
 * in 3.x, and only here.
 */
#define OPENSSL_SUPPRESS_DEPRECATED     /* RSA, RSA_FLAG_NO_BLINDING: above */

#include "keyholder/privkey.h"
#include "ipc/limits.h"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One kept blinding pair and the public key it belongs to. */
struct blinding {
	uint8_t *n, *e;         /* copies of the public numbers */
	size_t nlen, elen;
	BN_BLINDING *b;
};

static struct {
	pthread_mutex_t mu;
	struct blinding slot[KEYHOLDER_RSA_BLINDINGS];
	unsigned evict;         /* next slot to reuse when all are taken */
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static EVP_MD *md_sha1, *md_sha256, *md_sha512;

static void
prepare(void)
{
	md_sha1 = EVP_MD_fetch(NULL, "SHA1", NULL);
	md_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	md_sha512 = EVP_MD_fetch(NULL, "SHA512", NULL);
}

int
rsasign_prepare(void)
{
	pthread_once(&once, prepare);
	return md_sha1 != NULL && md_sha256 != NULL && md_sha512 != NULL ?
	    0 : -1;
}

static void
blinding_clear(struct blinding *s)
{
	free(s->n);
	free(s->e);
	BN_BLINDING_free(s->b);
	memset(s, 0, sizeof(*s));
}

static int
blinding_is(const struct blinding *s, const struct pubkey *pub)
{
	return s->b != NULL && s->nlen == pub->rsa_n.len &&
	    s->elen == pub->rsa_e.len &&
	    memcmp(s->n, pub->rsa_n.p, s->nlen) == 0 &&
	    memcmp(s->e, pub->rsa_e.p, s->elen) == 0;
}

/* The kept blinding of pub, taken out of the table so that no other
 * thread uses it at the same time; NULL if there is none. */
static BN_BLINDING *
blinding_take(const struct pubkey *pub)
{
	BN_BLINDING *b = NULL;

	pthread_mutex_lock(&pool.mu);
	for (size_t i = 0; i < KEYHOLDER_RSA_BLINDINGS; i++)
		if (blinding_is(&pool.slot[i], pub)) {
			b = pool.slot[i].b;
			pool.slot[i].b = NULL;
			blinding_clear(&pool.slot[i]);
			break;
		}
	pthread_mutex_unlock(&pool.mu);
	return b;
}

/* Keep b for pub: in a free slot, else in place of the oldest. */
static void
blinding_give(const struct pubkey *pub, BN_BLINDING *b)
{
	struct blinding fresh = { 0 }, *s = NULL;

	if ((fresh.n = malloc(pub->rsa_n.len)) == NULL ||
	    (fresh.e = malloc(pub->rsa_e.len)) == NULL) {
		free(fresh.n);
		BN_BLINDING_free(b);
		return;
	}
	memcpy(fresh.n, pub->rsa_n.p, fresh.nlen = pub->rsa_n.len);
	memcpy(fresh.e, pub->rsa_e.p, fresh.elen = pub->rsa_e.len);
	fresh.b = b;
	pthread_mutex_lock(&pool.mu);
	for (size_t i = 0; i < KEYHOLDER_RSA_BLINDINGS && s == NULL; i++)
		if (pool.slot[i].b == NULL)
			s = &pool.slot[i];
	if (s == NULL) {
		s = &pool.slot[pool.evict];
		pool.evict = (pool.evict + 1) % KEYHOLDER_RSA_BLINDINGS;
	}
	blinding_clear(s);
	*s = fresh;
	pthread_mutex_unlock(&pool.mu);
}

void
rsasign_forget(void)
{
	pthread_mutex_lock(&pool.mu);
	for (size_t i = 0; i < KEYHOLDER_RSA_BLINDINGS; i++)
		blinding_clear(&pool.slot[i]);
	pthread_mutex_unlock(&pool.mu);
}

size_t
rsasign_kept(void)
{
	size_t n = 0;

	pthread_mutex_lock(&pool.mu);
	for (size_t i = 0; i < KEYHOLDER_RSA_BLINDINGS; i++)
		n += pool.slot[i].b != NULL;
	pthread_mutex_unlock(&pool.mu);
	return n;
}

/* The RSA key of k, with the CRT exponents derived from d, p and q, and
 * OpenSSL's own blinding off. */
static RSA *
rsa_of(const struct privkey *k, BN_CTX *bnctx)
{
	struct rsa_nums r;
	RSA *rsa = NULL;

	if (rsa_nums_get(k, &r) != 0)
		return NULL;
	/* RSA_set0_* take the numbers; RSA_free clears the secret ones. */
	if (rsa_nums_crt(&r, bnctx) == 0 && (rsa = RSA_new()) != NULL &&
	    RSA_set0_key(rsa, r.n, r.e, r.d) == 1) {
		r.n = r.e = r.d = NULL;
		if (RSA_set0_factors(rsa, r.p, r.q) == 1) {
			r.p = r.q = NULL;
			if (RSA_set0_crt_params(rsa, r.dmp1, r.dmq1, r.iqmp) == 1) {
				r.dmp1 = r.dmq1 = r.iqmp = NULL;
				RSA_set_flags(rsa, RSA_FLAG_NO_BLINDING);
				rsa_nums_free(&r);
				return rsa;
			}
		}
	}
	rsa_nums_free(&r);
	RSA_free(rsa);
	return NULL;
}

/* The DigestInfo prefixes of RFC 8017 §9.2, note 1. */
static const uint8_t prefix_sha1[] = {
	0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05,
	0x00, 0x04, 0x14 };
static const uint8_t prefix_sha256[] = {
	0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03,
	0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20 };
static const uint8_t prefix_sha512[] = {
	0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03,
	0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40 };

/* EM = 00 01 FF..FF 00 DigestInfo(H(data)), modlen bytes (RFC 8017
 * §9.2: at least 8 bytes of FF). */
static int
encode(enum sig_alg alg, struct slice data, uint8_t *em, size_t modlen)
{
	const uint8_t *pre;
	const EVP_MD *md;
	size_t plen, tlen;
	unsigned int hlen = 0;
	uint8_t h[EVP_MAX_MD_SIZE];

	switch (alg) {
	case SIG_RSA_SHA1:
		md = md_sha1, pre = prefix_sha1, plen = sizeof(prefix_sha1);
		break;
	case SIG_RSA_SHA256:
		md = md_sha256, pre = prefix_sha256, plen = sizeof(prefix_sha256);
		break;
	case SIG_RSA_SHA512:
		md = md_sha512, pre = prefix_sha512, plen = sizeof(prefix_sha512);
		break;
	default:
		return -1;
	}
	if (EVP_Digest(data.p, data.len, h, &hlen, md, NULL) != 1 ||
	    hlen != (unsigned)EVP_MD_get_size(md))
		return -1;
	tlen = plen + hlen;
	if (modlen < tlen + 11)
		return -1;
	em[0] = 0x00;
	em[1] = 0x01;
	memset(em + 2, 0xff, modlen - tlen - 3);
	em[modlen - tlen - 1] = 0x00;
	memcpy(em + modlen - tlen, pre, plen);
	memcpy(em + modlen - hlen, h, hlen);
	return 0;
}

int
rsasign(const struct privkey *k, enum sig_alg alg, struct slice data,
    struct wb *out)
{
	size_t modlen = k->pub.rsa_n.len;
	uint8_t *em = NULL, *sig = NULL;
	BN_BLINDING *b = NULL;
	BN_CTX *bnctx = NULL;
	BIGNUM *m = NULL, *n = NULL, *e = NULL;
	RSA *rsa = NULL;
	int rc = -1;

	if (k->pub.kind != KEY_RSA || rsasign_prepare() != 0 ||
	    modlen == 0 || modlen > INT32_MAX ||
	    (em = malloc(modlen)) == NULL || (sig = malloc(modlen)) == NULL ||
	    (bnctx = BN_CTX_secure_new()) == NULL ||
	    encode(alg, data, em, modlen) != 0 ||
	    (m = BN_bin2bn(em, (int)modlen, NULL)) == NULL ||
	    (rsa = rsa_of(k, bnctx)) == NULL)
		goto out;
	if ((b = blinding_take(&k->pub)) == NULL) {
		/* As OpenSSL does for its own: n constant-time, for the
		 * inverse. */
		if ((n = BN_bin2bn(k->pub.rsa_n.p, (int)modlen, NULL)) == NULL ||
		    (e = BN_bin2bn(k->pub.rsa_e.p, (int)k->pub.rsa_e.len,
		    NULL)) == NULL)
			goto out;
		BN_set_flags(n, BN_FLG_CONSTTIME);
		if ((b = BN_BLINDING_create_param(NULL, e, n, bnctx, NULL,
		    NULL)) == NULL)
			goto out;
	}
	/* m·A mod n (A squared first, or drawn anew every 32 uses), its
	 * d-th power by OpenSSL's RSA, then times Ai = A^(-1/e). */
	if (BN_ucmp(m, RSA_get0_n(rsa)) >= 0 ||        /* as OpenSSL refuses */
	    BN_BLINDING_convert_ex(m, NULL, b, bnctx) != 1 ||
	    BN_bn2binpad(m, em, (int)modlen) != (int)modlen ||
	    RSA_private_encrypt((int)modlen, em, sig, rsa,
	    RSA_NO_PADDING) != (int)modlen ||
	    BN_bin2bn(sig, (int)modlen, m) == NULL ||
	    BN_BLINDING_invert_ex(m, NULL, b, bnctx) != 1 ||
	    BN_bn2binpad(m, sig, (int)modlen) != (int)modlen)
		goto out;
	wb_cstring(out, sig_alg_name(alg));
	wb_string(out, sig, modlen);
	rc = out->err ? -1 : 0;
out:
	if (b != NULL && rc == 0)
		blinding_give(&k->pub, b);
	else
		BN_BLINDING_free(b);
	if (em != NULL)
		OPENSSL_cleanse(em, modlen);
	if (sig != NULL)
		OPENSSL_cleanse(sig, modlen);
	free(em);
	free(sig);
	BN_clear_free(m);
	BN_free(n);
	BN_free(e);
	RSA_free(rsa);
	BN_CTX_free(bnctx);
	return rc;
}
