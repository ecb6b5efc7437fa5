/*
 * p11sign.c - keyward-pkcs11's SIGN (p11sign.h): the mechanism and hash
 * for each SSH signature algorithm, the token's C_Sign, and its raw
 * signature re-encoded as an SSH signature blob (doc/protocol.md §4.6).
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/secmem.h"
#include "keys/sshkey.h"
#include "token/pkcs11/p11sign.h"

#include <openssl/evp.h>
#include <string.h>

#define HASH_MAX        64      /* SHA-512 */
#define DIGESTINFO_MAX  19      /* the longest prefix below */

/* DigestInfo prefixes (RFC 8017 §9.2, note 1) of the hashes ssh-rsa,
 * rsa-sha2-256 and rsa-sha2-512 sign. */
static const uint8_t di_sha1[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b,
    0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14 };
static const uint8_t di_sha256[] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09,
    0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
    0x20 };
static const uint8_t di_sha512[] = { 0x30, 0x51, 0x30, 0x0d, 0x06, 0x09,
    0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04,
    0x40 };

static const struct sigspec {
	enum sig_alg alg;
	CK_MECHANISM_TYPE mech;
	const EVP_MD *(*md)(void);      /* NULL: the data itself (EdDSA) */
	const uint8_t *di;              /* RSA: the DigestInfo prefix */
	size_t di_len;
} sigspecs[] = {
	{ SIG_RSA_SHA1, CKM_RSA_PKCS, EVP_sha1, di_sha1, sizeof(di_sha1) },
	{ SIG_RSA_SHA256, CKM_RSA_PKCS, EVP_sha256, di_sha256, sizeof(di_sha256) },
	{ SIG_RSA_SHA512, CKM_RSA_PKCS, EVP_sha512, di_sha512, sizeof(di_sha512) },
	{ SIG_ECDSA_P256, CKM_ECDSA, EVP_sha256, NULL, 0 },
	{ SIG_ECDSA_P384, CKM_ECDSA, EVP_sha384, NULL, 0 },
	{ SIG_ECDSA_P521, CKM_ECDSA, EVP_sha512, NULL, 0 },
	{ SIG_ED25519, CKM_EDDSA, NULL, NULL, 0 },
};

static const struct sigspec *
sigspec_of(uint32_t alg)
{
	for (size_t i = 0; i < sizeof(sigspecs) / sizeof(sigspecs[0]); i++)
		if (sigspecs[i].alg == (enum sig_alg)alg)
			return &sigspecs[i];
	return NULL;
}

/* The token's raw signature as an SSH signature blob (doc/protocol.md §4.6). */
static int
sig_blob(const struct sigspec *sp, const struct p11key *k, const uint8_t *raw,
    size_t n, struct wb *w)
{
	size_t mark, half = n / 2;
	struct pubkey pk;

	wb_cstring(w, sig_alg_name(sp->alg));
	switch (k->kind) {
	case KEY_RSA:
		/* C_Sign gives the modulus's length: the bytes as they are */
		if (key_parse_public((struct slice){ k->blob, k->blob_len }, &pk,
		    NULL) != 0 || n != (pk.rsa_bits + 7) / 8)
			return -1;
		wb_string(w, raw, n);
		break;
	case KEY_ED25519:
		if (n != 64)
			return -1;
		wb_string(w, raw, n);
		break;
	default:
		/* r || s, each as long as the curve's order */
		if (n == 0 || n % 2 != 0 || n > 2 * 66)
			return -1;
		mark = wb_begin_string(w);
		wb_mpint(w, raw, half);
		wb_mpint(w, raw + half, half);
		wb_end_string(w, mark);
		break;
	}
	return w->err || w->len > P11_MAX_SIG_BLOB ? -1 : 0;
}

static CK_RV
sign_raw(CK_FUNCTION_LIST_PTR f, const struct p11key *k, const struct sigspec *sp,
    const struct p11_req *req, uint8_t *raw, CK_ULONG *rawlen)
{
	uint8_t in[DIGESTINFO_MAX + HASH_MAX];
	const uint8_t *msg = in;
	CK_MECHANISM mech = { sp->mech, NULL, 0 };
	unsigned int hlen = 0;
	size_t inlen;
	CK_RV rv, rv2;

	if (sp->md != NULL) {
		if (sp->di_len > 0)
			memcpy(in, sp->di, sp->di_len);
		if (EVP_Digest(req->data.p, req->data.len, in + sp->di_len, &hlen,
		    sp->md(), NULL) != 1)
			return P11_CKR_FUNCTION_FAILED;
		inlen = sp->di_len + hlen;
	} else {
		msg = req->data.p;
		inlen = req->data.len;
	}
	if ((k->flags & P11_KEY_ALWAYS_AUTH) && req->pin.len == 0)
		return P11_CKR_USER_NOT_LOGGED_IN;
	if ((rv = f->C_SignInit(k->sess, &mech, k->obj)) != CKR_OK)
		return rv;
	if (k->flags & P11_KEY_ALWAYS_AUTH) {
		rv = f->C_Login(k->sess, CKU_CONTEXT_SPECIFIC,
		    (CK_UTF8CHAR_PTR)req->pin.p, req->pin.len);
		if (rv != CKR_OK) {
			/* ends the operation (any error but a short buffer) */
			*rawlen = P11_MAX_RAW_SIG;
			f->C_Sign(k->sess, (CK_BYTE_PTR)msg, inlen, raw, rawlen);
			return rv;
		}
	}
	*rawlen = P11_MAX_RAW_SIG;
	rv = f->C_Sign(k->sess, (CK_BYTE_PTR)msg, inlen, raw, rawlen);
	if (rv == CKR_BUFFER_TOO_SMALL) {
		/* a signature longer than any we take: end the operation */
		*rawlen = P11_MAX_RAW_SIG;
		rv2 = f->C_Sign(k->sess, (CK_BYTE_PTR)msg, inlen, NULL, rawlen);
		(void)rv2;
		log_error("the token's signature is longer than %d bytes",
		    P11_MAX_RAW_SIG);
	}
	wipe(in, sizeof(in));
	return rv;
}

void
p11_sign(const struct p11list *l, const struct p11_req *req, struct wb *w)
{
	static uint8_t raw[P11_MAX_RAW_SIG];
	struct p11_sig rep = { .status = P11_CKR_GENERAL_ERROR };
	const struct sigspec *sp = sigspec_of(req->alg);
	const struct p11key *k;
	CK_ULONG rawlen = 0;
	struct wb sig;
	CK_RV rv;

	wb_init(&sig);
	if (req->key >= l->n) {
		rep.status = P11_CKR_KEY_HANDLE_INVALID;
		goto out;
	}
	k = &l->keys[req->key];
	if (sp == NULL || !sig_alg_fits(sp->alg, k->kind)) {
		rep.status = P11_CKR_MECHANISM_INVALID;
		goto out;
	}
	log_debug("sign: key %u, %s, %zu bytes%s", req->key,
	    sig_alg_name(sp->alg), req->data.len,
	    req->pin.len ? ", with a context PIN" : "");
	if ((rv = sign_raw(l->f, k, sp, req, raw, &rawlen)) != CKR_OK) {
		log_info("the token did not sign: %s (0x%lx)",
		    p11_ckr_why((uint32_t)rv, "an error"), (unsigned long)rv);
		rep.status = (uint32_t)rv;
		goto out;
	}
	if (rawlen > sizeof(raw) || sig_blob(sp, k, raw, rawlen, &sig) != 0) {
		log_error("the token's signature is malformed (%lu bytes)",
		    (unsigned long)rawlen);
		goto out;
	}
	rep.status = P11_OK;
	rep.sig = wb_slice_of(&sig);
 out:
	p11_sig_encode(w, &rep);
	wb_free(&sig);
}
