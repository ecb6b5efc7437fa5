/*
 * extensions.c - the extensions policy answers itself: "query" (which
 * extensions there are) and keyward's own CONSTRAINTS_EXTENSION, every
 * identity with its constraints, for keyward-ctl. The dispatcher gives
 * the latter only to connections that never attempted a session-bind:
 * what a key may do is its owner's business, not that of the hosts it is
 * forwarded to. So is CONNS_EXTENSION, the open connections and their
 * callers (wire/conns.h): who else uses the agent is the owner's business.
 */
#include "crypto/crypto.h"
#include "wire/agent.h"
#include "wire/conns.h"
#include "wire/listing.h"
#include "ipc/log.h"
#include "policy/describe.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
#include "rules/scope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int
h_query(struct ctx *c)
{
	struct policy *P = c->P;
	struct wb names;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	wb_init(&names);
	agent_ext_list(&names);
	msg_ext_reply_write(&P->out, MSG_R_EXTENSIONS, c->h.req, c->h.conn,
	    wb_slice_of(&names));
	wb_free(&names);
	send_to(&P->mon, &P->out, "monitor");
	return 0;
}

static struct slice
text_of(const char *s)
{
	return (struct slice){ (const uint8_t *)s, s != NULL ? strlen(s) : 0 };
}

/* One hop as listed; its keys' fingerprints are written to fps, from
 * *used on, FP_TEXT_MAX bytes each. */
static int
list_hop(const struct policy *P, const struct hop *h, struct listing_hop *o,
    char *fps, size_t *used)
{
	o->user = text_of(h->user);
	o->host = text_of(h->host);
	if (h->nkeys > 0 && (o->keys = calloc(h->nkeys, sizeof(*o->keys))) == NULL)
		return -1;
	o->nkeys = h->nkeys;
	for (size_t i = 0; i < h->nkeys; i++) {
		char *fp = fps + (*used)++ * FP_TEXT_MAX;

		if (fingerprint((struct slice){ h->keys[i].blob, h->keys[i].len },
		    P->fp_hash, fp, FP_TEXT_MAX) != 0)
			snprintf(fp, FP_TEXT_MAX, "?");
		o->keys[i].fp = text_of(fp);
		o->keys[i].is_ca = h->keys[i].is_ca != 0;
	}
	return 0;
}

static int
list_id(const struct policy *P, const struct identity *id, uint64_t now,
    struct listing_id *o, char *fps, size_t *used)
{
	o->blob = (struct slice){ id->blob, id->blob_len };
	o->comment = text_of(id->comment);
	o->fp = text_of(id->fp);
	o->seconds_left = id->expiry_ms == 0 ? LISTING_NO_LIFETIME :
	    id->expiry_ms <= now ? 0 : (uint32_t)((id->expiry_ms - now + 999) / 1000);
	o->confirm = id->confirm != 0;
	if (id->provider != NULL)
		o->provider = text_of(id->provider);
	/* where the ADD came from: the user sees what a forwarded host added */
	o->added_over = id->added_over == ORIGIN_FORWARDED ?
	    LISTING_ADDED_FORWARDED : id->added_over == ORIGIN_UNKNOWN ?
	    LISTING_ADDED_UNKNOWN : LISTING_ADDED_LOCAL;
	if (o->added_over == LISTING_ADDED_FORWARDED) {
		struct slice k = { id->added_by, id->added_by_len };
		char *fp = fps + (*used)++ * FP_TEXT_MAX;

		if (fingerprint(k, P->fp_hash, fp, FP_TEXT_MAX) != 0)
			snprintf(fp, FP_TEXT_MAX, "?");
		o->added_by = text_of(fp);
		o->added_by_name = text_of(describe_host_name(P, k));
	}
	if (id->dest.n > 0 &&
	    (o->rules = calloc(id->dest.n, sizeof(*o->rules))) == NULL)
		return -1;
	o->nrules = id->dest.n;
	for (size_t j = 0; j < id->dest.n; j++)
		if (list_hop(P, &id->dest.c[j].from, &o->rules[j].from, fps, used) != 0 ||
		    list_hop(P, &id->dest.c[j].to, &o->rules[j].to, fps, used) != 0)
			return -1;
	return 0;
}

/* Every identity as wire/listing.h lists it, the hop keys' fingerprints
 * in *fps (the caller frees both). */
static int
listing(const struct policy *P, struct listing *l, char **fps)
{
	uint64_t now = now_ms();
	size_t nkeys = 0, used = 0;

	memset(l, 0, sizeof(*l));
	*fps = NULL;
	for (size_t i = 0; i < P->ids.n; i++) {
		const struct dest_set *d = &P->ids.order[i]->dest;
		for (size_t j = 0; j < d->n; j++)
			nkeys += d->c[j].from.nkeys + d->c[j].to.nkeys;
		nkeys++;                /* the adding host's, if any */
	}
	if ((nkeys > 0 && (*fps = calloc(nkeys, FP_TEXT_MAX)) == NULL) ||
	    (P->ids.n > 0 && (l->ids = calloc(P->ids.n, sizeof(*l->ids))) == NULL))
		return -1;
	l->n = P->ids.n;
	for (size_t i = 0; i < l->n; i++)
		if (list_id(P, P->ids.order[i], now, &l->ids[i], *fps, &used) != 0)
			return -1;
	return 0;
}

int
h_constraints(struct ctx *c)
{
	struct policy *P = c->P;
	struct listing l;
	struct wb body;
	char *fps;
	int rc;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	wb_init(&body);
	if ((rc = listing(P, &l, &fps)) == 0)
		listing_encode(&body, &l);
	listing_free(&l);
	free(fps);
	if (rc != 0 || body.err || body.len > AGENT_MAX_FRAME - 64) {
		log_error("constraint listing %s", rc != 0 ? "not built: out of memory" :
		    "too long to send");
		wb_free(&body);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	msg_ext_reply_write(&P->out, MSG_R_CONSTRAINTS, c->h.req, c->h.conn,
	    wb_slice_of(&body));
	wb_free(&body);
	send_to(&P->mon, &P->out, "monitor");
	return 0;
}

/* The name some loaded key's destination constraints give host key K, or
 * NULL: the listing then shows its fingerprint alone. */
static const char *
any_host_name(const struct policy *P, struct slice K, time_t now)
{
	const char *name;

	for (size_t i = 0; i < P->ids.n; i++)
		if ((name = dest_host_name(&P->ids.order[i]->dest, K, now)) != NULL)
			return name;
	return NULL;
}

/* One connection as wire/conns.h lists it, into w. */
static void
list_conn(const struct policy *P, const struct conn *cn, time_t now,
    struct wb *w)
{
	struct conns_anc anc[PEER_MAX_ANCESTORS];
	struct conns_hop hops[AGENT_MAX_BINDINGS];
	char fps[AGENT_MAX_BINDINGS][FP_TEXT_MAX];
	const struct caller *ca = &cn->caller;
	struct conns_conn o = {
		.id = cn->id, .uid = cn->uid, .pid = cn->pid,
		.status = ca->status,
		.exe = text_of(ca->exe), .cmdline = text_of(ca->cmdline),
		.anc = anc, .nanc = ca->exe != NULL ? ca->nanc : 0,
		.bind_attempted = conn_remote(cn),
		.hops = hops, .nhops = cn->bind.n,
		.socket = text_of(scope_name(P->rules, cn->sock)),
	};

	for (size_t i = 0; i < o.nanc; i++) {
		anc[i].pid = ca->anc[i].pid;
		anc[i].exe = text_of(ca->anc[i].exe);
		anc[i].argv0 = text_of(ca->anc[i].argv0);
	}
	for (size_t i = 0; i < o.nhops; i++) {
		struct slice K = { cn->bind.b[i].key, cn->bind.b[i].keylen };

		if (fingerprint(K, P->fp_hash, fps[i], FP_TEXT_MAX) != 0)
			snprintf(fps[i], FP_TEXT_MAX, "?");
		hops[i].fp = text_of(fps[i]);
		hops[i].host = text_of(any_host_name(P, K, now));
		hops[i].forwarding = cn->bind.b[i].forwarding != 0;
	}
	conns_encode_one(w, &o);
}

int
h_conns(struct ctx *c)
{
	struct policy *P = c->P;
	struct wb body, one;
	uint32_t total = 0, n = 0;
	time_t now = time(NULL);

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	for (const struct conn *cn = P->conns; cn != NULL; cn = cn->next)
		total++;
	wb_init(&body);
	wb_init(&one);
	/* The list first, its head after: what fits of it is known only
	 * once it is written. */
	for (const struct conn *cn = P->conns; cn != NULL; cn = cn->next) {
		wb_reset(&one);
		list_conn(P, cn, now, &one);
		if (one.err) {
			log_error("connection %u not listed: its record does not "
			    "encode", cn->id);
			continue;
		}
		if (8 + body.len + one.len > CONNS_MAX_BODY)
			break;
		wb_bytes(&body, one.p, one.len);
		n++;
	}
	wb_free(&one);
	wb_reset(&one);
	conns_encode_head(&one, total, n);
	wb_bytes(&one, body.p, body.len);
	wb_free(&body);
	if (one.err) {
		log_error("connection listing not built: out of memory");
		wb_free(&one);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	msg_ext_reply_write(&P->out, MSG_R_CONNS, c->h.req, c->h.conn,
	    wb_slice_of(&one));
	wb_free(&one);
	send_to(&P->mon, &P->out, "monitor");
	return 0;
}
