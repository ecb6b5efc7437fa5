/*
 * test_canonical.c - key_canonical (keys/sshkey.c), the one way keys are
 * compared (doc/protocol.md §4.5): a plain key re-encoded with minimal mpints, a
 * certificate whole as received, anything that does not parse refused.
 * Real keys made by OpenSSL; the blobs are built field by field here.
 */
#include "keys/sshkey.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ED, ED2, P256, P384, KRSA, NKEYS };
static struct testkey K[NKEYS];

/* The blobs the table names. */
enum blob {
	NONE,
	B_ED,                   /* ssh-ed25519, as OpenSSH writes it */
	B_ED_CERT,              /* a user certificate of B_ED, signed by ED2 */
	B_P256,
	B_P256_CURVE384,        /* the P-256 name, curve "nistp384" */
	B_P256_POINT384,        /* the P-256 name and curve, a P-384 point */
	B_RSA,                  /* e and n minimal */
	B_RSA_E_PADDED,         /* e written 00 00 01 00 01 */
	B_RSA_N_PADDED,         /* n with one 00 byte more than it needs */
	B_RSA_CERT,             /* a certificate of B_RSA, signed by ED2 */
	B_CERT_PADDED_CA,       /* a certificate whose CA blob is B_RSA_E_PADDED */
	B_ED_TRAILING,          /* B_ED and one byte more */
	B_ED_SHORT,             /* B_ED with a 31-byte public key */
	B_DSA,                  /* ssh-dss, refused on purpose */
	B_EMPTY,
	B_GARBAGE,
	NBLOBS
};

static struct tb blobs[NBLOBS];

static void
padded_mpint(struct tb *t, const struct comp *c, size_t zeros)
{
	uint8_t b[sizeof(c->b) + 8];

	memset(b, 0, zeros);
	memcpy(b + zeros, c->b, c->len);
	tb_string(t, b, zeros + c->len);
}

static void
make_blobs(void)
{
	static const uint8_t garbage[] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01 };
	struct certspec cs;
	struct tb *t;

	for (int i = 0; i < NBLOBS; i++)
		tb_init(&blobs[i]);
	tk_pub(&blobs[B_ED], &K[ED]);
	memset(&cs, 0, sizeof(cs));
	cs.key = &K[ED];
	cs.ca = &K[ED2];
	cs.nprincipals = 1;
	tk_cert(&blobs[B_ED_CERT], &cs);
	tk_pub(&blobs[B_P256], &K[P256]);

	t = &blobs[B_P256_CURVE384];
	tb_cstring(t, "ecdsa-sha2-nistp256");
	tb_cstring(t, "nistp384");
	tb_string(t, K[P256].q.b, K[P256].q.len);
	t = &blobs[B_P256_POINT384];
	tb_cstring(t, "ecdsa-sha2-nistp256");
	tb_cstring(t, "nistp256");
	tb_string(t, K[P384].q.b, K[P384].q.len);

	tk_pub(&blobs[B_RSA], &K[KRSA]);
	t = &blobs[B_RSA_E_PADDED];
	tb_cstring(t, "ssh-rsa");
	padded_mpint(t, &K[KRSA].e, 2);
	tb_mpint(t, K[KRSA].n.b, K[KRSA].n.len);
	t = &blobs[B_RSA_N_PADDED];
	tb_cstring(t, "ssh-rsa");
	tb_mpint(t, K[KRSA].e.b, K[KRSA].e.len);
	padded_mpint(t, &K[KRSA].n, 2);         /* the top bit is set: 1 needed */

	cs.key = &K[KRSA];
	tk_cert(&blobs[B_RSA_CERT], &cs);
	cs.key = &K[ED];
	cs.ca = &K[KRSA];
	cs.sigkey = blobs[B_RSA_E_PADDED].w.p;
	cs.sigkeylen = blobs[B_RSA_E_PADDED].w.len;
	tk_cert(&blobs[B_CERT_PADDED_CA], &cs);

	tk_pub(&blobs[B_ED_TRAILING], &K[ED]);
	tb_u8(&blobs[B_ED_TRAILING], 0);
	t = &blobs[B_ED_SHORT];
	tb_cstring(t, "ssh-ed25519");
	tb_string(t, K[ED].a.b, 31);
	t = &blobs[B_DSA];
	tb_cstring(t, "ssh-dss");
	tb_string(t, "p", 1);
	tb_raw(&blobs[B_GARBAGE], garbage, sizeof(garbage));
}

static const struct row {
	const char *name;
	enum blob in;
	int rc;                 /* 0: canonical form written; -1: refused */
	enum blob same;         /* rc 0: the blob the canonical form is, byte for byte */
	enum blob differs;      /* rc 0: a blob it must not equal (or NONE) */
	enum key_kind kind;     /* rc 0: what *k says */
	const char *why;        /* rc -1: the reason given */
} rows[] = {
	{ "Ed25519: a minimal blob is its own canonical form",
	  B_ED, 0, B_ED, B_ED_CERT, KEY_ED25519, NULL },
	{ "Ed25519 certificate: the whole certificate, not its plain key",
	  B_ED_CERT, 0, B_ED_CERT, B_ED, KEY_ED25519, NULL },
	{ "ECDSA P-256: its own canonical form",
	  B_P256, 0, B_P256, NONE, KEY_ECDSA_P256, NULL },
	{ "RSA: minimal mpints are canonical; not its certificate",
	  B_RSA, 0, B_RSA, B_RSA_CERT, KEY_RSA, NULL },
	{ "RSA: e with redundant leading zeros is the minimal blob",
	  B_RSA_E_PADDED, 0, B_RSA, B_RSA_E_PADDED, KEY_RSA, NULL },
	{ "RSA: n with a redundant 00 byte is the minimal blob",
	  B_RSA_N_PADDED, 0, B_RSA, B_RSA_N_PADDED, KEY_RSA, NULL },
	{ "RSA certificate: the certificate, not the plain key",
	  B_RSA_CERT, 0, B_RSA_CERT, B_RSA, KEY_RSA, NULL },
	{ "certificate with a non-minimal CA blob: kept as received",
	  B_CERT_PADDED_CA, 0, B_CERT_PADDED_CA, NONE, KEY_ED25519, NULL },
	{ "ECDSA: the nistp256 name with curve nistp384 refused",
	  B_P256_CURVE384, -1, NONE, NONE, KEY_NONE,
	  "ECDSA curve does not match the key type" },
	{ "ECDSA: a P-384 point under the nistp256 name refused",
	  B_P256_POINT384, -1, NONE, NONE, KEY_NONE,
	  "ECDSA point is not an uncompressed point of its curve" },
	{ "a byte after a plain key refused",
	  B_ED_TRAILING, -1, NONE, NONE, KEY_NONE, "bytes after the key" },
	{ "Ed25519 key of 31 bytes refused",
	  B_ED_SHORT, -1, NONE, NONE, KEY_NONE, "bad Ed25519 public key" },
	{ "DSA refused",
	  B_DSA, -1, NONE, NONE, KEY_NONE,
	  "DSA keys are not supported (removed from OpenSSH in 10.1)" },
	{ "empty blob refused",
	  B_EMPTY, -1, NONE, NONE, KEY_NONE, "key blob has no type name" },
	{ "garbage (a length past the end) refused",
	  B_GARBAGE, -1, NONE, NONE, KEY_NONE, "key blob has no type name" },
};

static void
test_rows(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct slice in = tb_slice(&blobs[r->in]), got;
		const char *why = NULL;
		struct pubkey k;
		struct wb w;
		int rc, good;

		wb_init(&w);
		rc = key_canonical(in, &k, &w, &why) == 0 ? 0 : -1;
		got = wb_slice_of(&w);
		good = rc == r->rc;
		if (good && rc == 0)
			good = slice_eq(got, tb_slice(&blobs[r->same])) &&
			    (r->differs == NONE ||
			    !slice_eq(got, tb_slice(&blobs[r->differs]))) &&
			    k.kind == r->kind;
		else if (good)
			good = why != NULL && strcmp(why, r->why) == 0;
		ok(good, "%s", r->name);
		if (!good)
			printf("#   rc %d want %d, %zu bytes, why %s\n", rc, r->rc,
			    got.len, why ? why : "-");
		wb_free(&w);
	}
}

/* Two spellings of one key compare equal only through key_canonical. */
static void
test_compare(void)
{
	struct wb a, b;

	wb_init(&a);
	wb_init(&b);
	ok(!slice_eq(tb_slice(&blobs[B_RSA]), tb_slice(&blobs[B_RSA_E_PADDED])) &&
	    key_canonical(tb_slice(&blobs[B_RSA]), NULL, &a, NULL) == 0 &&
	    key_canonical(tb_slice(&blobs[B_RSA_E_PADDED]), NULL, &b, NULL) == 0 &&
	    slice_eq(wb_slice_of(&a), wb_slice_of(&b)),
	    "two spellings of one RSA key: one canonical form (no parsed key asked for)");
	wb_reset(&a);
	wb_u8(&a, 0x55);
	ok(key_canonical(tb_slice(&blobs[B_ED]), NULL, &a, NULL) == 0 &&
	    a.len == 1 + blobs[B_ED].w.len && a.p[0] == 0x55 &&
	    memcmp(a.p + 1, blobs[B_ED].w.p, blobs[B_ED].w.len) == 0,
	    "the canonical form is appended to what the writer holds");
	wb_reset(&a);
	a.err = 1;
	ok(key_canonical(tb_slice(&blobs[B_ED]), NULL, &a, NULL) != 0,
	    "a writer in error: refused");
	wb_free(&a);
	wb_free(&b);
}

int
main(void)
{
	testkey_gen(&K[ED], KEY_ED25519, 0);
	testkey_gen(&K[ED2], KEY_ED25519, 0);
	testkey_gen(&K[P256], KEY_ECDSA_P256, 0);
	testkey_gen(&K[P384], KEY_ECDSA_P384, 0);
	testkey_gen(&K[KRSA], KEY_RSA, 2048);
	make_blobs();
	test_rows();
	test_compare();
	for (int i = 0; i < NBLOBS; i++)
		tb_free(&blobs[i]);
	for (int i = 0; i < NKEYS; i++)
		testkey_free(&K[i]);
	return done_testing();
}
