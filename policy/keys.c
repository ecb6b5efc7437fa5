/*
 * keys.c - the identity table's requests: list, remove, remove all, and
 * expiry (an add: add.c).
 */
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "policy/audit.h"
#include "policy/describe.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
#include "wire/agent.h"
#include "rules/scope.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Is identity I usable at all on connection C (doc/protocol.md §8.4 with u = ANY)? */
const char *
id_owner_refuses(const struct identity *id, const struct conn *c)
{
	struct origin o;

	if (id->owner == NULL)
		return NULL;
	conn_origin(c, &o);
	if (o.kind == ORIGIN_FORWARDED &&
	    slice_eq(o.host, (struct slice){ id->owner, id->owner_len }))
		return NULL;
	return "the key was added by a forwarded host and serves only "
	    "connections forwarded from that host (keyward -O allow-remote-add)";
}

int
id_visible(const struct identity *id, const struct conn *c, struct verdict *v)
{
	if ((v->rule = id_owner_refuses(id, c)) != NULL) {
		v->hop = 0;
		return 0;
	}
	return path_permitted(&id->dest, &c->bind, NULL, time(NULL), v);
}

/* Is it listed on the connection's socket (rules/scope.h)? */
static int
in_scope(const struct policy *P, const struct identity *id,
    const struct conn *c)
{
	char fp[FP_TEXT_MAX];

	if (c == NULL || c->sock == 0)
		return 1;
	if (fingerprint((struct slice){ id->blob, id->blob_len }, "sha256",
	    fp, sizeof(fp)) != 0)
		fatal("cannot fingerprint a key held");
	return scope_may_list(P->rules, c->sock, fp, id->comment, id->sock);
}

void
kh_delete(struct policy *P, uint64_t key_id)
{
	struct msg_kh_delete m = { key_id };

	msg_begin(&P->out, MSG_KH_DELETE, 0, 0);
	msg_kh_delete_encode(&P->out, &m);
	send_to(&P->kh, &P->out, "keyholder");
}

void
keys_expiry_changed(struct policy *P)
{
	P->next_expiry_ms = 0;
	for (size_t i = 0; i < P->ids.n; i++) {
		uint64_t e = P->ids.order[i]->expiry_ms;
		if (e != 0 && (P->next_expiry_ms == 0 || e < P->next_expiry_ms))
			P->next_expiry_ms = e;
	}
}

void
keys_expiry_added(struct policy *P, uint64_t expiry_ms)
{
	/* The earliest expiry can only move closer: no scan of the table,
	 * which made each of n adds cost O(n). */
	if (expiry_ms != 0 && (P->next_expiry_ms == 0 ||
	    expiry_ms < P->next_expiry_ms))
		P->next_expiry_ms = expiry_ms;
}

static void
drop_identity(struct policy *P, struct identity *id, const char *why,
    const struct conn *c)
{
	log_info("%s: %s %s \"%s\"", why, key_kind_name(id->kind), id->fp,
	    id->comment);
	audit_simple(P, c != NULL ? "remove" : "expire", "allow",
	    c != NULL ? NULL : why, c, id);
	if (!id->p11)
		kh_delete(P, id->key_id);
	idt_remove(&P->ids, id);
	identity_free(id);
}

void
keys_expire(struct policy *P)
{
	uint64_t now = now_ms();

	if (P->next_expiry_ms == 0 || now < P->next_expiry_ms)
		return;
	for (size_t i = P->ids.n; i-- > 0;) {
		struct identity *id = P->ids.order[i];
		if (id->expiry_ms != 0 && id->expiry_ms <= now)
			drop_identity(P, id, "lifetime expired, removed", NULL);
	}
	keys_expiry_changed(P);
}

/* Has the table, or this connection's bindings, changed since its last
 * list logged what it hid? Records the state either way. */
static int
list_news(struct policy *P, struct conn *cn)
{
	int news = !cn->hid.told || cn->hid.gen != P->ids.gen ||
	    cn->hid.nbind != cn->bind.n || cn->hid.attempted != cn->bind.attempted ||
	    cn->hid.failed != cn->bind.failed;

	cn->hid.told = 1;
	cn->hid.gen = P->ids.gen;
	cn->hid.nbind = cn->bind.n;
	cn->hid.attempted = cn->bind.attempted;
	cn->hid.failed = cn->bind.failed;
	return news;
}

int
h_list(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_identities m = { 0, { NULL, 0 } };
	struct wb e;
	int whole = 1;          /* nothing hidden, nothing cut (listcache.h) */

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	/* A client may list as often as it likes: what it is not shown is
	 * logged once for each state of the table and of its bindings, and a
	 * cut list once for each key count, or the log would grow by a line
	 * a hidden key for every request. */
	int tell_hidden = list_news(P, c->conn);
	wb_init(&e);
	for (size_t i = 0; i < P->ids.n; i++) {
		struct identity *id = P->ids.order[i];
		size_t need = 8 + id->blob_len + strlen(id->comment);
		struct verdict v;
		if (!id_visible(id, c->conn, &v)) {        /* doc/protocol.md §8.5 */
			char path[1024];
			whole = 0;
			if (!tell_hidden)
				continue;
			describe_path(P, id, &c->conn->bind, path, sizeof(path));
			log_info("connection %u: %s %s \"%s\" not listed: %s (hop %zu "
			    "of path %s)", c->h.conn, key_kind_name(id->kind), id->fp,
			    id->comment, v.rule, v.hop + 1, path);
			continue;
		}
		if (!in_scope(P, id, c->conn)) {
			whole = 0;
			continue;       /* the socket's scope: not logged */
		}
		/* Clients refuse answers over 256 KiB; send what they accept. */
		if (e.len + need + 16 > AGENT_MAX_FRAME) {
			if (P->cut_told != P->ids.n)
				log_error("identity list cut at %u of %zu keys: clients "
				    "refuse answers over 256 KiB", m.n, P->ids.n);
			P->cut_told = P->ids.n;
			whole = 0;
			break;
		}
		agent_identity_entry(&e, (struct slice){ id->blob, id->blob_len },
		    id->comment);
		m.n++;
	}
	m.entries = wb_slice_of(&e);
	struct audit_rec r = { "list", "allow", NULL, c->conn, NULL, SIG_NONE,
	    m.n, NULL, NULL };
	audit_emit(P, &r, 0);
	msg_begin(&P->out, MSG_R_IDENTITIES, c->h.req, c->h.conn);
	msg_identities_encode(&P->out, &m);
	send_to(&P->mon, &P->out, "monitor");
	listcache_offer(P, c->conn, &m, whole);
	wb_free(&e);
	return 0;
}

int
h_remove(struct ctx *c)
{
	struct policy *P = c->P;
	struct slice key;
	struct identity *id;
	struct verdict v;

	if (msg_string_read(&c->r, &key) != 0)
		return -1;
	id = idt_find_request(&P->ids, key);
	if (id == NULL || !id_visible(id, c->conn, &v) ||
	    !in_scope(P, id, c->conn)) {
		ctx_reply(c, ST_FAIL);
		return 0;
	}
	drop_identity(P, id, "removed", c->conn);
	keys_expiry_changed(P);
	ctx_reply(c, ST_OK);
	return 0;
}

int
h_remove_all(struct ctx *c)
{
	struct policy *P = c->P;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	if (c->conn != NULL && c->conn->sock != 0) {
		/* a "manage" socket's: the keys it lists, no more */
		for (size_t i = P->ids.n; i-- > 0;) {
			struct identity *id = P->ids.order[i];
			if (in_scope(P, id, c->conn))
				drop_identity(P, id, "removed", c->conn);
		}
		keys_expiry_changed(P);
		ctx_reply(c, ST_OK);
		return 0;
	}
	p11_remove_all(P);
	while (P->ids.n > 0) {
		struct identity *id = P->ids.order[P->ids.n - 1];
		idt_remove(&P->ids, id);
		identity_free(id);
	}
	msg_begin(&P->out, MSG_KH_WIPE, 0, 0);
	send_to(&P->kh, &P->out, "keyholder");
	P->next_expiry_ms = 0;
	log_info("all identities removed");
	audit_simple(P, "remove-all", "allow", c->h.conn == 0 ? "SIGUSR1" : NULL,
	    c->conn, NULL);
	if (c->h.conn != 0)
		ctx_reply(c, ST_OK);
	return 0;
}
