/*
 * test_sshkey.c - key blobs, certificates and ADD private encodings
 * (keys/sshkey.c) against doc/protocol.md §4.1-§4.4 and §4.6, with real keys made by
 * OpenSSL and encodings built field by field in the test.
 */
#include "ipc/limits.h"
#include "keys/sksig.h"
#include "keys/sshkey.h"
#include "tests/unit/skvectors.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ED, ED2, P256, P384, P521, KRSA, KRSA1024, SKED, SKP256, NKEYS };
static struct testkey K[NKEYS];

static void
make_keys(void)
{
	testkey_gen(&K[ED], KEY_ED25519, 0);
	testkey_gen(&K[ED2], KEY_ED25519, 0);
	testkey_gen(&K[P256], KEY_ECDSA_P256, 0);
	testkey_gen(&K[P384], KEY_ECDSA_P384, 0);
	testkey_gen(&K[P521], KEY_ECDSA_P521, 0);
	testkey_gen(&K[KRSA], KEY_RSA, 2048);
	testkey_gen(&K[KRSA1024], KEY_RSA, 1024);
	testkey_gen(&K[SKED], KEY_SK_ED25519, 0);
	testkey_gen(&K[SKP256], KEY_SK_ECDSA_P256, 0);
}

/* ---------------------------------------------------------------- names */

static const struct {
	const char *name;
	enum key_kind kind;
	int is_cert;
	const char *why;                /* for KEY_NONE */
} names[] = {
	{ "ssh-ed25519", KEY_ED25519, 0, NULL },
	{ "ssh-ed25519-cert-v01@openssh.com", KEY_ED25519, 1, NULL },
	{ "ecdsa-sha2-nistp256", KEY_ECDSA_P256, 0, NULL },
	{ "ecdsa-sha2-nistp384", KEY_ECDSA_P384, 0, NULL },
	{ "ecdsa-sha2-nistp521", KEY_ECDSA_P521, 0, NULL },
	{ "ecdsa-sha2-nistp256-cert-v01@openssh.com", KEY_ECDSA_P256, 1, NULL },
	{ "ecdsa-sha2-nistp384-cert-v01@openssh.com", KEY_ECDSA_P384, 1, NULL },
	{ "ecdsa-sha2-nistp521-cert-v01@openssh.com", KEY_ECDSA_P521, 1, NULL },
	{ "ssh-rsa", KEY_RSA, 0, NULL },
	{ "ssh-rsa-cert-v01@openssh.com", KEY_RSA, 1, NULL },
	{ "ssh-dss", KEY_NONE, 0, "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "ssh-dss-cert-v01@openssh.com", KEY_NONE, 0,
	  "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "ssh-xmss@openssh.com", KEY_NONE, 0,
	  "XMSS keys are not supported (removed from OpenSSH in 10.1)" },
	{ "ssh-xmss-cert-v01@openssh.com", KEY_NONE, 0,
	  "XMSS keys are not supported (removed from OpenSSH in 10.1)" },
	{ "sk-ecdsa-sha2-nistp256@openssh.com", KEY_SK_ECDSA_P256, 0, NULL },
	{ "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com", KEY_SK_ECDSA_P256, 1, NULL },
	{ "sk-ssh-ed25519@openssh.com", KEY_SK_ED25519, 0, NULL },
	{ "sk-ssh-ed25519-cert-v01@openssh.com", KEY_SK_ED25519, 1, NULL },
	{ "webauthn-sk-ecdsa-sha2-nistp256@openssh.com", KEY_NONE, 0,
	  "webauthn-sk-* names a signature algorithm, not a key type" },
	{ "sk-ecdsa-sha2-nistp384@openssh.com (no such FIDO type)", KEY_NONE, 0,
	  "unknown key type" },
	{ "sk-ssh-ed25519 (no @openssh.com)", KEY_NONE, 0, "unknown key type" },
	{ "ssh-mldsa44-ed25519@openssh.com", KEY_MLDSA44_ED25519, 0, NULL },
	{ "ssh-mldsa44-ed25519-cert-v01@openssh.com", KEY_MLDSA44_ED25519, 1, NULL },
	{ "ssh-mldsa65-ed25519@openssh.com", KEY_NONE, 0,
	  "of the ML-DSA keys keyward has ssh-mldsa44-ed25519@openssh.com only" },
	{ "rsa-sha2-256 (a signature algorithm, not a key type)", KEY_NONE, 0,
	  "unknown key type" },
	{ "rsa-sha2-512-cert-v01@openssh.com", KEY_NONE, 0, "unknown key type" },
	{ "SSH-ED25519 (names are case-sensitive)", KEY_NONE, 0, "unknown key type" },
	{ "ssh-ed25519 (trailing space)", KEY_NONE, 0, "unknown key type" },
	{ "ecdsa-sha2-nistp224", KEY_NONE, 0, "unknown key type" },
	{ "", KEY_NONE, 0, "unknown key type" },
};

/* Rows whose name carries an explanation in parentheses use only the part
 * before " (" as the type name, except the trailing-space row. */
static struct slice
name_of(const char *row)
{
	const char *sp = strstr(row, " (");

	if (strcmp(row, "ssh-ed25519 (trailing space)") == 0)
		return sl("ssh-ed25519 ", 12);
	return sl(row, sp ? (size_t)(sp - row) : strlen(row));
}

static void
test_names(void)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *why = NULL;
		int is_cert = -1;
		enum key_kind k = key_kind_from_name(name_of(names[i].name), &is_cert, &why);
		int good = k == names[i].kind;

		if (k != KEY_NONE)
			good = good && is_cert == names[i].is_cert;
		else
			good = good && why != NULL && strcmp(why, names[i].why) == 0;
		ok(good, "key type \"%s\": %s", names[i].name,
		    k != KEY_NONE ? key_kind_name(k) : names[i].why);
		if (!good)
			printf("#   kind %d is_cert %d why %s\n", k, is_cert, why ? why : "-");
	}
	for (enum key_kind k = KEY_ED25519; k <= KEY_SK_ED25519; k++) {
		int is_cert;
		ok(key_kind_from_name(sl_str(key_kind_name(k)), &is_cert, NULL) == k &&
		    !is_cert && key_kind_from_name(sl_str(key_kind_cert_name(k)),
		    &is_cert, NULL) == k && is_cert,
		    "kind %s: plain and certificate names map back", key_kind_name(k));
	}
	is_str(key_kind_curve(KEY_ECDSA_P384), "nistp384", "curve name of P-384");
	ok(key_kind_curve(KEY_ED25519) == NULL, "Ed25519 has no curve name");
	is_str(key_kind_curve(KEY_SK_ECDSA_P256), "nistp256", "curve name of ECDSA-SK");

	/* FIDO kinds: the middleware's algorithm numbers, the base kind */
	static const struct {
		enum key_kind kind;
		int is_sk, alg;
		enum key_kind base;
	} sk[] = {
		{ KEY_SK_ECDSA_P256, 1, 0x00, KEY_ECDSA_P256 },
		{ KEY_SK_ED25519, 1, 0x01, KEY_ED25519 },
		{ KEY_ED25519, 0, -1, KEY_ED25519 },
		{ KEY_ECDSA_P256, 0, -1, KEY_ECDSA_P256 },
		{ KEY_ECDSA_P521, 0, -1, KEY_ECDSA_P521 },
		{ KEY_RSA, 0, -1, KEY_RSA },
		{ KEY_NONE, 0, -1, KEY_NONE },
	};
	for (size_t i = 0; i < sizeof(sk) / sizeof(sk[0]); i++)
		ok(key_is_sk(sk[i].kind) == sk[i].is_sk &&
		    key_sk_alg(sk[i].kind) == sk[i].alg &&
		    key_kind_base(sk[i].kind) == sk[i].base,
		    "kind %s: FIDO %d, middleware algorithm %d, base %s",
		    key_kind_name(sk[i].kind), sk[i].is_sk, sk[i].alg,
		    key_kind_name(sk[i].base));
}

/* ---------------------------------------------------------- public keys */

enum pm {
	PM_NONE, PM_ED_LEN, PM_CURVE, PM_POINT_PREFIX, PM_POINT_LEN,
	PM_COMPRESSED, PM_RSA_E, PM_RSA_NBITS, PM_RSA_N_ZEROS, PM_RSA_N_NEG,
	PM_TRAILING, PM_NAME, PM_EMPTY, PM_NAME_ONLY, PM_APP,
};

static const struct pubrow {
	const char *name;
	int key;
	enum pm m;
	long arg;
	const char *s;
	int rc;
	const char *why;
} pubrows[] = {
	{ "ssh-ed25519: 32-byte key accepted", ED, PM_NONE, 0, NULL, 0, NULL },
	{ "ssh-ed25519: 31-byte key refused", ED, PM_ED_LEN, 31, NULL, -1, "bad Ed25519 public key" },
	{ "ssh-ed25519: 33-byte key refused", ED, PM_ED_LEN, 33, NULL, -1, "bad Ed25519 public key" },
	{ "ssh-ed25519: empty key refused", ED, PM_ED_LEN, 0, NULL, -1, "bad Ed25519 public key" },
	{ "ssh-ed25519: 64-byte key refused", ED, PM_ED_LEN, 64, NULL, -1, "bad Ed25519 public key" },
	{ "ssh-ed25519: name only refused", ED, PM_NAME_ONLY, 0, NULL, -1, "bad Ed25519 public key" },
	{ "ecdsa-sha2-nistp256: accepted", P256, PM_NONE, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp384: accepted", P384, PM_NONE, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp521: accepted", P521, PM_NONE, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp256 with curve nistp384: curve mismatch refused", P256, PM_CURVE, 0,
	  "nistp384", -1, "ECDSA curve does not match the key type" },
	{ "ecdsa-sha2-nistp521 with curve nistp256: curve mismatch refused", P521, PM_CURVE, 0,
	  "nistp256", -1, "ECDSA curve does not match the key type" },
	{ "ecdsa-sha2-nistp256 with curve secp256r1: refused", P256, PM_CURVE, 0,
	  "secp256r1", -1, "ECDSA curve does not match the key type" },
	{ "P-384 key (curve nistp384) named ecdsa-sha2-nistp256: refused", P384, PM_NAME, 0,
	  "ecdsa-sha2-nistp256", -1, "ECDSA curve does not match the key type" },
	{ "ecdsa-sha2-nistp256: compressed point (0x02/0x03 || X) refused", P256, PM_COMPRESSED,
	  0, NULL, -1, "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp384: compressed point refused", P384, PM_COMPRESSED, 0, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp521: compressed point refused", P521, PM_COMPRESSED, 0, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: 65 bytes with prefix 0x02 refused", P256, PM_POINT_PREFIX, 0x02,
	  NULL, -1, "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: 65 bytes with prefix 0x03 refused", P256, PM_POINT_PREFIX, 0x03,
	  NULL, -1, "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: hybrid prefix 0x06 refused", P256, PM_POINT_PREFIX, 0x06,
	  NULL, -1, "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: prefix 0x00 refused", P256, PM_POINT_PREFIX, 0x00,
	  NULL, -1, "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: 64-byte point refused", P256, PM_POINT_LEN, 64, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: 66-byte point refused", P256, PM_POINT_LEN, 66, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: 97-byte (P-384 size) point refused", P256, PM_POINT_LEN, 97,
	  NULL, -1, "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp384: 65-byte point refused", P384, PM_POINT_LEN, 65, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp521: 132-byte point refused", P521, PM_POINT_LEN, 132, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: empty point refused", P256, PM_POINT_LEN, 0, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: name only refused", P256, PM_NAME_ONLY, 0, NULL, -1,
	  "ECDSA curve does not match the key type" },
	{ "ssh-rsa: 2048-bit key accepted", KRSA, PM_NONE, 0, NULL, 0, NULL },
	{ "ssh-rsa: 1024-bit key accepted", KRSA1024, PM_NONE, 0, NULL, 0, NULL },
	{ "ssh-rsa: 1024-bit modulus (built) accepted", KRSA, PM_RSA_NBITS, 1024, NULL, 0, NULL },
	{ "ssh-rsa: 1023-bit modulus refused", KRSA, PM_RSA_NBITS, 1023, NULL, -1,
	  "RSA modulus is shorter than 1024 bits" },
	{ "ssh-rsa: 512-bit modulus refused", KRSA, PM_RSA_NBITS, 512, NULL, -1,
	  "RSA modulus is shorter than 1024 bits" },
	{ "ssh-rsa: 16384-bit modulus accepted", KRSA, PM_RSA_NBITS, 16384, NULL, 0, NULL },
	{ "ssh-rsa: 16385-bit modulus refused", KRSA, PM_RSA_NBITS, 16385, NULL, -1,
	  "bad RSA public key" },
	{ "ssh-rsa: even exponent 65536 refused", KRSA, PM_RSA_E, 65536, NULL, -1,
	  "RSA public exponent is not odd" },
	{ "ssh-rsa: even exponent 2 refused", KRSA, PM_RSA_E, 2, NULL, -1,
	  "RSA public exponent is not odd" },
	{ "ssh-rsa: exponent 0 refused", KRSA, PM_RSA_E, 0, NULL, -1,
	  "RSA public exponent is not odd" },
	{ "ssh-rsa: exponent 3 accepted", KRSA, PM_RSA_E, 3, NULL, 0, NULL },
	{ "ssh-rsa: modulus with redundant leading zeros accepted", KRSA, PM_RSA_N_ZEROS, 0,
	  NULL, 0, NULL },
	{ "ssh-rsa: negative modulus refused", KRSA, PM_RSA_N_NEG, 0, NULL, -1,
	  "bad RSA public key" },
	{ "ssh-rsa: name only refused", KRSA, PM_NAME_ONLY, 0, NULL, -1, "bad RSA public key" },
	{ "ssh-ed25519: bytes after the key refused", ED, PM_TRAILING, 0, NULL, -1,
	  "bytes after the key" },
	{ "ecdsa-sha2-nistp384: bytes after the key refused", P384, PM_TRAILING, 0, NULL, -1,
	  "bytes after the key" },
	{ "ssh-rsa: bytes after the key refused", KRSA, PM_TRAILING, 0, NULL, -1,
	  "bytes after the key" },
	{ "empty blob refused", ED, PM_EMPTY, 0, NULL, -1, "key blob has no type name" },
	{ "ssh-dss refused", KRSA, PM_NAME, 0, "ssh-dss", -1,
	  "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "sk-ssh-ed25519@openssh.com: A, application accepted", SKED, PM_NONE, 0, NULL, 0,
	  NULL },
	{ "sk-ecdsa-sha2-nistp256@openssh.com: curve, Q, application accepted", SKP256,
	  PM_NONE, 0, NULL, 0, NULL },
	{ "sk-ssh-ed25519: no application (an ssh-ed25519 blob renamed) refused", ED, PM_NAME,
	  0, "sk-ssh-ed25519@openssh.com", -1, "FIDO application missing or not text" },
	{ "sk-ecdsa: no application (an ecdsa blob renamed) refused", P256, PM_NAME, 0,
	  "sk-ecdsa-sha2-nistp256@openssh.com", -1, "FIDO application missing or not text" },
	{ "sk-ssh-ed25519: 31-byte A refused", SKED, PM_ED_LEN, 31, NULL, -1,
	  "bad Ed25519 public key" },
	{ "sk-ecdsa: curve nistp384 refused", SKP256, PM_CURVE, 0, "nistp384", -1,
	  "ECDSA curve does not match the key type" },
	{ "sk-ecdsa: compressed point refused", SKP256, PM_COMPRESSED, 0, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "sk-ecdsa: a P-384 point refused", P384, PM_NAME, 0,
	  "sk-ecdsa-sha2-nistp256@openssh.com", -1, "ECDSA curve does not match the key type" },
	{ "sk-ssh-ed25519: empty application accepted (as OpenSSH)", SKED, PM_APP, 0, "", 0,
	  NULL },
	{ "sk-ssh-ed25519: application with one trailing NUL accepted", SKED, PM_APP, 5,
	  "ssh:\0", 0, NULL },
	{ "sk-ssh-ed25519: application with a NUL inside refused", SKED, PM_APP, 5,
	  "ss\0h:", -1, "FIDO application missing or not text" },
	{ "sk-ecdsa: web origin application accepted", SKP256, PM_APP, 19,
	  "https://example.com", 0, NULL },
	{ "sk-ecdsa: 1024-byte application accepted", SKP256, PM_APP, 1024, NULL, 0, NULL },
	/* a host key OpenSSH accepts: its application is not capped */
	{ "sk-ecdsa: 1025-byte application accepted", SKP256, PM_APP, 1025, NULL, 0, NULL },
	{ "sk-ssh-ed25519: 1100-byte application accepted", SKED, PM_APP, 1100, NULL, 0, NULL },
	{ "sk-ssh-ed25519: 60000-byte application accepted", SKED, PM_APP, 60000, NULL, 0, NULL },
	{ "sk-ssh-ed25519: bytes after the application refused", SKED, PM_TRAILING, 0, NULL,
	  -1, "bytes after the key" },
	{ "sk-ecdsa: bytes after the application refused", SKP256, PM_TRAILING, 0, NULL,
	  -1, "bytes after the key" },
	{ "rsa-sha2-256 is not a key type: refused", KRSA, PM_NAME, 0, "rsa-sha2-256", -1,
	  "unknown key type" },
};

static void
rsa_modulus(uint8_t *b, long bits)
{
	size_t n = (size_t)(bits + 7) / 8;

	memset(b, 0xa5, n);
	b[0] = (uint8_t)(1u << ((bits - 1) % 8));
	if (bits % 8 == 0)
		b[0] = 0xc3;
	b[n - 1] |= 1;
}

static void
build_pub(struct tb *t, const struct pubrow *r)
{
	const struct testkey *k = &K[r->key];
	uint8_t b[60000], e[8];      /* the longest application */
	size_t n;

	if (r->m == PM_EMPTY)
		return;
	tb_cstring(t, r->m == PM_NAME ? r->s : tk_name(k->kind));
	switch (r->m) {
	case PM_NONE:
	case PM_NAME:
	case PM_TRAILING:
		tk_pub_fields(t, k);
		if (r->m == PM_TRAILING)
			tb_u8(t, 0);
		break;
	case PM_ED_LEN:
		memset(b, 0x42, sizeof(b));
		tb_string(t, b, (size_t)r->arg);
		break;
	case PM_CURVE:
		tb_cstring(t, r->s);
		tb_string(t, k->q.b, k->q.len);
		break;
	case PM_POINT_PREFIX:
		memcpy(b, k->q.b, k->q.len);
		b[0] = (uint8_t)r->arg;
		tb_cstring(t, tk_curve(k->kind));
		tb_string(t, b, k->q.len);
		break;
	case PM_POINT_LEN:
		memset(b, 0x11, sizeof(b));
		memcpy(b, k->q.b, k->q.len);
		tb_cstring(t, tk_curve(k->kind));
		tb_string(t, b, (size_t)r->arg);
		break;
	case PM_COMPRESSED:
		n = (k->q.len - 1) / 2;
		b[0] = 0x02 | (k->q.b[k->q.len - 1] & 1);
		memcpy(b + 1, k->q.b + 1, n);
		tb_cstring(t, tk_curve(k->kind));
		tb_string(t, b, n + 1);
		break;
	case PM_RSA_E:
		n = 0;
		for (long v = r->arg; v > 0; v >>= 8)
			n++;
		for (size_t i = 0; i < n; i++)
			e[i] = (uint8_t)(r->arg >> (8 * (n - 1 - i)));
		tb_mpint(t, e, n);
		tb_mpint(t, k->n.b, k->n.len);
		break;
	case PM_RSA_NBITS:
		rsa_modulus(b, r->arg);
		tb_mpint(t, k->e.b, k->e.len);
		tb_mpint(t, b, (size_t)(r->arg + 7) / 8);
		break;
	case PM_RSA_N_ZEROS:
		tb_mpint(t, k->e.b, k->e.len);
		b[0] = b[1] = b[2] = 0;
		memcpy(b + 3, k->n.b, k->n.len);
		tb_string(t, b, k->n.len + 3);
		break;
	case PM_RSA_N_NEG:
		tb_mpint(t, k->e.b, k->e.len);
		tb_string(t, k->n.b, k->n.len);        /* top bit set, no 0x00 */
		break;
	case PM_APP:
		/* the base fields, then an application of arg bytes: s, or
		 * arg letters when s is NULL */
		tk_pub_fields(t, &(struct testkey){ .kind = key_kind_base(k->kind),
		    .a = k->a, .q = k->q });
		memset(b, 'a', sizeof(b));
		tb_string(t, r->s ? (const uint8_t *)r->s : b, (size_t)r->arg);
		break;
	case PM_NAME_ONLY:
	case PM_EMPTY:
		break;
	}
}

static int
decode_pub(const uint8_t *p, size_t n, void *arg)
{
	struct pubkey k;

	(void)arg;
	return key_parse_public(sl(p, n), &k, NULL);
}

/* Parse from an exact-size copy, so ASan sees a read past the end; only
 * the result and the reason are kept. */
static int
parse_pub_exact(const struct tb *t, struct pubkey *k, const char **why)
{
	uint8_t *c = malloc(t->w.len ? t->w.len : 1);
	int rc;

	if (t->w.len > 0)
		memcpy(c, t->w.p, t->w.len);
	rc = key_parse_public(sl(c, t->w.len), k, why);
	free(c);
	memset(k, 0, sizeof(*k));
	return rc;
}

static int
check_why(int rc, const char *why, int want_rc, const char *want_why)
{
	if ((rc == 0 ? 0 : -1) != want_rc)
		return 0;
	if (want_rc == 0)
		return 1;
	return why != NULL && want_why != NULL && strcmp(why, want_why) == 0;
}

static void
test_public(void)
{
	for (size_t i = 0; i < sizeof(pubrows) / sizeof(pubrows[0]); i++) {
		const struct pubrow *r = &pubrows[i];
		struct tb t;
		struct pubkey k;
		const char *why = NULL;
		int rc;

		tb_init(&t);
		build_pub(&t, r);
		rc = parse_pub_exact(&t, &k, &why);
		ok(check_why(rc, why, r->rc, r->why), "%s", r->name);
		if (!check_why(rc, why, r->rc, r->why))
			printf("#   rc %d why \"%s\"\n", rc, why ? why : "-");
		tb_free(&t);
	}
}

/* Every valid plain key: fields found, canonical re-encoding, and the
 * truncation/oversize/trailing checks. */
static void
test_public_fields(void)
{
	static const int keys[] = { ED, P256, P384, P521, KRSA, KRSA1024, SKED, SKP256 };
	struct tb t;
	struct pubkey k;
	struct wb w;
	char name[128];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct testkey *tk = &K[keys[i]];
		int good;

		tb_init(&t);
		tk_pub(&t, tk);
		good = key_parse_public(tb_slice(&t), &k, NULL) == 0 &&
		    k.kind == tk->kind && !k.is_cert;
		if (key_is_sk(tk->kind))
			good = good && bytes_eq(k.sk_app, tk->app.b, tk->app.len);
		if (key_kind_base(tk->kind) == KEY_ED25519)
			good = good && bytes_eq(k.ed_a, tk->a.b, 32);
		else if (tk->kind == KEY_RSA)
			good = good && bytes_eq(k.rsa_n, tk->n.b, tk->n.len) &&
			    bytes_eq(k.rsa_e, tk->e.b, tk->e.len) &&
			    k.rsa_bits == (keys[i] == KRSA ? 2048 : 1024);
		else
			good = good && bytes_eq(k.ec_q, tk->q.b, tk->q.len);
		snprintf(name, sizeof(name), "%s%s", tk_name(tk->kind),
		    keys[i] == KRSA1024 ? " 1024" : "");
		ok(good, "%s: kind and public fields decoded", name);
		wb_init(&w);
		key_write_public(&w, &k);
		ok(!w.err && bytes_eq(tb_slice(&t), w.p, w.len),
		    "%s: canonical blob written back byte for byte", name);
		wb_free(&w);
		wire_check(name, &t, decode_pub, NULL, WIRE_ALL);
		tb_free(&t);
	}

	/* doc/protocol.md §4.5: re-encode canonically (minimal mpints) */
	tb_init(&t);
	build_pub(&t, &(struct pubrow){ "", KRSA, PM_RSA_N_ZEROS, 0, NULL, 0, NULL });
	wb_init(&w);
	if (key_parse_public(tb_slice(&t), &k, NULL) == 0)
		key_write_public(&w, &k);
	tb_free(&t);
	tb_init(&t);
	tk_pub(&t, &K[KRSA]);
	ok(w.len > 0 && bytes_eq(tb_slice(&t), w.p, w.len),
	    "ssh-rsa with redundant zeros: canonical blob has minimal mpints");
	wb_free(&w);
	tb_free(&t);
}

/* --------------------------------------------------------- certificates */

enum opt { OPT_NONE, OPT_GOOD, OPT_TWO, OPT_EMPTY_DATA, OPT_NAME_ONLY, OPT_DATA_LONG,
	OPT_NAME_NUL, OPT_LEN_SHORT };

static const struct { const uint8_t *p; size_t len; } opts[] = {
	[OPT_NONE] = { NULL, 0 },
	[OPT_GOOD] = { (const uint8_t *)"\0\0\0\x0d" "force-command" "\0\0\0\x0d" "\0\0\0\x09"
	    "/bin/true", 4 + 13 + 4 + 13 },
	[OPT_TWO] = { (const uint8_t *)"\0\0\0\x0e" "source-address" "\0\0\0\x0e" "\0\0\0\x0a"
	    "10.0.0.0/8" "\0\0\0\x0f" "verify-required" "\0\0\0\0",
	    4 + 14 + 4 + 14 + 4 + 15 + 4 },
	[OPT_EMPTY_DATA] = { (const uint8_t *)"\0\0\0\x0a" "permit-pty" "\0\0\0\0", 18 },
	[OPT_NAME_ONLY] = { (const uint8_t *)"\0\0\0\x0d" "force-command", 17 },
	[OPT_DATA_LONG] = { (const uint8_t *)"\0\0\0\x0a" "permit-pty" "\0\0\0\x05" "ab", 20 },
	[OPT_NAME_NUL] = { (const uint8_t *)"\0\0\0\x04" "a\0bc" "\0\0\0\0", 12 },
	[OPT_LEN_SHORT] = { (const uint8_t *)"\0\0\0", 3 },
};

enum sk { SK_CA, SK_CERT, SK_DSS, SK_BAD_ED, SK_EMPTY };

static const struct certrow {
	const char *name;
	int key, ca;
	uint32_t type;
	int type_given;
	unsigned npr;
	enum opt crit, ext;
	enum sk sigkey;
	int trailer, nosig, corrupt;
	uint64_t valid_after, valid_before;
	const char *type_name;
	int rc;
	const char *why;
} certrows[] = {
	{ "user certificate (type 1), Ed25519 key, Ed25519 CA", ED, ED2, 1, 0, 2,
	  OPT_NONE, OPT_EMPTY_DATA, SK_CA, 0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "host certificate (type 2)", ED, ED2, 2, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "certificate type 3 refused", ED, ED2, 3, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, -1, "certificate type is neither user nor host" },
	{ "certificate type 0 refused", ED, ED2, 0, 1, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, -1, "certificate type is neither user nor host" },
	{ "certificate type 0xffffffff refused", ED, ED2, 0xffffffff, 0, 1, OPT_NONE,
	  OPT_NONE, SK_CA, 0, 0, 0, 0, 0, NULL, -1,
	  "certificate type is neither user nor host" },
	{ "ECDSA P-256 key, RSA CA", P256, KRSA, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "ECDSA P-384 key, ECDSA P-521 CA", P384, P521, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "ECDSA P-521 key, Ed25519 CA", P521, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "RSA key, ECDSA P-256 CA", KRSA, P256, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "empty principal list decodes fine", ED, ED2, 1, 0, 0, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "256 principals accepted", ED, ED2, 1, 0, 256, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "257 principals refused", ED, ED2, 1, 0, 257, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, -1, "certificate principals malformed or more than 256" },
	{ "well-formed critical option accepted", ED, ED2, 1, 0, 1, OPT_GOOD, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "two well-formed critical options accepted", ED, ED2, 1, 0, 1, OPT_TWO, OPT_NONE,
	  SK_CA, 0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "critical option without data refused", ED, ED2, 1, 0, 1, OPT_NAME_ONLY, OPT_NONE,
	  SK_CA, 0, 0, 0, 0, 0, NULL, -1, "certificate options or extensions malformed" },
	{ "critical option data longer than the options refused", ED, ED2, 1, 0, 1,
	  OPT_DATA_LONG, OPT_NONE, SK_CA, 0, 0, 0, 0, 0, NULL, -1,
	  "certificate options or extensions malformed" },
	{ "critical option name with NUL refused", ED, ED2, 1, 0, 1, OPT_NAME_NUL, OPT_NONE,
	  SK_CA, 0, 0, 0, 0, 0, NULL, -1, "certificate options or extensions malformed" },
	{ "critical options cut inside a length refused", ED, ED2, 1, 0, 1, OPT_LEN_SHORT,
	  OPT_NONE, SK_CA, 0, 0, 0, 0, 0, NULL, -1,
	  "certificate options or extensions malformed" },
	{ "well-formed extensions accepted", ED, ED2, 1, 0, 1, OPT_NONE, OPT_TWO, SK_CA,
	  0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "extension without data refused", ED, ED2, 1, 0, 1, OPT_NONE, OPT_NAME_ONLY, SK_CA,
	  0, 0, 0, 0, 0, NULL, -1, "certificate options or extensions malformed" },
	{ "extension data longer than the extensions refused", ED, ED2, 1, 0, 1, OPT_NONE,
	  OPT_DATA_LONG, SK_CA, 0, 0, 0, 0, 0, NULL, -1,
	  "certificate options or extensions malformed" },
	{ "signature key that is itself a certificate refused", ED, ED2, 1, 0, 1, OPT_NONE,
	  OPT_NONE, SK_CERT, 0, 0, 0, 0, 0, NULL, -1, "certificate signed by a certificate" },
	{ "DSA signature key refused", ED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_DSS,
	  0, 0, 0, 0, 0, NULL, -1,
	  "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "signature key with a 31-byte Ed25519 key refused", ED, ED2, 1, 0, 1, OPT_NONE,
	  OPT_NONE, SK_BAD_ED, 0, 0, 0, 0, 0, NULL, -1, "bad Ed25519 public key" },
	{ "empty signature key refused", ED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_EMPTY,
	  0, 0, 0, 0, 0, NULL, -1, "key blob has no type name" },
	{ "bytes after the signature refused", ED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  1, 0, 0, 0, 0, NULL, -1, "certificate signature missing or bytes after it" },
	{ "signature missing refused", ED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 1, 0, 0, 0, NULL, -1, "certificate signature missing or bytes after it" },
	{ "corrupted CA signature still decodes (checked by cert_verify)", ED, ED2, 1, 0, 1,
	  OPT_NONE, OPT_NONE, SK_CA, 0, 0, 1, 0, 0, NULL, 0, NULL },
	{ "user certificate expired decades ago decodes", ED, ED2, 1, 0, 1, OPT_NONE,
	  OPT_NONE, SK_CA, 0, 0, 0, 1, 2, NULL, 0, NULL },
	{ "certificate not yet valid decodes", ED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, UINT64_MAX - 1, 0, NULL, 0, NULL },
	{ "Ed25519 fields under an ECDSA certificate type refused", ED, ED2, 1, 0, 1,
	  OPT_NONE, OPT_NONE, SK_CA, 0, 0, 0, 0, 0,
	  "ecdsa-sha2-nistp256-cert-v01@openssh.com", -1,
	  "ECDSA curve does not match the key type" },
	{ "P-384 fields under a P-256 certificate type refused", P384, ED2, 1, 0, 1,
	  OPT_NONE, OPT_NONE, SK_CA, 0, 0, 0, 0, 0,
	  "ecdsa-sha2-nistp256-cert-v01@openssh.com", -1,
	  "ECDSA curve does not match the key type" },
	{ "DSA certificate type refused", ED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA,
	  0, 0, 0, 0, 0, "ssh-dss-cert-v01@openssh.com", -1,
	  "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "sk-ssh-ed25519 user certificate (A, application), Ed25519 CA", SKED, ED2, 1, 0, 1,
	  OPT_NONE, OPT_EMPTY_DATA, SK_CA, 0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "sk-ecdsa user certificate (curve, Q, application), RSA CA", SKP256, KRSA, 1, 0, 1,
	  OPT_NONE, OPT_NONE, SK_CA, 0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "Ed25519 certificate signed by an sk-ssh-ed25519 CA", ED, SKED, 1, 0, 1, OPT_NONE,
	  OPT_NONE, SK_CA, 0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "sk-ecdsa certificate signed by an sk-ecdsa CA", SKP256, SKP256, 2, 0, 1, OPT_NONE,
	  OPT_NONE, SK_CA, 0, 0, 0, 0, 0, NULL, 0, NULL },
	{ "ssh-ed25519 fields (no application) under an sk-ssh-ed25519 certificate type",
	  ED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE, SK_CA, 0, 0, 0, 0, 0,
	  "sk-ssh-ed25519-cert-v01@openssh.com", -1, "FIDO application missing or not text" },
	{ "sk-ssh-ed25519 fields under an ssh-ed25519 certificate type: the application "
	  "read as the serial, the rest misaligned", SKED, ED2, 1, 0, 1, OPT_NONE, OPT_NONE,
	  SK_CA, 0, 0, 0, 0, 0, "ssh-ed25519-cert-v01@openssh.com", -1,
	  "truncated certificate" },
};

static void
build_cert(struct tb *t, const struct certrow *r)
{
	struct certspec cs = { 0 };
	struct tb sk;
	uint8_t b[40];

	cs.key = &K[r->key];
	cs.ca = &K[r->ca];
	cs.type = r->type;
	cs.type_given = r->type_given;
	cs.serial = 0x0102030405060708ULL;
	cs.nprincipals = r->npr;
	cs.crit = opts[r->crit].p;
	cs.critlen = opts[r->crit].len;
	cs.ext = opts[r->ext].p;
	cs.extlen = opts[r->ext].len;
	cs.trailer = r->trailer ? (const uint8_t *)"\0" : NULL;
	cs.trailerlen = r->trailer ? 1 : 0;
	cs.no_signature = r->nosig;
	cs.corrupt_signature = r->corrupt;
	cs.valid_after = r->valid_after;
	cs.valid_before = r->valid_before;
	cs.type_name = r->type_name;
	tb_init(&sk);
	switch (r->sigkey) {
	case SK_CA:
		break;
	case SK_CERT: {
		/* the CA's own key, certified by another CA */
		struct certspec inner = { .key = &K[r->ca], .ca = &K[ED], .nprincipals = 1 };
		tk_cert(&sk, &inner);
		break;
	}
	case SK_DSS:
		tb_cstring(&sk, "ssh-dss");
		tb_mpint(&sk, (const uint8_t *)"\x01", 1);
		break;
	case SK_BAD_ED:
		memset(b, 7, sizeof(b));
		tb_cstring(&sk, "ssh-ed25519");
		tb_string(&sk, b, 31);
		break;
	case SK_EMPTY:
		break;
	}
	if (r->sigkey != SK_CA) {
		cs.sigkey = sk.w.p ? sk.w.p : (const uint8_t *)"";
		cs.sigkeylen = sk.w.len;
	}
	tk_cert(t, &cs);
	tb_free(&sk);
}

static void
test_certs(void)
{
	struct tb t, ca;
	struct pubkey k;
	struct wb w;

	for (size_t i = 0; i < sizeof(certrows) / sizeof(certrows[0]); i++) {
		const struct certrow *r = &certrows[i];
		const char *why = NULL;
		int rc;

		tb_init(&t);
		build_cert(&t, r);
		rc = parse_pub_exact(&t, &k, &why);
		ok(check_why(rc, why, r->rc, r->why), "certificate: %s", r->name);
		if (!check_why(rc, why, r->rc, r->why))
			printf("#   rc %d why \"%s\"\n", rc, why ? why : "-");
		tb_free(&t);
	}

	/* The fields of one certificate, as decoded. */
	tb_init(&t);
	build_cert(&t, &(struct certrow){ "", ED, ED2, 2, 0, 3, OPT_GOOD, OPT_TWO, SK_CA,
	    0, 0, 0, 1000, 2000, NULL, 0, NULL });
	tb_init(&ca);
	tk_pub(&ca, &K[ED2]);
	ok(key_parse_public(tb_slice(&t), &k, NULL) == 0 && k.is_cert &&
	    k.kind == KEY_ED25519 && bytes_eq(k.ed_a, K[ED].a.b, 32) &&
	    k.cert.serial == 0x0102030405060708ULL && k.cert.type == 2 &&
	    slice_eq_str(k.cert.key_id, "perseus@argos") && k.cert.nprincipals == 3 &&
	    k.cert.valid_after == 1000 && k.cert.valid_before == 2000 &&
	    bytes_eq(k.cert.critical_options, opts[OPT_GOOD].p, opts[OPT_GOOD].len) &&
	    bytes_eq(k.cert.extensions, opts[OPT_TWO].p, opts[OPT_TWO].len) &&
	    bytes_eq(k.cert.signature_key, ca.w.p, ca.w.len) &&
	    k.cert_blob.p == t.w.p && k.cert_blob.len == t.w.len,
	    "certificate fields decoded (serial, type, key id, principals, validity, "
	    "options, extensions, signature key)");
	/* the CA signed everything up to and including signature_key */
	ok(k.cert.signed_len + 4 + k.cert.signature.len == t.w.len &&
	    k.cert.signature.p == t.w.p + k.cert.signed_len + 4,
	    "certificate: signed part ends where the signature string starts");
	wb_init(&w);
	key_write_public(&w, &k);
	ok(!w.err && bytes_eq(tb_slice(&t), w.p, w.len),
	    "certificate: written back as received");
	wb_free(&w);
	tb_free(&ca);
	tb_free(&t);

	static const struct { const char *name; int key, ca; } valid[] = {
		{ "ssh-ed25519-cert-v01@openssh.com", ED, ED2 },
		{ "ecdsa-sha2-nistp256-cert-v01@openssh.com", P256, KRSA },
		{ "ecdsa-sha2-nistp384-cert-v01@openssh.com", P384, P256 },
		{ "ecdsa-sha2-nistp521-cert-v01@openssh.com", P521, ED2 },
		{ "ssh-rsa-cert-v01@openssh.com", KRSA, P384 },
		{ "sk-ssh-ed25519-cert-v01@openssh.com", SKED, ED2 },
		{ "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com", SKP256, SKED },
	};
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		tb_init(&t);
		build_cert(&t, &(struct certrow){ "", valid[i].key, valid[i].ca, 1, 0, 2,
		    OPT_GOOD, OPT_EMPTY_DATA, SK_CA, 0, 0, 0, 0, 0, NULL, 0, NULL });
		wire_check(valid[i].name, &t, decode_pub, NULL, WIRE_ALL);
		tb_free(&t);
	}
}

/* --------------------------------------------------------- private keys */

enum prm {
	PRM_NONE, PRM_CERT, PRM_ED_ALEN, PRM_ED_KLEN, PRM_ED_K_OTHER_A,
	PRM_ED_CERT_OTHER_A, PRM_EC_CURVE, PRM_EC_COMPRESSED, PRM_EC_D_ZERO,
	PRM_EC_D_NEG, PRM_EC_D_MISSING, PRM_RSA_NBITS, PRM_RSA_E_EVEN,
	PRM_RSA_PUBLIC_ORDER, PRM_RSA_D_ZERO, PRM_RSA_Q_MISSING,
	PRM_CERT_OTHER_TYPE, PRM_CERT_PLAIN_INSIDE, PRM_CERT_TYPE3,
	PRM_CERT_D_MISSING, PRM_NAME, PRM_NAME_NUL, PRM_SK_CUT, PRM_SK_KH_LEN,
	PRM_SK_RES_LEN, PRM_SK_CERT_OTHER_APP, PRM_SK_CERT_OTHER_A, PRM_SK_CERT_NO_A,
};

static const struct privrow {
	const char *name;
	int key;
	enum prm m;
	long arg;
	const char *s;
	int rc;
	const char *why;
} privrows[] = {
	{ "ssh-ed25519: string A (32); string k (64): accepted", ED, PRM_NONE, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp256: curve, Q, d: accepted", P256, PRM_NONE, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp384: accepted", P384, PRM_NONE, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp521: accepted", P521, PRM_NONE, 0, NULL, 0, NULL },
	{ "ssh-rsa: n, e, d, iqmp, p, q: accepted", KRSA, PRM_NONE, 0, NULL, 0, NULL },
	{ "ssh-rsa: 1024-bit key accepted", KRSA1024, PRM_NONE, 0, NULL, 0, NULL },
	{ "ssh-ed25519-cert-v01@openssh.com: cert, A, k: accepted", ED, PRM_CERT, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp256-cert-v01@openssh.com: cert, d: accepted", P256, PRM_CERT, 0, NULL,
	  0, NULL },
	{ "ecdsa-sha2-nistp384-cert-v01@openssh.com: accepted", P384, PRM_CERT, 0, NULL, 0, NULL },
	{ "ecdsa-sha2-nistp521-cert-v01@openssh.com: accepted", P521, PRM_CERT, 0, NULL, 0, NULL },
	{ "ssh-rsa-cert-v01@openssh.com: cert, d, iqmp, p, q: accepted", KRSA, PRM_CERT, 0, NULL,
	  0, NULL },
	{ "ssh-ed25519: A of 31 bytes refused", ED, PRM_ED_ALEN, 31, NULL, -1,
	  "bad Ed25519 private key lengths" },
	{ "ssh-ed25519: A of 33 bytes refused", ED, PRM_ED_ALEN, 33, NULL, -1,
	  "bad Ed25519 private key lengths" },
	{ "ssh-ed25519: k of 63 bytes refused", ED, PRM_ED_KLEN, 63, NULL, -1,
	  "bad Ed25519 private key lengths" },
	{ "ssh-ed25519: k of 65 bytes refused", ED, PRM_ED_KLEN, 65, NULL, -1,
	  "bad Ed25519 private key lengths" },
	{ "ssh-ed25519: k of 32 bytes (seed only) refused", ED, PRM_ED_KLEN, 32, NULL, -1,
	  "bad Ed25519 private key lengths" },
	{ "ssh-ed25519: second half of k is not A: refused", ED, PRM_ED_K_OTHER_A, 0, NULL, -1,
	  "Ed25519 private key does not contain its public key" },
	{ "ssh-ed25519-cert: repeated A differs from the certified key: refused", ED,
	  PRM_ED_CERT_OTHER_A, 0, NULL, -1, "Ed25519 key does not match its certificate" },
	{ "ecdsa-sha2-nistp256 with curve nistp384: refused", P256, PRM_EC_CURVE, 0,
	  "nistp384", -1, "ECDSA curve does not match the key type" },
	{ "ecdsa-sha2-nistp256: compressed Q refused", P256, PRM_EC_COMPRESSED, 0, NULL, -1,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "ecdsa-sha2-nistp256: d = 0 refused", P256, PRM_EC_D_ZERO, 0, NULL, -1,
	  "bad ECDSA private scalar" },
	{ "ecdsa-sha2-nistp256: negative d refused", P256, PRM_EC_D_NEG, 0, NULL, -1,
	  "bad ECDSA private scalar" },
	{ "ecdsa-sha2-nistp384: d missing refused", P384, PRM_EC_D_MISSING, 0, NULL, -1,
	  "bad ECDSA private scalar" },
	{ "ssh-rsa: 1023-bit modulus refused", KRSA, PRM_RSA_NBITS, 1023, NULL, -1,
	  "RSA modulus is shorter than 1024 bits" },
	{ "ssh-rsa: 1024-bit modulus (built) accepted", KRSA, PRM_RSA_NBITS, 1024, NULL, 0, NULL },
	{ "ssh-rsa: even exponent refused", KRSA, PRM_RSA_E_EVEN, 0, NULL, -1,
	  "RSA public exponent is not odd" },
	{ "ssh-rsa: e before n (public blob order) refused", KRSA, PRM_RSA_PUBLIC_ORDER, 0, NULL,
	  -1, "RSA modulus is shorter than 1024 bits" },
	{ "ssh-rsa: d = 0 refused", KRSA, PRM_RSA_D_ZERO, 0, NULL, -1, "bad RSA private key" },
	{ "ssh-rsa: q missing refused", KRSA, PRM_RSA_Q_MISSING, 0, NULL, -1,
	  "bad RSA private key" },
	{ "ssh-ed25519-cert name with an ECDSA certificate refused", P256, PRM_CERT_OTHER_TYPE,
	  0, "ssh-ed25519-cert-v01@openssh.com", -1,
	  "certificate type does not match the key type" },
	{ "nistp384 certificate name with a nistp256 certificate refused", P256,
	  PRM_CERT_OTHER_TYPE, 0, "ecdsa-sha2-nistp384-cert-v01@openssh.com", -1,
	  "certificate type does not match the key type" },
	{ "certificate name with a plain key inside refused", ED, PRM_CERT_PLAIN_INSIDE, 0,
	  NULL, -1, "certificate type does not match the key type" },
	{ "certificate of type 3 refused", ED, PRM_CERT_TYPE3, 0, NULL, -1,
	  "certificate type is neither user nor host" },
	{ "ecdsa certificate without d refused", P521, PRM_CERT_D_MISSING, 0, NULL, -1,
	  "bad ECDSA private scalar" },
	{ "rsa certificate without the private fields refused", KRSA, PRM_CERT_D_MISSING, 0,
	  NULL, -1, "bad RSA private key" },
	{ "ssh-dss refused", KRSA, PRM_NAME, 0, "ssh-dss", -1,
	  "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "ssh-dss-cert-v01@openssh.com refused", KRSA, PRM_NAME, 0,
	  "ssh-dss-cert-v01@openssh.com", -1,
	  "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "ssh-xmss@openssh.com refused", ED, PRM_NAME, 0, "ssh-xmss@openssh.com", -1,
	  "XMSS keys are not supported (removed from OpenSSH in 10.1)" },
	{ "sk-ssh-ed25519@openssh.com: A, application, flags, key handle, reserved: "
	  "accepted", SKED, PRM_NONE, 0, NULL, 0, NULL },
	{ "sk-ecdsa-sha2-nistp256@openssh.com: curve, Q, application, flags, key handle, "
	  "reserved: accepted", SKP256, PRM_NONE, 0, NULL, 0, NULL },
	{ "sk-ssh-ed25519-cert-v01@openssh.com: cert, A, application, flags, key handle, "
	  "reserved: accepted", SKED, PRM_CERT, 0, NULL, 0, NULL },
	{ "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com: cert, application, flags, key "
	  "handle, reserved: accepted", SKP256, PRM_CERT, 0, NULL, 0, NULL },
	{ "sk-ssh-ed25519 with no application (ssh-ed25519 fields) refused", ED, PRM_NAME, 0,
	  "sk-ssh-ed25519@openssh.com", -1, "FIDO application missing or not text" },
	{ "sk-ecdsa with no application (ecdsa fields) refused", P256, PRM_NAME, 0,
	  "sk-ecdsa-sha2-nistp256@openssh.com", -1, "FIDO application missing or not text" },
	{ "sk-ssh-ed25519: flags missing refused", SKED, PRM_SK_CUT, 0, NULL, -1,
	  "bad FIDO key: flags, key handle or reserved field missing" },
	{ "sk-ssh-ed25519: key handle missing refused", SKED, PRM_SK_CUT, 1, NULL, -1,
	  "bad FIDO key: flags, key handle or reserved field missing" },
	{ "sk-ecdsa: reserved missing refused", SKP256, PRM_SK_CUT, 2, NULL, -1,
	  "bad FIDO key: flags, key handle or reserved field missing" },
	{ "sk-ecdsa: empty key handle accepted (as OpenSSH)", SKP256, PRM_SK_KH_LEN, 0, NULL,
	  0, NULL },
	{ "sk-ecdsa: 4096-byte key handle accepted", SKP256, PRM_SK_KH_LEN, 4096, NULL, 0,
	  NULL },
	{ "sk-ssh-ed25519: 4097-byte key handle refused", SKED, PRM_SK_KH_LEN, 4097, NULL, -1,
	  "FIDO key handle is longer than 4096 bytes" },
	{ "sk-ssh-ed25519: 1024-byte reserved field accepted", SKED, PRM_SK_RES_LEN, 1024,
	  NULL, 0, NULL },
	{ "sk-ssh-ed25519: 1025-byte reserved field refused", SKED, PRM_SK_RES_LEN, 1025,
	  NULL, -1, "FIDO reserved field is longer than 1024 bytes" },
	{ "sk-ssh-ed25519-cert: application differs from the certificate's refused", SKED,
	  PRM_SK_CERT_OTHER_APP, 0, "ssh:other", -1,
	  "FIDO application does not match the certificate" },
	{ "sk-ecdsa-cert: application differs from the certificate's refused", SKP256,
	  PRM_SK_CERT_OTHER_APP, 0, "ssh:x", -1,
	  "FIDO application does not match the certificate" },
	{ "sk-ecdsa-cert: the same application with a trailing NUL accepted (as OpenSSH)",
	  SKP256, PRM_SK_CERT_OTHER_APP, 0, "ssh:\0", 0, NULL },
	{ "sk-ssh-ed25519-cert: repeated A differs from the certified key refused", SKED,
	  PRM_SK_CERT_OTHER_A, 0, NULL, -1, "Ed25519 key does not match its certificate" },
	{ "sk-ssh-ed25519-cert without A (as PROTOCOL.u2f shows it) refused", SKED,
	  PRM_SK_CERT_NO_A, 0, NULL, -1, "bad Ed25519 public key" },
	{ "sk-ecdsa-cert name with an sk-ssh-ed25519 certificate refused", SKED,
	  PRM_CERT_OTHER_TYPE, 0, "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com", -1,
	  "certificate type does not match the key type" },
	{ "sk-ssh-ed25519-cert name with an ssh-ed25519 certificate refused", ED,
	  PRM_CERT_OTHER_TYPE, 0, "sk-ssh-ed25519-cert-v01@openssh.com", -1,
	  "certificate type does not match the key type" },
	{ "webauthn-sk-ecdsa-sha2-nistp256@openssh.com refused", SKP256, PRM_NAME, 0,
	  "webauthn-sk-ecdsa-sha2-nistp256@openssh.com", -1,
	  "webauthn-sk-* names a signature algorithm, not a key type" },
	{ "Ed25519 fields under the ssh-mldsa44-ed25519@openssh.com name refused", ED,
	  PRM_NAME, 0, "ssh-mldsa44-ed25519@openssh.com", -1,
	  "bad ML-DSA-44/Ed25519 public key length" },
	{ "unknown type refused", ED, PRM_NAME, 0, "ssh-foo", -1, "unknown key type" },
	{ "type name with a NUL inside refused", ED, PRM_NAME_NUL, 0, NULL, -1,
	  "no key type name" },
};

static void
build_priv(struct tb *t, const struct privrow *r)
{
	const struct testkey *k = &K[r->key];
	struct certspec cs = { .key = k, .ca = &K[ED2], .nprincipals = 1 };
	struct tb c;
	uint8_t b[AGENT_MAX_SK_KEY_HANDLE + 8], k64[64];   /* the longest field */
	size_t n;

	tb_init(&c);
	switch (r->m) {
	case PRM_NONE:
		tk_priv(t, k);
		break;
	case PRM_CERT:
		tk_priv_cert(t, &cs);
		break;
	case PRM_ED_ALEN:
	case PRM_ED_KLEN:
		memset(b, 0x33, sizeof(b));
		memcpy(b, k->seed.b, 32);
		memcpy(b + 32, k->a.b, 32);
		tb_cstring(t, "ssh-ed25519");
		if (r->m == PRM_ED_ALEN) {
			memcpy(k64, k->a.b, 32);
			k64[32] = 0x33;
			tb_string(t, k64, (size_t)r->arg);
			tb_string(t, b, 64);
		} else {
			tb_string(t, k->a.b, 32);
			tb_string(t, b, (size_t)r->arg);
		}
		break;
	case PRM_ED_K_OTHER_A:
		memcpy(k64, k->seed.b, 32);
		memcpy(k64 + 32, K[ED2].a.b, 32);
		tb_cstring(t, "ssh-ed25519");
		tb_string(t, k->a.b, 32);
		tb_string(t, k64, 64);
		break;
	case PRM_ED_CERT_OTHER_A:
		tk_cert(&c, &cs);
		tb_cstring(t, tk_cert_name(k->kind));
		tb_string_of(t, &c);
		tk_priv_cert_fields(t, &K[ED2]);
		break;
	case PRM_EC_CURVE:
	case PRM_EC_COMPRESSED:
		tb_cstring(t, tk_name(k->kind));
		if (r->m == PRM_EC_CURVE) {
			tb_cstring(t, r->s);
			tb_string(t, k->q.b, k->q.len);
		} else {
			n = (k->q.len - 1) / 2;
			b[0] = 0x02 | (k->q.b[k->q.len - 1] & 1);
			memcpy(b + 1, k->q.b + 1, n);
			tb_cstring(t, tk_curve(k->kind));
			tb_string(t, b, n + 1);
		}
		tb_mpint(t, k->d.b, k->d.len);
		break;
	case PRM_EC_D_ZERO:
	case PRM_EC_D_NEG:
	case PRM_EC_D_MISSING:
		tb_cstring(t, tk_name(k->kind));
		tb_cstring(t, tk_curve(k->kind));
		tb_string(t, k->q.b, k->q.len);
		if (r->m == PRM_EC_D_ZERO)
			tb_string(t, "", 0);
		else if (r->m == PRM_EC_D_NEG)
			tb_string(t, "\xff\x01", 2);
		break;
	case PRM_RSA_NBITS:
	case PRM_RSA_E_EVEN:
	case PRM_RSA_PUBLIC_ORDER:
	case PRM_RSA_D_ZERO:
	case PRM_RSA_Q_MISSING:
		tb_cstring(t, "ssh-rsa");
		if (r->m == PRM_RSA_NBITS) {
			rsa_modulus(b, r->arg);
			tb_mpint(t, b, (size_t)(r->arg + 7) / 8);
		} else if (r->m != PRM_RSA_PUBLIC_ORDER) {
			tb_mpint(t, k->n.b, k->n.len);
		}
		if (r->m == PRM_RSA_E_EVEN)
			tb_mpint(t, (const uint8_t *)"\x01\x00\x00", 3);
		else
			tb_mpint(t, k->e.b, k->e.len);
		if (r->m == PRM_RSA_PUBLIC_ORDER)
			tb_mpint(t, k->n.b, k->n.len);
		if (r->m == PRM_RSA_D_ZERO)
			tb_string(t, "", 0);
		else
			tb_mpint(t, k->rd.b, k->rd.len);
		tb_mpint(t, k->iqmp.b, k->iqmp.len);
		tb_mpint(t, k->p.b, k->p.len);
		if (r->m != PRM_RSA_Q_MISSING)
			tb_mpint(t, k->pq.b, k->pq.len);
		break;
	case PRM_CERT_OTHER_TYPE:
		tk_cert(&c, &cs);
		tb_cstring(t, r->s);
		tb_string_of(t, &c);
		tk_priv_cert_fields(t, k);
		break;
	case PRM_CERT_PLAIN_INSIDE:
		tk_pub(&c, k);
		tb_cstring(t, tk_cert_name(k->kind));
		tb_string_of(t, &c);
		tk_priv_cert_fields(t, k);
		break;
	case PRM_CERT_TYPE3:
		cs.type = 3;
		tk_priv_cert(t, &cs);
		break;
	case PRM_CERT_D_MISSING:
		tk_cert(&c, &cs);
		tb_cstring(t, tk_cert_name(k->kind));
		tb_string_of(t, &c);
		break;
	case PRM_NAME:
		tb_cstring(t, r->s);
		tk_pub_fields(t, k);
		break;
	case PRM_NAME_NUL:
		tb_string(t, "ssh-ed25519\0x", 13);
		tk_priv_cert_fields(t, k);
		break;
	case PRM_SK_CUT:
	case PRM_SK_KH_LEN:
	case PRM_SK_RES_LEN:
		memset(b, 0x5a, sizeof(b));
		tb_cstring(t, tk_name(k->kind));
		tk_pub_fields(t, k);
		if (r->m == PRM_SK_CUT && r->arg == 0)
			break;
		tb_u8(t, k->skflags);
		if (r->m == PRM_SK_CUT && r->arg == 1)
			break;
		tb_string(t, b, r->m == PRM_SK_KH_LEN ? (size_t)r->arg : k->kh.len);
		if (r->m == PRM_SK_CUT)
			break;
		tb_string(t, b, r->m == PRM_SK_RES_LEN ? (size_t)r->arg : 0);
		break;
	case PRM_SK_CERT_OTHER_APP:
	case PRM_SK_CERT_OTHER_A:
	case PRM_SK_CERT_NO_A: {
		struct testkey other = *k;
		tk_cert(&c, &cs);
		tb_cstring(t, tk_cert_name(k->kind));
		tb_string_of(t, &c);
		if (r->m == PRM_SK_CERT_OTHER_APP)
			comp_set(&other.app, r->s, strlen(r->s) + (r->s[4] == '\0'));
		if (r->m == PRM_SK_CERT_OTHER_A)
			other.a = K[ED2].a;
		if (r->m == PRM_SK_CERT_NO_A) {
			tb_string(t, other.app.b, other.app.len);
			tk_sk_tail(t, &other);
		} else {
			tk_priv_cert_fields(t, &other);
		}
		break;
	}
	}
	tb_free(&c);
	OPENSSL_cleanse(b, sizeof(b));
	OPENSSL_cleanse(k64, sizeof(k64));
}

static int
decode_sksig(const uint8_t *p, size_t n, void *arg)
{
	struct sk_sig s;

	(void)arg;
	return sk_sig_parse(sl(p, n), &s);
}

static int
decode_priv(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct privkey k;

	(void)arg;
	rd_init(&r, p, n);
	return key_parse_private(&r, &k, NULL);
}

static void
test_private(void)
{
	for (size_t i = 0; i < sizeof(privrows) / sizeof(privrows[0]); i++) {
		const struct privrow *pr = &privrows[i];
		struct tb t;
		struct privkey k;
		struct rd r;
		const char *why = NULL;
		int rc, good;

		uint8_t *c;

		tb_init(&t);
		build_priv(&t, pr);
		c = malloc(t.w.len ? t.w.len : 1);
		memcpy(c, t.w.p, t.w.len);
		rd_init(&r, c, t.w.len);
		rc = key_parse_private(&r, &k, &why);
		free(c);
		good = check_why(rc, why, pr->rc, pr->why) && (rc != 0 || r.len == 0);
		ok(good, "ADD key: %s", pr->name);
		if (!good)
			printf("#   rc %d why \"%s\" left %zu\n", rc, why ? why : "-", r.len);
		tb_free(&t);
	}
}

/* What key_parse_private finds in each valid encoding, what it writes
 * back, and the truncation/oversize checks. */
static void
test_private_fields(void)
{
	static const int keys[] = { ED, P256, P384, P521, KRSA, SKED, SKP256 };
	struct tb t, plain, rest;
	struct privkey k;
	struct rd r;
	struct wb w;
	char name[128];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct testkey *tk = &K[keys[i]];
		struct certspec cs = { .key = tk, .ca = &K[ED2], .nprincipals = 1 };

		for (int cert = 0; cert < 2; cert++) {
			int good;

			tb_init(&t);
			if (cert)
				tk_priv_cert(&t, &cs);
			else
				tk_priv(&t, tk);
			snprintf(name, sizeof(name), "ADD %s", cert ?
			    tk_cert_name(tk->kind) : tk_name(tk->kind));
			/* the comment follows the key; it must be left unread */
			tb_init(&rest);
			tb_append(&rest, &t);
			tb_cstring(&rest, "comment");
			rd_init(&r, rest.w.p, rest.w.len);
			good = key_parse_private(&r, &k, NULL) == 0 &&
			    r.len == 11 && k.pub.kind == tk->kind && k.pub.is_cert == cert;
			switch (tk->kind) {
			case KEY_SK_ED25519:
			case KEY_SK_ECDSA_P256:
				good = good && (tk->kind == KEY_SK_ED25519 ?
				    bytes_eq(k.pub.ed_a, tk->a.b, 32) :
				    bytes_eq(k.pub.ec_q, tk->q.b, tk->q.len)) &&
				    bytes_eq(k.pub.sk_app, tk->app.b, tk->app.len) &&
				    k.sk_flags == tk->skflags &&
				    bytes_eq(k.sk_key_handle, tk->kh.b, tk->kh.len) &&
				    k.sk_reserved.len == 0;
				break;
			case KEY_ED25519:
				good = good && bytes_eq(k.pub.ed_a, tk->a.b, 32) &&
				    k.ed_k.len == 64 && memcmp(k.ed_k.p, tk->seed.b, 32) == 0;
				break;
			case KEY_RSA:
				good = good && bytes_eq(k.pub.rsa_n, tk->n.b, tk->n.len) &&
				    bytes_eq(k.pub.rsa_e, tk->e.b, tk->e.len) &&
				    bytes_eq(k.rsa_d, tk->rd.b, tk->rd.len) &&
				    bytes_eq(k.rsa_iqmp, tk->iqmp.b, tk->iqmp.len) &&
				    bytes_eq(k.rsa_p, tk->p.b, tk->p.len) &&
				    bytes_eq(k.rsa_q, tk->pq.b, tk->pq.len) &&
				    k.pub.rsa_bits == 2048;
				break;
			default:
				good = good && bytes_eq(k.pub.ec_q, tk->q.b, tk->q.len) &&
				    bytes_eq(k.ec_d, tk->d.b, tk->d.len);
				break;
			}
			ok(good, "%s: fields decoded, comment left unread", name);
			/* policy hands the keyholder the plain form for both */
			tb_init(&plain);
			tk_priv(&plain, tk);
			wb_init(&w);
			key_write_private_plain(&w, &k);
			ok(!w.err && bytes_eq(tb_slice(&plain), w.p, w.len),
			    "%s: plain private encoding written", name);
			wb_free_secret(&w);
			wire_check(name, &t, decode_priv, NULL,
			    WIRE_VALID | WIRE_PREFIXES | WIRE_LENGTHS);
			tb_free(&plain);
			tb_free(&rest);
			tb_free(&t);
		}
	}
}

/* ----------------------------------------------------------- signatures */

static const struct {
	const char *name;
	enum key_kind kind;
	uint32_t flags;
	enum sig_alg alg;
} algs[] = {
	{ "RSA, no flag: ssh-rsa (SHA-1)", KEY_RSA, 0, SIG_RSA_SHA1 },
	{ "RSA, 0x02: rsa-sha2-256", KEY_RSA, 0x02, SIG_RSA_SHA256 },
	{ "RSA, 0x04: rsa-sha2-512", KEY_RSA, 0x04, SIG_RSA_SHA512 },
	{ "RSA, 0x02|0x04: rsa-sha2-256 wins", KEY_RSA, 0x06, SIG_RSA_SHA256 },
	{ "RSA, 0x01 (old signature, ignored): ssh-rsa", KEY_RSA, 0x01, SIG_RSA_SHA1 },
	{ "RSA, 0x01|0x04: rsa-sha2-512", KEY_RSA, 0x05, SIG_RSA_SHA512 },
	{ "RSA, unknown bits ignored: ssh-rsa", KEY_RSA, 0xfffffff8, SIG_RSA_SHA1 },
	{ "RSA, unknown bits and 0x04: rsa-sha2-512", KEY_RSA, 0xfffffffc, SIG_RSA_SHA512 },
	{ "RSA, every bit: rsa-sha2-256", KEY_RSA, 0xffffffff, SIG_RSA_SHA256 },
	{ "Ed25519, no flag", KEY_ED25519, 0, SIG_ED25519 },
	{ "Ed25519, 0x02 ignored", KEY_ED25519, 0x02, SIG_ED25519 },
	{ "Ed25519, 0x04 ignored", KEY_ED25519, 0x04, SIG_ED25519 },
	{ "ECDSA P-256, 0x02 ignored", KEY_ECDSA_P256, 0x02, SIG_ECDSA_P256 },
	{ "ECDSA P-384, 0x04 ignored", KEY_ECDSA_P384, 0x04, SIG_ECDSA_P384 },
	{ "ECDSA P-521, 0x06 ignored", KEY_ECDSA_P521, 0x06, SIG_ECDSA_P521 },
	{ "ECDSA P-521, no flag", KEY_ECDSA_P521, 0, SIG_ECDSA_P521 },
	{ "sk-ssh-ed25519, 0x02 ignored", KEY_SK_ED25519, 0x02, SIG_SK_ED25519 },
	{ "sk-ecdsa, 0x04 ignored", KEY_SK_ECDSA_P256, 0x04, SIG_SK_ECDSA_P256 },
	{ "no key kind: no algorithm", KEY_NONE, 0x02, SIG_NONE },
};

static const struct {
	const char *name;
	enum sig_alg alg;
	enum key_kind kind;
} signames[] = {
	{ "ssh-ed25519", SIG_ED25519, KEY_ED25519 },
	{ "ecdsa-sha2-nistp256", SIG_ECDSA_P256, KEY_ECDSA_P256 },
	{ "ecdsa-sha2-nistp384", SIG_ECDSA_P384, KEY_ECDSA_P384 },
	{ "ecdsa-sha2-nistp521", SIG_ECDSA_P521, KEY_ECDSA_P521 },
	{ "ssh-rsa", SIG_RSA_SHA1, KEY_RSA },
	{ "rsa-sha2-256", SIG_RSA_SHA256, KEY_RSA },
	{ "rsa-sha2-512", SIG_RSA_SHA512, KEY_RSA },
	/* a signature carries the plain name, never a -cert- name (doc/protocol.md §4.6) */
	{ "rsa-sha2-256-cert-v01@openssh.com", SIG_NONE, KEY_NONE },
	{ "ssh-ed25519-cert-v01@openssh.com", SIG_NONE, KEY_NONE },
	{ "sk-ssh-ed25519@openssh.com", SIG_SK_ED25519, KEY_SK_ED25519 },
	{ "sk-ecdsa-sha2-nistp256@openssh.com", SIG_SK_ECDSA_P256, KEY_SK_ECDSA_P256 },
	{ "sk-ssh-ed25519-cert-v01@openssh.com", SIG_NONE, KEY_NONE },
	/* a browser's signature; keyward's authenticators never make one */
	{ "webauthn-sk-ecdsa-sha2-nistp256@openssh.com", SIG_NONE, KEY_NONE },
	{ "ssh-dss", SIG_NONE, KEY_NONE },
	{ "", SIG_NONE, KEY_NONE },
};

static void
test_sig_algs(void)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		is_int(sig_alg_for(algs[i].kind, algs[i].flags), algs[i].alg,
		    "sign algorithm: %s", algs[i].name);
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++) {
		enum sig_alg a = sig_alg_from_name(sl_str(signames[i].name));
		int good = a == signames[i].alg;

		if (a != SIG_NONE)
			good = good && strcmp(sig_alg_name(a), signames[i].name) == 0 &&
			    sig_alg_fits(a, signames[i].kind);
		ok(good, "signature name \"%s\": %s", signames[i].name,
		    a != SIG_NONE ? "known, fits its key kind" : "not a signature algorithm");
	}
	ok(!sig_alg_fits(SIG_RSA_SHA256, KEY_ED25519), "rsa-sha2-256 does not fit Ed25519");
	ok(!sig_alg_fits(SIG_ECDSA_P256, KEY_ECDSA_P384), "nistp256 does not fit P-384");
	ok(!sig_alg_fits(SIG_ED25519, KEY_RSA), "ssh-ed25519 does not fit RSA");
	ok(!sig_alg_fits(SIG_ED25519, KEY_SK_ED25519),
	    "ssh-ed25519 does not fit sk-ssh-ed25519 (a FIDO key signs FIDO signatures)");
	ok(!sig_alg_fits(SIG_SK_ED25519, KEY_ED25519),
	    "sk-ssh-ed25519 does not fit ssh-ed25519");
	ok(!sig_alg_fits(SIG_SK_ECDSA_P256, KEY_ECDSA_P256),
	    "sk-ecdsa does not fit ecdsa-sha2-nistp256");
	ok(!sig_alg_fits(SIG_NONE, KEY_NONE), "no algorithm fits nothing");
	is_str(sig_alg_name(SIG_NONE), "unknown", "name of no algorithm");
}

/* ------------------------------------------------- real ssh-add vectors */

/* What ssh-add 9.2 sent for FIDO keys and their certificates: the ADD
 * encodings of doc/protocol.md §4.4 as the real tool writes them (the Ed25519-SK
 * certificate form repeats A), read to the last byte, and the plain
 * form policy hands the keyholder the same for a key and its certificate. */
static void
test_real_vectors(void)
{
	static const struct {
		const char *name, *b64, *comment;
		enum key_kind kind;
		int is_cert;
	} v[] = {
		{ "sk-ssh-ed25519", SKV_ADD_ED25519_SK, SKV_COMMENT_ED, KEY_SK_ED25519, 0 },
		{ "sk-ssh-ed25519-cert", SKV_ADD_ED25519_SK_CERT, SKV_COMMENT_ED,
		  KEY_SK_ED25519, 1 },
		{ "sk-ecdsa", SKV_ADD_ECDSA_SK, SKV_COMMENT_EC, KEY_SK_ECDSA_P256, 0 },
		{ "sk-ecdsa-cert", SKV_ADD_ECDSA_SK_CERT, SKV_COMMENT_EC, KEY_SK_ECDSA_P256, 1 },
	};
	uint8_t kh[48];
	struct wb plain[2];

	for (size_t i = 0; i < sizeof(kh); i++)
		kh[i] = (uint8_t)(0x40 + i);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n;
		uint8_t *p = skv_decode(v[i].b64, &n), type, ctype;
		struct slice comment, cname, provider;
		struct privkey k;
		const char *why = NULL;
		struct rd r;
		int good;

		rd_init(&r, p, n);
		good = rd_u8(&r, &type) == 0 && type == 25 &&
		    key_parse_private(&r, &k, &why) == 0;
		ok(good, "ssh-add's %s ADD parses%s%s", v[i].name, why ? ": " : "",
		    why ? why : "");
		good = good && k.pub.kind == v[i].kind && k.pub.is_cert == v[i].is_cert &&
		    slice_eq_str(k.pub.sk_app, "ssh:") && k.sk_flags == 0x01 &&
		    bytes_eq(k.sk_key_handle, kh, sizeof(kh)) && k.sk_reserved.len == 0 &&
		    (v[i].kind == KEY_SK_ED25519 ? bytes_eq(k.pub.ed_a, skv_ed_a, 32) :
		    bytes_eq(k.pub.ec_q, skv_ec_q, 65));
		ok(good, "%s: kind, application ssh:, flags 0x01, key handle, public key",
		    v[i].name);
		ok(rd_text(&r, &comment) == 0 && slice_eq_str(comment, v[i].comment) &&
		    rd_u8(&r, &ctype) == 0 && ctype == 255 && rd_text(&r, &cname) == 0 &&
		    slice_eq_str(cname, "sk-provider@openssh.com") &&
		    rd_text(&r, &provider) == 0 && slice_eq_str(provider, "internal") &&
		    rd_done(&r) == 0,
		    "%s: the key ends where ssh-add's comment and sk-provider constraint "
		    "begin", v[i].name);
		if (v[i].is_cert) {
			ok(k.pub.cert.type == 1 && k.pub.cert.nprincipals == 1,
			    "%s: a user certificate for one principal", v[i].name);
			wb_init(&plain[1]);
			key_write_private_plain(&plain[1], &k);
			ok(!plain[1].err && plain[0].len == plain[1].len &&
			    memcmp(plain[0].p, plain[1].p, plain[0].len) == 0,
			    "%s: the keyholder gets the plain key's encoding", v[i].name);
			wb_free_secret(&plain[0]);
			wb_free_secret(&plain[1]);
		} else {
			/* the plain form is what ssh-add sent, minus type, comment
			 * and constraint */
			wb_init(&plain[0]);
			key_write_private_plain(&plain[0], &k);
			ok(!plain[0].err && plain[0].len == n - 1 - (4 + comment.len) -
			    1 - (4 + cname.len) - (4 + provider.len) &&
			    memcmp(plain[0].p, p + 1, plain[0].len) == 0,
			    "%s: written back byte for byte", v[i].name);
		}
		free(p);
	}
}

/* ------------------------------------------------------ FIDO signatures */

enum sks { SKS_ED, SKS_EC, SKS_EC_ZEROS, SKS_EC_33, SKS_EC_R0, SKS_ED_63, SKS_ED_S,
	SKS_ALG };

static const struct skrow {
	const char *name;
	enum sks m;
	int rc;
} skrows[] = {
	{ "Ed25519: 64-byte signature, flags, counter", SKS_ED, 0 },
	{ "ECDSA P-256: r and s of 32 bytes as mpints", SKS_EC, 0 },
	{ "ECDSA P-256: leading zero bytes of r and s cut", SKS_EC_ZEROS, 0 },
	{ "ECDSA P-256: r of 33 significant bytes refused", SKS_EC_33, -1 },
	{ "ECDSA P-256: r = 0 refused", SKS_EC_R0, -1 },
	{ "Ed25519: 63-byte signature refused", SKS_ED_63, -1 },
	{ "Ed25519: an s given refused", SKS_ED_S, -1 },
	{ "algorithm 0x02 (not in the middleware API) refused", SKS_ALG, -1 },
};

/* The encoder against blobs built field by field (doc/protocol.md §4.6), and the reader
 * against the encoder and against truncation and trailing bytes. */
static void
test_sk_sigs(void)
{
	uint8_t r32[32], s32[32], r33[33], z[34], sig64[64];
	struct tb want;
	struct wb w;
	struct sk_sig ss;

	for (size_t i = 0; i < 32; i++) {
		r32[i] = (uint8_t)(0x80 + i);   /* top bit set: mpint needs a 0x00 */
		s32[i] = (uint8_t)(0x11 + i);
	}
	memset(r33, 0x22, sizeof(r33));
	memset(z, 0, sizeof(z));
	memcpy(z + 2, s32, 32);
	for (size_t i = 0; i < 64; i++)
		sig64[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(skrows) / sizeof(skrows[0]); i++) {
		const struct skrow *row = &skrows[i];
		struct slice r = { r32, 32 }, s = { s32, 32 };
		int alg = SK_ALG_ECDSA_P256, rc;

		tb_init(&want);
		switch (row->m) {
		case SKS_ED:
		case SKS_ED_63:
		case SKS_ED_S:
			alg = SK_ALG_ED25519;
			r = (struct slice){ sig64, row->m == SKS_ED_63 ? 63 : 64 };
			s = row->m == SKS_ED_S ? (struct slice){ s32, 32 } :
			    (struct slice){ NULL, 0 };
			tb_cstring(&want, "sk-ssh-ed25519@openssh.com");
			tb_string(&want, sig64, 64);
			break;
		case SKS_EC_ZEROS:
			s = (struct slice){ z, sizeof(z) };
			/* FALLTHROUGH */
		case SKS_EC:
		case SKS_EC_33:
		case SKS_EC_R0:
		case SKS_ALG:
			if (row->m == SKS_EC_33)
				r = (struct slice){ r33, 33 };
			if (row->m == SKS_EC_R0)
				r = (struct slice){ z, 2 };
			if (row->m == SKS_ALG)
				alg = 0x02;
			tb_cstring(&want, "sk-ecdsa-sha2-nistp256@openssh.com");
			tb_begin(&want);
			tb_mpint(&want, r32, 32);
			tb_mpint(&want, s32, 32);
			tb_end(&want);
			break;
		}
		tb_u8(&want, 0x05);
		tb_u32(&want, 0x01020304);
		wb_init(&w);
		rc = sk_sig_encode(&w, alg, r, s, 0x05, 0x01020304);
		ok(rc == row->rc && (rc != 0 || bytes_eq(tb_slice(&want), w.p, w.len)),
		    "sk_sig_encode: %s", row->name);
		if (rc == 0) {
			ok(sk_sig_parse(wb_slice_of(&w), &ss) == 0 && ss.flags == 0x05 &&
			    ss.counter == 0x01020304 && (alg == SK_ALG_ED25519 ?
			    ss.alg == SIG_SK_ED25519 && bytes_eq(ss.inner, sig64, 64) :
			    ss.alg == SIG_SK_ECDSA_P256 && bytes_eq(ss.r, r32, 32) &&
			    bytes_eq(ss.s, s32, 32)),
			    "sk_sig_parse reads back: %s", row->name);
			wire_check(row->name, &want, decode_sksig, NULL, WIRE_ALL);
		}
		wb_free(&w);
		tb_free(&want);
	}

	/* what the reader refuses, whoever wrote it */
	static const struct {
		const char *name, *alg;
		size_t inner;
		int ecdsa_inner;
	} bad[] = {
		{ "plain ssh-ed25519 name with flags and counter", "ssh-ed25519", 64, 0 },
		{ "a -cert- name", "sk-ssh-ed25519-cert-v01@openssh.com", 64, 0 },
		{ "the webauthn variant", "webauthn-sk-ecdsa-sha2-nistp256@openssh.com", 0, 1 },
		{ "an Ed25519 signature under the ECDSA name", "sk-ecdsa-sha2-nistp256@openssh.com",
		  64, 0 },
		{ "ECDSA r and s under the Ed25519 name", "sk-ssh-ed25519@openssh.com", 0, 1 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tb_init(&want);
		tb_cstring(&want, bad[i].alg);
		if (bad[i].ecdsa_inner) {
			tb_begin(&want);
			tb_mpint(&want, r32, 32);
			tb_mpint(&want, s32, 32);
			tb_end(&want);
		} else {
			tb_string(&want, sig64, bad[i].inner);
		}
		tb_u8(&want, 0x01);
		tb_u32(&want, 1);
		ok(sk_sig_parse(tb_slice(&want), &ss) != 0, "sk_sig_parse refuses %s",
		    bad[i].name);
		tb_free(&want);
	}
	/* an ECDSA inner with bytes after s */
	tb_init(&want);
	tb_cstring(&want, "sk-ecdsa-sha2-nistp256@openssh.com");
	tb_begin(&want);
	tb_mpint(&want, r32, 32);
	tb_mpint(&want, s32, 32);
	tb_u8(&want, 0);
	tb_end(&want);
	tb_u8(&want, 0x01);
	tb_u32(&want, 1);
	ok(sk_sig_parse(tb_slice(&want), &ss) != 0,
	    "sk_sig_parse refuses bytes after s inside the ECDSA signature");
	tb_free(&want);
}

int
main(void)
{
	make_keys();
	test_names();
	test_public();
	test_public_fields();
	test_certs();
	test_private();
	test_private_fields();
	test_sig_algs();
	test_real_vectors();
	test_sk_sigs();
	for (int i = 0; i < NKEYS; i++)
		testkey_free(&K[i]);
	return done_testing();
}
