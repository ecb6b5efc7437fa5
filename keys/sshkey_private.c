/*
 * sshkey_private.c - the private key part of an ADD (doc/protocol.md §4.4): read by
 * the monitor (to find where it ends and what its public key is) and by
 * the keyholder, never by policy, which links keys/ but not this object
 * (tests/integration/90-keyward-procs.t checks with nm).
 */
#include "keys/sshkey.h"
#include "keys/sshkey_int.h"
#include "ipc/limits.h"

#include <string.h>

static int
nonzero_mpint(struct rd *r, struct slice *m)
{
	return rd_mpint(r, m) == 0 && m->len > 0 ? 0 : -1;
}

/* What follows the public fields of a FIDO key in an ADD (doc/protocol.md §4.4). */
static int
parse_sk_private(struct rd *r, struct privkey *k, const char **why)
{
	if (rd_u8(r, &k->sk_flags) != 0 ||
	    rd_string(r, &k->sk_key_handle) != 0 ||
	    rd_string(r, &k->sk_reserved) != 0)
		return key_fail(why, "bad FIDO key: flags, key handle or reserved "
		    "field missing");
	if (k->sk_key_handle.len > AGENT_MAX_SK_KEY_HANDLE)
		return key_fail(why, "FIDO key handle is longer than 4096 bytes");
	if (k->sk_reserved.len > AGENT_MAX_SK_RESERVED)
		return key_fail(why, "FIDO reserved field is longer than 1024 bytes");
	if (k->pub.sk_app.len > AGENT_MAX_SK_APPLICATION)
		return key_fail(why, "FIDO application is longer than 1024 bytes "
		    "(keyward's cap for a key it holds)");
	return 0;
}

/* The certificate form of a FIDO ADD repeats public fields of the
 * certified key, which must match it: Ed25519's A, then the application
 * (both kinds). */
static int
parse_sk_cert_repeats(struct rd *r, const struct pubkey *pub, const char **why)
{
	struct slice a, app;

	if (pub->kind == KEY_SK_ED25519) {
		if (rd_string(r, &a) != 0 || a.len != 32)
			return key_fail(why, "bad Ed25519 public key");
		if (!slice_eq(a, pub->ed_a))
			return key_fail(why, "Ed25519 key does not match its certificate");
	}
	if (key_parse_sk_app(r, &app, why) != 0)
		return -1;
	if (!slice_eq(app, pub->sk_app))
		return key_fail(why, "FIDO application does not match the certificate");
	return 0;
}

/* The key type name and, for a certificate key, the certificate, which
 * must be of that type: its kind, or KEY_NONE (why set). */
static enum key_kind
private_head(struct rd *r, struct privkey *k, int *is_cert, const char **why)
{
	struct slice name, cert;
	struct pubkey *pub = &k->pub;
	enum key_kind kind;

	if (rd_text(r, &name) != 0) {
		key_fail(why, "no key type name");
		return KEY_NONE;
	}
	if ((kind = key_kind_from_name(name, is_cert, why)) == KEY_NONE)
		return KEY_NONE;
	if (!*is_cert) {
		pub->kind = kind;
		return kind;
	}
	if (rd_string(r, &cert) != 0) {
		key_fail(why, "truncated certificate key");
		return KEY_NONE;
	}
	if (key_parse_public(cert, pub, why) != 0)
		return KEY_NONE;
	if (!pub->is_cert || pub->kind != kind) {
		key_fail(why, "certificate type does not match the key type");
		return KEY_NONE;
	}
	return kind;
}

static int
ed25519_private(struct rd *r, struct privkey *k, int is_cert, const char **why)
{
	struct pubkey *pub = &k->pub;
	struct slice a;

	if (rd_string(r, &a) != 0 || a.len != 32 ||
	    rd_string(r, &k->ed_k) != 0 || k->ed_k.len != 64)
		return key_fail(why, "bad Ed25519 private key lengths");
	if (is_cert && !slice_eq(a, pub->ed_a))
		return key_fail(why, "Ed25519 key does not match its certificate");
	pub->ed_a = a;
	if (memcmp(k->ed_k.p + 32, a.p, 32) != 0)
		return key_fail(why, "Ed25519 private key does not contain its "
		    "public key");
	return 0;
}

static int
rsa_private_fields(struct rd *r, struct privkey *k, int is_cert,
    const char **why)
{
	struct pubkey *pub = &k->pub;

	if (!is_cert) {
		if (rd_mpint(r, &pub->rsa_n) != 0 || rd_mpint(r, &pub->rsa_e) != 0)
			return key_fail(why, "bad RSA key");
		if (key_rsa_check_public(pub, why) != 0)
			return -1;
	}
	if (nonzero_mpint(r, &k->rsa_d) != 0 ||
	    nonzero_mpint(r, &k->rsa_iqmp) != 0 ||
	    nonzero_mpint(r, &k->rsa_p) != 0 ||
	    nonzero_mpint(r, &k->rsa_q) != 0)
		return key_fail(why, "bad RSA private key");
	return 0;
}

int
key_parse_private(struct rd *r, struct privkey *k, const char **why)
{
	struct pubkey *pub = &k->pub;
	enum key_kind kind;
	int is_cert = 0;

	memset(k, 0, sizeof(*k));
	switch ((kind = private_head(r, k, &is_cert, why))) {
	case KEY_ED25519:
		return ed25519_private(r, k, is_cert, why);
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		if (!is_cert && key_parse_pub_fields(r, kind, pub, why) != 0)
			return -1;
		if (nonzero_mpint(r, &k->ec_d) != 0)
			return key_fail(why, "bad ECDSA private scalar");
		return 0;
	case KEY_RSA:
		return rsa_private_fields(r, k, is_cert, why);
	case KEY_SK_ECDSA_P256:
	case KEY_SK_ED25519:
		if (is_cert ? parse_sk_cert_repeats(r, pub, why) != 0 :
		    key_parse_pub_fields(r, kind, pub, why) != 0)
			return -1;
		return parse_sk_private(r, k, why);
	case KEY_MLDSA44_ED25519:
		/* As OpenSSH 10.5 sends it: the public key (not repeated
		 * after a certificate), then the two seeds. That the seeds
		 * make the public key is checked by the keyholder
		 * (keyholder/privkey.c), which can compute. */
		if (!is_cert && key_parse_pub_fields(r, kind, pub, why) != 0)
			return -1;
		if (rd_string(r, &k->mldsa_sk) != 0 ||
		    k->mldsa_sk.len != MLDSA44_ED25519_SK_LEN)
			return key_fail(why, "bad ML-DSA-44/Ed25519 private key length");
		return 0;
	case KEY_NONE:
		return -1;
	}
	return key_fail(why, "unknown key type");
}

void
key_write_private_plain(struct wb *w, const struct privkey *k)
{
	const struct pubkey *p = &k->pub;

	wb_cstring(w, key_kind_name(p->kind));
	switch (p->kind) {
	case KEY_ED25519:
		wb_slice(w, p->ed_a);
		wb_slice(w, k->ed_k);
		break;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		key_write_pub_fields(w, p->kind, p);
		wb_mpint(w, k->ec_d.p, k->ec_d.len);
		break;
	case KEY_RSA:
		wb_mpint(w, p->rsa_n.p, p->rsa_n.len);
		wb_mpint(w, p->rsa_e.p, p->rsa_e.len);
		wb_mpint(w, k->rsa_d.p, k->rsa_d.len);
		wb_mpint(w, k->rsa_iqmp.p, k->rsa_iqmp.len);
		wb_mpint(w, k->rsa_p.p, k->rsa_p.len);
		wb_mpint(w, k->rsa_q.p, k->rsa_q.len);
		break;
	case KEY_SK_ECDSA_P256:
	case KEY_SK_ED25519:
		key_write_pub_fields(w, p->kind, p);
		wb_u8(w, k->sk_flags);
		wb_slice(w, k->sk_key_handle);
		wb_slice(w, k->sk_reserved);
		break;
	case KEY_MLDSA44_ED25519:
		wb_slice(w, p->mldsa_pk);
		wb_slice(w, k->mldsa_sk);
		break;
	case KEY_NONE:
		w->err = 1;
		break;
	}
}
