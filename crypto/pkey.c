/*
 * pkey.c - public EVP_PKEY objects from SSH wire fields, for verification.
 * Private keys are built in the keyholder alone (keyholder/privkey.c),
 * with the two helpers exported here (crypto_group_name,
 * crypto_from_params).
 */
#include "crypto/crypto.h"
#include "ipc/limits.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <string.h>

const char *
crypto_group_name(enum key_kind kind)
{
	switch (kind) {
	case KEY_ECDSA_P256: return "prime256v1";
	case KEY_ECDSA_P384: return "secp384r1";
	case KEY_ECDSA_P521: return "secp521r1";
	default: return NULL;
	}
}

EVP_PKEY *
crypto_from_params(const char *type, int selection, OSSL_PARAM_BLD *bld, int secret)
{
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	EVP_PKEY *pkey = NULL;

	if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pkey, selection, params) != 1)
		pkey = NULL;
	/* OpenSSL 3.0 has no OSSL_PARAM_clear_free: wipe by hand. */
	for (OSSL_PARAM *q = params; secret && q != NULL && q->key != NULL; q++)
		wipe(q->data, q->data_size);
	OSSL_PARAM_free(params);
	EVP_PKEY_CTX_free(ctx);
	return pkey;
}

/* The provider's quick public check: an EC point is not the point at
 * infinity, its coordinates are in range and it lies on its curve. The
 * full check also multiplies it by the group order, which for the NIST
 * curves (cofactor 1) can only confirm what the quick one showed, at ten
 * times the cost -- and a client chooses how many keys policy checks (a
 * destination constraint may name ~1,450 P-521 host keys in one ADD). */
static int
check_public(EVP_PKEY *pkey)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
	int ok;

	if (ctx == NULL)
		return -1;
	ok = EVP_PKEY_public_check_quick(ctx);
	EVP_PKEY_CTX_free(ctx);
	return ok == 1 ? 0 : -1;
}

static BIGNUM *
bn(struct slice m)
{
	return BN_bin2bn(m.p, (int)m.len, NULL);
}

/* An ECDSA public key of kind's curve: its point must be on the curve,
 * and a valid point of it. */
static EVP_PKEY *
ec_public(const struct pubkey *k, enum key_kind kind, const char **why)
{
	OSSL_PARAM_BLD *bld;
	EVP_PKEY *pkey = NULL;

	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
	    crypto_group_name(kind), 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
	    k->ec_q.p, k->ec_q.len))
		*why = "out of memory";
	else if ((pkey = crypto_from_params("EC", EVP_PKEY_PUBLIC_KEY, bld,
	    0)) == NULL)
		*why = "ECDSA point is not on its curve";
	else if (check_public(pkey) != 0) {
		EVP_PKEY_free(pkey);
		pkey = NULL;
		*why = "ECDSA point is not a valid point of its curve";
	}
	OSSL_PARAM_BLD_free(bld);
	return pkey;
}

static EVP_PKEY *
rsa_public(const struct pubkey *k, const char **why)
{
	OSSL_PARAM_BLD *bld;
	BIGNUM *n = NULL, *e = NULL;
	EVP_PKEY *pkey = NULL;

	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    (n = bn(k->rsa_n)) == NULL || (e = bn(k->rsa_e)) == NULL ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
		*why = "out of memory";
	else if ((pkey = crypto_from_params("RSA", EVP_PKEY_PUBLIC_KEY, bld,
	    0)) == NULL)
		*why = "bad RSA public key";
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return pkey;
}

/* An Ed25519 key from its 32 raw bytes a, or NULL with *why = bad. */
static EVP_PKEY *
ed25519_public(const uint8_t *a, size_t len, const char *bad,
    const char **why)
{
	EVP_PKEY *pkey;

	if ((pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, a,
	    len)) == NULL)
		*why = bad;
	return pkey;
}

EVP_PKEY *
pkey_public(const struct pubkey *k, const char **why)
{
	enum key_kind kind = key_kind_base(k->kind);   /* FIDO: its curve */
	const char *unasked;

	if (why == NULL)
		why = &unasked;         /* every failure below sets *why */
	switch (kind) {
	case KEY_ED25519:
		return ed25519_public(k->ed_a.p, k->ed_a.len,
		    "bad Ed25519 public key", why);
	case KEY_MLDSA44_ED25519:
		/* No EVP_PKEY holds ML-DSA (OpenSSL 3.0): the Ed25519 half
		 * stands for the key where a caller asks only whether it is
		 * well formed. sig_verify checks both halves itself
		 * (crypto/composite.c), never through this. */
		return ed25519_public(k->mldsa_pk.p + MLDSA44_PK_LEN, 32,
		    "bad Ed25519 half of an ML-DSA-44/Ed25519 key", why);
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		return ec_public(k, kind, why);
	case KEY_RSA:
		return rsa_public(k, why);
	case KEY_SK_ECDSA_P256:         /* not a base kind */
	case KEY_SK_ED25519:
	case KEY_NONE:
		break;
	}
	*why = "unknown key type";
	return NULL;
}
