/*
 * test_assoc.c - the associated-certs constraint's certificate list
 * (keys/assoc.c, doc/protocol.md §6.7): what parses and how many blobs it
 * holds, what is refused, and which token key each certificate certifies.
 */
#include "ipc/limits.h"
#include "keys/assoc.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"

#include <string.h>

enum { ED, ED2, P256, KRSA, CA, NKEYS };
static struct testkey K[NKEYS];

enum list {
	L_EMPTY, L_ONE_CERT, L_THREE, L_PLAIN, L_MAX, L_OVER, L_TRUNC_LEN,
	L_TRUNC_BLOB, L_GARBAGE, L_TRAILING, L_CERT_NO_SIG, L_DSA, L_ZERO_LEN,
};

static const struct {
	const char *name;
	enum list list;
	int want;               /* blobs counted, -1: refused */
} lists[] = {
	{ "empty list: no certificates, accepted", L_EMPTY, 0 },
	{ "one Ed25519 certificate", L_ONE_CERT, 1 },
	{ "Ed25519, ECDSA and RSA certificates", L_THREE, 3 },
	{ "a plain key beside a certificate: both counted", L_PLAIN, 2 },
	{ "AGENT_MAX_ASSOC_CERTS blobs", L_MAX, AGENT_MAX_ASSOC_CERTS },
	{ "AGENT_MAX_ASSOC_CERTS + 1 blobs: refused", L_OVER, -1 },
	{ "a length field cut short: refused", L_TRUNC_LEN, -1 },
	{ "a blob longer than what is left: refused", L_TRUNC_BLOB, -1 },
	{ "a blob that is no key: refused", L_GARBAGE, -1 },
	{ "a certificate with a byte after it: refused", L_TRAILING, -1 },
	{ "a certificate without its signature: refused", L_CERT_NO_SIG, -1 },
	{ "an ssh-dss key: refused", L_DSA, -1 },
	{ "an empty blob: refused", L_ZERO_LEN, -1 },
};

static void
cert_of(struct tb *t, int key, const uint8_t *trailer, int nosig)
{
	struct certspec cs = { .key = &K[key], .ca = &K[CA], .nprincipals = 1,
	    .no_signature = nosig };

	if (trailer != NULL) {
		cs.trailer = trailer;
		cs.trailerlen = 1;
	}
	tb_begin(t);
	tk_cert(t, &cs);
	tb_end(t);
}

static void
plain_of(struct tb *t, int key)
{
	tb_begin(t);
	tk_pub(t, &K[key]);
	tb_end(t);
}

static void
build(struct tb *t, enum list l)
{
	struct tb one;

	switch (l) {
	case L_EMPTY:
		break;
	case L_ONE_CERT:
		cert_of(t, ED, NULL, 0);
		break;
	case L_THREE:
		cert_of(t, ED, NULL, 0);
		cert_of(t, P256, NULL, 0);
		cert_of(t, KRSA, NULL, 0);
		break;
	case L_PLAIN:
		plain_of(t, ED2);
		cert_of(t, ED, NULL, 0);
		break;
	case L_MAX:
	case L_OVER:
		tb_init(&one);
		plain_of(&one, ED);
		for (int i = 0; i < AGENT_MAX_ASSOC_CERTS + (l == L_OVER); i++)
			tb_raw(t, one.w.p, one.w.len);
		tb_free(&one);
		break;
	case L_TRUNC_LEN:
		cert_of(t, ED, NULL, 0);
		tb_raw(t, "\0\0", 2);
		break;
	case L_TRUNC_BLOB:
		tb_raw(t, "\0\0\1\0ssh-ed25519", 15);
		break;
	case L_GARBAGE:
		tb_cstring(t, "perseus@argos");
		break;
	case L_TRAILING:
		cert_of(t, ED, (const uint8_t *)"\0", 0);
		break;
	case L_CERT_NO_SIG:
		cert_of(t, ED, NULL, 1);
		break;
	case L_DSA:
		tb_begin(t);
		tb_cstring(t, "ssh-dss");
		tb_mpint(t, (const uint8_t *)"\x01", 1);
		tb_end(t);
		break;
	case L_ZERO_LEN:
		tb_string(t, "", 0);
		break;
	}
}

struct seen {
	int n, certs;
};

static int
count(void *ctx, struct slice blob, const struct pubkey *k)
{
	struct seen *s = ctx;

	s->n++;
	s->certs += k->is_cert;
	return blob.len > 0 ? 0 : -1;
}

static int
refuse_second(void *ctx, struct slice blob, const struct pubkey *k)
{
	int *n = ctx;

	(void)blob;
	(void)k;
	return ++*n == 2 ? -1 : 0;
}

static void
test_lists(void)
{
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct tb t;
		struct seen s = { 0, 0 };
		const char *why = NULL;
		int n;

		tb_init(&t);
		build(&t, lists[i].list);
		n = assoc_parse(tb_slice(&t), count, &s, &why);
		is_int(n, lists[i].want, "%s", lists[i].name);
		if (lists[i].want < 0)
			ok(why != NULL, "%s: says why", lists[i].name);
		else
			ok(s.n == n && why == NULL, "%s: the callback saw each blob",
			    lists[i].name);
		/* without a callback, the same answer */
		is_int(assoc_parse(tb_slice(&t), NULL, NULL, NULL), lists[i].want,
		    "%s (no callback, no why)", lists[i].name);
		tb_free(&t);
	}

	/* a callback's refusal fails the parse where it stops */
	struct tb t;
	const char *why = NULL;
	int calls = 0;

	tb_init(&t);
	build(&t, L_THREE);
	is_int(assoc_parse(tb_slice(&t), refuse_second, &calls, &why), -1,
	    "a callback refusing the second blob fails the parse");
	ok(calls == 2 && why != NULL, "it was not called after it refused");
	tb_free(&t);
}

static const struct {
	const char *name;
	int cert_of;            /* certificate of this key (-1: plain key) */
	int key;                /* compared with this key's canonical blob */
	int want;
} pairs[] = {
	{ "Ed25519 certificate certifies its key", ED, ED, 1 },
	{ "ECDSA certificate certifies its key", P256, P256, 1 },
	{ "RSA certificate certifies its key", KRSA, KRSA, 1 },
	{ "Ed25519 certificate does not certify another Ed25519 key", ED, ED2, 0 },
	{ "Ed25519 certificate does not certify an ECDSA key", ED, P256, 0 },
	{ "Ed25519 certificate does not certify its CA", ED, CA, 0 },
	{ "a plain key certifies nothing, itself included", -1, ED, 0 },
};

static void
test_certifies(void)
{
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct certspec cs = { .key = &K[pairs[i].cert_of < 0 ? ED :
		    pairs[i].cert_of], .ca = &K[CA], .nprincipals = 1 };
		struct tb t;
		struct pubkey k;

		tb_init(&t);
		if (pairs[i].cert_of < 0)
			tk_pub(&t, &K[pairs[i].key]);
		else
			tk_cert(&t, &cs);
		if (key_parse_public(tb_slice(&t), &k, NULL) != 0) {
			ok(0, "%s: the blob parses", pairs[i].name);
		} else {
			is_int(assoc_certifies(&k, testkey_blob(&K[pairs[i].key])),
			    pairs[i].want, "%s", pairs[i].name);
		}
		tb_free(&t);
	}

	/* policy compares with the listed key's canonical blob
	 * (key_canonical), as p11.c does */
	struct tb t;
	struct wb canon;
	struct pubkey k;
	struct certspec cs = { .key = &K[KRSA], .ca = &K[CA], .nprincipals = 1 };

	tb_init(&t);
	tk_cert(&t, &cs);
	wb_init(&canon);
	ok(key_parse_public(tb_slice(&t), &k, NULL) == 0 &&
	    key_canonical(testkey_blob(&K[KRSA]), NULL, &canon, NULL) == 0 &&
	    assoc_certifies(&k, wb_slice_of(&canon)) == 1,
	    "RSA certificate certifies its key's canonical blob");
	wb_free(&canon);
	tb_free(&t);
}

int
main(void)
{
	testkey_gen(&K[ED], KEY_ED25519, 0);
	testkey_gen(&K[ED2], KEY_ED25519, 0);
	testkey_gen(&K[P256], KEY_ECDSA_P256, 0);
	testkey_gen(&K[KRSA], KEY_RSA, 2048);
	testkey_gen(&K[CA], KEY_ED25519, 0);
	test_lists();
	test_certifies();
	for (int i = 0; i < NKEYS; i++)
		testkey_free(&K[i]);
	return done_testing();
}
