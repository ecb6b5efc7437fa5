/*
 * conn.c - client connections as policy sees them: opened and closed by
 * the monitor, bound to hosts by session-bind (doc/protocol.md §7.2), which is
 * verified here, never in the monitor.
 */
#include "ipc/log.h"
#include "policy/dispatch.h"

#include <stdlib.h>

int
h_open(struct ctx *c)
{
	struct msg_open m;
	struct conn *n;

	if (msg_open_decode(&c->r, &m) != 0 || c->h.conn == 0 ||
	    conn_find(c->P, c->h.conn) != NULL)
		return -1;
	/* a socket the rules do not declare is the monitor's error */
	if (m.sock > (c->P->rules != NULL ? c->P->rules->nsock : 0))
		return -1;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		fatal("out of memory");
	n->id = c->h.conn;
	n->uid = m.uid;
	n->pid = m.pid;
	n->sock = m.sock;
	n->caller.status = PEER_UNAVAILABLE;
	n->caller.uid = m.uid;  /* for caller_describe */
	c->P->opened = 1;
	n->next = c->P->conns;
	c->P->conns = n;
	return 0;
}

int
h_close(struct ctx *c)
{
	struct policy *P = c->P;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	for (struct conn **pp = &P->conns; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c->conn) {
			*pp = c->conn->next;
			break;
		}
	bindings_free(&c->conn->bind);
	caller_free(&c->conn->caller);
	free(c->conn);
	c->conn = NULL;
	/* What the client was waiting for is still answered (the monitor
	 * counts it), but an open prompt goes away. */
	pending_gone(P, c->h.conn);
	return 0;
}

/* Who the peer is: keyward-peer's answer, which the monitor passes on
 * before the connection's first request. A second one replaces the
 * first; one that does not decode leaves the caller unknown. */
int
h_peer(struct ctx *c)
{
	struct slice b;
	struct peer_reply m;
	struct rd r;

	if (msg_string_read(&c->r, &b) != 0)
		return -1;
	rd_init(&r, b.p, b.len);
	if (peer_reply_decode(&r, &m) != 0) {
		log_error("connection %u: an undecodable caller report; the "
		    "caller stays unknown", c->h.conn);
		caller_free(&c->conn->caller);
		c->conn->caller.known = 1;
		return 0;
	}
	if (caller_set(&c->conn->caller, &m) != 0)
		log_error("connection %u: out of memory for its caller", c->h.conn);
	log_debug("connection %u: caller %s", c->h.conn,
	    peer_status_name(c->conn->caller.status));
	return 0;
}

/* doc/protocol.md §7.2: session-bind, processed even while locked (10.5). */
int
h_bind(struct ctx *c)
{
	struct bindings *b = &c->conn->bind;
	struct msg_bind m;
	const char *why;

	if (msg_bind_decode(&c->r, &m) != 0) {
		bind_refused(b);        /* attempted even so (doc/protocol.md §7.2 step 1) */
		why = "malformed session-bind";
	} else
		why = bind_session(b, m.hostkey, m.session_id, m.signature,
		    m.forwarding);
	if (why != NULL) {
		log_info("connection %u: session-bind refused: %s; the connection "
		    "now counts as forwarded from an unknown host", c->h.conn, why);
		audit_simple(c->P, "bind", "refuse", why, c->conn, NULL);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	log_debug("connection %u: %zu binding(s), the last one %s", c->h.conn,
	    b->n, b->b[b->n - 1].forwarding ? "forwarding" : "authentication");
	audit_simple(c->P, "bind", "allow", NULL, c->conn, NULL);
	ctx_reply(c, ST_OK);
	return 0;
}

int
h_bind_bad(struct ctx *c)
{
	bind_refused(&c->conn->bind);
	(void)msg_empty_decode(&c->r);  /* refused whatever it carries */
	log_info("connection %u: malformed session-bind refused", c->h.conn);
	audit_simple(c->P, "bind", "refuse", "malformed session-bind", c->conn, NULL);
	ctx_reply(c, ST_EXT_FAIL);
	return 0;
}

struct conn *
conn_find(struct policy *P, uint32_t id)
{
	for (struct conn *c = P->conns; c != NULL; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}
