/*
 * test_dest.c - restrict-destination-v00@openssh.com (doc/protocol.md §6.6): the
 * structural rules of dest_parse one at a time, the full key decode of
 * dest_set_build, the 1024-constraint limit, and every truncation.
 */
#include "keys/dest.h"
#include "policy/hop.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/tap.h"

enum {
	NONE,                   /* no key spec */
	SCYLLA, CHARYBDIS, CA,
	HOST_CERT,              /* charybdis' key certified by the CA */
	BROKEN_CERT,            /* the same, CA signature broken */
	OFF_CURVE,              /* decodes, but the point is not on P-256 */
	DSS,                    /* a type keyward refuses */
	UNKNOWN,                /* a type nobody knows */
	GARBAGE,                /* does not decode */
	NBLOBS
};

static struct testkey scylla, charybdis, ca;
static struct wb blobs[NBLOBS];
static char user256[257], user257[258], host255[256], host256[257];

static void
make_blobs(void)
{
	uint8_t q[65], m[64];

	testkey_gen(&scylla, KEY_ED25519, 2048);
	testkey_gen(&charybdis, KEY_ECDSA_P256, 2048);
	testkey_gen(&ca, KEY_ED25519, 2048);
	for (int i = 0; i < NBLOBS; i++)
		wb_init(&blobs[i]);
	wb_bytes(&blobs[SCYLLA], scylla.blob.p, scylla.blob.len);
	wb_bytes(&blobs[CHARYBDIS], charybdis.blob.p, charybdis.blob.len);
	wb_bytes(&blobs[CA], ca.blob.p, ca.blob.len);
	for (int i = HOST_CERT; i <= BROKEN_CERT; i++) {
		struct certspec c = { .key = &charybdis, .ca = &ca, .type = 2,
		    .principals = (const char *const[]){ "charybdis", NULL },
		    .valid_after = 0, .valid_before = UINT64_MAX,
		    .corrupt_signature = i == BROKEN_CERT };
		tk_cert_bytes(&c, &blobs[i]);
	}
	memcpy(q, charybdis.q.b, sizeof(q));
	q[64] ^= 0x01;
	wb_cstring(&blobs[OFF_CURVE], "ecdsa-sha2-nistp256");
	wb_cstring(&blobs[OFF_CURVE], "nistp256");
	wb_string(&blobs[OFF_CURVE], q, sizeof(q));
	memset(m, 0x5a, sizeof(m));
	wb_cstring(&blobs[DSS], "ssh-dss");
	for (int i = 0; i < 4; i++)
		wb_mpint(&blobs[DSS], m, sizeof(m));
	wb_cstring(&blobs[UNKNOWN], "ssh-unknown@example.com");
	wb_string(&blobs[UNKNOWN], m, 32);
	wb_cstring(&blobs[GARBAGE], "ssh-ed25519");
	wb_cstring(&blobs[GARBAGE], "not 32 bytes");
	for (int i = 0; i < NBLOBS; i++)
		tk_check(&blobs[i], "test blob");
	memset(user256, 'u', 256);
	memset(user257, 'u', 257);
	memset(host255, 'h', 255);
	memset(host256, 'h', 256);
}

/* A constraint as a table row writes it. */
struct rhop {
	const char *user, *host, *reserved;
	struct { int key, is_ca; } k[2];
};

struct rconstraint {
	struct rhop from, to;
	const char *reserved;
	const char *extra;              /* bytes after the reserved field */
};

static void
rhop_to_thop(const struct rhop *r, struct thop *h, struct tspec *specs)
{
	memset(h, 0, sizeof(*h));
	h->user = r->user;
	h->host = r->host;
	h->reserved = r->reserved ? sl_str(r->reserved) : sl(NULL, 0);
	h->keys = specs;
	for (int i = 0; i < 2; i++) {
		if (r->k[i].key == NONE)
			break;
		specs[h->nkeys].blob = wb_slice_of(&blobs[r->k[i].key]);
		specs[h->nkeys].is_ca = r->k[i].is_ca;
		h->nkeys++;
	}
}

static void
rconstraint_write(struct wb *w, const struct rconstraint *c)
{
	struct tspec fs[2], ts[2];
	struct thop from, to;

	rhop_to_thop(&c->from, &from, fs);
	rhop_to_thop(&c->to, &to, ts);
	tconstraint_write(w, &from, &to,
	    c->reserved ? sl_str(c->reserved) : sl(NULL, 0),
	    c->extra ? sl_str(c->extra) : sl(NULL, 0));
}

#define NOKEYS { { NONE, 0 } }
#define KEY(k) { { k, 0 } }
#define CAKEY(k) { { k, 1 } }
#define ORIGIN { NULL, NULL, NULL, NOKEYS }
#define TO_CHARYBDIS { "medea", "charybdis", NULL, KEY(CHARYBDIS) }
#define FROM_SCYLLA { NULL, "scylla", NULL, KEY(SCYLLA) }

#define OK 1
#define REFUSED 0

static const struct {
	const char *what;
	struct rconstraint c;
	int parses;                     /* dest_parse (structure, doc/protocol.md §6.6) */
	int builds;                     /* dest_set_build (keys fully decoded) */
} rows[] = {
	/* what                                       constraint: from, to, reserved, extra                                    parse    build */
	{ "valid: origin > medea@charybdis",          { ORIGIN, TO_CHARYBDIS, NULL, NULL },                                       OK,      OK },
	{ "valid: scylla > medea@charybdis",          { FROM_SCYLLA, TO_CHARYBDIS, NULL, NULL },                                  OK,      OK },
	{ "valid: to-hop user empty (any user)",      { ORIGIN, { NULL, "charybdis", NULL, KEY(CHARYBDIS) }, NULL, NULL },       OK,      OK },
	{ "valid: to-hop user pattern med*",          { ORIGIN, { "med*", "charybdis", NULL, KEY(CHARYBDIS) }, NULL, NULL },     OK,      OK },
	{ "valid: to-hop CA key spec",                { ORIGIN, { NULL, "*.example.com", NULL, CAKEY(CA) }, NULL, NULL },        OK,      OK },
	{ "valid: to-hop with two key specs",         { ORIGIN, { NULL, "charybdis", NULL, { { CHARYBDIS, 0 }, { CA, 1 } } }, NULL, NULL }, OK, OK },
	{ "valid: from-hop with a CA key spec",       { { NULL, "*.example.com", NULL, CAKEY(CA) }, TO_CHARYBDIS, NULL, NULL },  OK,      OK },
	{ "6: a certificate as key spec decodes",     { ORIGIN, { NULL, "charybdis", NULL, KEY(HOST_CERT) }, NULL, NULL },       OK,      OK },
	{ "1: reserved of the from-hop not empty",    { { NULL, NULL, "x", NOKEYS }, TO_CHARYBDIS, NULL, NULL },                  REFUSED, REFUSED },
	{ "1: reserved of the to-hop not empty",      { ORIGIN, { "medea", "charybdis", "x", KEY(CHARYBDIS) }, NULL, NULL },     REFUSED, REFUSED },
	{ "1: reserved of the constraint not empty",  { ORIGIN, TO_CHARYBDIS, "x", NULL },                                        REFUSED, REFUSED },
	{ "2: to-hop user of 256 bytes",              { ORIGIN, { user256, "charybdis", NULL, KEY(CHARYBDIS) }, NULL, NULL },    OK,      OK },
	{ "2: to-hop user of 257 bytes",              { ORIGIN, { user257, "charybdis", NULL, KEY(CHARYBDIS) }, NULL, NULL },    REFUSED, REFUSED },
	{ "keyward: to-hop host name of 255 bytes",   { ORIGIN, { NULL, host255, NULL, KEY(CHARYBDIS) }, NULL, NULL },     OK,      OK },
	{ "keyward: to-hop host name of 256 bytes",   { ORIGIN, { NULL, host256, NULL, KEY(CHARYBDIS) }, NULL, NULL },     REFUSED, REFUSED },
	{ "3: from-hop names a user",                 { { "perseus", "scylla", NULL, KEY(SCYLLA) }, TO_CHARYBDIS, NULL, NULL },  REFUSED, REFUSED },
	{ "3: origin from-hop names a user",          { { "perseus", NULL, NULL, NOKEYS }, TO_CHARYBDIS, NULL, NULL },           REFUSED, REFUSED },
	{ "4: from-hop host without keys",            { { NULL, "scylla", NULL, NOKEYS }, TO_CHARYBDIS, NULL, NULL },            REFUSED, REFUSED },
	{ "4: from-hop keys without host",            { { NULL, NULL, NULL, KEY(SCYLLA) }, TO_CHARYBDIS, NULL, NULL },           REFUSED, REFUSED },
	{ "5: to-hop without host",                   { ORIGIN, { "medea", NULL, NULL, KEY(CHARYBDIS) }, NULL, NULL },           REFUSED, REFUSED },
	{ "5: to-hop without keys",                   { ORIGIN, { "medea", "charybdis", NULL, NOKEYS }, NULL, NULL },            REFUSED, REFUSED },
	{ "5: to-hop with neither",                   { ORIGIN, { "medea", NULL, NULL, NOKEYS }, NULL, NULL },                   REFUSED, REFUSED },
	{ "6: to-hop key blob does not decode",       { ORIGIN, { "medea", "charybdis", NULL, KEY(GARBAGE) }, NULL, NULL },      REFUSED, REFUSED },
	{ "6: from-hop key blob does not decode",     { { NULL, "scylla", NULL, KEY(GARBAGE) }, TO_CHARYBDIS, NULL, NULL },      REFUSED, REFUSED },
	{ "6: unknown key type ssh-dss",              { ORIGIN, { "medea", "charybdis", NULL, KEY(DSS) }, NULL, NULL },          REFUSED, REFUSED },
	{ "6: unknown key type ssh-unknown@example.com", { ORIGIN, { "medea", "charybdis", NULL, KEY(UNKNOWN) }, NULL, NULL }, REFUSED, REFUSED },
	{ "6: second key spec does not decode",       { ORIGIN, { NULL, "charybdis", NULL, { { CHARYBDIS, 0 }, { GARBAGE, 0 } } }, NULL, NULL }, REFUSED, REFUSED },
	{ "6: point not on its curve (full decode)",  { ORIGIN, { "medea", "charybdis", NULL, KEY(OFF_CURVE) }, NULL, NULL },    OK,      REFUSED },
	{ "6: certificate, CA signature broken (full decode)",
	                                              { ORIGIN, { NULL, "charybdis", NULL, KEY(BROKEN_CERT) }, NULL, NULL },     OK,      REFUSED },
	{ "6: broken certificate in the from-hop",    { { NULL, "charybdis", NULL, KEY(BROKEN_CERT) }, TO_CHARYBDIS, NULL, NULL }, OK,    REFUSED },
	{ "bytes after a constraint's reserved field", { ORIGIN, TO_CHARYBDIS, NULL, "x" },                                      REFUSED, REFUSED },
};

/* Run both parsers on a copy of exactly n bytes (ASan sees overreads). */
static void
run(const uint8_t *p, size_t n, int *parsed, int *built, int *count)
{
	uint8_t *c = malloc(n ? n : 1);
	const char *why = NULL;
	struct dest_set d;
	int r;

	if (c == NULL)
		tk_die("out of memory");
	if (n > 0)
		memcpy(c, p, n);
	r = dest_parse(sl(c, n), NULL, NULL, &why);
	*parsed = r > 0;
	if (r < 0 && why == NULL)
		*parsed = 2;            /* refused without a reason: a test failure */
	if (count != NULL)
		*count = r;
	why = NULL;
	*built = dest_set_build(&d, sl(c, n), &why) == 0;
	if (*built)
		dest_set_free(&d);
	else if (why == NULL)
		*built = 2;
	free(c);
}

static void
test_rows(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct wb w;
		int parsed, built, n;

		wb_init(&w);
		rconstraint_write(&w, &rows[i].c);
		tk_check(&w, rows[i].what);
		run(w.p, w.len, &parsed, &built, &n);
		is_int(parsed, rows[i].parses, "doc/protocol.md §6.6 %s: dest_parse %s", rows[i].what,
		    rows[i].parses ? "accepts" : "refuses, with a reason");
		if (parsed == 1)
			is_int(n, 1, "doc/protocol.md §6.6 %s: one constraint", rows[i].what);
		is_int(built, rows[i].builds, "doc/protocol.md §6.6 %s: dest_set_build %s", rows[i].what,
		    rows[i].builds ? "accepts" : "refuses, with a reason");
		wb_free(&w);
	}
}

/* What dest_set_build keeps of a valid list. */
static void
test_contents(void)
{
	const struct rconstraint c1 = { ORIGIN, { "perseus", "scylla", NULL, KEY(SCYLLA) }, NULL, NULL };
	const struct rconstraint c2 = { FROM_SCYLLA,
	    { "medea", "charybdis", NULL, { { CHARYBDIS, 0 }, { CA, 1 } } }, NULL, NULL };
	const char *why = NULL;
	struct dest_set d;
	struct wb w;

	wb_init(&w);
	rconstraint_write(&w, &c1);
	rconstraint_write(&w, &c2);
	tk_check(&w, "two constraints");
	is_int(dest_parse(wb_slice_of(&w), NULL, NULL, &why), 2,
	    "doc/protocol.md §6.6 perseus@scylla, scylla>medea@charybdis: dest_parse counts 2");
	if (dest_set_build(&d, wb_slice_of(&w), &why) != 0) {
		ok(0, "doc/protocol.md §6.6 perseus@scylla, scylla>medea@charybdis: built (%s)", why);
		wb_free(&w);
		return;
	}
	is_int(d.n, 2, "dest_set_build: 2 constraints");
	ok(d.c[0].from.host == NULL && d.c[0].from.user == NULL &&
	    d.c[0].from.nkeys == 0, "c1 from: the origin (no host, no user, no keys)");
	is_str(d.c[0].to.user, "perseus", "c1 to: user perseus");
	is_str(d.c[0].to.host, "scylla", "c1 to: host scylla");
	ok(d.c[0].to.nkeys == 1 && !d.c[0].to.keys[0].is_ca &&
	    slice_eq(sl(d.c[0].to.keys[0].blob, d.c[0].to.keys[0].len),
	    testkey_blob(&scylla)), "c1 to: scylla's key, not a CA");
	is_str(d.c[1].from.host, "scylla", "c2 from: host scylla");
	ok(d.c[1].from.user == NULL, "c2 from: no user");
	ok(d.c[1].from.nkeys == 1 &&
	    slice_eq(sl(d.c[1].from.keys[0].blob, d.c[1].from.keys[0].len),
	    testkey_blob(&scylla)), "c2 from: scylla's key");
	is_str(d.c[1].to.user, "medea", "c2 to: user medea");
	is_str(d.c[1].to.host, "charybdis", "c2 to: host charybdis");
	ok(d.c[1].to.nkeys == 2 && !d.c[1].to.keys[0].is_ca &&
	    d.c[1].to.keys[1].is_ca &&
	    slice_eq(sl(d.c[1].to.keys[1].blob, d.c[1].to.keys[1].len),
	    testkey_blob(&ca)), "c2 to: charybdis' key, then the CA as a CA spec");
	dest_set_free(&d);
	is_int(d.n, 0, "dest_set_free: nothing left");
	wb_free(&w);
}

static int
count_rule(void *ctx, const struct dest_rule *r)
{
	int *n = ctx;

	(*n)++;
	return slice_eq_str(r->to.host, "stop") ? -1 : 0;
}

static void
test_list(void)
{
	const struct rconstraint c = { ORIGIN, TO_CHARYBDIS, NULL, NULL };
	const struct rconstraint stop = { ORIGIN, { NULL, "stop", NULL, KEY(CHARYBDIS) }, NULL, NULL };
	int parsed, built, n, seen;
	const char *why;
	struct dest_set d;
	struct wb w;

	/* an empty list is not "unconstrained" */
	run(NULL, 0, &parsed, &built, NULL);
	is_int(parsed, 0, "doc/protocol.md §6.6 empty constraint_list: dest_parse refuses");
	is_int(built, 0, "doc/protocol.md §6.6 empty constraint_list: dest_set_build refuses");

	/* 7: 1024 constraints, and one more */
	wb_init(&w);
	for (int i = 0; i < AGENT_MAX_DEST_RULES; i++)
		rconstraint_write(&w, &c);
	tk_check(&w, "1024 constraints");
	run(w.p, w.len, &parsed, &built, &n);
	is_int(n, 1024, "doc/protocol.md §6.6 7: 1024 constraints: dest_parse accepts all");
	is_int(built, 1, "doc/protocol.md §6.6 7: 1024 constraints: dest_set_build accepts");
	if (dest_set_build(&d, wb_slice_of(&w), &why) == 0) {
		is_int(d.n, 1024, "doc/protocol.md §6.6 7: 1024 constraints: 1024 kept");
		dest_set_free(&d);
	}
	rconstraint_write(&w, &c);
	tk_check(&w, "1025 constraints");
	run(w.p, w.len, &parsed, &built, &n);
	is_int(parsed, 0, "doc/protocol.md §6.6 7: 1025 constraints: dest_parse refuses");
	is_int(built, 0, "doc/protocol.md §6.6 7: 1025 constraints: dest_set_build refuses");
	wb_free(&w);

	/* the callback sees each rule; its refusal fails the parse */
	wb_init(&w);
	rconstraint_write(&w, &c);
	rconstraint_write(&w, &stop);
	rconstraint_write(&w, &c);
	seen = 0;
	why = NULL;
	ok(dest_parse(wb_slice_of(&w), count_rule, &seen, &why) < 0 && why != NULL,
	    "dest_parse: a rule the callback refuses fails the list");
	is_int(seen, 2, "dest_parse: the callback saw the rules up to the refused one");

	/* a byte after the last constraint is a truncated constraint */
	wb_u8(&w, 0);
	run(w.p, w.len, &parsed, &built, NULL);
	is_int(parsed, 0, "doc/protocol.md §6.6 a stray byte after the last constraint: refused");
	wb_free(&w);
}

/* Every proper prefix of a one-constraint list is refused by both. */
static void
test_truncations(void)
{
	static const struct {
		const char *what;
		struct rconstraint c;
	} lists[] = {
		{ "origin > medea@charybdis", { ORIGIN, TO_CHARYBDIS, NULL, NULL } },
		{ "scylla > charybdis with a key and a CA spec",
		  { FROM_SCYLLA, { "medea", "charybdis", NULL, { { CHARYBDIS, 0 }, { CA, 1 } } },
		    NULL, NULL } },
		{ "origin > charybdis by its host certificate",
		  { ORIGIN, { NULL, "charybdis", NULL, KEY(HOST_CERT) }, NULL, NULL } },
	};

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct wb w;
		size_t bad_parse = SIZE_MAX, bad_build = SIZE_MAX;
		int parsed, built;

		wb_init(&w);
		rconstraint_write(&w, &lists[i].c);
		tk_check(&w, lists[i].what);
		run(w.p, w.len, &parsed, &built, NULL);
		ok(parsed == 1 && built == 1, "doc/protocol.md §6.6 %s: whole list accepted",
		    lists[i].what);
		for (size_t n = 0; n < w.len; n++) {
			run(w.p, n, &parsed, &built, NULL);
			if (parsed != 0 && bad_parse == SIZE_MAX)
				bad_parse = n;
			if (built != 0 && bad_build == SIZE_MAX)
				bad_build = n;
		}
		ok(bad_parse == SIZE_MAX, "doc/protocol.md §6.6 %s: dest_parse refuses each of %zu "
		    "truncations, with a reason", lists[i].what, w.len);
		if (bad_parse != SIZE_MAX)
			printf("#   the prefix of %zu bytes\n", bad_parse);
		ok(bad_build == SIZE_MAX, "doc/protocol.md §6.6 %s: dest_set_build refuses each of %zu "
		    "truncations, with a reason", lists[i].what, w.len);
		if (bad_build != SIZE_MAX)
			printf("#   the prefix of %zu bytes\n", bad_build);
		wb_free(&w);
	}
}

int
main(void)
{
	make_blobs();
	test_rows();
	test_contents();
	test_list();
	test_truncations();
	for (int i = 0; i < NBLOBS; i++)
		wb_free(&blobs[i]);
	testkey_free(&scylla);
	testkey_free(&charybdis);
	testkey_free(&ca);
	return done_testing();
}
