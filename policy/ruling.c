/*
 * ruling.c - keyward(5) rules in the agent (ruling.h): the query one sign
 * request makes of them, loading a new set whole, and remembered
 * approvals. What a query says comes from what policy verified itself
 * (the key, the data's purpose, the session bindings) and from the
 * caller the monitor reported (policy/caller.h).
 */
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "policy/audit.h"
#include "policy/describe.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
#include "policy/ruling.h"
#include "rules/scope.h"
#include "wire/agent.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One remembered yes: until when, and for what (ruling.memo's bytes). */
struct remembered {
	struct remembered *next;
	uint64_t until_ms;
	size_t len;
	uint8_t memo[];
};

/* Host key names as prompts give them: the key's own destination
 * constraints name it, else its SHA256 fingerprint stands. */
static void
host_name(const struct identity *id, struct slice hostkey, char *out,
    size_t n)
{
	const char *name = dest_host_name(&id->dest, hostkey, time(NULL));

	if (name != NULL)
		snprintf(out, n, "%s", name);
	else if (fingerprint(hostkey, "sha256", out, n) != 0)
		snprintf(out, n, "?");
}

/* Everything a query points at lives here for the one judgement. */
struct qbuf {
	char fp[FP_TEXT_MAX];
	char host[FP_TEXT_MAX + 256];
	char hopname[AGENT_MAX_BINDINGS][FP_TEXT_MAX + 256];
	const char *hops[AGENT_MAX_BINDINGS];
	const char *anc[PEER_MAX_ANCESTORS];
	char *user, *ns;
};

static void
memo_add(struct wb *w, const char *s)
{
	wb_string(w, s, strlen(s));
}

/* What a yes is remembered under, and it holds for nothing else: the rule
 * that asked (by its line: a yes given under one rule never answers
 * another, whose clauses tested other facts; new rules forget every yes),
 * this key and this program; local, or forwarded along this first binding
 * (the host key the user's ssh bound, which the server cannot choose);
 * the purpose, and its destination -- a verified login's user and
 * server, an SSHSIG namespace; the socket it came in on. Data that names
 * no destination policy verified (other data, an unverified login) is
 * remembered by its SHA-256: the yes covers those bytes only. A
 * connection of unknown origin (a refused session-bind) has no memo: no
 * remembered yes answers it and none is kept from it. */
static void
memo_make(struct wb *w, const struct rules_query *q, size_t line,
    const struct origin *o, const struct purpose *pu)
{
	uint8_t md[PURPOSE_SHA256_LEN];

	if (o->kind == ORIGIN_UNKNOWN)
		return;
	wb_u32(w, (uint32_t)line);
	memo_add(w, q->fingerprint);
	memo_add(w, q->exe != NULL ? q->exe : "");
	wb_u8(w, (uint8_t)(q->forwarded ? 1 : 0));
	if (o->kind == ORIGIN_FORWARDED)
		wb_string(w, o->host.p, o->host.len);
	else
		wb_string(w, "", 0);
	wb_u8(w, (uint8_t)q->purpose);
	wb_u8(w, (uint8_t)(q->verified ? 1 : 0));
	memo_add(w, q->user != NULL ? q->user : "");
	memo_add(w, q->host != NULL ? q->host : "");
	memo_add(w, q->ns != NULL ? q->ns : "");
	memo_add(w, q->socket);
	if (q->purpose == RULE_PURPOSE_OTHER ||
	    (q->purpose == RULE_PURPOSE_LOGIN && !q->verified)) {
		if (purpose_sha256(pu, md) != 0)
			fatal("cannot hash the data to sign");
		wb_string(w, md, sizeof(md));
	}
	if (w->err)
		fatal("out of memory");
}

/* The query's facts about the key and who asks: the key's fingerprint,
 * the socket, the session, the caller and its ancestors, and where the
 * connection comes from (*o). */
static void
query_who(struct policy *P, const struct identity *id, const struct conn *c,
    struct qbuf *qb, struct rules_query *q, struct origin *o)
{
	if (fingerprint((struct slice){ id->blob, id->blob_len }, "sha256",
	    qb->fp, sizeof(qb->fp)) != 0)
		fatal("cannot fingerprint a key held");
	q->fingerprint = qb->fp;
	q->comment = id->comment;
	q->socket = scope_name(P->rules, c->sock);
	q->session = session_rule_state(P);    /* logind's word (session.c) */
	q->exe = c->caller.exe;
	for (size_t i = 0; i < c->caller.nanc; i++)
		qb->anc[i] = c->caller.anc[i].exe;
	q->ancestors = qb->anc;
	q->nancestors = c->caller.nanc;
	conn_origin(c, o);
	q->forwarded = o->kind != ORIGIN_LOCAL;
	/* After a refused session-bind nothing about the origin is known:
	 * origin, via, caller and ancestor cannot tell, and no login is
	 * verified (origin.h). */
	q->origin_unknown = o->kind == ORIGIN_UNKNOWN;
}

/* "via": the hosts the agent was forwarded to, in order; the first
 * binding is the user's ssh's, the later ones the server's word. */
static void
query_hops(const struct identity *id, const struct bindings *b,
    const struct origin *o, struct qbuf *qb, struct rules_query *q)
{
	q->first_hop = o->kind == ORIGIN_FORWARDED;
	for (size_t i = 0; i < b->n && q->nhops < AGENT_MAX_BINDINGS; i++) {
		if (!b->b[i].forwarding)
			continue;
		host_name(id, (struct slice){ b->b[i].key, b->b[i].keylen },
		    qb->hopname[q->nhops], sizeof(qb->hopname[0]));
		qb->hops[q->nhops] = qb->hopname[q->nhops];
		q->nhops++;
	}
	q->hops = qb->hops;
}

/* What the data is for, and the destination it names when policy
 * verified it. */
static void
query_purpose(const struct identity *id, const struct bindings *b,
    const struct purpose *pu, struct qbuf *qb, struct rules_query *q)
{
	switch (pu->kind) {
	case PURPOSE_LOGIN:
		q->purpose = RULE_PURPOSE_LOGIN;
		/* Only a login verified against the bindings names its user
		 * and host (the last binding, which a hostbound login's own
		 * host key then equals): an unverified one is matched as an
		 * unknown user at an unknown host. */
		q->verified = !q->origin_unknown &&
		    purpose_unverified(pu, b) == NULL;
		if (!q->verified)
			break;
		if ((qb->user = slice_strdup(pu->ua.user)) == NULL)
			fatal("out of memory");
		q->user = qb->user;
		host_name(id, (struct slice){ b->b[b->n - 1].key,
		    b->b[b->n - 1].keylen }, qb->host, sizeof(qb->host));
		q->host = qb->host;
		break;
	case PURPOSE_SSHSIG:
		q->purpose = RULE_PURPOSE_SSHSIG;
		if ((qb->ns = slice_strdup(pu->ns)) == NULL)
			fatal("out of memory");
		q->ns = qb->ns;
		break;
	default:
		q->purpose = RULE_PURPOSE_OTHER;
		break;
	}
}

void
ruling_judge(struct policy *P, const struct identity *id,
    const struct conn *c, const struct purpose *pu, struct ruling *out)
{
	struct rules_query q = { 0 };
	const struct rule *which;
	struct origin o;
	struct qbuf *qb;

	memset(out, 0, sizeof(*out));
	out->action = RULE_ALLOW;
	wb_init(&out->memo);
	if ((P->rules == NULL || P->rules->n == 0) && c->sock == 0)
		return;
	if ((qb = calloc(1, sizeof(*qb))) == NULL)
		fatal("out of memory");
	query_who(P, id, c, qb, &q, &o);
	query_hops(id, &c->bind, &o, qb, &q);
	query_purpose(id, &c->bind, pu, qb, &q);
	/* Where no rule decides: allow, or deny on a named socket for a
	 * key not added there (scope.c). */
	q.fallback = scope_default(c->sock, id->sock);
	out->action = rules_decide(P->rules, &q, &which);
	if (which != NULL) {
		out->line = which->line;
		out->remember = which->remember;
	}
	if (out->action == RULE_CONFIRM && out->remember > 0) {
		memo_make(&out->memo, &q, out->line, &o, pu);
		ruling_recall(P, out);
	}
	free(qb->user);
	free(qb->ns);
	free(qb);
}

int
ruling_recall(const struct policy *P, struct ruling *r)
{
	uint64_t now = now_ms();

	r->remembered = 0;
	if (r->action != RULE_CONFIRM || r->remember == 0)
		return 0;
	for (const struct remembered *m = P->remembered; m != NULL; m = m->next)
		if (m->until_ms > now && m->len == r->memo.len &&
		    memcmp(m->memo, r->memo.p, m->len) == 0)
			r->remembered = 1;
	return r->remembered;
}

void
ruling_remember(struct policy *P, const struct ruling *r)
{
	struct remembered *m, **pp;
	size_t n = 0;

	if (r->action != RULE_CONFIRM || r->remember == 0 || r->remembered ||
	    r->memo.len == 0)
		return;
	/* The expired go, and past the bound the oldest (the list's tail:
	 * new ones go first). */
	for (pp = &P->remembered; (m = *pp) != NULL; ) {
		if (m->until_ms <= now_ms() || ++n >= RULES_MAX_REMEMBERED) {
			*pp = m->next;
			free(m);
			continue;
		}
		pp = &m->next;
	}
	if ((m = malloc(sizeof(*m) + r->memo.len)) == NULL)
		fatal("out of memory");
	m->until_ms = now_ms() + (uint64_t)r->remember * 1000;
	m->len = r->memo.len;
	memcpy(m->memo, r->memo.p, r->memo.len);
	m->next = P->remembered;
	P->remembered = m;
}

void
ruling_free(struct ruling *r)
{
	wb_free(&r->memo);
}

void
rules_forget(struct policy *P)
{
	struct remembered *m;

	while ((m = P->remembered) != NULL) {
		P->remembered = m->next;
		free(m);
	}
}

/* New rules, whole or not at all. From the monitor at start (conn 0,
 * before any connection: -O policy=) or from keyward-ctl policy load
 * (POLICY_EXTENSION), which the owner of the agent alone may send:
 * refused where a session-bind was attempted and while locked (the
 * dispatcher, F_OWNER; checked again here, since a refusal is audited
 * either way). */
int
h_policy_load(struct ctx *c)
{
	struct policy *P = c->P;
	struct rules_err err;
	struct ruleset *rs;
	struct slice text;

	if (msg_string_read(&c->r, &text) != 0)
		return -1;
	if (c->conn == NULL && P->opened) {
		log_error("the monitor sent start-up rules after a connection; "
		    "ignored");
		return 0;
	}
	if (c->conn != NULL && c->conn->bind.attempted) {
		log_info("connection %u: policy load refused: the connection "
		    "attempted a session-bind", c->h.conn);
		audit_simple(P, "policy", "refuse", "session-bind attempted",
		    c->conn, NULL);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	if (rules_parse(c->conn == NULL ? "policy" : "loaded policy",
	    (const char *)text.p, text.len, &rs, &err) != 0) {
		if (c->conn == NULL)
			fatal("the start-up policy does not parse: %s", err.msg);
		log_info("connection %u: policy load refused: %s", c->h.conn,
		    err.msg);
		audit_simple(P, "policy", "refuse", err.msg, c->conn, NULL);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	if (c->conn != NULL && !rules_same_sockets(P->rules, rs)) {
		/* the monitor made its sockets before its sandbox closed and
		 * can make no more, nor tell the ones it has apart anew */
		log_info("connection %u: policy load refused: its socket "
		    "declarations differ from those keyward started with "
		    "(sockets are made at start: restart keyward to change "
		    "them)", c->h.conn);
		audit_simple(P, "policy", "refuse", "the sockets would change",
		    c->conn, NULL);
		rules_free(rs);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	rules_free(P->rules);
	P->rules = rs;
	P->rules_gen++;
	rules_forget(P);
	log_info("policy: %zu rule%s in force", rs->n, rs->n == 1 ? "" : "s");
	audit_simple(P, "policy", "allow", NULL, c->conn, NULL);
	if (c->conn != NULL)
		ctx_reply(c, ST_OK);
	return 0;
}

/* keyward-ctl policy show: the rules in force, canonical (rules_format),
 * for their owner alone (F_OWNER). No rules: the empty text. */
int
h_policy_show(struct ctx *c)
{
	struct policy *P = c->P;
	struct wb text, body;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	wb_init(&text);
	wb_init(&body);
	if (P->rules != NULL && rules_format(P->rules, &text) != 0)
		text.err = 1;
	if (!text.err)
		agent_policy_show_body(&body, wb_slice_of(&text));
	wb_free(&text);
	if (body.err || body.len > POLICY_MAX_SHOW) {
		log_error("the rules are too long to show");
		wb_free(&body);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	msg_ext_reply_write(&P->out, MSG_R_POLICY, c->h.req, c->h.conn,
	    wb_slice_of(&body));
	wb_free(&body);
	send_to(&P->mon, &P->out, "monitor");
	return 0;
}
