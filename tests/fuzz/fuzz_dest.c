/*
 * fuzz_dest.c - libFuzzer harness for destination constraints (doc/protocol.md §6.6,
 * §7.2, §8): keys/dest.c, policy/destset.c, policy/hop.c, policy/bind.c,
 * policy/userauth.c, policy/purpose.c.
 * The first byte chooses what the rest is:
 *
 *  0  a restrict-destination constraint_list: dest_parse (its callback
 *     sees each rule and walks its keys), then dest_set_build and
 *     dest_set_free; on a set that builds, every plain host key of a
 *     to-hop matches that hop (hop_matches, dest_host_name), an origin
 *     rule permits a connection bound straight to its plain to-host key
 *     (path_permitted), and path_permitted runs over chains of its keys;
 *  1  the data of a sign request: userauth_parse, for the canonical blob
 *     of the key the data names (as policy passes an identity's blob), and
 *     never for another blob; sshsig_parse on the same bytes;
 *  2  "subject NUL pattern": wmatch, compared with a separate reference
 *     matcher (dynamic programming from the end of both strings);
 *  3  a run of session-binds, each (string hostkey, string session id,
 *     string signature, byte forwarding): bind_add on one connection's
 *     chain, whose invariants (doc/protocol.md §7.2) are checked after each; bindings_free;
 *  4  the whole sign check of doc/protocol.md §8.6: string constraint_list, string data,
 *     then session-binds as in 3; dest_set_build, bind_add, purpose_decide
 *     (policy/purpose.c, as h_sign), sign_permitted; a permitted signature
 *     implies path_permitted and a session id equal to the last binding's.
 */
#include "tests/fuzz/fuzz.h"
#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "keys/dest.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"
#include "policy/hop.h"
#include "policy/purpose.h"
#include "rules/match.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A fixed clock, so a run depends on its input only (certificates made by
 * ssh-keygen without -V are valid forever). */
#define NOW ((time_t)1700000000)

/* ------------------------------------------------------------ mode 0 */

struct walk {
	size_t keys;
};

static int
count_key(void *ctx, struct slice blob, int is_ca)
{
	struct walk *w = ctx;
	struct pubkey k;

	CHECK(key_parse_public(blob, &k, NULL) == 0);
	CHECK(is_ca == 0 || is_ca == 1);
	w->keys++;
	return 0;
}

static int
on_rule(void *ctx, const struct dest_rule *r)
{
	int *n = ctx;
	struct walk w;

	CHECK(r->from.user.len == 0);
	CHECK((r->from.host.len == 0) == (r->from.nkeys == 0));
	CHECK(r->to.host.len > 0 && r->to.nkeys > 0);
	CHECK(r->to.user.len <= AGENT_MAX_USER_PATTERN);
	w.keys = 0;
	CHECK(dest_hop_keys(&r->from, count_key, &w) == 0 && w.keys == r->from.nkeys);
	w.keys = 0;
	CHECK(dest_hop_keys(&r->to, count_key, &w) == 0 && w.keys == r->to.nkeys);
	(*n)++;
	return 0;
}

static void
check_set(const struct dest_set *d)
{
	struct bindings C;
	struct verdict v;
	size_t nk = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct dconstraint *c = &d->c[i];
		CHECK(c->to.host != NULL && c->to.nkeys > 0);
		CHECK(c->from.user == NULL);
		for (size_t j = 0; j < c->to.nkeys; j++) {
			const struct hopkey *k = &c->to.keys[j];
			struct slice K = { k->blob, k->len };
			struct pubkey pk;
			/* a certificate only ever matches a CA spec (doc/protocol.md §8.2) */
			CHECK(key_parse_public(K, &pk, NULL) == 0);
			if (k->is_ca || pk.is_cert)
				continue;
			CHECK(hop_matches(K, &c->to, NOW) == 1);
			CHECK(dest_host_name(d, K, NOW) != NULL);
			if (c->from.host != NULL)
				continue;
			/* bound straight to this host: an origin rule permits it */
			memset(&C, 0, sizeof(C));
			C.attempted = 1;
			C.n = 1;
			C.b[0].key = k->blob;
			C.b[0].keylen = k->len;
			CHECK(path_permitted(d, &C, NULL, NOW, &v) == 1);
			CHECK(path_permitted(d, &C, c->to.user ? c->to.user : "anyone",
			    NOW, &v) == 1);
		}
	}
	/* no binding: local use is allowed unless a bind failed (doc/protocol.md §8.4) */
	memset(&C, 0, sizeof(C));
	CHECK(path_permitted(d, &C, "u", NOW, &v) == 1);
	C.attempted = 1;
	CHECK(path_permitted(d, &C, "u", NOW, &v) == 0 && v.rule != NULL);
	/* a chain through every key of the set, in order, forwarding until
	 * the last: any verdict, no crash */
	for (size_t i = 0; i < d->n && nk < AGENT_MAX_BINDINGS; i++) {
		const struct hop *hs[2] = { &d->c[i].from, &d->c[i].to };
		for (int h = 0; h < 2; h++)
			for (size_t j = 0; j < hs[h]->nkeys && nk < AGENT_MAX_BINDINGS; j++) {
				C.b[nk].key = hs[h]->keys[j].blob;
				C.b[nk].keylen = hs[h]->keys[j].len;
				C.b[nk].forwarding = 1;
				nk++;
			}
	}
	C.n = nk;
	if (nk > 0) {
		if (path_permitted(d, &C, NULL, NOW, &v) == 0)
			CHECK(v.rule != NULL && v.hop <= nk);
		C.b[nk - 1].forwarding = 0;
		if (path_permitted(d, &C, "user", NOW, &v) == 0)
			CHECK(v.rule != NULL && v.hop < nk);
	}
}

static void
mode_dest(struct slice list)
{
	struct dest_set d;
	const char *why = NULL;
	int n, seen = 0;

	n = dest_parse(list, on_rule, &seen, &why);
	if (n < 0) {
		CHECK(why != NULL);
		CHECK(dest_set_build(&d, list, &why) == -1);
		return;
	}
	CHECK(n >= 1 && n <= AGENT_MAX_DEST_RULES && n == seen);
	CHECK(dest_parse(list, NULL, NULL, &why) == n);
	if (dest_set_build(&d, list, &why) != 0)
		return;         /* a key that fails a crypto check; nothing held */
	CHECK(d.n == (size_t)n);
	check_set(&d);
	dest_set_free(&d);
	CHECK(d.n == 0 && d.c == NULL);
}

/* ------------------------------------------------------------ mode 1 */

/* The key a userauth request names, read independently of
 * userauth_parse: string session id, byte 50, string user, string
 * service, string method, bool, string pkalg, string key. */
static int
named_key(struct slice data, struct slice *key)
{
	struct rd r;
	struct slice s;
	uint8_t b;

	rd_init(&r, data.p, data.len);
	return rd_string(&r, &s) || rd_u8(&r, &b) || rd_string(&r, &s) ||
	    rd_string(&r, &s) || rd_string(&r, &s) || rd_u8(&r, &b) ||
	    rd_string(&r, &s) || rd_string(&r, key) ? -1 : 0;
}

/* The identity blob policy would hold for the key data names: malloc'd
 * into w, or w left empty. */
static void
identity_blob(struct slice data, struct wb *w)
{
	struct slice key;

	if (named_key(data, &key) == 0 && key_canonical(key, NULL, w, NULL) != 0)
		wb_reset(w);
}

static void
mode_userauth(struct slice data)
{
	struct userauth u;
	struct slice key;
	struct wb canon;
	struct pubkey hk;

	wb_init(&canon);
	identity_blob(data, &canon);
	CHECK(userauth_parse(data, (struct slice){ NULL, 0 }, &u) == -1);
	if (canon.len > 0 && !canon.err &&
	    userauth_parse(data, wb_slice_of(&canon), &u) == 0) {
		CHECK(u.session_id.len > 0);
		CHECK(memchr(u.user.p, '\0', u.user.len) == NULL);
		CHECK(u.hostbound == 0 || u.hostbound == 1);
		if (u.hostbound)
			CHECK(key_parse_public(u.hostkey, &hk, NULL) == 0);
		else
			CHECK(u.hostkey.len == 0);
	}
	/* the blob as sent, when it is not canonical, names no identity */
	if (named_key(data, &key) == 0 && userauth_parse(data, key, &u) == 0)
		CHECK(slice_eq(key, wb_slice_of(&canon)));
	/* the same bytes as an SSHSIG blob: a namespace inside the data,
	 * never empty, no NUL; and never both a login and an SSHSIG */
	struct slice ns;
	if (sshsig_parse(data, &ns) == 0) {
		CHECK(ns.len > 0 && memchr(ns.p, '\0', ns.len) == NULL);
		CHECK(ns.p >= data.p && ns.p + ns.len <= data.p + data.len);
		CHECK(data.len >= 6 && memcmp(data.p, "SSHSIG", 6) == 0);
		CHECK(canon.len == 0 || userauth_parse(data, wb_slice_of(&canon), &u) != 0);
	}
	wb_free(&canon);
}

/* ------------------------------------------------------------ mode 2 */

#define REF_MAX 300

/* M[i][j]: does s[i..] match p[j..]? Filled from the end. */
static int
ref_match(const char *s, size_t ls, const char *p, size_t lp)
{
	unsigned char *M = calloc((ls + 1) * (lp + 1), 1);
	int ok;

#define AT(i, j) M[(i) * (lp + 1) + (j)]
	CHECK(M != NULL);
	AT(ls, lp) = 1;
	for (size_t j = lp; j-- > 0;)
		AT(ls, j) = p[j] == '*' && AT(ls, j + 1);
	for (size_t i = ls; i-- > 0;)
		for (size_t j = lp; j-- > 0;)
			AT(i, j) = p[j] == '*' ? (AT(i, j + 1) || AT(i + 1, j)) :
			    ((p[j] == '?' || p[j] == s[i]) && AT(i + 1, j + 1));
	ok = AT(0, 0);
#undef AT
	free(M);
	return ok;
}

static void
mode_wmatch(struct slice in)
{
	const uint8_t *nul = memchr(in.p, '\0', in.len);
	size_t ls = nul ? (size_t)(nul - in.p) : in.len;
	size_t rest = nul ? in.len - ls - 1 : 0;
	const uint8_t *pp = nul ? nul + 1 : NULL;
	const uint8_t *end = pp ? memchr(pp, '\0', rest) : NULL;
	size_t lp = end ? (size_t)(end - pp) : rest;
	char *s = malloc(ls + 1), *p = malloc(lp + 1);
	int got;

	CHECK(s != NULL && p != NULL);
	memcpy(s, in.p, ls);
	s[ls] = '\0';
	if (lp > 0)
		memcpy(p, pp, lp);
	p[lp] = '\0';
	got = wmatch(s, p);
	CHECK(got == 0 || got == 1);
	if (ls <= REF_MAX && lp <= REF_MAX && got != ref_match(s, ls, p, lp)) {
		fprintf(stderr, "wmatch(\"%s\", \"%s\") = %d\n", s, p, got);
		abort();
	}
	CHECK(wmatch(s, s) == 1);       /* '*' and '?' match themselves too */
	free(s);
	free(p);
}

/* ------------------------------------------------------------ mode 3 */

static void
check_chain(const struct bindings *C)
{
	CHECK(C->n <= AGENT_MAX_BINDINGS);
	for (size_t i = 0; i < C->n; i++) {
		const struct binding *b = &C->b[i];
		struct wb w;
		CHECK(b->sidlen <= AGENT_MAX_SESSION_ID);
		CHECK(b->forwarding == 0 || b->forwarding == 1);
		/* only the last binding may be an authentication binding */
		if (i + 1 < C->n)
			CHECK(b->forwarding);
		/* a binding holds its host key in canonical form */
		wb_init(&w);
		CHECK(key_canonical((struct slice){ b->key, b->keylen }, NULL, &w,
		    NULL) == 0);
		CHECK(w.len == b->keylen && memcmp(w.p, b->key, w.len) == 0);
		wb_free(&w);
		for (size_t j = 0; j < i; j++)
			CHECK(!(C->b[j].sidlen == b->sidlen &&
			    memcmp(C->b[j].sid, b->sid, b->sidlen) == 0));
	}
}

static void
bind_run(struct rd *r, struct bindings *C)
{
	struct slice hk, sid, sig;
	uint8_t fwd;

	while (r->len > 0) {
		size_t before = C->n;
		const char *why;
		if (rd_string(r, &hk) || rd_string(r, &sid) || rd_string(r, &sig) ||
		    rd_u8(r, &fwd))
			break;
		C->attempted = 1;
		why = bind_add(C, hk, sid, sig, fwd & 1);
		CHECK(C->n == before || (why == NULL && C->n == before + 1));
		if (C->n == before + 1)
			CHECK(C->b[before].forwarding == (fwd & 1) &&
			    C->b[before].sidlen == sid.len &&
			    (sid.len == 0 || memcmp(C->b[before].sid, sid.p, sid.len) == 0));
		check_chain(C);
	}
}

static void
mode_bind(struct slice in)
{
	struct bindings C;
	struct rd r;

	memset(&C, 0, sizeof(C));
	rd_init(&r, in.p, in.len);
	bind_run(&r, &C);
	bindings_free(&C);
}

/* ------------------------------------------------------------ mode 4 */

static void
mode_sign(struct slice in)
{
	struct dest_set d;
	struct bindings C;
	struct slice list, data;
	struct wb canon;
	struct verdict v;
	struct userauth u;
	struct purpose pu;
	struct rd r;
	const char *why = NULL, *rule;
	char user[AGENT_MAX_USER_PATTERN + 64], *uname;
	size_t hop;

	rd_init(&r, in.p, in.len);
	if (rd_string(&r, &list) || rd_string(&r, &data))
		return;
	if (dest_set_build(&d, list, &why) != 0)
		return;
	memset(&C, 0, sizeof(C));
	bind_run(&r, &C);
	wb_init(&canon);
	identity_blob(data, &canon);
	if (canon.len > 0 && !canon.err) {
		purpose_decide(&pu, data, wb_slice_of(&canon));
		rule = sign_permitted(&d, &C, &pu, NOW, &hop, user, sizeof(user));
		purpose_free(&pu);
		CHECK(memchr(user, '\0', sizeof(user)) != NULL);
		if (rule == NULL) {
			const struct binding *last;
			CHECK(C.n >= 1);
			last = &C.b[C.n - 1];
			CHECK(userauth_parse(data, wb_slice_of(&canon), &u) == 0);
			CHECK((uname = slice_strdup(u.user)) != NULL);
			CHECK(path_permitted(&d, &C, uname, NOW, &v) == 1);
			free(uname);
			CHECK(!last->forwarding);
			CHECK(u.session_id.len == last->sidlen &&
			    memcmp(u.session_id.p, last->sid, last->sidlen) == 0);
			CHECK(C.n == 1 || u.hostbound);
		} else {
			CHECK(hop <= C.n);
		}
	}
	wb_free(&canon);
	bindings_free(&C);
	dest_set_free(&d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slice rest;

	if (size == 0)
		return 0;
	rest.p = data + 1;
	rest.len = size - 1;
	switch (data[0] % 5) {
	case 0: mode_dest(rest); break;
	case 1: mode_userauth(rest); break;
	case 2: mode_wmatch(rest); break;
	case 3: mode_bind(rest); break;
	case 4: mode_sign(rest); break;
	}
	return 0;
}
