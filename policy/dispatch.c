/*
 * dispatch.c - everything the monitor can ask of policy, as a table
 * (the other processes' answers: answers.c). The monitor may be
 * compromised, so each message is decoded again from scratch, and the
 * rules that hold for many requests (needs an open connection, refused
 * while locked, refused where a session-bind was attempted, holds the
 * monitor until the keyholder or the broker answers) are flags
 * the dispatcher enforces: no handler repeats them, and a new row cannot
 * forget them.
 */
#include "wire/agent.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "policy/audit.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
#include "policy/ruling.h"
#include "policy/token.h"
#include "rules/scope.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

enum {
	F_CONN = 1 << 0,        /* names an open client connection */
	F_LOCKED = 1 << 1,      /* served while locked (doc/protocol.md §5.11) */
	F_OWNER = 1 << 2,       /* refused where a session-bind was attempted:
	                         * for the key's owner, not for forwarded hosts */
	F_BOOK = 1 << 3,        /* connection bookkeeping: never answered */
	F_BARRIER = 1 << 4,     /* its effect is known only once the keyholder
	                         * or the broker has answered: while it waits
	                         * there, nothing later from the monitor is
	                         * judged. Every request made from the row
	                         * carries it; pending.c sets and lifts it
	                         * (pending.h). A lock has none: policy refuses
	                         * all after it at once. */
};

/* While locked, a request without F_LOCKED gets FAILURE, except a list,
 * which is answered with no keys (doc/protocol.md §5.11). */
enum when_locked { L_FAIL, L_EMPTY_LIST };

static const struct {
	uint8_t type;
	int flags;
	enum when_locked locked;
	const char *event;      /* audit event of a refusal while locked */
	int (*fn)(struct ctx *);
} from_monitor[] = {
	{ MSG_OPEN,       F_LOCKED | F_BOOK,   L_FAIL,       NULL,   h_open },
	{ MSG_CLOSE,      F_CONN | F_LOCKED | F_BOOK, L_FAIL, NULL,  h_close },
	{ MSG_LIST,       F_CONN,              L_EMPTY_LIST, "list", h_list },
	{ MSG_SIGN,       F_CONN,              L_FAIL,       "sign", h_sign },
	{ MSG_ADD,        F_CONN | F_BARRIER,  L_FAIL,       "add",  h_add },
	{ MSG_REMOVE,     F_CONN,              L_FAIL,       NULL,   h_remove },
	{ MSG_REMOVE_ALL, 0 /* conn 0: SIGUSR1 */, L_FAIL,  NULL,   h_remove_all },
	{ MSG_LOCK,       F_CONN,              L_FAIL,       NULL,   h_lock },
	/* an unlock is a barrier once judged right, at the keyholder */
	{ MSG_UNLOCK,     F_CONN | F_LOCKED | F_BARRIER, L_FAIL, NULL, h_unlock },
	{ MSG_QUERY,      F_CONN,              L_FAIL,       NULL,   h_query },
	/* conn 0: -O policy= at start; else keyward-ctl policy load */
	{ MSG_POLICY_LOAD, F_OWNER,            L_FAIL,       "policy", h_policy_load },
	{ MSG_POLICY_SHOW, F_CONN | F_OWNER,   L_FAIL,       NULL,   h_policy_show },
	{ MSG_CONNS,      F_CONN | F_OWNER,    L_FAIL,       NULL,   h_conns },
	{ MSG_SESSION_STATE, F_CONN | F_OWNER | F_LOCKED, L_FAIL, NULL, h_session_state },
	/* a list the monitor answered from policy's answer: the record */
	{ MSG_LISTED,     F_CONN | F_LOCKED | F_BOOK, L_FAIL, NULL,  h_listed },
	{ MSG_PEER,       F_CONN | F_LOCKED | F_BOOK, L_FAIL, NULL,  h_peer },
	{ MSG_BIND,       F_CONN | F_LOCKED,   L_FAIL,       NULL,   h_bind },
	{ MSG_BIND_BAD,   F_CONN | F_LOCKED,   L_FAIL,       NULL,   h_bind_bad },
	{ MSG_CONSTRAINTS,    F_CONN | F_OWNER,    L_FAIL,       NULL,   h_constraints },
	{ MSG_P11_ADD,    F_CONN | F_BARRIER,  L_FAIL,       "add",  h_p11_add },
	{ MSG_P11_REMOVE, F_CONN | F_BARRIER,  L_FAIL,       NULL,   h_p11_remove },
};

#define NROWS(t) (sizeof(t) / sizeof((t)[0]))

/* Management: served on the main socket and on a named one declared
 * "manage", refused on the other named ones (rules/scope.h). A row
 * marked "forwarded" is also refused to a forwarded connection unless
 * -O allow-remote-manage: the server the agent is forwarded to must not
 * lock the user out or take the user's keys away. (A forwarded re-add of
 * a key the agent holds is management too; add.c tells it from an add.)
 * The name and the refusal live in this one row, so a request cannot be
 * refused as management without them. */
static const struct {
	uint8_t type;
	const char *name;       /* for the log and the audit trail */
	uint8_t refusal;        /* an agent request's, or an extension's */
	int forwarded;          /* refused to a forwarded connection too */
} management[] = {
	{ MSG_ADD,          "add",          ST_FAIL,     0 },
	{ MSG_P11_ADD,      "add",          ST_FAIL,     0 },
	{ MSG_REMOVE,       "remove",       ST_FAIL,     1 },
	{ MSG_P11_REMOVE,   "remove",       ST_FAIL,     1 },
	{ MSG_REMOVE_ALL,   "remove-all",   ST_FAIL,     1 },
	{ MSG_LOCK,         "lock",         ST_FAIL,     1 },
	{ MSG_UNLOCK,       "unlock",       ST_FAIL,     1 },
	{ MSG_POLICY_LOAD,  "policy",       ST_EXT_FAIL, 0 },
	{ MSG_POLICY_SHOW,  "policy-show",  ST_EXT_FAIL, 0 },
	{ MSG_CONNS,        "connections",  ST_EXT_FAIL, 0 },
	{ MSG_SESSION_STATE, "session",     ST_EXT_FAIL, 0 },
	{ MSG_CONSTRAINTS,  "constraints",  ST_EXT_FAIL, 0 },
};

/* The management row of a request type; NROWS(management): none. */
static size_t
management_row(uint8_t type)
{
	size_t i;

	for (i = 0; i < NROWS(management) && management[i].type != type; i++)
		;
	return i;
}

/* 1 (and the refusal sent) if c's request is management on a socket
 * that does not serve it. */
static int
refuse_unmanaged(struct ctx *c)
{
	size_t i;

	if (c->conn == NULL || scope_may_manage(c->P->rules, c->conn->sock))
		return 0;
	if ((i = management_row(c->h.type)) == NROWS(management))
		return 0;
	log_info("connection %u: %s refused: the %s socket lists and signs "
	    "only (declare it \"manage\" to allow more)", c->h.conn,
	    management[i].name, scope_name(c->P->rules, c->conn->sock));
	audit_simple(c->P, management[i].name, "refuse",
	    "a socket that lists and signs only", c->conn, NULL);
	ctx_reply(c, management[i].refusal);
	return 1;
}

int
policy_may_read_monitor(const struct policy *P)
{
	return P->barrier == 0 && P->npending < POLICY_MAX_PENDING &&
	    !chan_busy(&P->mon) && !chan_busy(&P->kh) && !chan_busy(&P->pr) &&
	    !chan_busy(&P->au);
}

static void
refuse_locked(struct ctx *c, enum when_locked how, const char *event)
{
	struct msg_identities none = { 0, { NULL, 0 } };

	if (event != NULL)
		audit_simple(c->P, event, how == L_EMPTY_LIST ? "allow" : "refuse",
		    how == L_EMPTY_LIST ? NULL : "the agent is locked", c->conn, NULL);
	if (how == L_FAIL) {
		ctx_reply(c, ST_FAIL);
		return;
	}
	msg_begin(&c->P->out, MSG_R_IDENTITIES, c->h.req, c->h.conn);
	msg_identities_encode(&c->P->out, &none);
	send_to(&c->P->mon, &c->P->out, "monitor");
}

/* Only SIGUSR1's remove-all names no connection; a request that names
 * one names an open one: 1 (and the refusal sent) if it does not. */
static int
refuse_closed(struct ctx *c, int f)
{
	if (!((f & F_CONN) || c->h.conn != 0) || c->conn != NULL ||
	    (f & F_BOOK && c->h.type == MSG_OPEN))
		return 0;
	log_error("monitor named connection %u, which is not open; refused",
	    c->h.conn);
	if (!(f & F_BOOK))
		ctx_reply(c, ST_FAIL);
	return 1;
}

/* keyward's own extensions (wire/agent.h): conn 0 is the monitor's
 * start-up rules, never a client's. 1 (and the refusal sent) if a
 * connection that may come from a forwarded host asks. */
static int
refuse_not_owner(struct ctx *c, int f, const char *event)
{
	if (!(f & F_OWNER) || c->conn == NULL || !conn_remote(c->conn))
		return 0;
	log_info("connection %u: keyward's own request (message %u) "
	    "refused: the connection attempted a session-bind, so it may "
	    "come from a forwarded host", c->h.conn, c->h.type);
	if (event != NULL)
		audit_simple(c->P, event, "refuse", "session-bind attempted",
		    c->conn, NULL);
	ctx_reply(c, ST_EXT_FAIL);
	return 1;
}

/* Management a forwarded connection may not do (without -O
 * allow-remote-manage): 1 and the refusal sent. Asked before the lock,
 * so a forwarded unlock is no guess at all. */
static int
refuse_forwarded(struct ctx *c)
{
	size_t m = management_row(c->h.type);

	if (m == NROWS(management) || !management[m].forwarded ||
	    c->conn == NULL || !conn_forwarded(c->conn) ||
	    c->P->args.allow_remote_manage)
		return 0;
	log_info("connection %u: %s refused: the connection is forwarded "
	    "(keyward -O allow-remote-manage allows it)", c->h.conn,
	    management[m].name);
	audit_simple(c->P, management[m].name, "refuse", "forwarded connection",
	    c->conn, NULL);
	ctx_reply(c, ST_FAIL);
	return 1;
}

void
policy_from_monitor(struct policy *P, const uint8_t *p, size_t n)
{
	struct ctx c = { .P = P };
	size_t i;
	int f;

	keys_expire(P);
	rd_init(&c.r, p, n);
	if (msg_hdr_decode(&c.r, &c.h) != 0)
		peer_broke("monitor", "sent a message with no header");
	for (i = 0; i < NROWS(from_monitor) && from_monitor[i].type != c.h.type; i++)
		;
	if (i == NROWS(from_monitor)) {
		log_error("monitor sent unknown message type %u; ignored", c.h.type);
		return;
	}
	f = from_monitor[i].flags;
	c.barrier = (f & F_BARRIER) != 0;
	c.conn = conn_find(P, c.h.conn);
	if (refuse_closed(&c, f) || refuse_not_owner(&c, f, from_monitor[i].event) ||
	    refuse_forwarded(&c) || refuse_unmanaged(&c))
		return;
	/* a lock the session made (session.c) is served as ssh-add -x's */
	if ((P->lock.locked || session_locks_agent(P)) && !(f & F_LOCKED) &&
	    c.h.conn != 0) {
		refuse_locked(&c, from_monitor[i].locked, from_monitor[i].event);
		return;
	}
	if (from_monitor[i].fn(&c) != 0) {
		log_error("malformed message type %u from the monitor; refused",
		    c.h.type);
		if (!(f & F_BOOK))
			ctx_reply(&c, ST_FAIL);
	}
}

/* ---------------------------------------------------------------- timers */

int
policy_timers(struct policy *P)
{
	uint64_t now, next = 0;
	struct pending **pp;
	int t;

	keys_expire(P);
	now = now_ms();
	for (pp = &P->pending; *pp != NULL;) {
		struct pending *p = *pp;
		if (p->state == P_UNLOCK_DELAY && p->due_ms <= now) {
			*pp = p->next;
			reply_status(P, p->conn, p->req, ST_FAIL);
			pending_free(P, p);
			continue;
		}
		if (p->state == P_UNLOCK_DELAY && (next == 0 || p->due_ms < next))
			next = p->due_ms;
		pp = &p->next;
	}
	if (P->next_expiry_ms != 0 && (next == 0 || P->next_expiry_ms < next))
		next = P->next_expiry_ms;
	t = lock_judge(P, now);
	if (next == 0)
		return t;
	next = next <= now ? 0 : next - now > 60000 ? 60000 : next - now;
	return t >= 0 && (uint64_t)t < next ? t : (int)next;
}
