/*
 * p11keys.c - the keys of a PKCS#11 token as keyward-pkcs11 lists them
 * (p11keys.h): private key objects of the types SSH signs with, each with
 * its public half as an SSH public key blob (doc/protocol.md §4.2) and its label.
 * Trusts: nothing the module says beyond what is checked here; each
 * blob is parsed back (keys/sshkey.c) before it is listed.
 */
#include "ipc/limits.h"
#include "ipc/log.h"
#include "wire/pkcs11.h"
#include "token/pkcs11/p11keys.h"

#include <string.h>

struct attr {
	CK_BYTE v[P11_MAX_ATTR];
	CK_ULONG len;
};

/* One attribute of obj into a (cleared when absent or too long). */
static int
get_attr(const struct p11list *l, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE obj,
    CK_ATTRIBUTE_TYPE type, struct attr *a)
{
	CK_ATTRIBUTE t = { type, NULL, 0 };

	a->len = 0;
	if (l->f->C_GetAttributeValue(s, obj, &t, 1) != CKR_OK ||
	    t.ulValueLen == CK_UNAVAILABLE_INFORMATION ||
	    t.ulValueLen > sizeof(a->v))
		return -1;
	t.pValue = a->v;
	if (l->f->C_GetAttributeValue(s, obj, &t, 1) != CKR_OK ||
	    t.ulValueLen > sizeof(a->v))
		return -1;
	a->len = t.ulValueLen;
	return 0;
}

static int
get_bool(const struct p11list *l, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE obj,
    CK_ATTRIBUTE_TYPE type, int dflt)
{
	CK_BBOOL b = CK_FALSE;
	CK_ATTRIBUTE t = { type, &b, sizeof(b) };

	if (l->f->C_GetAttributeValue(s, obj, &t, 1) != CKR_OK ||
	    t.ulValueLen != sizeof(b))
		return dflt;
	return b == CK_TRUE;
}

/* The public key object with the private key's CKA_ID, if there is one. */
static int
find_public(const struct p11list *l, CK_SESSION_HANDLE s,
    const struct attr *id, CK_KEY_TYPE type, CK_OBJECT_HANDLE *pub)
{
	CK_OBJECT_CLASS cls = CKO_PUBLIC_KEY;
	CK_ATTRIBUTE tmpl[] = {
		{ CKA_CLASS, &cls, sizeof(cls) },
		{ CKA_KEY_TYPE, &type, sizeof(type) },
		{ CKA_ID, (void *)id->v, id->len },
	};
	CK_ULONG n = 0;

	if (id->len == 0 ||
	    l->f->C_FindObjectsInit(s, tmpl, 3) != CKR_OK)
		return -1;
	if (l->f->C_FindObjects(s, pub, 1, &n) != CKR_OK)
		n = 0;
	l->f->C_FindObjectsFinal(s);
	return n == 1 ? 0 : -1;
}

/* A DER length at p[0..n): its value and the bytes it took; -1 if bad. */
static int
der_len(const uint8_t *p, size_t n, size_t *len, size_t *used)
{
	if (n < 1)
		return -1;
	if (p[0] < 0x80) {
		*len = p[0];
		*used = 1;
		return 0;
	}
	if (p[0] == 0x81 && n >= 2 && p[1] >= 0x80) {
		*len = p[1];
		*used = 2;
		return 0;
	}
	if (p[0] == 0x82 && n >= 3 && p[1] != 0) {
		*len = (size_t)p[1] << 8 | p[2];
		*used = 3;
		return 0;
	}
	return -1;
}

/* CKA_EC_POINT: a DER OCTET STRING around the point (PKCS#11), or, as
 * some modules give it, the bare point. want: the point's length. */
static int
ec_point(const struct attr *a, size_t want, struct slice *pt)
{
	size_t len, used;

	if (a->len >= 2 && a->v[0] == 0x04 &&
	    der_len(a->v + 1, a->len - 1, &len, &used) == 0 &&
	    1 + used + len == a->len && len == want) {
		*pt = (struct slice){ a->v + 1 + used, len };
		return 0;
	}
	if (a->len == want) {
		*pt = (struct slice){ a->v, a->len };
		return 0;
	}
	return -1;
}

static const struct curve {
	enum key_kind kind;
	size_t der_len;
	const uint8_t der[14];
	size_t point_len;               /* uncompressed, or Ed25519's 32 */
} curves[] = {
	/* 1.2.840.10045.3.1.7, 1.3.132.0.34, 1.3.132.0.35 */
	{ KEY_ECDSA_P256, 10, { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
	    0x03, 0x01, 0x07 }, 65 },
	{ KEY_ECDSA_P384, 7, { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 }, 97 },
	{ KEY_ECDSA_P521, 7, { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 }, 133 },
	/* 1.3.101.112, and the PrintableString "edwards25519" of RFC 8410's
	 * predecessors, which SoftHSM2 and others also accept */
	{ KEY_ED25519, 5, { 0x06, 0x03, 0x2b, 0x65, 0x70 }, 32 },
	{ KEY_ED25519, 14, { 0x13, 0x0c, 'e', 'd', 'w', 'a', 'r', 'd', 's',
	    '2', '5', '5', '1', '9' }, 32 },
};

static const struct curve *
curve_of(const struct attr *params, int edwards)
{
	for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++)
		if (params->len == curves[i].der_len &&
		    memcmp(params->v, curves[i].der, params->len) == 0 &&
		    (curves[i].kind == KEY_ED25519) == edwards)
			return &curves[i];
	return NULL;
}

/* A label as the list carries it: up to its first NUL, at most
 * P11_MAX_LABEL bytes, not cut inside a UTF-8 character. */
static void
set_label(struct p11key *k, const struct attr *a)
{
	size_t n = a->len;
	const uint8_t *nul = memchr(a->v, '\0', a->len);

	if (nul != NULL)
		n = (size_t)(nul - a->v);
	if (n > sizeof(k->label)) {
		n = sizeof(k->label);
		while (n > 0 && (a->v[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(k->label, a->v, n);
	k->label_len = n;
}

static int
blob_listed(const struct p11list *l, const struct p11key *k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->keys[i].blob_len == k->blob_len &&
		    memcmp(l->keys[i].blob, k->blob, k->blob_len) == 0)
			return 1;
	return 0;
}

/* An RSA private key's public half, from the object or else from its
 * public key object (same CKA_ID): NULL, or why there is none. a1, a2
 * hold the attributes pk points into. */
static const char *
rsa_public(struct p11list *l, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE obj,
    struct attr *id, struct attr *a1, struct attr *a2, struct pubkey *pk)
{
	CK_OBJECT_HANDLE pub;

	if ((get_attr(l, s, obj, CKA_MODULUS, a1) != 0 ||
	    get_attr(l, s, obj, CKA_PUBLIC_EXPONENT, a2) != 0) &&
	    (find_public(l, s, id, CKK_RSA, &pub) != 0 ||
	    get_attr(l, s, pub, CKA_MODULUS, a1) != 0 ||
	    get_attr(l, s, pub, CKA_PUBLIC_EXPONENT, a2) != 0))
		return "no modulus or exponent";
	pk->kind = KEY_RSA;
	pk->rsa_n = (struct slice){ a1->v, a1->len };
	pk->rsa_e = (struct slice){ a2->v, a2->len };
	return NULL;
}

/* The same for an EC or EdDSA key (type): its curve, one keyward signs
 * with, and its uncompressed point. */
static const char *
ec_public(struct p11list *l, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE obj,
    CK_KEY_TYPE type, struct attr *id, struct attr *a1, struct attr *a2,
    struct pubkey *pk)
{
	const struct curve *c;
	CK_OBJECT_HANDLE pub;

	if (get_attr(l, s, obj, CKA_EC_PARAMS, a1) != 0 &&
	    (find_public(l, s, id, type, &pub) != 0 ||
	    get_attr(l, s, pub, CKA_EC_PARAMS, a1) != 0))
		return "no curve";
	if ((c = curve_of(a1, type == CKK_EC_EDWARDS)) == NULL)
		return "a curve keyward does not sign with";
	if ((get_attr(l, s, obj, CKA_EC_POINT, a2) != 0 ||
	    ec_point(a2, c->point_len, &pk->ec_q) != 0) &&
	    (find_public(l, s, id, type, &pub) != 0 ||
	    get_attr(l, s, pub, CKA_EC_POINT, a2) != 0 ||
	    ec_point(a2, c->point_len, &pk->ec_q) != 0))
		return "no public point";
	pk->kind = c->kind;
	if (c->kind == KEY_ED25519)
		pk->ed_a = pk->ec_q;
	else if (pk->ec_q.p[0] != 0x04)
		return "a compressed point";
	return NULL;
}

/* k's public key blob, written from pk and parsed back as any key is:
 * 0, or -1 (logged). */
static int
key_blob(struct p11key *k, struct pubkey *pk)
{
	const char *why = NULL;
	struct wb w;

	wb_init(&w);
	key_write_public(&w, pk);
	if (w.err || w.len > sizeof(k->blob) ||
	    key_parse_public(wb_slice_of(&w), pk, &why) != 0) {
		log_info("a private key is left out: its public key does not "
		    "parse (%s)", why != NULL ? why : "too long");
		wb_free(&w);
		return -1;
	}
	memcpy(k->blob, w.p, w.len);
	k->blob_len = w.len;
	wb_free(&w);
	return 0;
}

/* One private key object into the list, if it is a kind we sign with and
 * its public half is there. Attribute buffers are big: static. */
static void
add_key(struct p11list *l, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE obj)
{
	static struct attr a1, a2, id, label;
	struct p11key *k = &l->keys[l->n];
	CK_KEY_TYPE type;
	CK_ATTRIBUTE t = { CKA_KEY_TYPE, &type, sizeof(type) };
	struct pubkey pk;
	const char *why;

	memset(&pk, 0, sizeof(pk));
	if (l->f->C_GetAttributeValue(s, obj, &t, 1) != CKR_OK ||
	    !get_bool(l, s, obj, CKA_SIGN, 1))
		return;
	get_attr(l, s, obj, CKA_ID, &id);
	get_attr(l, s, obj, CKA_LABEL, &label);
	if (type == CKK_RSA)
		why = rsa_public(l, s, obj, &id, &a1, &a2, &pk);
	else if (type == CKK_EC || type == CKK_EC_EDWARDS)
		why = ec_public(l, s, obj, type, &id, &a1, &a2, &pk);
	else {
		log_debug("private key of type 0x%lx left out", (unsigned long)type);
		return;
	}
	if (why != NULL) {
		log_info("a private key is left out: %s", why);
		return;
	}
	if (key_blob(k, &pk) != 0 || blob_listed(l, k))
		return;
	k->sess = s;
	k->obj = obj;
	k->kind = pk.kind;
	k->flags = get_bool(l, s, obj, CKA_ALWAYS_AUTHENTICATE, 0) ?
	    P11_KEY_ALWAYS_AUTH : 0;
	set_label(k, &label);
	l->n++;
	log_debug("key %zu: %s%s", l->n - 1, key_kind_name(k->kind),
	    k->flags & P11_KEY_ALWAYS_AUTH ? ", always authenticate" : "");
}

void
p11_list_keys(struct p11list *l, CK_SESSION_HANDLE s)
{
	CK_OBJECT_CLASS cls = CKO_PRIVATE_KEY;
	CK_ATTRIBUTE tmpl = { CKA_CLASS, &cls, sizeof(cls) };
	CK_OBJECT_HANDLE objs[P11_MAX_OBJECTS];
	CK_ULONG n = 0;

	if (l->f->C_FindObjectsInit(s, &tmpl, 1) != CKR_OK)
		return;
	if (l->f->C_FindObjects(s, objs, P11_MAX_OBJECTS, &n) != CKR_OK)
		n = 0;
	l->f->C_FindObjectsFinal(s);
	for (CK_ULONG i = 0; i < n; i++) {
		if (l->n == P11_MAX_KEYS) {
			log_error("more than %d keys: the rest are left out",
			    P11_MAX_KEYS);
			return;
		}
		add_key(l, s, objs[i]);
	}
}
