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

void
audit_key(struct wb *w, const char *k)
{
	if (w->len > 1)
		wb_u8(w, ',');
	text_json_str(w, k);
	wb_u8(w, ':');
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
		fatal("the auditor is gone; shutting down");
	return 0;
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
	    audit_repeat_counted(P, r))
		return 0;
	wb_init(&w);
	wb_u8(&w, '{');
	audit_time(&w);
	audit_key(&w, "event");
	text_json_str(&w, r->event);
	if (r->conn != NULL) {
		audit_num(&w, "conn", r->conn->id);
		audit_num(&w, "peer_uid", r->conn->uid);
		audit_num(&w, "peer_pid", r->conn->pid);
		/* A forwarded request's program on the socket is the user's
		 * ssh relaying it: named as the relay, never as who asked. */
		forwarded = conn_forwarded(r->conn);
		audit_key(&w, "origin");
		text_json_str(&w, forwarded ? "forwarded" : "local");
		audit_key(&w, forwarded ? "relay" : "peer");
		caller_json(&w, &r->conn->caller, r->conn->pid, r->conn->uid);
		if (forwarded) {
			audit_key(&w, "peer");
			wb_bytes(&w, "null", 4);
		}
		audit_key(&w, "socket");
		text_json_str(&w, scope_name(P->rules, r->conn->sock));
	} else {
		audit_key(&w, "conn");
		wb_bytes(&w, "null", 4);
	}
	if (r->id != NULL) {
		audit_key(&w, "key");
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
		/* where the key came from: a forwarded host's own key serves
		 * only that host (policy/keys.c id_owner_refuses), unless
		 * -O allow-remote-add, which the record says too */
		if (r->id->added_by != NULL) {
			char ofp[FP_TEXT_MAX];
			if (fingerprint((struct slice){ r->id->added_by,
			    r->id->added_by_len }, "sha256", ofp, sizeof(ofp)) != 0)
				snprintf(ofp, sizeof(ofp), "unknown");
			wb_bytes(&w, ",\"added_by_host\":", 17);
			text_json_str(&w, ofp);
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
		audit_key(&w, "token");
		wb_bytes(&w, tok, (size_t)n);
	}
	if (r->alg != SIG_NONE) {
		audit_key(&w, "alg");
		text_json_str(&w, sig_alg_name(r->alg));
	}
	if (r->conn != NULL)
		path(P, &w, r);
	if (pu != NULL) {
		purpose(P, &w, r, pu);
		data_hash(&w, pu);
	}
	if (r->count >= 0)
		audit_num(&w, "keys", r->count);
	if (r->rule != NULL && r->rule->line > 0) {
		char rb[96];
		int n = snprintf(rb, sizeof(rb), "{\"line\":%zu,\"action\":\"%s\"}",
		    r->rule->line, rules_action_name(r->rule->action));
		audit_key(&w, "rule");
		wb_bytes(&w, rb, (size_t)n);
		if (r->rule->action == RULE_CONFIRM) {
			audit_key(&w, "remembered");
			wb_bytes(&w, r->rule->remembered ? "true" : "false",
			    r->rule->remembered ? 4 : 5);
		}
	}
	audit_key(&w, "decision");
	text_json_str(&w, r->decision);
	audit_key(&w, "reason");
	text_json_str(&w, r->reason);
	wb_u8(&w, '}');
	return audit_send(P, &w, req);
}
