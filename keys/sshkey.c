/*
 * sshkey.c - key, certificate and private-key encodings (doc/protocol.md §4.2-§4.4),
 * checked structurally: lengths, names, counts, nesting, nothing trailing.
 */
#include "keys/sshkey.h"
#include "keys/sshkey_int.h"
#include "ipc/limits.h"

#include <string.h>

struct kinfo {
	enum key_kind kind;
	const char *name, *cert_name, *curve;
	size_t qlen;                    /* ECDSA uncompressed point length */
	enum key_kind base;             /* whose public fields come first */
	int sk_alg;                     /* SK_ALG_*, -1: not a FIDO key */
};

static const struct kinfo kinds[] = {
	{ KEY_ED25519, "ssh-ed25519", "ssh-ed25519-cert-v01@openssh.com", NULL, 0,
	  KEY_ED25519, -1 },
	{ KEY_ECDSA_P256, "ecdsa-sha2-nistp256",
	  "ecdsa-sha2-nistp256-cert-v01@openssh.com", "nistp256", 65,
	  KEY_ECDSA_P256, -1 },
	{ KEY_ECDSA_P384, "ecdsa-sha2-nistp384",
	  "ecdsa-sha2-nistp384-cert-v01@openssh.com", "nistp384", 97,
	  KEY_ECDSA_P384, -1 },
	{ KEY_ECDSA_P521, "ecdsa-sha2-nistp521",
	  "ecdsa-sha2-nistp521-cert-v01@openssh.com", "nistp521", 133,
	  KEY_ECDSA_P521, -1 },
	{ KEY_RSA, "ssh-rsa", "ssh-rsa-cert-v01@openssh.com", NULL, 0, KEY_RSA, -1 },
	{ KEY_SK_ECDSA_P256, "sk-ecdsa-sha2-nistp256@openssh.com",
	  "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com", "nistp256", 65,
	  KEY_ECDSA_P256, SK_ALG_ECDSA_P256 },
	{ KEY_SK_ED25519, "sk-ssh-ed25519@openssh.com",
	  "sk-ssh-ed25519-cert-v01@openssh.com", NULL, 0,
	  KEY_ED25519, SK_ALG_ED25519 },
	{ KEY_MLDSA44_ED25519, "ssh-mldsa44-ed25519@openssh.com",
	  "ssh-mldsa44-ed25519-cert-v01@openssh.com", NULL, 0,
	  KEY_MLDSA44_ED25519, -1 },
};

/* Types a client may send that keyward refuses on purpose, with the reason
 * the log gives. Matched by prefix. */
static const struct {
	const char *prefix, *why;
} refused[] = {
	{ "ssh-dss", "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "ssh-xmss", "XMSS keys are not supported (removed from OpenSSH in 10.1)" },
	{ "webauthn-sk-", "webauthn-sk-* names a signature algorithm, not a key type" },
	{ "ssh-mldsa", "of the ML-DSA keys keyward has ssh-mldsa44-ed25519@openssh.com only" },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const struct kinfo *
kinfo(enum key_kind kind)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i].kind == kind)
			return &kinds[i];
	return NULL;
}

const char *
key_kind_name(enum key_kind kind)
{
	const struct kinfo *ki = kinfo(kind);

	return ki ? ki->name : "unknown";
}

const char *
key_kind_cert_name(enum key_kind kind)
{
	const struct kinfo *ki = kinfo(kind);

	return ki ? ki->cert_name : "unknown";
}

const char *
key_kind_curve(enum key_kind kind)
{
	const struct kinfo *ki = kinfo(kind);

	return ki ? ki->curve : NULL;
}

int
key_is_sk(enum key_kind kind)
{
	return key_sk_alg(kind) != -1;
}

int
key_sk_alg(enum key_kind kind)
{
	const struct kinfo *ki = kinfo(kind);

	return ki ? ki->sk_alg : -1;
}

enum key_kind
key_kind_base(enum key_kind kind)
{
	const struct kinfo *ki = kinfo(kind);

	return ki ? ki->base : KEY_NONE;
}

enum key_kind
key_kind_from_name(struct slice name, int *is_cert, const char **why)
{
	for (size_t i = 0; i < NKINDS; i++) {
		if (slice_eq_str(name, kinds[i].name)) {
			*is_cert = 0;
			return kinds[i].kind;
		}
		if (slice_eq_str(name, kinds[i].cert_name)) {
			*is_cert = 1;
			return kinds[i].kind;
		}
	}
	if (why != NULL) {
		*why = "unknown key type";
		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			size_t n = strlen(refused[i].prefix);
			if (name.len >= n && memcmp(name.p, refused[i].prefix, n) == 0)
				*why = refused[i].why;
		}
	}
	return KEY_NONE;
}

/* Every parser below returns through this: the reason for the log. */
int
key_fail(const char **why, const char *msg)
{
	if (why != NULL)
		*why = msg;
	return -1;
}

static unsigned
magnitude_bits(struct slice m)
{
	unsigned bits;
	uint8_t top;

	if (m.len == 0)
		return 0;
	bits = (unsigned)(m.len - 1) * 8;
	for (top = m.p[0]; top != 0; top >>= 1)
		bits++;
	return bits;
}

/* The checks on an RSA public half, wherever it was read (public blob,
 * private encoding): e odd, 1024 to 16384 bits of modulus (doc/protocol.md §4.2). */
int
key_rsa_check_public(struct pubkey *k, const char **why)
{
	if (k->rsa_e.len == 0 || (k->rsa_e.p[k->rsa_e.len - 1] & 1) == 0)
		return key_fail(why, "RSA public exponent is not odd");
	k->rsa_bits = magnitude_bits(k->rsa_n);
	if (k->rsa_bits < AGENT_RSA_MIN_BITS)
		return key_fail(why, "RSA modulus is shorter than 1024 bits");
	if (k->rsa_bits > AGENT_RSA_MAX_BITS)
		return key_fail(why, "RSA modulus is longer than 16384 bits");
	return 0;
}

/* A FIDO key's application: text (one trailing NUL dropped, as OpenSSH
 * reads it with sshbuf_get_cstring and hashes its strlen). OpenSSH caps
 * its length nowhere, and a server may offer such a host key: a public key
 * is read whatever its length (the frame bounds it); only a key the agent
 * holds is capped (sshkey_private.c). */
int
key_parse_sk_app(struct rd *r, struct slice *app, const char **why)
{
	if (rd_text(r, app) != 0)
		return key_fail(why, "FIDO application missing or not text");
	return 0;
}

/* The public fields of a key of a known kind, as in the plain blob after
 * the type name (and inside a certificate after the nonce). A FIDO key
 * has its base kind's fields, then the application (doc/protocol.md §4.2). */
int
key_parse_pub_fields(struct rd *r, enum key_kind kind, struct pubkey *k,
    const char **why)
{
	const struct kinfo *ki = kinfo(kind);
	struct slice curve;

	switch (kind) {
	case KEY_ED25519:
		if (rd_string(r, &k->ed_a) != 0 || k->ed_a.len != 32)
			return key_fail(why, "bad Ed25519 public key");
		return 0;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		if (rd_string(r, &curve) != 0 || !slice_eq_str(curve, ki->curve))
			return key_fail(why, "ECDSA curve does not match the key type");
		if (rd_string(r, &k->ec_q) != 0 || k->ec_q.len != ki->qlen ||
		    k->ec_q.p[0] != 0x04)
			return key_fail(why, "ECDSA point is not an uncompressed point "
			    "of its curve");
		return 0;
	case KEY_RSA:
		if (rd_mpint(r, &k->rsa_e) != 0 || rd_mpint(r, &k->rsa_n) != 0)
			return key_fail(why, "bad RSA public key");
		return key_rsa_check_public(k, why);
	case KEY_SK_ECDSA_P256:
	case KEY_SK_ED25519:
		if (key_parse_pub_fields(r, ki->base, k, why) != 0)
			return -1;
		return key_parse_sk_app(r, &k->sk_app, why);
	case KEY_MLDSA44_ED25519:
		if (rd_string(r, &k->mldsa_pk) != 0 ||
		    k->mldsa_pk.len != MLDSA44_ED25519_PK_LEN)
			return key_fail(why, "bad ML-DSA-44/Ed25519 public key length");
		return 0;
	case KEY_NONE:
		break;
	}
	return key_fail(why, "unknown key type");
}

static int
well_formed_pairs(struct slice s)
{
	struct rd r;
	struct slice name, data;

	rd_init(&r, s.p, s.len);
	while (r.len > 0)
		if (rd_text(&r, &name) != 0 || rd_string(&r, &data) != 0)
			return -1;
	return 0;
}

static int
parse_cert(struct rd *r, struct slice whole, struct pubkey *k, const char **why)
{
	struct key_cert *c = &k->cert;
	struct slice reserved, caname;
	struct rd pr, cr;
	struct pubkey ca;
	int ca_cert;

	if (rd_string(r, &c->nonce) != 0)
		return key_fail(why, "truncated certificate");
	if (key_parse_pub_fields(r, k->kind, k, why) != 0)
		return -1;
	if (rd_u64(r, &c->serial) != 0 || rd_u32(r, &c->type) != 0 ||
	    rd_text(r, &c->key_id) != 0 || rd_string(r, &c->principals) != 0 ||
	    rd_u64(r, &c->valid_after) != 0 || rd_u64(r, &c->valid_before) != 0 ||
	    rd_string(r, &c->critical_options) != 0 ||
	    rd_string(r, &c->extensions) != 0 || rd_string(r, &reserved) != 0 ||
	    rd_string(r, &c->signature_key) != 0)
		return key_fail(why, "truncated certificate");
	c->signed_len = whole.len - r->len;
	if (rd_string(r, &c->signature) != 0 || rd_done(r) != 0)
		return key_fail(why, "certificate signature missing or bytes after it");
	if (c->type != 1 && c->type != 2)
		return key_fail(why, "certificate type is neither user nor host");
	rd_init(&pr, c->principals.p, c->principals.len);
	for (c->nprincipals = 0; pr.len > 0; c->nprincipals++) {
		struct slice p;
		if (c->nprincipals >= AGENT_MAX_PRINCIPALS || rd_text(&pr, &p) != 0)
			return key_fail(why, "certificate principals malformed or "
			    "more than 256");
	}
	if (well_formed_pairs(c->critical_options) != 0 ||
	    well_formed_pairs(c->extensions) != 0)
		return key_fail(why, "certificate options or extensions malformed");
	/* Refuse a certificate as the CA by its name, before parsing it:
	 * otherwise the recursion depth would follow the input (one frame
	 * could nest some two thousand certificates). key_parse_public
	 * reads the same name, so what parses below is never a certificate. */
	rd_init(&cr, c->signature_key.p, c->signature_key.len);
	if (rd_string(&cr, &caname) == 0 &&
	    key_kind_from_name(caname, &ca_cert, NULL) != KEY_NONE && ca_cert)
		return key_fail(why, "certificate signed by a certificate");
	return key_parse_public(c->signature_key, &ca, why);
}

int
key_parse_public(struct slice blob, struct pubkey *k, const char **why)
{
	struct rd r;
	struct slice name;

	memset(k, 0, sizeof(*k));
	rd_init(&r, blob.p, blob.len);
	if (rd_string(&r, &name) != 0)
		return key_fail(why, "key blob has no type name");
	if ((k->kind = key_kind_from_name(name, &k->is_cert, why)) == KEY_NONE)
		return -1;
	if (k->is_cert) {
		k->cert_blob = blob;
		return parse_cert(&r, blob, k, why);
	}
	if (key_parse_pub_fields(&r, k->kind, k, why) != 0)
		return -1;
	if (rd_done(&r) != 0)
		return key_fail(why, "bytes after the key");
	return 0;
}

void
key_write_pub_fields(struct wb *w, enum key_kind kind, const struct pubkey *k)
{
	switch (kind) {
	case KEY_ED25519:
		wb_slice(w, k->ed_a);
		break;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		wb_cstring(w, key_kind_curve(kind));
		wb_slice(w, k->ec_q);
		break;
	case KEY_RSA:
		wb_mpint(w, k->rsa_e.p, k->rsa_e.len);
		wb_mpint(w, k->rsa_n.p, k->rsa_n.len);
		break;
	case KEY_SK_ECDSA_P256:
	case KEY_SK_ED25519:
		key_write_pub_fields(w, key_kind_base(kind), k);
		wb_slice(w, k->sk_app);
		break;
	case KEY_MLDSA44_ED25519:
		wb_slice(w, k->mldsa_pk);
		break;
	case KEY_NONE:
		w->err = 1;
		break;
	}
}

void
key_write_public(struct wb *w, const struct pubkey *k)
{
	if (k->is_cert) {
		wb_bytes(w, k->cert_blob.p, k->cert_blob.len);
		return;
	}
	wb_cstring(w, key_kind_name(k->kind));
	key_write_pub_fields(w, k->kind, k);
}

static const struct {
	enum sig_alg alg;
	const char *name;
	enum key_kind kind;
} sig_algs[] = {
	{ SIG_ED25519, "ssh-ed25519", KEY_ED25519 },
	{ SIG_ECDSA_P256, "ecdsa-sha2-nistp256", KEY_ECDSA_P256 },
	{ SIG_ECDSA_P384, "ecdsa-sha2-nistp384", KEY_ECDSA_P384 },
	{ SIG_ECDSA_P521, "ecdsa-sha2-nistp521", KEY_ECDSA_P521 },
	{ SIG_RSA_SHA1, "ssh-rsa", KEY_RSA },
	{ SIG_RSA_SHA256, "rsa-sha2-256", KEY_RSA },
	{ SIG_RSA_SHA512, "rsa-sha2-512", KEY_RSA },
	{ SIG_SK_ECDSA_P256, "sk-ecdsa-sha2-nistp256@openssh.com", KEY_SK_ECDSA_P256 },
	{ SIG_SK_ED25519, "sk-ssh-ed25519@openssh.com", KEY_SK_ED25519 },
	{ SIG_MLDSA44_ED25519, "ssh-mldsa44-ed25519@openssh.com",
	  KEY_MLDSA44_ED25519 },
};

#define NSIGALGS (sizeof(sig_algs) / sizeof(sig_algs[0]))

const char *
sig_alg_name(enum sig_alg alg)
{
	for (size_t i = 0; i < NSIGALGS; i++)
		if (sig_algs[i].alg == alg)
			return sig_algs[i].name;
	return "unknown";
}

enum sig_alg
sig_alg_from_name(struct slice name)
{
	for (size_t i = 0; i < NSIGALGS; i++)
		if (slice_eq_str(name, sig_algs[i].name))
			return sig_algs[i].alg;
	return SIG_NONE;
}

int
sig_alg_fits(enum sig_alg alg, enum key_kind kind)
{
	for (size_t i = 0; i < NSIGALGS; i++)
		if (sig_algs[i].alg == alg)
			return sig_algs[i].kind == kind;
	return 0;
}

enum sig_alg
sig_alg_for(enum key_kind kind, uint32_t flags)
{
	switch (kind) {
	case KEY_ED25519:
		return SIG_ED25519;
	case KEY_ECDSA_P256:
		return SIG_ECDSA_P256;
	case KEY_ECDSA_P384:
		return SIG_ECDSA_P384;
	case KEY_ECDSA_P521:
		return SIG_ECDSA_P521;
	case KEY_RSA:
		if (flags & SSH_AGENT_RSA_SHA2_256)
			return SIG_RSA_SHA256;
		if (flags & SSH_AGENT_RSA_SHA2_512)
			return SIG_RSA_SHA512;
		return SIG_RSA_SHA1;
	case KEY_SK_ECDSA_P256:
		return SIG_SK_ECDSA_P256;
	case KEY_SK_ED25519:
		return SIG_SK_ED25519;
	case KEY_MLDSA44_ED25519:
		return SIG_MLDSA44_ED25519;
	case KEY_NONE:
		break;
	}
	return SIG_NONE;
}

int
key_canonical(struct slice blob, struct pubkey *k, struct wb *w,
    const char **why)
{
	struct pubkey parsed;

	if (k == NULL)
		k = &parsed;
	if (key_parse_public(blob, k, why) != 0)
		return -1;
	key_write_public(w, k);
	if (w->err) {
		if (why != NULL)
			*why = "the key cannot be encoded";
		return -1;
	}
	return 0;
}
