/*
 * listing.c - encoder and decoder of the CONSTRAINTS_EXTENSION answer's body
 * (layout in listing.h). The decoder checks every count against the bytes
 * left before it allocates, so a hostile count cannot make it allocate
 * more than the reply could hold.
 */
#include "wire/listing.h"

#include <stdlib.h>
#include <string.h>

/* The fewest bytes one element can take on the wire. */
#define MIN_KEY_BYTES   (4 + 1)                 /* string fp; bool is_ca */
#define MIN_HOP_BYTES   (4 + 4 + 4)             /* user, host, nkeys */
#define MIN_RULE_BYTES  (2 * MIN_HOP_BYTES)
#define MIN_ID_BYTES    (4 + 4 + 4 + 4 + 1 + 4 + 1 + 4 + 4 + 4) /* blob .. nrules */

/* ---------------------------------------------------------------- encode */

/* A count, or an error in w (and -1: the elements are not written). */
static int
encode_count(struct wb *w, size_t n)
{
	if (n > UINT32_MAX) {
		w->err = 1;
		return -1;
	}
	wb_u32(w, (uint32_t)n);
	return 0;
}

static void
encode_hop(struct wb *w, const struct listing_hop *h)
{
	wb_slice(w, h->user);
	wb_slice(w, h->host);
	if (encode_count(w, h->nkeys) != 0)
		return;
	for (size_t i = 0; i < h->nkeys; i++) {
		wb_slice(w, h->keys[i].fp);
		wb_u8(w, h->keys[i].is_ca != 0);
	}
}

void
listing_encode(struct wb *w, const struct listing *l)
{
	if (encode_count(w, l->n) != 0)
		return;
	for (size_t i = 0; i < l->n; i++) {
		const struct listing_id *id = &l->ids[i];

		wb_slice(w, id->blob);
		wb_slice(w, id->comment);
		wb_slice(w, id->fp);
		wb_u32(w, id->seconds_left);
		wb_u8(w, id->confirm != 0);
		wb_slice(w, id->provider);
		wb_u8(w, (uint8_t)id->added_over);
		wb_slice(w, id->added_by);
		wb_slice(w, id->added_by_name);
		if (encode_count(w, id->nrules) != 0)
			return;
		for (size_t j = 0; j < id->nrules; j++) {
			encode_hop(w, &id->rules[j].from);
			encode_hop(w, &id->rules[j].to);
		}
	}
}

/* ---------------------------------------------------------------- decode */

static int
bad(const char **why, const char *what)
{
	*why = what;
	return -1;
}

static int
decode_hop(struct rd *r, struct listing_hop *h, const char **why)
{
	void *keys;

	if (rd_text_max(r, &h->user, SIZE_MAX) != 0 ||
	    rd_text_max(r, &h->host, SIZE_MAX) != 0)
		return bad(why, "truncated destination hop");
	if (rd_array(r, UINT32_MAX, MIN_KEY_BYTES, sizeof(*h->keys),
	    &keys, &h->nkeys, "truncated destination hop", why) != 0)
		return -1;
	h->keys = keys;
	for (size_t i = 0; i < h->nkeys; i++)
		if (rd_text_max(r, &h->keys[i].fp, SIZE_MAX) != 0 ||
		    rd_flag(r, &h->keys[i].is_ca) != 0)
			return bad(why, "truncated hop key");
	return 0;
}

static int
decode_rules(struct rd *r, struct listing_id *id, const char **why)
{
	void *rules;

	if (rd_array(r, UINT32_MAX, MIN_RULE_BYTES, sizeof(*id->rules),
	    &rules, &id->nrules, "truncated identity", why) != 0)
		return -1;
	id->rules = rules;
	for (size_t i = 0; i < id->nrules; i++) {
		struct listing_rule *ru = &id->rules[i];

		if (decode_hop(r, &ru->from, why) != 0 ||
		    decode_hop(r, &ru->to, why) != 0)
			return -1;
		/* what the agent accepts on add (keys/dest.c) */
		if (ru->from.user.len != 0)
			return bad(why, "a from-hop names a user");
		if (ru->to.host.len == 0)
			return bad(why, "a to-hop names no host");
	}
	return 0;
}

/* Where the key came from: a host only for a forwarded add, as the
 * encoder writes it. */
static int
decode_added(struct rd *r, struct listing_id *id, const char **why)
{
	uint8_t over;

	if (rd_u8(r, &over) != 0 ||
	    rd_text_max(r, &id->added_by, SIZE_MAX) != 0 ||
	    rd_text_max(r, &id->added_by_name, SIZE_MAX) != 0)
		return bad(why, "truncated identity");
	if (over > LISTING_ADDED_UNKNOWN)
		return bad(why, "an unknown origin of an add");
	id->added_over = over;
	if ((over == LISTING_ADDED_FORWARDED) != (id->added_by.len != 0) ||
	    (over != LISTING_ADDED_FORWARDED && id->added_by_name.len != 0))
		return bad(why, "an add's host does not fit its origin");
	return 0;
}

static int
decode_id(struct rd *r, struct listing_id *id, const char **why)
{
	const char *kwhy = NULL;

	if (rd_string(r, &id->blob) != 0 ||
	    rd_text_max(r, &id->comment, SIZE_MAX) != 0 ||
	    rd_text_max(r, &id->fp, SIZE_MAX) != 0 ||
	    rd_u32(r, &id->seconds_left) != 0 || rd_flag(r, &id->confirm) != 0 ||
	    rd_text_max(r, &id->provider, SIZE_MAX) != 0)
		return bad(why, "truncated identity");
	if (decode_added(r, id, why) != 0)
		return -1;
	if (key_parse_public(id->blob, &id->pub, &kwhy) != 0)
		return bad(why, kwhy != NULL ? kwhy :
		    "an identity's key blob does not parse");
	return decode_rules(r, id, why);
}

int
listing_decode(struct rd *r, struct listing *l, const char **why)
{
	void *ids;

	memset(l, 0, sizeof(*l));
	*why = NULL;
	if (rd_array(r, UINT32_MAX, MIN_ID_BYTES, sizeof(*l->ids), &ids, &l->n,
	    "truncated reply", why) != 0)
		return -1;
	l->ids = ids;
	for (size_t i = 0; i < l->n; i++)
		if (decode_id(r, &l->ids[i], why) != 0)
			goto fail;
	if (rd_done(r) != 0) {
		*why = "bytes after the last identity";
		goto fail;
	}
	return 0;
fail:
	listing_free(l);
	return -1;
}

void
listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct listing_id *id = &l->ids[i];

		for (size_t j = 0; j < id->nrules; j++) {
			free(id->rules[j].from.keys);
			free(id->rules[j].to.keys);
		}
		free(id->rules);
	}
	free(l->ids);
	memset(l, 0, sizeof(*l));
}
