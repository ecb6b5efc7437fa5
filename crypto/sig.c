/*
 * sig.c - SSH signature blobs (doc/protocol.md §4.6), verified by policy: certificate
 * CA signatures, session-bind host signatures, the FIDO signatures a token
 * helper's answer becomes. The keyholder makes them (keyholder/privkey.c).
 */
#include "crypto/crypto.h"
#include "crypto/composite.h"
#include "keys/fphash.h"

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

const EVP_MD *
sig_alg_md(enum sig_alg alg)
{
	switch (alg) {
	case SIG_ECDSA_P256: return EVP_sha256();
	case SIG_ECDSA_P384: return EVP_sha384();
	case SIG_ECDSA_P521: return EVP_sha512();
	case SIG_RSA_SHA1: return EVP_sha1();
	case SIG_RSA_SHA256: return EVP_sha256();
	case SIG_RSA_SHA512: return EVP_sha512();
	default: return NULL;   /* Ed25519 hashes internally */
	}
}

int
sig_alg_is_ecdsa(enum sig_alg alg)
{
	return alg == SIG_ECDSA_P256 || alg == SIG_ECDSA_P384 || alg == SIG_ECDSA_P521;
}

/* The raw signature in the form EVP_DigestVerify wants it. */
static int
verify_raw(EVP_PKEY *pkey, const EVP_MD *md, const uint8_t *sig, size_t len,
    struct slice data)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok;

	ok = ctx != NULL &&
	    EVP_DigestVerifyInit(ctx, NULL, md, NULL, pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, len, data.p, data.len) == 1;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

/* An ECDSA signature given as SSH magnitudes r and s, verified over data
 * hashed with md: OpenSSL wants it DER-encoded. */
static int
verify_ecdsa(EVP_PKEY *pkey, const EVP_MD *md, struct slice r_m,
    struct slice s_m, struct slice data)
{
	ECDSA_SIG *es = NULL;
	BIGNUM *br = NULL, *bs = NULL;
	unsigned char *der = NULL;
	int rc = -1, derlen;

	if ((es = ECDSA_SIG_new()) == NULL ||
	    (br = BN_bin2bn(r_m.p, (int)r_m.len, NULL)) == NULL ||
	    (bs = BN_bin2bn(s_m.p, (int)s_m.len, NULL)) == NULL ||
	    ECDSA_SIG_set0(es, br, bs) != 1)
		goto out;
	br = bs = NULL;         /* es owns them */
	if ((derlen = i2d_ECDSA_SIG(es, &der)) > 0)
		rc = verify_raw(pkey, md, der, (size_t)derlen, data);
out:
	OPENSSL_free(der);
	BN_free(br);
	BN_free(bs);
	ECDSA_SIG_free(es);
	return rc;
}

int
sig_verify(const struct pubkey *k, struct slice blob, struct slice data,
    enum sig_alg *alg_out)
{
	struct slice name, sig, r_m, s_m;
	struct rd rd, inner;
	EVP_PKEY *pkey = NULL;
	enum sig_alg alg;
	int rc = -1;

	rd_init(&rd, blob.p, blob.len);
	if (rd_string(&rd, &name) != 0)
		return -1;
	if ((alg = sig_alg_from_name(name)) == SIG_NONE || !sig_alg_fits(alg, k->kind))
		return -1;
	if (alg == SIG_SK_ECDSA_P256 || alg == SIG_SK_ED25519) {
		/* an authenticator's signature: flags and counter follow */
		if ((rc = sk_sig_verify(k, data, blob, NULL, NULL)) == 0 &&
		    alg_out != NULL)
			*alg_out = alg;
		return rc;
	}
	if (rd_string(&rd, &sig) != 0 || rd_done(&rd) != 0)
		return -1;
	if (alg == SIG_MLDSA44_ED25519) {
		/* Both halves must verify (crypto/composite.h). */
		if ((rc = composite_verify(k->mldsa_pk.p, sig.p, sig.len,
		    data)) == 0 && alg_out != NULL)
			*alg_out = alg;
		return rc;
	}
	if ((pkey = pkey_public(k, NULL)) == NULL)
		return -1;
	if (alg == SIG_ED25519) {
		if (sig.len == 64)
			rc = verify_raw(pkey, NULL, sig.p, sig.len, data);
	} else if (sig_alg_is_ecdsa(alg)) {
		rd_init(&inner, sig.p, sig.len);
		if (rd_mpint(&inner, &r_m) == 0 && rd_mpint(&inner, &s_m) == 0 &&
		    rd_done(&inner) == 0)
			rc = verify_ecdsa(pkey, sig_alg_md(alg), r_m, s_m, data);
	} else {
		size_t modlen = (k->rsa_bits + 7) / 8;
		uint8_t *padded;
		/* Signatures shorter than the modulus are left-padded. */
		if (sig.len > modlen || (padded = calloc(1, modlen)) == NULL)
			goto out;
		memcpy(padded + modlen - sig.len, sig.p, sig.len);
		rc = verify_raw(pkey, sig_alg_md(alg), padded, modlen, data);
		free(padded);
	}
	if (rc == 0 && alg_out != NULL)
		*alg_out = alg;
out:
	EVP_PKEY_free(pkey);
	return rc;
}

/* What a FIDO authenticator signs (doc/protocol.md §4.6): SHA-256(application) ||
 * flags || counter (big-endian) || SHA-256(data), 69 bytes. */
static int
sk_message(struct slice app, uint8_t flags, uint32_t counter, struct slice data,
    uint8_t msg[SK_MESSAGE_LEN])
{
	unsigned int n1 = 0, n2 = 0;

	msg[32] = flags;
	msg[33] = (uint8_t)(counter >> 24);
	msg[34] = (uint8_t)(counter >> 16);
	msg[35] = (uint8_t)(counter >> 8);
	msg[36] = (uint8_t)counter;
	if (EVP_Digest(app.p, app.len, msg, &n1, EVP_sha256(), NULL) != 1 ||
	    EVP_Digest(data.p, data.len, msg + 37, &n2, EVP_sha256(), NULL) != 1 ||
	    n1 != 32 || n2 != 32)
		return -1;
	return 0;
}

int
sk_sig_verify(const struct pubkey *k, struct slice data, struct slice blob,
    uint8_t *flags, uint32_t *counter)
{
	struct sk_sig s;
	EVP_PKEY *pkey = NULL;
	uint8_t msg[SK_MESSAGE_LEN];
	struct slice m = { msg, sizeof(msg) };
	int rc = -1;

	/* The plain name of the key's kind, certificates included (doc/protocol.md §4.6). */
	if (!key_is_sk(k->kind) || sk_sig_parse(blob, &s) != 0 ||
	    s.alg != sig_alg_for(k->kind, 0) ||
	    sk_message(k->sk_app, s.flags, s.counter, data, msg) != 0 ||
	    (pkey = pkey_public(k, NULL)) == NULL)
		goto out;
	if (s.alg == SIG_SK_ED25519)
		rc = verify_raw(pkey, NULL, s.inner.p, s.inner.len, m);
	else
		rc = verify_ecdsa(pkey, EVP_sha256(), s.r, s.s, m);
	if (rc == 0 && flags != NULL)
		*flags = s.flags;
	if (rc == 0 && counter != NULL)
		*counter = s.counter;
out:
	EVP_PKEY_free(pkey);
	return rc;
}

int
cert_verify(const struct pubkey *cert)
{
	struct pubkey ca;
	struct slice signed_part = { cert->cert_blob.p, cert->cert.signed_len };

	if (!cert->is_cert || key_parse_public(cert->cert.signature_key, &ca, NULL) != 0)
		return -1;
	return sig_verify(&ca, cert->cert.signature, signed_part, NULL);
}

int
fingerprint(struct slice blob, const char *hash, char *out, size_t n)
{
	unsigned char md[EVP_MAX_MD_SIZE], b64[4 * EVP_MAX_MD_SIZE / 3 + 4];
	unsigned int mdlen = 0;
	const struct fp_hash *h;
	const EVP_MD *evp;
	size_t o;
	int blen;

	if ((h = fp_hash_find(hash)) == NULL ||
	    (evp = EVP_get_digestbyname(h->name)) == NULL ||
	    EVP_Digest(blob.p, blob.len, md, &mdlen, evp, NULL) != 1)
		return -1;
	o = (size_t)snprintf(out, n, "%s:", h->label);
	if (o >= n)
		return -1;      /* not even the label fits: never index past out */
	if (h->hex) {
		for (unsigned i = 0; i < mdlen && o + 4 < n; i++)
			o += (size_t)snprintf(out + o, n - o, i ? ":%02x" : "%02x", md[i]);
		return 0;
	}
	blen = EVP_EncodeBlock(b64, md, (int)mdlen);
	while (blen > 0 && b64[blen - 1] == '=')
		blen--;
	snprintf(out + o, n - o, "%.*s", blen, (const char *)b64);
	return 0;
}
