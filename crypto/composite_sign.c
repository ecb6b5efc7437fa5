/*
 * composite_sign.c - ssh-mldsa44-ed25519@openssh.com: the public key from
 * the two seeds, and signing (crypto/composite.h). The keyholder's alone:
 * kept out of composite.c so that policy, which links verification, links
 * no signing code.
 */
#include "crypto/composite.h"
#include "crypto/composite_int.h"
#include "crypto/mldsa44.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>

static EVP_PKEY *
ed25519_from_seed(const uint8_t seed[32])
{
	return EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
}

int
composite_public(const uint8_t sk[MLDSA44_ED25519_SK_LEN],
    uint8_t pk[MLDSA44_ED25519_PK_LEN])
{
	EVP_PKEY *ed;
	size_t len = 32;
	int rc = -1;

	if (mldsa44_keygen(pk, NULL, sk) != 0 ||
	    (ed = ed25519_from_seed(sk + MLDSA44_SEED_LEN)) == NULL)
		return -1;
	if (EVP_PKEY_get_raw_public_key(ed, pk + MLDSA44_PK_LEN, &len) == 1 &&
	    len == 32)
		rc = 0;
	EVP_PKEY_free(ed);
	return rc;
}

int
composite_sign(const uint8_t sk[MLDSA44_ED25519_SK_LEN], struct slice data,
    uint8_t sig[MLDSA44_ED25519_SIG_LEN])
{
	uint8_t m[MPRIME_LEN], rnd[MLDSA44_RND_LEN];
	EVP_PKEY *ed = NULL;
	EVP_MD_CTX *ctx = NULL;
	size_t len = 64;
	int rc = -1;

	if (composite_mprime(m, data) != 0 || RAND_bytes(rnd, sizeof(rnd)) != 1)
		goto out;
	if (mldsa44_sign_seed(sig, sk, m, sizeof(m), (const uint8_t *)LABEL,
	    sizeof(LABEL) - 1, rnd) != 0)
		goto out;
	if ((ed = ed25519_from_seed(sk + MLDSA44_SEED_LEN)) == NULL ||
	    (ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, ed) != 1 ||
	    EVP_DigestSign(ctx, sig + MLDSA44_SIG_LEN, &len, m, sizeof(m)) != 1 ||
	    len != 64)
		goto out;
	rc = 0;
out:
	OPENSSL_cleanse(rnd, sizeof(rnd));
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(ed);              /* OpenSSL clears its private copy */
	return rc;
}
