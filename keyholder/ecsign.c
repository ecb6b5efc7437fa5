/*
 * ecsign.c - ECDSA signatures from a private scalar and a curve built
 * once. Through EVP, every signature imported its key with
 * EVP_PKEY_fromdata, and OpenSSL 3.0 builds the whole EC_GROUP from the
 * curve's name on each import: half of that import, a quarter of the
 * keyholder's time per P-256 signature. OpenSSL 3.0 has no EVP way to
 * give a key an existing group, so this file uses the EC_KEY interface,
 * deprecated in 3.0 but kept in 3.x, and only here. What is cached is
 * public: the three NIST groups and the message digests. The scalar is
 * copied into a secure BIGNUM and an EC_KEY for one signature and both
 * are wiped as they are freed (EC_KEY_free clears its private key), as
 * the EVP_PKEY was.
 */
#define OPENSSL_SUPPRESS_DEPRECATED     /* EC_KEY: see above */

#include "keyholder/privkey.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <pthread.h>

enum { EC_P256, EC_P384, EC_P521, EC_NCURVES };

static struct {
	EC_GROUP *group;
	EVP_MD *md;
} curves[EC_NCURVES];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int prepared;

static void
prepare(void)
{
	static const struct {
		int nid;
		const char *md;
	} def[EC_NCURVES] = {
		{ NID_X9_62_prime256v1, "SHA256" },
		{ NID_secp384r1, "SHA384" },
		{ NID_secp521r1, "SHA512" },
	};

	for (int i = 0; i < EC_NCURVES; i++)
		if ((curves[i].group = EC_GROUP_new_by_curve_name(def[i].nid)) == NULL ||
		    (curves[i].md = EVP_MD_fetch(NULL, def[i].md, NULL)) == NULL)
			return;
	prepared = 1;
}

int
ecsign_prepare(void)
{
	pthread_once(&once, prepare);
	return prepared ? 0 : -1;
}

const EC_GROUP *
ecsign_group(enum key_kind kind)
{
	if (ecsign_prepare() != 0)
		return NULL;
	switch (kind) {
	case KEY_ECDSA_P256: return curves[EC_P256].group;
	case KEY_ECDSA_P384: return curves[EC_P384].group;
	case KEY_ECDSA_P521: return curves[EC_P521].group;
	default: return NULL;
	}
}

static int
curve_of(enum sig_alg alg)
{
	switch (alg) {
	case SIG_ECDSA_P256: return EC_P256;
	case SIG_ECDSA_P384: return EC_P384;
	case SIG_ECDSA_P521: return EC_P521;
	default: return -1;
	}
}

int
ecsign(const struct privkey *k, enum sig_alg alg, struct slice data,
    struct wb *out)
{
	uint8_t dgst[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	EC_KEY *ek = NULL;
	BIGNUM *d = NULL;
	ECDSA_SIG *es = NULL;
	const BIGNUM *r, *s;
	int c = curve_of(alg), rc = -1;

	if (c < 0 || ecsign_prepare() != 0 ||
	    k->pub.kind != (c == EC_P256 ? KEY_ECDSA_P256 :
	    c == EC_P384 ? KEY_ECDSA_P384 : KEY_ECDSA_P521))
		return -1;
	if (EVP_Digest(data.p, data.len, dgst, &dlen, curves[c].md, NULL) != 1 ||
	    (d = BN_secure_new()) == NULL ||
	    BN_bin2bn(k->ec_d.p, (int)k->ec_d.len, d) == NULL ||
	    (ek = EC_KEY_new()) == NULL ||
	    EC_KEY_set_group(ek, curves[c].group) != 1)
		goto out;
	BN_set_flags(d, BN_FLG_CONSTTIME);
	if (EC_KEY_set_private_key(ek, d) != 1 ||
	    (es = ECDSA_do_sign(dgst, (int)dlen, ek)) == NULL)
		goto out;
	ECDSA_SIG_get0(es, &r, &s);
	rc = ecdsa_sig_write(r, s, alg, out);
out:
	ECDSA_SIG_free(es);
	EC_KEY_free(ek);
	BN_clear_free(d);
	return rc;
}
