/*
 * composite.c - ssh-mldsa44-ed25519@openssh.com signatures
 * (crypto/composite.h): the message both halves sign, and verification,
 * which policy links. Signing is composite_sign.c, the keyholder's alone.
 */
#include "crypto/composite.h"
#include "crypto/composite_int.h"
#include "crypto/mldsa44.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>


/* M': what both halves sign (composite_int.h). */
int
composite_mprime(uint8_t out[MPRIME_LEN], struct slice data)
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

int
composite_verify(const uint8_t pk[MLDSA44_ED25519_PK_LEN], const uint8_t *sig,
    size_t siglen, struct slice data)
{
	uint8_t m[MPRIME_LEN];
	EVP_PKEY *ed = NULL;
	EVP_MD_CTX *ctx = NULL;
	int rc = -1;

	if (siglen != MLDSA44_ED25519_SIG_LEN || composite_mprime(m, data) != 0)
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
