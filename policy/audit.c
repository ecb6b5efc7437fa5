/*
 * audit.c - the audit trail's records: one JSON object per line for every
 * decision (README.md lists the fields). Never a private key byte, never
 * a passphrase, never the signed data: only its SHA-256. Every string
 * goes through ipc/text.h, so a record is valid JSON and UTF-8 whatever
 * bytes a client chose. The auditor process writes them (policy/auditor.c).
 */
#include "crypto/crypto.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/text.h"
#include "policy/audit.h"
#include "policy/describe.h"
#include "policy/ruling.h"
#include "rules/scope.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static void
key(struct wb *w, const char *k)
{
	if (w->len > 1)
		wb_u8(w, ',');
	text_json_str(w, k);
	wb_u8(w, ':');
}

static void
num(struct wb *w, const char *k, long long v)
{
	char b[32];
	int n = snprintf(b, sizeof(b), "%lld", v);

	key(w, k);
	wb_bytes(w, b, (size_t)n);
}

static void
fp_of(const struct policy *P, struct slice blob, char *out, size_t n)
{
	if (fingerprint(blob, P->fp_hash, out, n) != 0)
		snprintf(out, n, "?");
}

static void
path(const struct policy *P, struct wb *w, const struct audit_rec *r)
{
	const struct bindings *b = &r->conn->bind;
	char fp[96];

	key(w, "path");
	wb_u8(w, '[');
	for (size_t i = 0; i < b->n; i++) {
		struct slice k = { b->b[i].key, b->b[i].keylen };
		const char *name = r->id != NULL ?
		    dest_host_name(&r->id->dest, k, time(NULL)) : NULL;
		fp_of(P, k, fp, sizeof(fp));
		if (i > 0)
			wb_u8(w, ',');
		wb_bytes(w, "{\"host_key\":", 12);
		text_json_str(w, fp);
		wb_bytes(w, ",\"forwarding\":", 14);
		wb_bytes(w, b->b[i].forwarding ? "true" : "false",
		    b->b[i].forwarding ? 4 : 5);
		wb_bytes(w, ",\"name\":", 8);
		text_json_str(w, name);
		wb_u8(w, '}');
	}
	wb_u8(w, ']');
	key(w, "bind_attempted");
	wb_bytes(w, b->attempted ? "true" : "false", b->attempted ? 4 : 5);
}

/* What the data is (policy/describe.c), and for a login its user and
 * server -- with whether they were verified against the connection's
 * session bindings, and why not where they were not. */
static void
purpose(const struct policy *P, struct wb *w, const struct audit_rec *r,
    const struct purpose *pu)
{
	static const char *const names[] = {
		[PURPOSE_OTHER] = "other", [PURPOSE_LOGIN] = "login",
		[PURPOSE_SSHSIG] = "sshsig",
	};
	const char *unverified;
	char fp[96];

	if (r->id == NULL || pu == NULL)
		return;
	key(w, "purpose");
	text_json_str(w, names[pu->kind]);
	if (pu->kind == PURPOSE_SSHSIG) {
		key(w, "namespace");
		text_json(w, pu->ns.p, pu->ns.len);
	}
	if (pu->kind != PURPOSE_LOGIN)
		return;
	unverified = purpose_unverified(pu, r->conn != NULL ? &r->conn->bind :
	    NULL);
	key(w, "user");
	text_json(w, pu->ua.user.p, pu->ua.user.len);
	if (pu->ua.hostbound) {
		fp_of(P, pu->ua.hostkey, fp, sizeof(fp));
		key(w, "server");
		text_json_str(w, fp);
	}
	key(w, "login_verified");
	wb_bytes(w, unverified == NULL ? "true" : "false",
	    unverified == NULL ? 4 : 5);
	key(w, "login_unverified_why");
	text_json_str(w, unverified);
}

static void
data_hash(struct wb *w, struct slice data)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[32];
	unsigned int n = 0;
	char out[65];

	if (EVP_Digest(data.p, data.len, md, &n, EVP_sha256(), NULL) != 1 || n != 32)
		return;
	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	key(w, "data_sha256");
	text_json_str(w, out);
}

static void
timestamp(struct wb *w)
{
	struct timeval tv;
	struct tm tm;
	char ts[40];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, (long)tv.tv_usec / 1000);
	key(w, "time");
	text_json_str(w, ts);
}

static int
send_record(struct policy *P, struct wb *w, uint32_t req)
{
	if (w->err || w->len > IPC_MAX_MSG - 64) {
		log_error("audit record too long; dropped");
		wb_free(w);
		return -1;
	}
	msg_begin(&P->out, MSG_AUDIT, req, 0);
	msg_blob_encode(&P->out, &(struct msg_blob){ wb_slice_of(w) });
	wb_free(w);
	if (chan_send(&P->au, &P->out) != 0)
		fatal("the auditor is gone; shutting down");
	return 0;
}

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

static void
origin_of(const struct policy *P, const struct conn *c, char *out, size_t n)
{
	const struct bindings *b = &c->bind;

	if (b->n > 0)
		fp_of(P, (struct slice){ b->b[0].key, b->b[0].keylen }, out, n);
	else
		snprintf(out, n, "%s", b->attempted ? "bind-attempted" : "");
}

/* The count of a closed window, as one record. */
static void
repeat_flush(struct policy *P, struct repeat *s)
{
	struct wb w;

	if (s->count > 0) {
		wb_init(&w);
		wb_u8(&w, '{');
		timestamp(&w);
		key(&w, "event");
		text_json_str(&w, s->event);
		key(&w, "conn");
		wb_bytes(&w, "null", 4);
		num(&w, "peer_uid", s->uid);
		if (s->peer != NULL) {
			key(&w, "peer");
			wb_bytes(&w, s->peer, strlen(s->peer));
		}
		key(&w, "origin_host_key");
		text_json_str(&w, s->origin[0] != '\0' ? s->origin : NULL);
		key(&w, "socket");
		text_json_str(&w, s->socket);
		num(&w, "repeated", (long long)s->count);
		num(&w, "window_s", AUDIT_COALESCE_WINDOW_S);
		key(&w, "decision");
		text_json_str(&w, s->decision);
		key(&w, "reason");
		text_json_str(&w, s->reason);
		wb_u8(&w, '}');
		send_record(P, &w, 0);
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
audit_emit(struct policy *P, const struct audit_rec *r, uint32_t req)
{
	return audit_sign(P, r, NULL, req);
}

int
audit_sign(struct policy *P, const struct audit_rec *r,
    const struct purpose *pu, uint32_t req)
{
	struct wb w;
	int forwarded;

	if (!P->audit_on)
		return 0;
	if (req == 0 && r->conn != NULL && r->decision != NULL &&
	    coalesced(r) && repeat_counted(P, r))
		return 0;
	wb_init(&w);
	wb_u8(&w, '{');
	timestamp(&w);
	key(&w, "event");
	text_json_str(&w, r->event);
	if (r->conn != NULL) {
		num(&w, "conn", r->conn->id);
		num(&w, "peer_uid", r->conn->uid);
		num(&w, "peer_pid", r->conn->pid);
		/* A forwarded request's program on the socket is the user's
		 * ssh relaying it: named as the relay, never as who asked. */
		forwarded = bindings_forwarded(&r->conn->bind);
		key(&w, "origin");
		text_json_str(&w, forwarded ? "forwarded" : "local");
		key(&w, forwarded ? "relay" : "peer");
		caller_json(&w, &r->conn->caller, r->conn->pid, r->conn->uid);
		if (forwarded) {
			key(&w, "peer");
			wb_bytes(&w, "null", 4);
		}
		key(&w, "socket");
		text_json_str(&w, scope_name(P->rules, r->conn->sock));
	} else {
		key(&w, "conn");
		wb_bytes(&w, "null", 4);
	}
	if (r->id != NULL) {
		key(&w, "key");
		wb_bytes(&w, "{\"fingerprint\":", 15);
		text_json_str(&w, r->id->fp);
		wb_bytes(&w, ",\"comment\":", 11);
		text_json_str(&w, r->id->comment);
		wb_bytes(&w, ",\"type\":", 8);
		text_json_str(&w, key_kind_name(r->id->kind));
		wb_bytes(&w, ",\"certificate\":", 15);
		wb_bytes(&w, r->id->is_cert ? "true" : "false", r->id->is_cert ? 4 : 5);
		wb_bytes(&w, ",\"destination_constrained\":", 27);
		wb_bytes(&w, r->id->dest.n ? "true" : "false", r->id->dest.n ? 4 : 5);
		if (r->id->provider != NULL) {
			wb_bytes(&w, ",\"provider\":", 12);
			text_json_str(&w, r->id->provider);
		}
		wb_u8(&w, '}');
	}
	if (r->sk != NULL) {
		/* what the authenticator asserted, in the signature it made */
		char tok[128];
		int n = snprintf(tok, sizeof(tok), "{\"user_presence\":%s,"
		    "\"user_verification\":%s,\"counter\":%lu}",
		    r->sk->flags & SK_FLAG_USER_PRESENCE ? "true" : "false",
		    r->sk->flags & SK_FLAG_USER_VERIFICATION ? "true" : "false",
		    (unsigned long)r->sk->counter);
		key(&w, "token");
		wb_bytes(&w, tok, (size_t)n);
	}
	if (r->alg != SIG_NONE) {
		key(&w, "alg");
		text_json_str(&w, sig_alg_name(r->alg));
	}
	if (r->conn != NULL)
		path(P, &w, r);
	if (r->data.p != NULL) {
		purpose(P, &w, r, pu);
		data_hash(&w, r->data);
	}
	if (r->count >= 0)
		num(&w, "keys", r->count);
	if (r->rule != NULL && r->rule->line > 0) {
		char rb[96];
		int n = snprintf(rb, sizeof(rb), "{\"line\":%zu,\"action\":\"%s\"}",
		    r->rule->line, rules_action_name(r->rule->action));
		key(&w, "rule");
		wb_bytes(&w, rb, (size_t)n);
		if (r->rule->action == RULE_CONFIRM) {
			key(&w, "remembered");
			wb_bytes(&w, r->rule->remembered ? "true" : "false",
			    r->rule->remembered ? 4 : 5);
		}
	}
	key(&w, "decision");
	text_json_str(&w, r->decision);
	key(&w, "reason");
	text_json_str(&w, r->reason);
	wb_u8(&w, '}');
	return send_record(P, &w, req);
}
