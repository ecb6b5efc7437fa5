/*
 * audit.c - the audit trail's records: one JSON object per line for every
 * decision (README.md lists the fields). Never a private key byte, never
 * a passphrase, never the signed data: only its SHA-256. Every string
 * goes through ipc/text.h, so a record is valid JSON and UTF-8 whatever
 * bytes a client chose. The auditor process writes them (keyward-auditor,
 * auditor/); the repeats a client can make at will are counted, not
 * recorded each (audit_repeats.c).
 */
#include "crypto/crypto.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "ipc/text.h"
#include "policy/audit.h"
#include "policy/audit_int.h"
#include "policy/describe.h"
#include "policy/origin.h"
#include "policy/ruling.h"
#include "rules/scope.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* A comma before every field but the first of its object or array. */
void
audit_key(struct wb *w, const char *k)
{
	if (w->len > 0 && w->p[w->len - 1] != '{' && w->p[w->len - 1] != '[')
		wb_u8(w, ',');
	text_json_str(w, k);
	wb_u8(w, ':');
}

void
audit_bool(struct wb *w, const char *k, int v)
{
	audit_key(w, k);
	wb_bytes(w, v ? "true" : "false", v ? 4 : 5);
}

void
audit_str(struct wb *w, const char *k, const char *v)
{
	audit_key(w, k);
	text_json_str(w, v);            /* NULL: null */
}

void
audit_num(struct wb *w, const char *k, long long v)
{
	char b[32];
	int n = snprintf(b, sizeof(b), "%lld", v);

	audit_key(w, k);
	wb_bytes(w, b, (size_t)n);
}

void
audit_fp(const struct policy *P, struct slice blob, char *out, size_t n)
{
	if (fingerprint(blob, P->fp_hash, out, n) != 0)
		snprintf(out, n, "?");
}

static void
path(const struct policy *P, struct wb *w, const struct audit_rec *r)
{
	const struct bindings *b = &r->conn->bind;
	char fp[96];

	audit_key(w, "path");
	wb_u8(w, '[');
	for (size_t i = 0; i < b->n; i++) {
		struct slice k = { b->b[i].key, b->b[i].keylen };
		const char *name = r->id != NULL ?
		    dest_host_name(&r->id->dest, k, time(NULL)) : NULL;
		audit_fp(P, k, fp, sizeof(fp));
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
	audit_key(w, "bind_attempted");
	wb_bytes(w, b->attempted ? "true" : "false", b->attempted ? 4 : 5);
	/* a refused bind: the origin is unknown for the connection's life */
	audit_key(w, "bind_failed");
	wb_bytes(w, b->failed ? "true" : "false", b->failed ? 4 : 5);
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
	audit_key(w, "purpose");
	text_json_str(w, names[pu->kind]);
	if (pu->kind == PURPOSE_SSHSIG) {
		audit_key(w, "namespace");
		text_json(w, pu->ns.p, pu->ns.len);
	}
	if (pu->kind != PURPOSE_LOGIN)
		return;
	unverified = purpose_unverified(pu, r->conn != NULL ? &r->conn->bind :
	    NULL);
	audit_key(w, "user");
	text_json(w, pu->ua.user.p, pu->ua.user.len);
	if (pu->ua.hostbound) {
		audit_fp(P, pu->ua.hostkey, fp, sizeof(fp));
		audit_key(w, "server");
		text_json_str(w, fp);
	}
	audit_key(w, "login_verified");
	wb_bytes(w, unverified == NULL ? "true" : "false",
	    unverified == NULL ? 4 : 5);
	audit_key(w, "login_unverified_why");
	text_json_str(w, unverified);
}

/* The data is never recorded, only its SHA-256 (purpose.h). */
static void
data_hash(struct wb *w, const struct purpose *pu)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t md[PURPOSE_SHA256_LEN];
	char out[2 * PURPOSE_SHA256_LEN + 1];

	if (purpose_sha256(pu, md) != 0)
		return;
	for (int i = 0; i < PURPOSE_SHA256_LEN; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * PURPOSE_SHA256_LEN] = '\0';
	audit_key(w, "data_sha256");
	text_json_str(w, out);
}

void
audit_time(struct wb *w)
{
	struct timeval tv;
	struct tm tm;
	char ts[40];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, (long)tv.tv_usec / 1000);
	audit_key(w, "time");
	text_json_str(w, ts);
}

int
audit_send(struct policy *P, struct wb *w, uint32_t req)
{
	if (w->err || w->len > IPC_MAX_MSG - 64) {
		log_error("audit record too long; dropped");
		wb_free(w);
		return -1;
	}
	msg_audit_write(&P->out, req, wb_slice_of(w));
	wb_free(w);
	if (chan_send(&P->au, &P->out) != 0)
		peer_broke("auditor", "is gone while policy still needs it");
	return 0;
}

int
audit_emit(struct policy *P, const struct audit_rec *r, uint32_t req)
{
	return audit_sign(P, r, NULL, req);
}

/* Who asked: the connection, its peer, where it comes from. A forwarded
 * request's program on the socket is the user's ssh relaying it: named
 * as the relay, never as who asked. */
static void
who_part(const struct policy *P, struct wb *w, const struct conn *c)
{
	int forwarded;

	if (c == NULL) {
		audit_key(w, "conn");
		wb_bytes(w, "null", 4);
		return;
	}
	audit_num(w, "conn", c->id);
	audit_num(w, "peer_uid", c->uid);
	audit_num(w, "peer_pid", c->pid);
	forwarded = conn_forwarded(c);
	audit_str(w, "origin", forwarded ? "forwarded" : "local");
	audit_key(w, forwarded ? "relay" : "peer");
	caller_json(w, &c->caller, c->pid, c->uid);
	if (forwarded) {
		audit_key(w, "peer");
		wb_bytes(w, "null", 4);
	}
	audit_str(w, "socket", scope_name(P->rules, c->sock));
}

/* The key the record is about, and where it came from: a forwarded
 * host's own key serves only that host (policy/keys.c id_owner_refuses),
 * unless -O allow-remote-add, which the record says too. */
static void
key_part(struct wb *w, const struct identity *id)
{
	char ofp[FP_TEXT_MAX];

	audit_key(w, "key");
	wb_u8(w, '{');
	audit_str(w, "fingerprint", id->fp);
	audit_str(w, "comment", id->comment);
	audit_str(w, "type", key_kind_name(id->kind));
	audit_bool(w, "certificate", id->is_cert);
	audit_bool(w, "destination_constrained", id->dest.n > 0);
	if (id->provider != NULL)
		audit_str(w, "provider", id->provider);
	if (id->added_by != NULL) {
		if (fingerprint((struct slice){ id->added_by, id->added_by_len },
		    "sha256", ofp, sizeof(ofp)) != 0)
			snprintf(ofp, sizeof(ofp), "unknown");
		audit_str(w, "added_by_host", ofp);
	}
	wb_u8(w, '}');
}

/* What the authenticator asserted, in the signature it made. */
static void
token_part(struct wb *w, const struct sk_result *sk)
{
	audit_key(w, "token");
	wb_u8(w, '{');
	audit_bool(w, "user_presence", sk->flags & SK_FLAG_USER_PRESENCE);
	audit_bool(w, "user_verification", sk->flags & SK_FLAG_USER_VERIFICATION);
	audit_num(w, "counter", (long long)sk->counter);
	wb_u8(w, '}');
}

/* The rule that decided, and for a confirm whether a remembered yes did. */
static void
rule_part(struct wb *w, const struct ruling *h)
{
	audit_key(w, "rule");
	wb_u8(w, '{');
	audit_num(w, "line", (long long)h->line);
	audit_str(w, "action", rules_action_name(h->action));
	wb_u8(w, '}');
	if (h->action == RULE_CONFIRM)
		audit_bool(w, "remembered", h->remembered);
}

int
audit_sign(struct policy *P, const struct audit_rec *r,
    const struct purpose *pu, uint32_t req)
{
	struct wb w;

	if (!P->audit_on)
		return 0;
	if (req == 0 && r->conn != NULL && r->decision != NULL &&
	    audit_repeat_counted(P, r))
		return 0;
	wb_init(&w);
	wb_u8(&w, '{');
	audit_time(&w);
	audit_str(&w, "event", r->event);
	who_part(P, &w, r->conn);
	if (r->id != NULL)
		key_part(&w, r->id);
	if (r->sk != NULL)
		token_part(&w, r->sk);
	if (r->alg != SIG_NONE)
		audit_str(&w, "alg", sig_alg_name(r->alg));
	if (r->conn != NULL)
		path(P, &w, r);
	if (pu != NULL) {
		purpose(P, &w, r, pu);
		data_hash(&w, pu);
	}
	if (r->count >= 0)
		audit_num(&w, "keys", r->count);
	if (r->rule != NULL && r->rule->line > 0)
		rule_part(&w, r->rule);
	audit_str(&w, "decision", r->decision);
	audit_str(&w, "reason", r->reason);
	wb_u8(&w, '}');
	return audit_send(P, &w, req);
}

void
audit_simple(struct policy *P, const char *event, const char *decision,
    const char *reason, const struct conn *c, const struct identity *id)
{
	struct audit_rec r = { event, decision, reason, c, id, SIG_NONE, -1,
	    NULL, NULL };

	audit_emit(P, &r, 0);
}
