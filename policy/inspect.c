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
#include "ipc/log.h"
#include "policy/dispatch.h"

#include <stdio.h>

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

static void
inspect_hop(const struct policy *P, struct wb *w, const struct hop *h)
{
	char fp[96];

	wb_cstring(w, h->user != NULL ? h->user : "");
	wb_cstring(w, h->host != NULL ? h->host : "");
	wb_u32(w, (uint32_t)h->nkeys);
	for (size_t i = 0; i < h->nkeys; i++) {
		if (fingerprint((struct slice){ h->keys[i].blob, h->keys[i].len },
		    P->fp_hash, fp, sizeof(fp)) != 0)
			snprintf(fp, sizeof(fp), "?");
		wb_cstring(w, fp);
		wb_u8(w, h->keys[i].is_ca != 0);
	}
}

int
h_inspect(struct ctx *c)
{
	struct policy *P = c->P;
	uint64_t now = now_ms();
	struct wb body;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	wb_init(&body);
	wb_u32(&body, (uint32_t)P->ids.n);
	for (size_t i = 0; i < P->ids.n; i++) {
		const struct identity *id = P->ids.order[i];
		wb_string(&body, id->blob, id->blob_len);
		wb_cstring(&body, id->comment);
		wb_cstring(&body, id->fp);
		wb_u32(&body, id->expiry_ms == 0 ? INSPECT_NO_LIFETIME :
		    id->expiry_ms <= now ? 0 : (uint32_t)((id->expiry_ms - now + 999) / 1000));
		wb_u8(&body, id->confirm != 0);
		wb_u32(&body, (uint32_t)id->dest.n);
		for (size_t j = 0; j < id->dest.n; j++) {
			inspect_hop(P, &body, &id->dest.c[j].from);
			inspect_hop(P, &body, &id->dest.c[j].to);
		}
	}
	if (body.err || body.len > AGENT_MAX_FRAME - 64) {
		log_error("constraint listing too long to send");
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
