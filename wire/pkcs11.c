/*
 * pkcs11.c - the PKCS#11 token helper's requests and replies (pkcs11.h):
 * encoders and decoders.
 */
#include "wire/pkcs11.h"
#include "keys/sshkey.h"

#include <string.h>

/* The algorithms a PKCS#11 key may sign with: the plain ones. */
static int
plain_alg(uint32_t alg)
{
	switch (alg) {
	case SIG_ED25519:
	case SIG_ECDSA_P256:
	case SIG_ECDSA_P384:
	case SIG_ECDSA_P521:
	case SIG_RSA_SHA1:
	case SIG_RSA_SHA256:
	case SIG_RSA_SHA512:
		return 1;
	default:
		return 0;
	}
}

void
p11_login_encode(struct wb *w, struct slice pin)
{
	wb_u8(w, P11_MSG_LOGIN);
	wb_slice(w, pin);
}

void
p11_sign_encode(struct wb *w, uint32_t key, uint32_t alg, struct slice data,
    struct slice pin)
{
	wb_u8(w, P11_MSG_SIGN);
	wb_u32(w, key);
	wb_u32(w, alg);
	wb_slice(w, data);
	wb_slice(w, pin);
}

int
p11_req_decode(struct rd *r, struct p11_req *m)
{
	memset(m, 0, sizeof(*m));
	if (rd_u8(r, &m->type))
		return -1;
	switch (m->type) {
	case P11_MSG_LOGIN:
		if (rd_string(r, &m->pin) || rd_done(r))
			return -1;
		break;
	case P11_MSG_SIGN:
		if (rd_u32(r, &m->key) || rd_u32(r, &m->alg) ||
		    rd_string(r, &m->data) || rd_string(r, &m->pin) || rd_done(r))
			return -1;
		if (m->key >= P11_MAX_KEYS || !plain_alg(m->alg) ||
		    m->data.len > P11_MAX_DATA)
			return -1;
		break;
	default:
		return -1;
	}
	if (m->pin.len > P11_MAX_PIN || slice_has_nul(m->pin))
		return -1;
	return 0;
}

void
p11_keys_encode(struct wb *w, const struct p11_keys *m)
{
	uint32_t n = m->status == P11_OK ? m->n : 0;

	wb_u8(w, P11_MSG_KEYS);
	wb_u32(w, m->status);
	wb_u32(w, n);
	for (uint32_t i = 0; i < n && i < P11_MAX_KEYS; i++) {
		wb_slice(w, m->key[i].blob);
		wb_slice(w, m->key[i].label);
		wb_u32(w, m->key[i].flags);
	}
}

/* A listed key: a plain key of a type a PKCS#11 token may hold. */
static int
key_ok(const struct p11_key *k)
{
	struct pubkey pk;

	if (k->blob.len > P11_MAX_KEY_BLOB || k->label.len > P11_MAX_LABEL ||
	    slice_has_nul(k->label) || (k->flags & ~(uint32_t)P11_KEY_ALWAYS_AUTH) != 0)
		return 0;
	if (key_parse_public(k->blob, &pk, NULL) != 0 || pk.is_cert)
		return 0;
	switch (pk.kind) {
	case KEY_ED25519:
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
	case KEY_RSA:
		return 1;
	default:
		return 0;
	}
}

int
p11_keys_decode(struct rd *r, struct p11_keys *m)
{
	uint8_t type;

	memset(m, 0, sizeof(*m));
	if (rd_u8(r, &type) || type != P11_MSG_KEYS || rd_u32(r, &m->status) ||
	    rd_u32(r, &m->n))
		return -1;
	if (m->n > P11_MAX_KEYS || (m->status != P11_OK && m->n != 0))
		return -1;
	for (uint32_t i = 0; i < m->n; i++) {
		struct p11_key *k = &m->key[i];

		if (rd_string(r, &k->blob) || rd_string(r, &k->label) ||
		    rd_u32(r, &k->flags) || !key_ok(k))
			return -1;
	}
	return rd_done(r) == BUF_OK ? 0 : -1;
}

void
p11_sig_encode(struct wb *w, const struct p11_sig *m)
{
	wb_u8(w, P11_MSG_SIGNATURE);
	wb_u32(w, m->status);
	if (m->status == P11_OK)
		wb_slice(w, m->sig);
	else
		wb_string(w, NULL, 0);
}

int
p11_sig_decode(struct rd *r, uint32_t alg, struct p11_sig *m)
{
	struct slice name, bytes;
	struct rd sr;
	uint8_t type;

	memset(m, 0, sizeof(*m));
	if (rd_u8(r, &type) || type != P11_MSG_SIGNATURE ||
	    rd_u32(r, &m->status) || rd_string(r, &m->sig) || rd_done(r))
		return -1;
	if (m->status != P11_OK)
		return m->sig.len == 0 ? 0 : -1;
	/* The blob's shape only: policy verifies it against the key. */
	if (!plain_alg(alg) || m->sig.len > P11_MAX_SIG_BLOB)
		return -1;
	rd_init(&sr, m->sig.p, m->sig.len);
	if (rd_string(&sr, &name) || rd_string(&sr, &bytes) || rd_done(&sr) ||
	    sig_alg_from_name(name) != (enum sig_alg)alg || bytes.len == 0)
		return -1;
	return 0;
}

/* What a user reads for a CKR code (PKCS#11 2.40 §5.1), or dflt. */
const char *
p11_ckr_why(uint32_t rv, const char *dflt)
{
	static const struct { uint32_t rv; const char *why; } t[] = {
		{ 0x005, "the module failed (CKR_GENERAL_ERROR)" },
		{ 0x006, "the module failed (CKR_FUNCTION_FAILED)" },
		{ 0x030, "the token device failed (CKR_DEVICE_ERROR)" },
		{ 0x032, "the token was removed (CKR_DEVICE_REMOVED)" },
		{ 0x0a0, "wrong PIN (CKR_PIN_INCORRECT)" },
		{ 0x0a1, "the PIN is not valid for the token (CKR_PIN_INVALID)" },
		{ 0x0a2, "the PIN has the wrong length (CKR_PIN_LEN_RANGE)" },
		{ 0x0a3, "the PIN has expired (CKR_PIN_EXPIRED)" },
		{ 0x0a4, "the PIN is locked (CKR_PIN_LOCKED)" },
		{ 0x0e0, "no token (CKR_TOKEN_NOT_PRESENT)" },
		{ 0x0e1, "the token is not recognised (CKR_TOKEN_NOT_RECOGNIZED)" },
		{ 0x103, "the user PIN is not initialised (CKR_USER_PIN_NOT_INITIALIZED)" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].rv == rv)
			return t[i].why;
	return dflt;
}
