/*
 * conns.c - encoder and decoder of the CONNS_EXTENSION answer's body
 * (layout in conns.h). The decoder checks every count against its limit
 * and against the bytes left before it allocates, and every string
 * against the limit the agent itself holds it to.
 */
#include "wire/conns.h"
#include "ipc/limits.h"
#include "wire/peer.h"

#include <stdlib.h>
#include <string.h>

/* The fewest bytes one element can take on the wire. */
#define MIN_ANC_BYTES   (4 + 4 + 4)                     /* pid, exe, argv0 */
#define MIN_HOP_BYTES   (4 + 4 + 1)                     /* fp, host, fwd */
#define MIN_CONN_BYTES  (4 * 4 + 4 + 4 + 4 + 1 + 4 + 5) /* id .. socket */

/* ---------------------------------------------------------------- encode */

static int
text_ok(struct slice s, size_t max)
{
	return s.len <= max && !slice_has_nul(s);
}

void
conns_encode_head(struct wb *w, uint32_t total, uint32_t n)
{
	wb_u32(w, total);
	wb_u32(w, n);
}

void
conns_encode_one(struct wb *w, const struct conns_conn *c)
{
	if (c->status > PEER_STATUS_MAX || c->nanc > PEER_MAX_ANCESTORS ||
	    c->nhops > AGENT_MAX_BINDINGS || !text_ok(c->exe, PEER_MAX_EXE) ||
	    !text_ok(c->cmdline, PEER_MAX_CMDLINE) ||
	    !text_ok(c->socket, SOCKET_NAME_MAX) || c->socket.len == 0) {
		w->err = 1;
		return;
	}
	wb_u32(w, c->id);
	wb_u32(w, c->uid);
	wb_u32(w, c->pid);
	wb_u32(w, c->status);
	wb_slice(w, c->exe);
	wb_slice(w, c->cmdline);
	wb_u32(w, (uint32_t)c->nanc);
	for (size_t i = 0; i < c->nanc; i++) {
		if (!text_ok(c->anc[i].exe, PEER_MAX_EXE) ||
		    !text_ok(c->anc[i].argv0, PEER_MAX_ARGV0)) {
			w->err = 1;
			return;
		}
		wb_u32(w, c->anc[i].pid);
		wb_slice(w, c->anc[i].exe);
		wb_slice(w, c->anc[i].argv0);
	}
	wb_u8(w, c->bind_attempted != 0);
	wb_u32(w, (uint32_t)c->nhops);
	for (size_t i = 0; i < c->nhops; i++) {
		if (!text_ok(c->hops[i].fp, FP_TEXT_MAX) ||
		    !text_ok(c->hops[i].host, AGENT_MAX_HOSTNAME)) {
			w->err = 1;
			return;
		}
		wb_slice(w, c->hops[i].fp);
		wb_slice(w, c->hops[i].host);
		wb_u8(w, c->hops[i].forwarding != 0);
	}
	wb_slice(w, c->socket);
}

/* ---------------------------------------------------------------- decode */

static int
bad(const char **why, const char *what)
{
	*why = what;
	return -1;
}

static int
decode_conn(struct rd *r, struct conns_conn *c, const char **why)
{
	void *p;

	if (rd_u32(r, &c->id) != 0 || rd_u32(r, &c->uid) != 0 ||
	    rd_u32(r, &c->pid) != 0 || rd_u32(r, &c->status) != 0)
		return bad(why, "truncated connection");
	if (c->status > PEER_STATUS_MAX)
		return bad(why, "unknown caller status");
	if (rd_text_max(r, &c->exe, PEER_MAX_EXE) != 0 ||
	    rd_text_max(r, &c->cmdline, PEER_MAX_CMDLINE) != 0)
		return bad(why, "bad caller executable or command line");
	if (rd_array(r, PEER_MAX_ANCESTORS, MIN_ANC_BYTES, sizeof(*c->anc), &p,
	    &c->nanc, "truncated reply", why) != 0)
		return -1;
	c->anc = p;
	for (size_t i = 0; i < c->nanc; i++)
		if (rd_u32(r, &c->anc[i].pid) != 0 ||
		    rd_text_max(r, &c->anc[i].exe, PEER_MAX_EXE) != 0 ||
		    rd_text_max(r, &c->anc[i].argv0, PEER_MAX_ARGV0) != 0)
			return bad(why, "bad ancestor");
	if (rd_flag(r, &c->bind_attempted) != 0)
		return bad(why, "bad session-bind flag");
	if (rd_array(r, AGENT_MAX_BINDINGS, MIN_HOP_BYTES, sizeof(*c->hops), &p,
	    &c->nhops, "truncated reply", why) != 0)
		return -1;
	c->hops = p;
	for (size_t i = 0; i < c->nhops; i++)
		if (rd_text_max(r, &c->hops[i].fp, FP_TEXT_MAX) != 0 ||
		    rd_text_max(r, &c->hops[i].host, AGENT_MAX_HOSTNAME) != 0 ||
		    rd_flag(r, &c->hops[i].forwarding) != 0)
			return bad(why, "bad session-bind hop");
	/* what the agent keeps: hops only after a session-bind */
	if (c->nhops > 0 && !c->bind_attempted)
		return bad(why, "hops without a session-bind");
	if (rd_text_max(r, &c->socket, SOCKET_NAME_MAX) != 0 || c->socket.len == 0)
		return bad(why, "bad socket name");
	return 0;
}

int
conns_decode(struct rd *r, struct conns_list *l, const char **why)
{
	void *p;

	memset(l, 0, sizeof(*l));
	*why = NULL;
	if (rd_u32(r, &l->total) != 0)
		return bad(why, "truncated reply");
	if (rd_array(r, UINT32_MAX, MIN_CONN_BYTES, sizeof(*l->c), &p, &l->n,
	    "truncated reply", why) != 0)
		return -1;
	l->c = p;
	if (l->n > l->total) {
		*why = "more connections listed than open";
		goto fail;
	}
	for (size_t i = 0; i < l->n; i++)
		if (decode_conn(r, &l->c[i], why) != 0)
			goto fail;
	if (rd_done(r) != 0) {
		*why = "bytes after the last connection";
		goto fail;
	}
	return 0;
fail:
	conns_free(l);
	return -1;
}

void
conns_free(struct conns_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->c[i].anc);
		free(l->c[i].hops);
	}
	free(l->c);
	memset(l, 0, sizeof(*l));
}
