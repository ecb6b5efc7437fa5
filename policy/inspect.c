/*
 * inspect.c - the extensions policy answers itself: "query" (which
 * extensions there are) and keyward's own INSPECT_EXTENSION, every
 * identity with its constraints, for keyward-ctl. The dispatcher gives
 * the latter only to connections that never attempted a session-bind:
 * what a key may do is its owner's business, not that of the hosts it is
 * forwarded to.
 */
#include "crypto/crypto.h"
#include "ipc/agent.h"
#include "ipc/inspect.h"
#include "ipc/log.h"
#include "policy/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
h_query(struct ctx *c)
{
	struct policy *P = c->P;
	struct wb names;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	wb_init(&names);
	agent_ext_list(&names);
	msg_begin(&P->out, MSG_R_EXTENSIONS, c->h.req, c->h.conn);
	msg_blob_encode(&P->out, &(struct msg_blob){ wb_slice_of(&names) });
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
list_hop(const struct policy *P, const struct hop *h, struct inspect_hop *o,
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
    struct inspect_id *o, char *fps, size_t *used)
{
	o->blob = (struct slice){ id->blob, id->blob_len };
	o->comment = text_of(id->comment);
	o->fp = text_of(id->fp);
	o->seconds_left = id->expiry_ms == 0 ? INSPECT_NO_LIFETIME :
	    id->expiry_ms <= now ? 0 : (uint32_t)((id->expiry_ms - now + 999) / 1000);
	o->confirm = id->confirm != 0;
	if (id->provider != NULL)
		o->provider = text_of(id->provider);
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

/* Every identity as ipc/inspect.h lists it, the hop keys' fingerprints
 * in *fps (the caller frees both). */
static int
listing(const struct policy *P, struct inspect_list *l, char **fps)
{
	uint64_t now = now_ms();
	size_t nkeys = 0, used = 0;

	memset(l, 0, sizeof(*l));
	*fps = NULL;
	for (size_t i = 0; i < P->ids.n; i++) {
		const struct dest_set *d = &P->ids.order[i]->dest;
		for (size_t j = 0; j < d->n; j++)
			nkeys += d->c[j].from.nkeys + d->c[j].to.nkeys;
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
h_inspect(struct ctx *c)
{
	struct policy *P = c->P;
	struct inspect_list l;
	struct wb body;
	char *fps;
	int rc;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	wb_init(&body);
	if ((rc = listing(P, &l, &fps)) == 0)
		inspect_encode(&body, &l);
	inspect_free(&l);
	free(fps);
	if (rc != 0 || body.err || body.len > AGENT_MAX_FRAME - 64) {
		log_error("constraint listing %s", rc != 0 ? "not built: out of memory" :
		    "too long to send");
		wb_free(&body);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	msg_begin(&P->out, MSG_R_INSPECT, c->h.req, c->h.conn);
	msg_blob_encode(&P->out, &(struct msg_blob){ wb_slice_of(&body) });
	wb_free(&body);
	send_to(&P->mon, &P->out, "monitor");
	return 0;
}
