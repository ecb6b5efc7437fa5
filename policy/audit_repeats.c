/*
 * audit_repeats.c - what a client can repeat at will is recorded once a
 * window, then counted (below); the records themselves are audit.c's.
 */
#include "crypto/crypto.h"
#include "ipc/limits.h"
#include "ipc/text.h"
#include "policy/audit.h"
#include "policy/audit_int.h"
#include "policy/origin.h"
#include "rules/scope.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Repeats coalesced (limits.h, AUDIT_COALESCE_*): refusals, listings and
 * session-binds (coalesced() says which). A kind is the event, decision
 * and reason; an origin the socket, the process that asked (its record
 * as keyward-peer saw it) and where the connection comes from:
 * the host key of its first session binding, which the user's ssh made
 * (a later one is the server's claim, and a server could name a new host
 * key with every request), or none for a local client. A server's
 * requests all come through the one ssh process that forwards the agent
 * to it. The first of a kind from an origin opens a window and is
 * recorded whole; the others in the window are counted, and the count is
 * recorded (a "repeated" record) when it closes, or when the agent ends.
 * With every slot taken, a new kind or origin closes the window opened
 * first, so it is still recorded whole.
 */
#define REASON_KEEP 160

struct repeat {
	int used;
	int rest;                       /* an origin's other kinds, together */
	char event[24];
	char decision[8];               /* "allow", "refuse" */
	char reason[REASON_KEEP];
	uint32_t uid;
	char origin[FP_TEXT_MAX];       /* "" for a local client */
	char socket[SOCKET_NAME_MAX + 1];
	uint8_t who[32];                /* SHA-256 of the caller's record */
	char *peer;                     /* that record, or NULL */
	uint64_t opened_ms;             /* when the window opened */
	unsigned long count;            /* refusals counted, not recorded */
};

static struct repeat repeats[AUDIT_COALESCE_SLOTS];

/* The origin a refusal is counted under: its share key (origin.h), so a
 * server can neither spread its refusals over hosts it names in later
 * binds nor over connections whose binds it made fail. */
static void
origin_of(const struct policy *P, const struct conn *c, char *out, size_t n)
{
	struct origin o;

	conn_origin(c, &o);
	if (o.kind == ORIGIN_LOCAL && c->bind.n > 0)
		audit_fp(P, (struct slice){ c->bind.b[0].key,
		    c->bind.b[0].keylen }, out, n);
	else if (o.kind == ORIGIN_LOCAL)
		snprintf(out, n, "%s", "");
	else if (o.host.len > 0)
		audit_fp(P, o.host, out, n);
	else
		snprintf(out, n, "relay %u", (unsigned)o.relay);
}

/* The count of a closed window, as one record. */
static void
repeat_flush(struct policy *P, struct repeat *s)
{
	struct wb w;

	if (s->count > 0) {
		wb_init(&w);
		wb_u8(&w, '{');
		audit_time(&w);
		audit_key(&w, "event");
		text_json_str(&w, s->event);
		audit_key(&w, "conn");
		wb_bytes(&w, "null", 4);
		audit_num(&w, "peer_uid", s->uid);
		if (s->peer != NULL) {
			audit_key(&w, "peer");
			wb_bytes(&w, s->peer, strlen(s->peer));
		}
		audit_key(&w, "origin_host_key");
		text_json_str(&w, s->origin[0] != '\0' ? s->origin : NULL);
		audit_key(&w, "socket");
		text_json_str(&w, s->socket);
		audit_num(&w, "repeated", (long long)s->count);
		audit_num(&w, "window_s", AUDIT_COALESCE_WINDOW_S);
		audit_key(&w, "decision");
		text_json_str(&w, s->decision);
		audit_key(&w, "reason");
		text_json_str(&w, s->reason);
		wb_u8(&w, '}');
		audit_send(P, &w, 0);
	}
	free(s->peer);
	memset(s, 0, sizeof(*s));
}

/* What a client can repeat at will: refusals, listings and session-binds
 * (a forwarded server opens as many connections as it likes, and ssh
 * binds each). Signatures made, keys added, removed or expired, locks and
 * unlocks are never coalesced. */
static int
coalesced(const struct audit_rec *r)
{
	return strcmp(r->decision, "refuse") == 0 || strcmp(r->event, "list") == 0 ||
	    strcmp(r->event, "bind") == 0;
}

/* Who asked, as a repeat slot tells it: a digest of the caller's record
 * (a process: a forwarded server's requests all come through the user's
 * one ssh) and of the socket; -1 when it cannot be made (the record is
 * then written whole). */
static int
repeat_who(const struct policy *P, const struct conn *c, uint8_t who[32])
{
	const char *sock = scope_name(P->rules, c->sock);
	unsigned int wn = 0;
	struct wb pw;
	int r = 0;

	wb_init(&pw);
	caller_json(&pw, &c->caller, c->pid, c->uid);
	wb_string(&pw, sock, strlen(sock));
	if (pw.err || EVP_Digest(pw.p, pw.len, who, &wn, EVP_sha256(), NULL) != 1 ||
	    wn != 32)
		r = -1;
	wb_free(&pw);
	return r;
}

/* The slots of one origin (uid, host, caller and socket). */
struct repeat_look {
	struct repeat *same;    /* the window of this very kind, or NULL */
	struct repeat *fresh;   /* the first unused slot, or NULL */
	struct repeat *rest;    /* the origin's shared "other kinds" slot */
	size_t mine;            /* the slots the origin holds */
};

static void
repeat_look(const struct audit_rec *r, const char *origin,
    const uint8_t who[32], const char *reason, struct repeat_look *l)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < AUDIT_COALESCE_SLOTS; i++) {
		struct repeat *q = &repeats[i];
		if (!q->used) {
			if (l->fresh == NULL)
				l->fresh = q;
			continue;
		}
		if (q->uid != r->conn->uid || strcmp(q->origin, origin) != 0 ||
		    memcmp(q->who, who, 32) != 0)
			continue;
		l->mine++;
		if (q->rest)
			l->rest = q;
		else if (strcmp(q->event, r->event) == 0 &&
		    strcmp(q->decision, r->decision) == 0 &&
		    strncmp(q->reason, reason, REASON_KEEP - 1) == 0) {
			l->same = q;
			return;
		}
	}
}

/* Every slot taken: the window opened first closes early (its count
 * recorded now), so a new kind or origin is still recorded whole. */
static struct repeat *
repeat_evict(struct policy *P)
{
	struct repeat *s = &repeats[0];

	for (size_t i = 1; i < AUDIT_COALESCE_SLOTS; i++)
		if (repeats[i].opened_ms < s->opened_ms)
			s = &repeats[i];
	repeat_flush(P, s);
	return s;
}

/* Open a window in slot s for r's kind (is_rest: for all of its
 * origin's other kinds together) at now. */
static void
repeat_open(struct policy *P, struct repeat *s, const struct audit_rec *r,
    const char *origin, const uint8_t who[32], const char *reason,
    int is_rest, uint64_t now)
{
	struct wb pw;

	s->used = 1;
	s->uid = r->conn->uid;
	s->opened_ms = now;
	s->rest = is_rest;
	snprintf(s->event, sizeof(s->event), "%s", is_rest ? "repeats" :
	    r->event);
	snprintf(s->decision, sizeof(s->decision), "%s", is_rest ?
	    "any" : r->decision);
	snprintf(s->reason, sizeof(s->reason), "%s", is_rest ?
	    "other kinds from this origin" : reason);
	snprintf(s->origin, sizeof(s->origin), "%s", origin);
	snprintf(s->socket, sizeof(s->socket), "%s",
	    scope_name(P->rules, r->conn->sock));
	memcpy(s->who, who, sizeof(s->who));
	/* the caller's record, as the "repeated" record will show it */
	wb_init(&pw);
	caller_json(&pw, &r->conn->caller, r->conn->pid, r->conn->uid);
	wb_u8(&pw, '\0');
	s->peer = pw.err ? NULL : strdup((const char *)pw.p);
	wb_free(&pw);
}

/* 1: this record is counted, not recorded now. */
static int
repeat_counted(struct policy *P, const struct audit_rec *r)
{
	uint64_t now = now_ms();
	char origin[FP_TEXT_MAX];
	const char *reason = r->reason != NULL ? r->reason : "";
	struct repeat_look l;
	int is_rest = 0;
	uint8_t who[32];

	audit_repeats_due(P);
	origin_of(P, r->conn, origin, sizeof(origin));
	if (repeat_who(P, r->conn, who) != 0)
		return 0;       /* recorded whole */
	repeat_look(r, origin, who, reason, &l);
	if (l.same != NULL) {
		l.same->count++;
		return 1;
	}
	if (l.mine >= AUDIT_COALESCE_PER_ORIGIN) {
		/* an origin that keeps finding new kinds (a reason can name a
		 * path the client chose): the rest of its kinds share one */
		if (l.rest != NULL) {
			l.rest->count++;
			return 1;
		}
		is_rest = 1;
	}
	repeat_open(P, l.fresh != NULL ? l.fresh : repeat_evict(P), r, origin,
	    who, reason, is_rest, now);
	return 0;
}

int
audit_repeats_due(struct policy *P)
{
	uint64_t now = now_ms(), window = AUDIT_COALESCE_WINDOW_S * 1000ULL;
	uint64_t next = 0;

	for (size_t i = 0; i < AUDIT_COALESCE_SLOTS; i++) {
		struct repeat *s = &repeats[i];
		if (!s->used)
			continue;
		if (s->opened_ms + window <= now) {
			repeat_flush(P, s);
			continue;
		}
		if (next == 0 || s->opened_ms + window < next)
			next = s->opened_ms + window;
	}
	return next == 0 ? -1 : (int)(next - now);
}

void
audit_repeats_flush(struct policy *P)
{
	if (!P->audit_on)
		return;
	for (size_t i = 0; i < AUDIT_COALESCE_SLOTS; i++)
		if (repeats[i].used)
			repeat_flush(P, &repeats[i]);
}

int
audit_repeat_counted(struct policy *P, const struct audit_rec *r)
{
	return coalesced(r) && repeat_counted(P, r);
}
