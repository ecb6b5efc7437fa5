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

/* 1: this record is counted, not recorded now. */
static int
repeat_counted(struct policy *P, const struct audit_rec *r)
{
	uint64_t now = now_ms();
	char origin[FP_TEXT_MAX];
	const char *reason = r->reason != NULL ? r->reason : "";
	struct repeat *s = NULL, *fresh = NULL, *rest = NULL;
	size_t mine = 0;
	int is_rest = 0;
	uint8_t who[32];
	unsigned int wn = 0;
	struct wb pw;

	audit_repeats_due(P);
	origin_of(P, r->conn, origin, sizeof(origin));
	wb_init(&pw);
	caller_json(&pw, &r->conn->caller, r->conn->pid, r->conn->uid);
	/* who: the caller's record (a process: a forwarded server's
	 * requests all come through the user's one ssh) and the socket */
	wb_string(&pw, scope_name(P->rules, r->conn->sock),
	    strlen(scope_name(P->rules, r->conn->sock)));
	if (pw.err || EVP_Digest(pw.p, pw.len, who, &wn, EVP_sha256(), NULL) != 1 ||
	    wn != sizeof(who)) {
		wb_free(&pw);
		return 0;       /* recorded whole */
	}
	wb_free(&pw);
	wb_init(&pw);
	caller_json(&pw, &r->conn->caller, r->conn->pid, r->conn->uid);
	for (size_t i = 0; i < AUDIT_COALESCE_SLOTS; i++) {
		struct repeat *q = &repeats[i];
		if (!q->used) {
			if (fresh == NULL)
				fresh = q;
			continue;
		}
		if (q->uid != r->conn->uid || strcmp(q->origin, origin) != 0 ||
		    memcmp(q->who, who, sizeof(who)) != 0)
			continue;
		mine++;
		if (q->rest)
			rest = q;
		else if (strcmp(q->event, r->event) == 0 &&
		    strcmp(q->decision, r->decision) == 0 &&
		    strncmp(q->reason, reason, REASON_KEEP - 1) == 0) {
			s = q;
			break;
		}
	}
	if (s == NULL && mine >= AUDIT_COALESCE_PER_ORIGIN) {
		/* an origin that keeps finding new kinds (a reason can name a
		 * path the client chose): the rest of its kinds share one */
		if (rest != NULL) {
			rest->count++;
			wb_free(&pw);
			return 1;
		}
		is_rest = 1;
	}
	if (s == NULL && fresh == NULL) {
		/* every slot taken: the window opened first closes early (its
		 * count recorded now), so a new kind or origin is still
		 * recorded whole */
		fresh = &repeats[0];
		for (size_t i = 1; i < AUDIT_COALESCE_SLOTS; i++)
			if (repeats[i].opened_ms < fresh->opened_ms)
				fresh = &repeats[i];
		repeat_flush(P, fresh);
	}
	if (s != NULL) {
		s->count++;
		wb_free(&pw);
		return 1;
	}
	fresh->used = 1;
	fresh->uid = r->conn->uid;
	fresh->opened_ms = now;
	fresh->rest = is_rest;
	snprintf(fresh->event, sizeof(fresh->event), "%s", is_rest ? "repeats" :
	    r->event);
	snprintf(fresh->decision, sizeof(fresh->decision), "%s", is_rest ?
	    "any" : r->decision);
	snprintf(fresh->reason, sizeof(fresh->reason), "%s", is_rest ?
	    "other kinds from this origin" : reason);
	snprintf(fresh->origin, sizeof(fresh->origin), "%s", origin);
	snprintf(fresh->socket, sizeof(fresh->socket), "%s",
	    scope_name(P->rules, r->conn->sock));
	memcpy(fresh->who, who, sizeof(who));
	wb_u8(&pw, '\0');
	fresh->peer = pw.err ? NULL : strdup((const char *)pw.p);
	wb_free(&pw);
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
