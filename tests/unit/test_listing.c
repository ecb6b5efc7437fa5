/*
 * test_listing.c - the CONSTRAINTS_EXTENSION answer's body (wire/listing.c):
 * the encoder writes the layout of wire/listing.h field for field, the
 * decoder gives back what was encoded and the encoder what was decoded,
 * and every malformed body is refused with its reason: truncations,
 * lengths and counts larger than the bytes left, trailing bytes, NULs in
 * text, bools other than 0 and 1, a key that does not parse, hops the
 * agent never accepts, an add's origin out of range or with a host that
 * does not fit it.
 */
#include "wire/listing.h"
#include "tests/unit/tap.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define S(x) { (const uint8_t *)(x), sizeof(x) - 1 }

/* ------------------------------------------------ the wire, by hand */

static void
tb_ed25519(struct tb *t, uint8_t fill)
{
	struct tb k;
	uint8_t a[32];

	memset(a, fill, sizeof(a));
	tb_init(&k);
	tb_cstring(&k, "ssh-ed25519");
	tb_string(&k, a, sizeof(a));
	tb_string_of(t, &k);
	tb_free(&k);
}

/* An identity up to its provider: key, comment, fingerprint, seconds
 * left, confirm, provider. */
static void
tb_id_head(struct tb *t, uint8_t fill, const char *comment, size_t clen,
    uint32_t left, uint8_t confirm, const char *provider)
{
	tb_ed25519(t, fill);
	tb_string(t, comment, clen);
	tb_cstring(t, "SHA256:x");
	tb_u32(t, left);
	tb_u8(t, confirm);
	tb_cstring(t, provider);
}

/* Where the add came from: origin, host key fingerprint, host name. */
static void
tb_added(struct tb *t, uint8_t over, const char *by, const char *name)
{
	tb_u8(t, over);
	tb_cstring(t, by);
	tb_cstring(t, name);
}

/* An identity up to its rule count, added locally. */
static void
tb_id(struct tb *t, uint8_t fill, const char *comment, size_t clen,
    uint32_t left, uint8_t confirm, const char *provider)
{
	tb_id_head(t, fill, comment, clen, left, confirm, provider);
	tb_added(t, LISTING_ADDED_LOCAL, "", "");
}

/* A hop up to its key count. */
static void
tb_hop(struct tb *t, const char *user, const char *host, uint32_t nkeys)
{
	tb_cstring(t, user);
	tb_cstring(t, host);
	tb_u32(t, nkeys);
}

static void
tb_hkey(struct tb *t, const char *fp, uint8_t is_ca)
{
	tb_cstring(t, fp);
	tb_u8(t, is_ca);
}

/* --------------------------------------------- well-formed listings */

static uint8_t blob1[51], blob2[51];

static struct listing_key k_scylla[] = {
	{ S("SHA256:scylla-ca"), 1 }, { S("MD5:00:11:22"), 0 },
};
static struct listing_key k_charybdis[] = { { S("SHA256:charybdis"), 0 } };
static struct listing_rule r_perseus[] = {
	{ { S(""), S(""), NULL, 0 }, { S(""), S("scylla"), k_scylla, 2 } },
	{ { S(""), S("scylla"), k_scylla, 2 },
	  { S("perseus"), S("charybdis"), k_charybdis, 1 } },
};
static struct listing_id ids[] = {
	{ .comment = S("medea"), .fp = S("SHA256:x"),
	  .seconds_left = LISTING_NO_LIFETIME },
	{ .comment = S("perseus@argos"), .fp = S("SHA256:x"), .seconds_left = 600,
	  .confirm = 1, .provider = S("/usr/lib/x86_64-linux-gnu/libsk.so"),
	  .rules = r_perseus, .nrules = 2 },
	{ .comment = S(""), .fp = S("SHA256:x"), .seconds_left = 0 },
	{ .comment = S("planted"), .fp = S("SHA256:x"),
	  .seconds_left = LISTING_NO_LIFETIME,
	  .added_over = LISTING_ADDED_FORWARDED, .added_by = S("SHA256:scylla") },
	{ .comment = S("planted"), .fp = S("SHA256:x"),
	  .seconds_left = LISTING_NO_LIFETIME,
	  .added_over = LISTING_ADDED_FORWARDED, .added_by = S("SHA256:scylla"),
	  .added_by_name = S("scylla") },
	{ .comment = S("planted"), .fp = S("SHA256:x"),
	  .seconds_left = LISTING_NO_LIFETIME, .added_over = LISTING_ADDED_UNKNOWN },
};

static void
set_blobs(void)
{
	struct tb t;

	tb_init(&t);
	tb_ed25519(&t, 0x11);
	tb_ed25519(&t, 0x22);
	if (t.w.err || t.w.len != 2 * (4 + sizeof(blob1)))
		abort();
	memcpy(blob1, t.w.p + 4, sizeof(blob1));
	memcpy(blob2, t.w.p + 4 + sizeof(blob1) + 4, sizeof(blob2));
	tb_free(&t);
	ids[0].blob = sl(blob1, sizeof(blob1));
	ids[1].blob = sl(blob2, sizeof(blob2));
	ids[2].blob = sl(blob1, sizeof(blob1));
	for (size_t i = 3; i < 6; i++)
		ids[i].blob = sl(blob2, sizeof(blob2));
}

static void
w_empty(struct tb *t)
{
	tb_u32(t, 0);
}

static void
w_medea(struct tb *t)
{
	tb_u32(t, 1);
	tb_id(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_u32(t, 0);
}

/* medea unconstrained; perseus's key to scylla (a CA and a plain key),
 * then on from scylla to charybdis as perseus; one expired, no comment */
static void
w_three(struct tb *t)
{
	tb_u32(t, 3);
	tb_id(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_u32(t, 0);
	tb_id(t, 0x22, "perseus@argos", 13, 600, 1,
	    "/usr/lib/x86_64-linux-gnu/libsk.so");
	tb_u32(t, 2);
	tb_hop(t, "", "", 0);
	tb_hop(t, "", "scylla", 2);
	tb_hkey(t, "SHA256:scylla-ca", 1);
	tb_hkey(t, "MD5:00:11:22", 0);
	tb_hop(t, "", "scylla", 2);
	tb_hkey(t, "SHA256:scylla-ca", 1);
	tb_hkey(t, "MD5:00:11:22", 0);
	tb_hop(t, "perseus", "charybdis", 1);
	tb_hkey(t, "SHA256:charybdis", 0);
	tb_id(t, 0x11, "", 0, 0, 0, "");
	tb_u32(t, 0);
}

/* planted by scylla (no name known, then named), then by a host
 * keyward cannot name */
static void
w_added(struct tb *t)
{
	tb_u32(t, 3);
	tb_id_head(t, 0x22, "planted", 7, LISTING_NO_LIFETIME, 0, "");
	tb_added(t, LISTING_ADDED_FORWARDED, "SHA256:scylla", "");
	tb_u32(t, 0);
	tb_id_head(t, 0x22, "planted", 7, LISTING_NO_LIFETIME, 0, "");
	tb_added(t, LISTING_ADDED_FORWARDED, "SHA256:scylla", "scylla");
	tb_u32(t, 0);
	tb_id_head(t, 0x22, "planted", 7, LISTING_NO_LIFETIME, 0, "");
	tb_added(t, LISTING_ADDED_UNKNOWN, "", "");
	tb_u32(t, 0);
}

static const struct {
	const char *name;
	void (*wire)(struct tb *);
	struct listing list;
} good[] = {
	{ "no identities", w_empty, { NULL, 0 } },
	{ "medea, unconstrained, no lifetime", w_medea, { ids, 1 } },
	{ "medea; perseus to scylla and on to charybdis; an expired key",
	  w_three, { ids, 3 } },
	{ "added by a forwarded host, unnamed and named; by an unknown host",
	  w_added, { ids + 3, 3 } },
};

static int
hop_eq(const struct listing_hop *a, const struct listing_hop *b)
{
	if (!slice_eq(a->user, b->user) || !slice_eq(a->host, b->host) ||
	    a->nkeys != b->nkeys)
		return 0;
	for (size_t i = 0; i < a->nkeys; i++)
		if (!slice_eq(a->keys[i].fp, b->keys[i].fp) ||
		    a->keys[i].is_ca != b->keys[i].is_ca)
			return 0;
	return 1;
}

static int
list_eq(const struct listing *a, const struct listing *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct listing_id *x = &a->ids[i], *y = &b->ids[i];

		if (!slice_eq(x->blob, y->blob) || !slice_eq(x->comment, y->comment) ||
		    !slice_eq(x->fp, y->fp) || x->seconds_left != y->seconds_left ||
		    x->confirm != y->confirm || !slice_eq(x->provider, y->provider) ||
		    x->added_over != y->added_over ||
		    !slice_eq(x->added_by, y->added_by) ||
		    !slice_eq(x->added_by_name, y->added_by_name) ||
		    x->nrules != y->nrules)
			return 0;
		for (size_t j = 0; j < x->nrules; j++)
			if (!hop_eq(&x->rules[j].from, &y->rules[j].from) ||
			    !hop_eq(&x->rules[j].to, &y->rules[j].to))
				return 0;
	}
	return 1;
}

static int
d_body(const uint8_t *p, size_t n, void *arg)
{
	struct listing l;
	struct rd r;
	const char *why;
	int rc;

	rd_init(&r, p, n);
	if (listing_decode(&r, &l, &why) != 0)
		return why != NULL && l.n == 0 && l.ids == NULL ? -1 : -3;
	rc = arg == NULL || list_eq(&l, arg) ? 0 : -2;
	listing_free(&l);
	return rc;
}

static void
test_good(void)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *name = good[i].name, *why = "";
		struct listing l;
		struct tb t;
		struct wb w;
		struct rd r;

		tb_init(&t);
		good[i].wire(&t);
		wb_init(&w);
		listing_encode(&w, &good[i].list);
		ok(!w.err && slice_eq(wb_slice_of(&w), tb_slice(&t)),
		    "%s: encoded as the layout says", name);
		wire_check(name, &t, d_body, (void *)&good[i].list, WIRE_ALL);
		/* decode, then encode what was decoded: the same bytes */
		rd_init(&r, t.w.p, t.w.len);
		if (listing_decode(&r, &l, &why) == 0) {
			wb_reset(&w);
			listing_encode(&w, &l);
			ok(!w.err && slice_eq(wb_slice_of(&w), tb_slice(&t)) &&
			    (l.n == 0 || l.ids[0].pub.kind == KEY_ED25519),
			    "%s: decoded (keys parsed) and encoded again: the same bytes",
			    name);
			listing_free(&l);
		} else
			ok(0, "%s: decoded: %s", name, why);
		wb_free(&w);
		tb_free(&t);
	}
}

/* ------------------------------------------------ malformed bodies */

static void
b_count_over(struct tb *t)
{
	w_medea(t);
	t->w.p[3] = 2;                  /* two announced, one sent */
}

static void
b_count_max(struct tb *t)
{
	w_medea(t);
	memset(t->w.p, 0xff, 4);
}

static void
b_trailing(struct tb *t)
{
	w_medea(t);
	tb_u8(t, 0);
}

static void
b_comment_nul(struct tb *t)
{
	tb_u32(t, 1);
	tb_id(t, 0x11, "a\0b", 3, LISTING_NO_LIFETIME, 0, "");
	tb_u32(t, 0);
}

static void
b_comment_last_nul(struct tb *t)
{
	tb_u32(t, 1);
	tb_id(t, 0x11, "medea\0", 6, LISTING_NO_LIFETIME, 0, "");
	tb_u32(t, 0);
}

static void
b_confirm_2(struct tb *t)
{
	tb_u32(t, 1);
	tb_id(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 2, "");
	tb_u32(t, 0);
}

static void
b_provider_nul(struct tb *t)
{
	tb_u32(t, 1);
	tb_ed25519(t, 0x11);
	tb_cstring(t, "medea");
	tb_cstring(t, "SHA256:x");
	tb_u32(t, LISTING_NO_LIFETIME);
	tb_u8(t, 0);
	tb_string(t, "/usr/lib/a\0b.so", 14);
	tb_added(t, LISTING_ADDED_LOCAL, "", "");
	tb_u32(t, 0);
}

static void
b_key_not_parsing(struct tb *t)
{
	tb_u32(t, 1);
	tb_begin(t);
	tb_cstring(t, "ssh-ed25519");
	tb_string(t, "\xff", 1);
	tb_end(t);
	tb_cstring(t, "medea");
	tb_cstring(t, "SHA256:x");
	tb_u32(t, LISTING_NO_LIFETIME);
	tb_u8(t, 0);
	tb_u32(t, 0);
	tb_added(t, LISTING_ADDED_LOCAL, "", "");
	tb_u32(t, 0);
}

/* one identity added from OVER by host BY named NAME */
static void
one_added(struct tb *t, uint8_t over, const char *by, const char *name)
{
	tb_u32(t, 1);
	tb_id_head(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_added(t, over, by, name);
	tb_u32(t, 0);
}

static void
b_added_3(struct tb *t)
{
	one_added(t, 3, "", "");
}

static void
b_added_ff(struct tb *t)
{
	one_added(t, 0xff, "SHA256:scylla", "");
}

static void
b_forwarded_no_host(struct tb *t)
{
	one_added(t, LISTING_ADDED_FORWARDED, "", "scylla");
}

static void
b_local_with_host(struct tb *t)
{
	one_added(t, LISTING_ADDED_LOCAL, "SHA256:scylla", "");
}

static void
b_local_with_name(struct tb *t)
{
	one_added(t, LISTING_ADDED_LOCAL, "", "scylla");
}

static void
b_unknown_with_host(struct tb *t)
{
	one_added(t, LISTING_ADDED_UNKNOWN, "SHA256:scylla", "scylla");
}

static void
b_added_by_nul(struct tb *t)
{
	tb_u32(t, 1);
	tb_id_head(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_u8(t, LISTING_ADDED_FORWARDED);
	tb_string(t, "SHA256:\0", 8);
	tb_cstring(t, "");
	tb_u32(t, 0);
}

static void
b_added_name_nul(struct tb *t)
{
	tb_u32(t, 1);
	tb_id_head(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_u8(t, LISTING_ADDED_FORWARDED);
	tb_cstring(t, "SHA256:scylla");
	tb_string(t, "scy\nlla\0", 9);
	tb_u32(t, 0);
}

/* one identity with one rule whose hops are given */
static void
one_rule(struct tb *t, const char *fuser, const char *fhost, const char *tuser,
    const char *thost, uint32_t tkeys)
{
	tb_u32(t, 1);
	tb_id(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_u32(t, 1);
	tb_hop(t, fuser, fhost, 0);
	tb_hop(t, tuser, thost, tkeys);
}

static void
b_from_user(struct tb *t)
{
	one_rule(t, "medea", "", "", "scylla", 0);
}

static void
b_to_no_host(struct tb *t)
{
	one_rule(t, "", "", "", "", 0);
}

static void
b_host_nul(struct tb *t)
{
	tb_u32(t, 1);
	tb_id(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_u32(t, 1);
	tb_hop(t, "", "", 0);
	tb_string(t, "", 0);
	tb_string(t, "scylla\0", 7);
	tb_u32(t, 0);
}

static void
b_is_ca_2(struct tb *t)
{
	one_rule(t, "", "", "", "scylla", 1);
	tb_hkey(t, "SHA256:scylla", 2);
}

static void
b_nkeys_over(struct tb *t)
{
	one_rule(t, "", "", "", "scylla", 2);
	tb_hkey(t, "SHA256:scylla", 0);
}

static void
b_nkeys_max(struct tb *t)
{
	one_rule(t, "", "", "", "scylla", 0xffffffffU);
	tb_hkey(t, "SHA256:scylla", 0);
}

static void
b_nrules_max(struct tb *t)
{
	tb_u32(t, 1);
	tb_id(t, 0x11, "medea", 5, LISTING_NO_LIFETIME, 0, "");
	tb_u32(t, 0x40000000U);
	tb_hop(t, "", "", 0);
	tb_hop(t, "", "scylla", 0);
}

static const struct {
	const char *name;
	void (*wire)(struct tb *);
	const char *why;
} bad[] = {
	{ "one identity announced, none sent", NULL, "truncated reply" },
	{ "two identities announced, one sent", b_count_over, "truncated identity" },
	{ "2^32-1 identities announced", b_count_max,
	  "a count is larger than the bytes that follow" },
	{ "a byte after the last identity", b_trailing,
	  "bytes after the last identity" },
	{ "a NUL inside a comment", b_comment_nul, "truncated identity" },
	{ "a comment ending in NUL (never written)", b_comment_last_nul,
	  "truncated identity" },
	{ "confirm 2 (never written)", b_confirm_2, "truncated identity" },
	{ "a provider with a NUL inside", b_provider_nul, "truncated identity" },
	{ "a key blob that does not parse", b_key_not_parsing, NULL },
	{ "added_over 3 (never written)", b_added_3,
	  "an unknown origin of an add" },
	{ "added_over 255 with a host", b_added_ff, "an unknown origin of an add" },
	{ "forwarded, a name but no host key", b_forwarded_no_host,
	  "an add's host does not fit its origin" },
	{ "local, with a host key", b_local_with_host,
	  "an add's host does not fit its origin" },
	{ "local, with a host name", b_local_with_name,
	  "an add's host does not fit its origin" },
	{ "unknown, with a host key and name", b_unknown_with_host,
	  "an add's host does not fit its origin" },
	{ "a NUL ending the adding host's fingerprint", b_added_by_nul,
	  "truncated identity" },
	{ "a NUL ending the adding host's name", b_added_name_nul,
	  "truncated identity" },
	{ "a from-hop that names a user", b_from_user, "a from-hop names a user" },
	{ "a to-hop without a host", b_to_no_host, "a to-hop names no host" },
	{ "a NUL ending a host", b_host_nul, "truncated destination hop" },
	{ "is_ca 2 (never written)", b_is_ca_2, "truncated hop key" },
	{ "two hop keys announced, one sent", b_nkeys_over, "truncated hop key" },
	{ "2^32-1 hop keys announced", b_nkeys_max,
	  "a count is larger than the bytes that follow" },
	{ "2^30 rules announced, one sent", b_nrules_max,
	  "a count is larger than the bytes that follow" },
};

static void
test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct listing l;
		const char *why = NULL;
		struct tb t;
		struct rd r;
		int rc;

		tb_init(&t);
		if (bad[i].wire != NULL)
			bad[i].wire(&t);
		else
			tb_raw(&t, "\0\0\0", 3);
		rd_init(&r, t.w.p, t.w.len);
		rc = listing_decode(&r, &l, &why);
		if (bad[i].why != NULL)
			ok(!t.w.err && rc != 0 && why != NULL && strcmp(why, bad[i].why) == 0 &&
			    l.n == 0 && l.ids == NULL, "malformed: %s: refused, \"%s\"",
			    bad[i].name, bad[i].why);
		else
			ok(!t.w.err && rc != 0 && why != NULL && l.n == 0 && l.ids == NULL,
			    "malformed: %s: refused (%s)", bad[i].name,
			    why != NULL ? why : "no reason");
		if (rc == 0)
			listing_free(&l);
		tb_free(&t);
	}
}

/* Any count the encoder is given comes out whole, or as an error. */
static void
test_encode_errors(void)
{
#if SIZE_MAX > UINT32_MAX
	/* the keys are never read: the count fails first, and w remembers */
	struct listing_rule r = { { S(""), S(""), NULL, 0 },
	    { S(""), S("scylla"), NULL, (size_t)UINT32_MAX + 1 } };
	struct listing_id id = { .blob = S("b"), .rules = &r, .nrules = 1 };
	struct listing l = { &id, 1 };
	struct wb w;

	wb_init(&w);
	listing_encode(&w, &l);
	ok(w.err, "encoder: 2^32 hop keys: an error, not a count cut to 32 bits");
	wb_free(&w);
#endif
}

int
main(void)
{
	set_blobs();
	test_good();
	test_bad();
	test_encode_errors();
	return done_testing();
}
