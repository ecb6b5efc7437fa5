/*
 * composite.c - ssh-mldsa44-ed25519@openssh.com signatures
 * (crypto/composite.h): the message both halves sign, and each half.
 */
#include "crypto/composite.h"
#include "crypto/mldsa44.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>

#define PREFIX "CompositeAlgorithmSignatures2025"
#define LABEL  "COMPSIG-MLDSA44-Ed25519-SHA512"
/* prefix, label, the context's length byte (no context), SHA-512 */
#define MPRIME_LEN (sizeof(PREFIX) - 1 + sizeof(LABEL) - 1 + 1 + 64)

static int
mprime(uint8_t out[MPRIME_LEN], struct slice data)
{
	uint8_t *p = out;
	unsigned int len = 0;

	memcpy(p, PREFIX, sizeof(PREFIX) - 1);
	p += sizeof(PREFIX) - 1;
	memcpy(p, LABEL, sizeof(LABEL) - 1);
	p += sizeof(LABEL) - 1;
	*p++ = 0;
	if (EVP_Digest(data.p, data.len, p, &len, EVP_sha512(), NULL) != 1 ||
	    len != 64)
		return -1;
	return 0;
}

static EVP_PKEY *
ed25519_from_seed(const uint8_t seed[32])
{
	return EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
}

int
composite_verify(const uint8_t pk[MLDSA44_ED25519_PK_LEN], const uint8_t *sig,
    size_t siglen, struct slice data)
{
	uint8_t m[MPRIME_LEN];
	EVP_PKEY *ed = NULL;
	EVP_MD_CTX *ctx = NULL;
	int rc = -1;

	if (siglen != MLDSA44_ED25519_SIG_LEN || mprime(m, data) != 0)
		return -1;
	if (mldsa44_verify(pk, m, sizeof(m), (const uint8_t *)LABEL,
	    sizeof(LABEL) - 1, sig, MLDSA44_SIG_LEN) != 0)
		return -1;
	if ((ed = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL,
	    pk + MLDSA44_PK_LEN, 32)) == NULL ||
	    (ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, ed) != 1)
		goto out;
	if (EVP_DigestVerify(ctx, sig + MLDSA44_SIG_LEN, 64, m, sizeof(m)) == 1)
		rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(ed);
	return rc;
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

	if (mprime(m, data) != 0 || RAND_bytes(rnd, sizeof(rnd)) != 1)
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
