/*
 * keys_helper.h - what the destination-constraint tests need to speak for
 * hosts and clients: host keys made with OpenSSL, their SSH blobs written
 * field by field from spec §4.2, host certificates (§4.3) signed by a CA
 * key, restrict-destination constraint lists (§6.6) and userauth requests
 * (§8.7). Built independently of the parsers under test; any failure to
 * build a test input aborts, so it never passes for a test that ran.
 */
#ifndef KEYWARD_TEST_KEYS_HELPER_H
#define KEYWARD_TEST_KEYS_HELPER_H

#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "ipc/sshkey.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void
kh_die(const char *what)
{
	fprintf(stderr, "keys_helper: %s\n", what);
	abort();
}

static inline void
kh_check(const struct wb *w, const char *what)
{
	if (w->err)
		kh_die(what);
}

static inline struct slice
kh_sl(const void *p, size_t n)
{
	struct slice s = { p, n };

	return s;
}

static inline struct slice
kh_str(const char *s)
{
	return kh_sl(s, strlen(s));
}

/* ------------------------------------------------------------- host keys */

struct tkey {
	enum key_kind kind;
	EVP_PKEY *pk;
	struct wb blob;         /* plain public blob (§4.2), minimal mpints */
	struct wb fields;       /* the same without the type name */
};

static inline void
tkey_bn(EVP_PKEY *pk, const char *param, struct wb *w)
{
	BIGNUM *b = NULL;
	uint8_t buf[2048];
	int n;

	if (EVP_PKEY_get_bn_param(pk, param, &b) != 1 ||
	    BN_num_bytes(b) > (int)sizeof(buf) || (n = BN_bn2bin(b, buf)) < 0)
		kh_die("RSA parameter");
	wb_mpint(w, buf, (size_t)n);
	BN_free(b);
}

/* The public fields of §4.2 after the type name. */
static inline void
tkey_write_fields(struct wb *w, const struct tkey *k)
{
	uint8_t buf[256];
	size_t n = 0;

	switch (k->kind) {
	case KEY_ED25519:
		n = sizeof(buf);
		if (EVP_PKEY_get_raw_public_key(k->pk, buf, &n) != 1 || n != 32)
			kh_die("Ed25519 public key");
		wb_string(w, buf, n);
		break;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		if (EVP_PKEY_get_octet_string_param(k->pk, OSSL_PKEY_PARAM_PUB_KEY,
		    buf, sizeof(buf), &n) != 1 || buf[0] != 0x04)
			kh_die("ECDSA public point");
		wb_cstring(w, key_kind_curve(k->kind));
		wb_string(w, buf, n);
		break;
	case KEY_RSA:
		tkey_bn(k->pk, OSSL_PKEY_PARAM_RSA_E, w);      /* e before n */
		tkey_bn(k->pk, OSSL_PKEY_PARAM_RSA_N, w);
		break;
	case KEY_SK_ECDSA_P256:         /* testkeys.h makes FIDO keys */
	case KEY_SK_ED25519:
	case KEY_NONE:
		kh_die("no key kind");
	}
}

static inline void
tkey_gen(struct tkey *k, enum key_kind kind)
{
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	switch (kind) {
	case KEY_ED25519:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
		break;
	case KEY_ECDSA_P256:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
		break;
	case KEY_ECDSA_P384:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
		break;
	case KEY_ECDSA_P521:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-521");
		break;
	case KEY_RSA:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
		break;
	case KEY_SK_ECDSA_P256:
	case KEY_SK_ED25519:
	case KEY_NONE:
		break;
	}
	if (k->pk == NULL)
		kh_die("key generation");
	wb_init(&k->blob);
	wb_init(&k->fields);
	tkey_write_fields(&k->fields, k);
	wb_cstring(&k->blob, key_kind_name(kind));
	wb_bytes(&k->blob, k->fields.p, k->fields.len);
	kh_check(&k->blob, "public blob");
}

static inline void
tkey_free(struct tkey *k)
{
	EVP_PKEY_free(k->pk);
	wb_free(&k->blob);
	wb_free(&k->fields);
	memset(k, 0, sizeof(*k));
}

static inline struct slice
tkey_blob(const struct tkey *k)
{
	return wb_slice_of(&k->blob);
}

/* The algorithm a key of this kind signs with when nobody asks otherwise. */
static inline enum sig_alg
tkey_alg(const struct tkey *k)
{
	return sig_alg_for(k->kind, SSH_AGENT_RSA_SHA2_512);
}

/* Append the SSH signature blob (§4.6) of data; SIG_NONE: natural alg. */
static inline void
tkey_sign(const struct tkey *k, enum sig_alg alg, struct slice data, struct wb *out)
{
	if (sig_make(k->pk, alg == SIG_NONE ? tkey_alg(k) : alg, data, out) != 0)
		kh_die("sig_make");
}

/* ---------------------------------------------------------- certificates */

struct tcert {
	const struct tkey *key;         /* the certified key */
	const struct tkey *ca;          /* signs; its blob is signature_key */
	enum sig_alg ca_alg;            /* SIG_NONE: the CA's natural alg */
	uint32_t type;                  /* 1 user, 2 host */
	const char *const *principals;  /* NULL-terminated; NULL: none */
	uint64_t valid_after, valid_before;
	const char *critical;           /* a critical option's name, or NULL */
	int break_sig;                  /* flip a bit of the CA signature */
};

/* The whole certificate blob of §4.3, signed over everything up to and
 * including signature_key. */
static inline void
tcert_make(const struct tcert *c, struct wb *out)
{
	static const uint8_t nonce[32] = { 0x6e, 0x6f, 0x6e, 0x63, 0x65 };
	struct wb w, sig;
	size_t mark;

	wb_init(&w);
	wb_init(&sig);
	wb_cstring(&w, key_kind_cert_name(c->key->kind));
	wb_string(&w, nonce, sizeof(nonce));
	wb_bytes(&w, c->key->fields.p, c->key->fields.len);
	wb_u64(&w, 42);                                 /* serial */
	wb_u32(&w, c->type);
	wb_cstring(&w, "test certificate");             /* key_id */
	mark = wb_begin_string(&w);
	for (size_t i = 0; c->principals != NULL && c->principals[i] != NULL; i++)
		wb_cstring(&w, c->principals[i]);
	wb_end_string(&w, mark);
	wb_u64(&w, c->valid_after);
	wb_u64(&w, c->valid_before);
	mark = wb_begin_string(&w);
	if (c->critical != NULL) {
		wb_cstring(&w, c->critical);
		wb_string(&w, NULL, 0);
	}
	wb_end_string(&w, mark);
	wb_string(&w, NULL, 0);                         /* extensions */
	wb_string(&w, NULL, 0);                         /* reserved */
	wb_slice(&w, tkey_blob(c->ca));                 /* signature_key */
	kh_check(&w, "certificate body");
	tkey_sign(c->ca, c->ca_alg, wb_slice_of(&w), &sig);
	if (c->break_sig)
		sig.p[sig.len - 1] ^= 0x01;
	wb_string(&w, sig.p, sig.len);
	wb_free(&sig);
	kh_check(&w, "certificate");
	wb_bytes(out, w.p, w.len);
	wb_free(&w);
}

/* ----------------------------------------------- restrict-destination (§6.6) */

struct tspec {
	struct slice blob;
	int is_ca;
};

struct thop {
	const char *user;               /* NULL: empty */
	const char *host;               /* NULL: empty */
	struct slice reserved;          /* must be empty to be valid */
	const struct tspec *keys;
	size_t nkeys;
};

/* string hop { string user; string host; string reserved; repeat{...} } */
static inline void
thop_write(struct wb *w, const struct thop *h)
{
	size_t mark = wb_begin_string(w);

	wb_cstring(w, h->user ? h->user : "");
	wb_cstring(w, h->host ? h->host : "");
	wb_slice(w, h->reserved);
	for (size_t i = 0; i < h->nkeys; i++) {
		wb_slice(w, h->keys[i].blob);
		wb_u8(w, h->keys[i].is_ca ? 1 : 0);
	}
	wb_end_string(w, mark);
}

/* One constraint string of a constraint_list; extra bytes, if any, go
 * after its reserved field (invalid). */
static inline void
tconstraint_write(struct wb *w, const struct thop *from, const struct thop *to,
    struct slice reserved, struct slice extra)
{
	size_t mark = wb_begin_string(w);

	thop_write(w, from);
	thop_write(w, to);
	wb_slice(w, reserved);
	wb_bytes(w, extra.p, extra.len);
	wb_end_string(w, mark);
}

/* ------------------------------------------------ userauth requests (§8.7) */

struct tua {
	struct slice sid;
	uint8_t msg;                    /* 50 */
	const char *user;
	struct slice user_raw;          /* used instead of user if p != NULL */
	const char *service;            /* "ssh-connection" */
	const char *method;             /* "publickey" or the hostbound one */
	uint8_t has_sig;                /* 1 */
	const char *pkalg;
	struct slice key;
	struct slice hostkey;           /* written if p != NULL */
	struct slice trail;             /* bytes after everything */
};

static inline void
tua_write(struct wb *w, const struct tua *u)
{
	wb_slice(w, u->sid);
	wb_u8(w, u->msg);
	if (u->user_raw.p != NULL)
		wb_slice(w, u->user_raw);
	else
		wb_cstring(w, u->user);
	wb_cstring(w, u->service);
	wb_cstring(w, u->method);
	wb_u8(w, u->has_sig);
	wb_cstring(w, u->pkalg);
	wb_slice(w, u->key);
	if (u->hostkey.p != NULL)
		wb_slice(w, u->hostkey);
	wb_bytes(w, u->trail.p, u->trail.len);
	kh_check(w, "userauth request");
}

/* An SSHSIG blob as ssh-keygen -Y sign makes it (§8.8): six magic bytes
 * without a length, namespace, reserved, hash algorithm, H(message). */
static inline void
tsshsig_write(struct wb *w, const char *ns)
{
	uint8_t h[64];

	memset(h, 0xab, sizeof(h));
	wb_bytes(w, "SSHSIG", 6);
	wb_cstring(w, ns);
	wb_string(w, NULL, 0);
	wb_cstring(w, "sha512");
	wb_string(w, h, sizeof(h));
	kh_check(w, "SSHSIG blob");
}

#endif
