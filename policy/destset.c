/*
 * destset.c - the destination set of a key, built from the
 * restrict-destination constraints of its ADD (doc/protocol.md §6.6): keys/dest.c has
 * checked their structure; here every host key is decoded in full
 * (certificates verified, points on their curves) and kept in canonical
 * form, for hop.c to match hops against. Trusts nothing in the list.
 */
#include "crypto/crypto.h"
#include "keys/dest.h"
#include "keys/sshkey.h"
#include "policy/hop.h"

#include <stdlib.h>
#include <string.h>

struct build {
	struct dest_set *d;
	const char **why;
};

static int
add_key(void *ctx, struct slice blob, int is_ca)
{
	struct hop *h = ctx;
	struct pubkey k;
	EVP_PKEY *pk = NULL;
	struct wb w;

	wb_init(&w);
	/* Full decode, as the reference does for every key it reads. */
	if (key_canonical(blob, &k, &w, NULL) != 0 ||
	    (k.is_cert && cert_verify(&k) != 0) ||
	    (pk = pkey_public(&k, NULL)) == NULL) {
		wb_free(&w);
		return -1;
	}
	EVP_PKEY_free(pk);
	h->keys[h->nkeys].blob = w.p;
	h->keys[h->nkeys].len = w.len;
	h->keys[h->nkeys].is_ca = is_ca;
	h->nkeys++;
	return 0;
}

static int
build_hop(struct hop *h, const struct dest_hop *src)
{
	memset(h, 0, sizeof(*h));
	if ((src->user.len > 0 && (h->user = slice_strdup(src->user)) == NULL) ||
	    (src->host.len > 0 && (h->host = slice_strdup(src->host)) == NULL) ||
	    (src->nkeys > 0 && (h->keys = calloc(src->nkeys, sizeof(*h->keys))) == NULL))
		return -1;
	return dest_hop_keys(src, add_key, h);
}

static int
add_rule(void *ctx, const struct dest_rule *r)
{
	struct build *b = ctx;
	struct dconstraint *c = &b->d->c[b->d->n++];

	if (build_hop(&c->from, &r->from) != 0 || build_hop(&c->to, &r->to) != 0) {
		*b->why = "a host key in a destination constraint is not valid";
		return -1;
	}
	return 0;
}

int
dest_set_build(struct dest_set *d, struct slice list, const char **why)
{
	struct build b = { d, why };
	const char *ignored;
	int n;

	memset(d, 0, sizeof(*d));
	if ((n = dest_parse(list, NULL, NULL, why)) < 0)
		return -1;
	if ((d->c = calloc((size_t)n, sizeof(*d->c))) == NULL)
		return -1;
	if (dest_parse(list, add_rule, &b, &ignored) < 0) {
		dest_set_free(d);
		return -1;
	}
	return 0;
}

static void
hop_free(struct hop *h)
{
	free(h->user);
	free(h->host);
	for (size_t i = 0; i < h->nkeys; i++)
		free(h->keys[i].blob);
	free(h->keys);
}

void
dest_set_free(struct dest_set *d)
{
	for (size_t i = 0; i < d->n; i++) {
		hop_free(&d->c[i].from);
		hop_free(&d->c[i].to);
	}
	free(d->c);
	memset(d, 0, sizeof(*d));
}
