/*
 * testkeys.h - the one library of test keys: real keys made with OpenSSL at
 * run time, and every SSH encoding the tests feed the code under test,
 * built from the keys' components field by field and independently of the
 * parsers under test: public blobs (doc/protocol.md §4.2), certificates (doc/protocol.md §4.3),
 * private ADD encodings (doc/protocol.md §4.4), signatures (doc/protocol.md §4.6), restrict-destination
 * constraint lists (doc/protocol.md §6.6), userauth requests (doc/protocol.md §8.7) and SSHSIG blobs
 * (doc/protocol.md §8.8). Encodings go into a struct tb (tests/unit/tb.h), which also
 * records every string length for the truncation and length checks. A
 * failure to build a test input aborts, so it never passes for a test
 * that ran. The one key encoder of the tests: the hostile client
 * (tests/hostile/) and the bench (tests/bench/) encode their keys here too
 * (testkey_from_pkey, tk_pub, tk_priv); nothing here prints TAP.
 */
#ifndef KEYWARD_TEST_KEYS_H
#define KEYWARD_TEST_KEYS_H

#include "crypto/crypto.h"
#include "keyholder/privkey.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"
#include "tests/unit/tb.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void
tk_die(const char *what)
{
	fprintf(stderr, "testkeys: %s\n", what);
	abort();
}

static inline void
tk_check(const struct wb *w, const char *what)
{
	if (w->err)
		tk_die(what);
}

struct comp {
	uint8_t b[AGENT_RSA_MAX_BITS / 8 + 1];  /* an RSA-16384 modulus */
	size_t len;
};

struct testkey {
	enum key_kind kind;             /* a FIDO kind has its base kind's fields */
	EVP_PKEY *pkey;
	struct comp app, kh;            /* FIDO: application, key handle */
	uint8_t skflags;                /* FIDO: the key's flags byte */
	struct comp a, seed;                    /* Ed25519 */
	struct comp q, d;                       /* ECDSA */
	struct comp n, e, rd, iqmp, p, pq;      /* RSA: rd = d, pq = q */
	struct wb blob;                         /* public blob (doc/protocol.md §4.2) */
};

static inline void
comp_set(struct comp *c, const void *p, size_t n)
{
	if (n > sizeof(c->b))
		abort();
	memcpy(c->b, p, n);
	c->len = n;
}

static inline void
comp_bn(EVP_PKEY *pk, const char *param, struct comp *c)
{
	BIGNUM *b = NULL;

	if (EVP_PKEY_get_bn_param(pk, param, &b) != 1 ||
	    (size_t)BN_num_bytes(b) > sizeof(c->b))
		abort();
	c->len = (size_t)BN_bn2bin(b, c->b);
	BN_clear_free(b);
}

static inline void tk_pub(struct tb *, const struct testkey *);

static inline void
testkey_from_pkey(struct testkey *k, enum key_kind kind, EVP_PKEY *pk)
{
	struct tb t;
	size_t n;

	memset(k, 0, sizeof(*k));
	k->kind = kind;
	k->pkey = pk;
	switch (key_kind_base(kind)) {
	case KEY_ED25519:
		n = sizeof(k->a.b);
		if (EVP_PKEY_get_raw_public_key(pk, k->a.b, &n) != 1)
			abort();
		k->a.len = n;
		n = sizeof(k->seed.b);
		if (EVP_PKEY_get_raw_private_key(pk, k->seed.b, &n) != 1)
			abort();
		k->seed.len = n;
		break;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		if (EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY,
		    k->q.b, sizeof(k->q.b), &n) != 1)
			abort();
		k->q.len = n;
		comp_bn(pk, OSSL_PKEY_PARAM_PRIV_KEY, &k->d);
		break;
	case KEY_RSA:
		comp_bn(pk, OSSL_PKEY_PARAM_RSA_N, &k->n);
		comp_bn(pk, OSSL_PKEY_PARAM_RSA_E, &k->e);
		comp_bn(pk, OSSL_PKEY_PARAM_RSA_D, &k->rd);
		comp_bn(pk, OSSL_PKEY_PARAM_RSA_FACTOR1, &k->p);
		comp_bn(pk, OSSL_PKEY_PARAM_RSA_FACTOR2, &k->pq);
		/* OpenSSL's coefficient is q^-1 mod p, as SSH's iqmp (doc/protocol.md §4.4). */
		comp_bn(pk, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, &k->iqmp);
		break;
	case KEY_SK_ECDSA_P256:
	case KEY_SK_ED25519:
	case KEY_MLDSA44_ED25519:       /* tests/unit/test_mldsa_key.c */
	case KEY_NONE:
		abort();
	}
	if (key_is_sk(kind)) {
		/* What the middleware would have enrolled: the key handle is
		 * any bytes the token understands. */
		comp_set(&k->app, "ssh:", 4);
		for (size_t i = 0; i < 48; i++)
			k->kh.b[i] = (uint8_t)(0xa0 + i);
		k->kh.len = 48;
		k->skflags = 0x01;
	}
	tb_init(&t);
	tk_pub(&t, k);
	tk_check(&t.w, "public blob");
	k->blob = t.w;          /* the string map is not kept */
}

/* Generate a key: bits only matters for RSA. */
static inline void
testkey_gen(struct testkey *k, enum key_kind kind, size_t bits)
{
	EVP_PKEY *pk = NULL;

	switch (kind) {
	case KEY_ED25519: pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"); break;
	case KEY_ECDSA_P256: pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"); break;
	case KEY_ECDSA_P384: pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384"); break;
	case KEY_ECDSA_P521: pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-521"); break;
	case KEY_RSA: pk = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", bits); break;
	/* a FIDO key is made by its token; a software key of its curve
	 * stands in for the token's, to sign what a token would */
	case KEY_SK_ECDSA_P256: pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"); break;
	case KEY_SK_ED25519: pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"); break;
	case KEY_MLDSA44_ED25519:       /* tests/unit/test_mldsa_key.c */
	case KEY_NONE: break;
	}
	if (pk == NULL)
		abort();
	testkey_from_pkey(k, kind, pk);
}

static inline void
testkey_free(struct testkey *k)
{
	EVP_PKEY_free(k->pkey);
	wb_free(&k->blob);
	OPENSSL_cleanse(k, sizeof(*k));
}

static inline struct slice
testkey_blob(const struct testkey *k)
{
	return wb_slice_of(&k->blob);
}

static inline const char *
tk_curve(enum key_kind kind)
{
	switch (kind) {
	case KEY_ECDSA_P256: return "nistp256";
	case KEY_SK_ECDSA_P256: return "nistp256";
	case KEY_ECDSA_P384: return "nistp384";
	case KEY_ECDSA_P521: return "nistp521";
	default: return "";
	}
}

static inline const char *
tk_name(enum key_kind kind)
{
	switch (kind) {
	case KEY_ED25519: return "ssh-ed25519";
	case KEY_ECDSA_P256: return "ecdsa-sha2-nistp256";
	case KEY_ECDSA_P384: return "ecdsa-sha2-nistp384";
	case KEY_ECDSA_P521: return "ecdsa-sha2-nistp521";
	case KEY_RSA: return "ssh-rsa";
	case KEY_SK_ECDSA_P256: return "sk-ecdsa-sha2-nistp256@openssh.com";
	case KEY_SK_ED25519: return "sk-ssh-ed25519@openssh.com";
	default: return "";
	}
}

static inline const char *
tk_cert_name(enum key_kind kind)
{
	switch (kind) {
	case KEY_ED25519: return "ssh-ed25519-cert-v01@openssh.com";
	case KEY_ECDSA_P256: return "ecdsa-sha2-nistp256-cert-v01@openssh.com";
	case KEY_ECDSA_P384: return "ecdsa-sha2-nistp384-cert-v01@openssh.com";
	case KEY_ECDSA_P521: return "ecdsa-sha2-nistp521-cert-v01@openssh.com";
	case KEY_RSA: return "ssh-rsa-cert-v01@openssh.com";
	case KEY_SK_ECDSA_P256: return "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com";
	case KEY_SK_ED25519: return "sk-ssh-ed25519-cert-v01@openssh.com";
	default: return "";
	}
}

/* The public fields after the type name (doc/protocol.md §4.2). */
static inline void
tk_pub_fields(struct tb *t, const struct testkey *k)
{
	switch (key_kind_base(k->kind)) {
	case KEY_ED25519:
		tb_string(t, k->a.b, k->a.len);
		break;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		tb_cstring(t, tk_curve(k->kind));
		tb_string(t, k->q.b, k->q.len);
		break;
	case KEY_RSA:
		tb_mpint(t, k->e.b, k->e.len);
		tb_mpint(t, k->n.b, k->n.len);
		break;
	default:
		break;
	}
	if (key_is_sk(k->kind))
		tb_string(t, k->app.b, k->app.len);
}

static inline void
tk_pub(struct tb *t, const struct testkey *k)
{
	tb_cstring(t, tk_name(k->kind));
	tk_pub_fields(t, k);
}

/* What follows a FIDO key's application in an ADD (doc/protocol.md §4.4). */
static inline void
tk_sk_tail(struct tb *t, const struct testkey *k)
{
	tb_u8(t, k->skflags);
	tb_string(t, k->kh.b, k->kh.len);
	tb_string(t, "", 0);                    /* reserved */
}

/* The private fields of the certificate form (doc/protocol.md §4.4), cert already written. */
static inline void
tk_priv_cert_fields(struct tb *t, const struct testkey *k)
{
	uint8_t k64[64];

	switch (k->kind) {
	case KEY_SK_ED25519:
		tb_string(t, k->a.b, 32);       /* A again, then the application */
		/* FALLTHROUGH */
	case KEY_SK_ECDSA_P256:
		tb_string(t, k->app.b, k->app.len);
		tk_sk_tail(t, k);
		break;
	case KEY_ED25519:
		memcpy(k64, k->seed.b, 32);
		memcpy(k64 + 32, k->a.b, 32);
		tb_string(t, k->a.b, 32);
		tb_string(t, k64, 64);
		OPENSSL_cleanse(k64, sizeof(k64));
		break;
	case KEY_ECDSA_P256:
	case KEY_ECDSA_P384:
	case KEY_ECDSA_P521:
		tb_mpint(t, k->d.b, k->d.len);
		break;
	case KEY_RSA:
		tb_mpint(t, k->rd.b, k->rd.len);
		tb_mpint(t, k->iqmp.b, k->iqmp.len);
		tb_mpint(t, k->p.b, k->p.len);
		tb_mpint(t, k->pq.b, k->pq.len);
		break;
	case KEY_MLDSA44_ED25519:       /* tests/unit/test_mldsa_key.c */
	case KEY_NONE:
		break;
	}
}

/* The plain private encoding of an ADD message (doc/protocol.md §4.4): the public
 * fields the certificate form leaves to the certificate, then the rest. */
static inline void
tk_priv(struct tb *t, const struct testkey *k)
{
	tb_cstring(t, tk_name(k->kind));
	if (key_is_sk(k->kind)) {               /* public fields, then the
	                                         * key handle (doc/protocol.md §4.4) */
		tk_pub_fields(t, k);
		tk_sk_tail(t, k);
		return;
	}
	if (k->kind == KEY_RSA) {              /* n before e, unlike doc/protocol.md §4.2 */
		tb_mpint(t, k->n.b, k->n.len);
		tb_mpint(t, k->e.b, k->e.len);
	} else if (k->kind != KEY_ED25519) {
		tk_pub_fields(t, k);            /* ECDSA: curve and Q */
	}
	tk_priv_cert_fields(t, k);
}

/* The public blob (doc/protocol.md §4.2) and the plain private encoding (doc/protocol.md §4.4) of pk, a
 * key of this kind, into blob and priv (neither initialised before): for
 * the clients that run against any agent (tests/hostile/, tests/bench/),
 * which keep the encodings and not the components. */
static inline void
testkey_encode(EVP_PKEY *pk, enum key_kind kind, struct wb *blob, struct wb *priv)
{
	struct testkey k;
	struct tb t;

	testkey_from_pkey(&k, kind, pk);
	*blob = k.blob;
	tb_init(&t);
	tk_priv(&t, &k);
	tk_check(&t.w, "private encoding");
	*priv = t.w;
	OPENSSL_cleanse(&k, sizeof(k));
}

/* What goes into a certificate; zero fields mean the usual value. */
struct certspec {
	const struct testkey *key;      /* certified key */
	const struct testkey *ca;       /* signs, and is the signature key */
	enum sig_alg ca_alg;            /* SIG_NONE: the CA's default */
	const char *type_name;          /* NULL: the key's cert name */
	uint32_t type;                  /* 0 means 1 (user) */
	int type_given;                 /* use type even if 0 */
	uint64_t serial;
	const char *key_id;
	const char *const *principals;  /* NULL-terminated; NULL: nprincipals */
	unsigned nprincipals;           /* made-up ones: user0, user1, ... */
	uint64_t valid_after, valid_before;
	const uint8_t *crit; size_t critlen;    /* raw critical_options bytes */
	const char *critical;           /* or one option, empty data, by name */
	const uint8_t *ext; size_t extlen;      /* raw extensions bytes */
	const uint8_t *sigkey; size_t sigkeylen; /* raw signature key blob */
	const uint8_t *trailer; size_t trailerlen; /* bytes after signature */
	int no_signature;               /* stop after signature_key */
	int corrupt_signature;          /* flip a bit in the signature */
};

/* What a FIDO token signs (doc/protocol.md §4.6), made here with the stand-in key:
 * SHA-256(application) || flags || counter || SHA-256(data); Ed25519
 * signs those 69 bytes, ECDSA their SHA-256. The blob is built field by
 * field: string name; string inner; byte flags; uint32 counter. */
static inline void
tk_sk_sign(const struct testkey *k, struct slice data, uint8_t flags,
    uint32_t counter, struct tb *out)
{
	uint8_t msg[69], sig[128], r[40], s[40];
	const unsigned char *der = sig;
	size_t len = sizeof(sig);
	unsigned int n = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	ECDSA_SIG *es;
	const BIGNUM *br, *bs;
	struct tb inner;

	if (EVP_Digest(k->app.b, k->app.len, msg, &n, EVP_sha256(), NULL) != 1 ||
	    EVP_Digest(data.p, data.len, msg + 37, &n, EVP_sha256(), NULL) != 1)
		abort();
	msg[32] = flags;
	msg[33] = (uint8_t)(counter >> 24);
	msg[34] = (uint8_t)(counter >> 16);
	msg[35] = (uint8_t)(counter >> 8);
	msg[36] = (uint8_t)counter;
	if (ctx == NULL || EVP_DigestSignInit(ctx, NULL, k->kind == KEY_SK_ED25519 ?
	    NULL : EVP_sha256(), NULL, k->pkey) != 1 ||
	    EVP_DigestSign(ctx, sig, &len, msg, sizeof(msg)) != 1)
		abort();
	EVP_MD_CTX_free(ctx);
	tb_cstring(out, tk_name(k->kind));
	if (k->kind == KEY_SK_ED25519) {
		tb_string(out, sig, len);
	} else {
		if ((es = d2i_ECDSA_SIG(NULL, &der, (long)len)) == NULL)
			abort();
		ECDSA_SIG_get0(es, &br, &bs);
		tb_init(&inner);
		tb_mpint(&inner, r, (size_t)BN_bn2bin(br, r));
		tb_mpint(&inner, s, (size_t)BN_bn2bin(bs, s));
		tb_string_of(out, &inner);
		tb_free(&inner);
		ECDSA_SIG_free(es);
	}
	tb_u8(out, flags);
	tb_u32(out, counter);
}

/* The algorithm a key of this kind signs with when nobody asks otherwise. */
static inline enum sig_alg
tk_default_alg(enum key_kind kind)
{
	return kind == KEY_RSA ? SIG_RSA_SHA512 : sig_alg_for(kind, 0);
}

/* Append the SSH signature blob (doc/protocol.md §4.6) of data; SIG_NONE: the default alg. */
static inline void
tk_sign(const struct testkey *k, enum sig_alg alg, struct slice data,
    struct wb *out)
{
	if (sig_make(k->pkey, alg == SIG_NONE ? tk_default_alg(k->kind) : alg,
	    data, out) != 0)
		tk_die("sig_make");
}

static inline void
tk_cert(struct tb *t, const struct certspec *cs)
{
	struct tb ca;
	struct wb sig;
	char pr[32];
	static const uint8_t nonce[32] = { 0x6e, 0x6f, 0x6e, 0x63, 0x65 };

	tb_init(&ca);
	tk_pub(&ca, cs->ca);
	tb_cstring(t, cs->type_name ? cs->type_name : tk_cert_name(cs->key->kind));
	tb_string(t, nonce, sizeof(nonce));
	tk_pub_fields(t, cs->key);
	tb_u64(t, cs->serial);
	tb_u32(t, cs->type_given || cs->type ? cs->type : 1);
	tb_cstring(t, cs->key_id ? cs->key_id : "perseus@argos");
	tb_begin(t);
	for (size_t i = 0; cs->principals != NULL && cs->principals[i]; i++)
		tb_cstring(t, cs->principals[i]);
	for (unsigned i = 0; cs->principals == NULL && i < cs->nprincipals; i++) {
		snprintf(pr, sizeof(pr), "user%u", i);
		tb_cstring(t, pr);
	}
	tb_end(t);
	tb_u64(t, cs->valid_after);
	tb_u64(t, cs->valid_before ? cs->valid_before : UINT64_MAX);
	if (cs->crit == NULL && cs->critical != NULL) {
		tb_begin(t);
		tb_cstring(t, cs->critical);
		tb_string(t, "", 0);
		tb_end(t);
	} else
		tb_string(t, cs->crit, cs->critlen);
	tb_string(t, cs->ext, cs->extlen);
	tb_string(t, "", 0);                    /* reserved */
	if (cs->sigkey != NULL)
		tb_string(t, cs->sigkey, cs->sigkeylen);
	else
		tb_string_of(t, &ca);
	if (!cs->no_signature && key_is_sk(cs->ca->kind)) {
		/* a FIDO CA: its token signs, user present */
		struct tb sks;
		tb_init(&sks);
		tk_sk_sign(cs->ca, tb_slice(t), 0x01, 7, &sks);
		if (cs->corrupt_signature)
			sks.w.p[sks.w.len - 6] ^= 0x01;
		tb_string(t, sks.w.p, sks.w.len);      /* opaque to the parser */
		tb_free(&sks);
	} else if (!cs->no_signature) {
		wb_init(&sig);
		tk_sign(cs->ca, cs->ca_alg, tb_slice(t), &sig);
		if (cs->corrupt_signature)
			sig.p[sig.len - 1] ^= 0x01;
		tb_string(t, sig.p, sig.len);
		wb_free(&sig);
	}
	if (cs->trailer != NULL)
		tb_raw(t, cs->trailer, cs->trailerlen);
	tb_free(&ca);
}

/* The certificate form of an ADD encoding (doc/protocol.md §4.4). */
static inline void
tk_priv_cert(struct tb *t, const struct certspec *cs)
{
	struct tb c;

	tb_init(&c);
	tk_cert(&c, cs);
	tb_cstring(t, tk_cert_name(cs->key->kind));
	tb_string_of(t, &c);
	tk_priv_cert_fields(t, cs->key);
	tb_free(&c);
}

/* The certificate's bytes alone, appended to out. */
static inline void
tk_cert_bytes(const struct certspec *cs, struct wb *out)
{
	struct tb c;

	tb_init(&c);
	tk_cert(&c, cs);
	tk_check(&c.w, "certificate");
	wb_bytes(out, c.w.p, c.w.len);
	tb_free(&c);
}

/* --------------------------------------------- restrict-destination (doc/protocol.md §6.6) */

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

/* ------------------------------------------------ userauth requests (doc/protocol.md §8.7) */

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
	tk_check(w, "userauth request");
}

/* An SSHSIG blob as ssh-keygen -Y sign makes it (doc/protocol.md §8.8): six magic bytes
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
	tk_check(w, "SSHSIG blob");
}

#endif
