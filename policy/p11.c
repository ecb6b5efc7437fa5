/*
 * p11.c - PKCS#11 providers: ssh-add -s and -e (doc/protocol.md §5.7). Each provider
 * has one keyward-pkcs11 process, started and kept by the broker; its keys
 * become identities that carry the add's constraints, every one of them
 * (the CVE-2023-51384 lesson), and sign through that helper:
 *
 *   add:    h_p11_add --(forwarded, no -O allow-remote-pkcs11: refused)-->
 *           RESOLVE (broker: realpath) --allowed by -P, not loaded-->
 *           P11_LOGIN (the broker starts the helper, which logs in with
 *           the PIN and lists the keys) --> an identity a key --> reply
 *           (a barrier from first to last, as an ADD)
 *   sign:   (judged, confirmed, audited as any key; sign.c) --> P11_SIGN
 *           (the provider's helper) --verified against the listed key--> reply
 *   remove: h_p11_remove --> RESOLVE --> its keys dropped, helper stopped
 *   gone:   the helper ended (MSG_R_P11_GONE) --> its keys dropped, logged
 *
 * The PIN passes through policy once, to the broker, and is wiped.
 * Certificates sent with the add (associated-certs, doc/protocol.md §6.7)
 * are grafted onto the listed key each certifies: an identity of their
 * own that its token signs for, listed before that key, which is left out
 * when the client asked for certificates only.
 */
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "wire/pkcs11.h"
#include "ipc/text.h"
#include "keys/assoc.h"
#include "policy/audit.h"
#include "policy/describe.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
#include "policy/token.h"
#include "rules/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
p11_refuse(struct policy *P, struct pending *p, const char *event,
    const char *why)
{
	log_info("refused %s: %s", event, why);
	audit_simple(P, event, "refuse", why, conn_find(P, p->conn), NULL);
	reply_status(P, p->conn, p->req, ST_FAIL);
	pending_free(P, p);
}

static void
p11_stop(struct policy *P, const char *provider)
{
	msg_tk_p11_stop_write(&P->out,
	    (struct slice){ (const uint8_t *)provider, strlen(provider) });
	send_to(&P->tk, &P->out, "broker");
}

/* Drop every identity of a provider; how many there were. */
static size_t
p11_drop(struct policy *P, const char *provider, const char *why,
    const struct conn *c)
{
	size_t n = 0;

	for (size_t i = P->ids.n; i-- > 0;) {
		struct identity *id = P->ids.order[i];
		if (!id->p11 || strcmp(id->provider, provider) != 0)
			continue;
		log_info("%s: %s %s \"%s\"", why, key_kind_name(id->kind), id->fp,
		    id->comment);
		audit_simple(P, c != NULL ? "remove" : "expire", "allow",
		    c != NULL ? NULL : why, c, id);
		idt_remove(&P->ids, id);
		identity_free(id);
		n++;
	}
	return n;
}

/* assoc_parse's callback in an add: a certificate must verify before it
 * is kept (a plain key in the list is skipped at the graft, as OpenSSH's
 * agent skips it). */
static int
p11_cert_verifies(void *ctx, struct slice blob, const struct pubkey *k)
{
	const char **why = ctx;

	(void)blob;
	if (k->is_cert && cert_verify(k) != 0) {
		*why = "an associated certificate's signature does not verify";
		return -1;
	}
	return 0;
}

int
h_p11_add(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_p11_add m;
	struct dest_set check = { 0 };
	const char *why = NULL;
	struct pending *p;
	struct origin o;

	if (msg_p11_add_decode(&c->r, &m) != 0)
		return -1;
	if (conn_remote(c->conn) && !P->args.allow_remote_providers) {
		/* doc/protocol.md §5.7, §8.10: a forwarded connection loads no library */
		log_info("refused PKCS#11 add: a forwarded connection may not "
		    "load a provider (keyward -O allow-remote-pkcs11)");
		audit_simple(P, "add", "refuse", "a forwarded connection may not "
		    "load a PKCS#11 provider", c->conn, NULL);
		ctx_reply(c, ST_FAIL);
		return 0;
	}
	if (m.c.has_provider || (m.c.has_dest &&
	    dest_set_build(&check, m.c.dest, &why) != 0)) {
		dest_set_free(&check);
		log_info("refused PKCS#11 add: %s", why != NULL ? why :
		    "an sk-provider constraint on a PKCS#11 add");
		ctx_reply(c, ST_FAIL);
		return 0;
	}
	dest_set_free(&check);
	why = NULL;
	/* a forwarded host's keys are its own, as an ADD's (add.c) */
	if (add_origin(P, c->conn, &o, &why) != 0 || (m.c.has_certs &&
	    assoc_parse(m.c.certs, p11_cert_verifies, &why, &why) < 0)) {
		log_info("refused PKCS#11 add: %s", why);
		audit_simple(P, "add", "refuse", why, c->conn, NULL);
		ctx_reply(c, ST_FAIL);
		return 0;
	}
	p = pending_new(c, P_RESOLVE);
	p->p11 = P11_ADDING;
	/* what each key will carry: the constraints as sent */
	p->keep.has_lifetime = m.c.has_lifetime;
	p->keep.lifetime = m.c.lifetime;
	p->keep.confirm = m.c.confirm;
	p->keep.has_dest = m.c.has_dest;
	if (m.c.has_dest)
		wb_bytes(&p->data, m.c.dest.p, m.c.dest.len);
	p->keep.certs_only = m.c.has_certs && m.c.certs_only;
	p->keep.added_over = o.kind;
	wb_bytes(&p->origin, o.host.p, o.host.len);
	if (m.c.has_certs)
		wb_bytes(&p->keep.certs, m.c.certs.p, m.c.certs.len);
	wb_bytes(&p->pin, m.pin.p, m.pin.len);
	token_resolve(P, p, m.provider);
	return 0;
}

int
h_p11_remove(struct ctx *c)
{
	struct slice provider;
	struct pending *p;

	if (msg_string_read(&c->r, &provider) != 0)
		return -1;
	p = pending_new(c, P_RESOLVE);
	p->p11 = P11_REMOVING;
	token_resolve(c->P, p, provider);
	return 0;
}

/* Is any identity this provider's? */
static int
p11_loaded(const struct policy *P, const char *provider)
{
	for (size_t i = 0; i < P->ids.n; i++)
		if (P->ids.order[i]->p11 &&
		    strcmp(P->ids.order[i]->provider, provider) == 0)
			return 1;
	return 0;
}

/* The broker resolved the provider (path.p NULL: it could not). */
void
p11_resolved(struct policy *P, struct pending *p, struct slice path)
{
	const char *event = p->p11 == P11_ADDING ? "add" : "remove";
	char real[TOKEN_MAX_PATH], shown[TEXT_TERM_MAX], why[TOKEN_MAX_PATH + 64];
	struct wb req;

	if (path.p == NULL || path.len == 0 || path.len >= sizeof(real) ||
	    memchr(path.p, '\0', path.len) != NULL) {
		p11_refuse(P, p, event, "the PKCS#11 provider path does not resolve");
		return;
	}
	memcpy(real, path.p, path.len);
	real[path.len] = '\0';
	text_term_str(shown, sizeof(shown), real);
	if (p->p11 == P11_REMOVING) {
		size_t n = p11_drop(P, real, "PKCS#11 provider removed",
		    conn_find(P, p->conn));
		p11_stop(P, real);
		log_info("PKCS#11 provider %s: %zu key(s) removed", shown, n);
		reply_status(P, p->conn, p->req, n > 0 ? ST_OK : ST_FAIL);
		pending_free(P, p);
		return;
	}
	if (!match_list(real, P->args.providers)) {
		snprintf(why, sizeof(why), "PKCS#11 provider %s is not allowed by -P",
		    shown);
		p11_refuse(P, p, event, why);
		return;
	}
	if (p11_loaded(P, real)) {
		snprintf(why, sizeof(why), "PKCS#11 provider %s is already loaded",
		    shown);
		p11_refuse(P, p, event, why);
		return;
	}
	p->p11_provider = str_dup(real);
	wb_init(&req);
	p11_login_encode(&req, wb_slice_of(&p->pin));
	wb_free_secret(&p->pin);
	msg_begin(&P->out, MSG_TK_P11_START, p->id, p->conn);
	msg_tk_sign_encode(&P->out, &(struct msg_tk_sign){
	    { (const uint8_t *)real, strlen(real) }, wb_slice_of(&req) });
	wb_free_secret(&req);
	p->state = P_P11_LOGIN;
	pending_keep(P, p);
	send_to(&P->tk, &P->out, "broker");
	wipe(P->out.p, P->out.len);
}

/* A listed key fit to be an identity: its parse and canonical blob in
 * *plain; -1 (and a log line) when it cannot be one. */
static int
p11_token_key(const struct p11_key *k, uint32_t index, struct pubkey *pub,
    struct wb *plain)
{
	const char *why = NULL;

	wb_init(plain);
	if (key_canonical(k->blob, pub, plain, &why) != 0 || pub->is_cert ||
	    key_is_sk(pub->kind)) {
		log_info("PKCS#11 key %u skipped: %s", index, why != NULL ? why :
		    "not a plain key");
		wb_free(plain);
		return -1;
	}
	if ((k->flags & P11_KEY_ALWAYS_AUTH) != 0) {
		/* it would need the PIN kept for every signature */
		log_info("PKCS#11 key %u skipped: it asks for the PIN at every "
		    "signature (CKA_ALWAYS_AUTHENTICATE)", index);
		wb_free(plain);
		return -1;
	}
	return 0;
}

/* Token key index as an identity with the add's constraints: blob (the
 * identity takes its buffer) is the plain key's or a certificate of it
 * (pub parsed from it); plain, the plain key's, names its fingerprint,
 * as add.c names a certificate's. */
static struct identity *
p11_identity(struct policy *P, struct pending *p, const struct p11_key *k,
    uint32_t index, struct wb *blob, const struct pubkey *pub,
    struct slice plain)
{
	struct identity *id;
	const char *why = NULL;

	if ((id = calloc(1, sizeof(*id))) == NULL)
		fatal("out of memory");
	if (fingerprint(plain, P->fp_hash, id->fp, sizeof(id->fp)) != 0)
		fatal("cannot fingerprint a parsed key");
	id->blob = blob->p;
	id->blob_len = blob->len;
	wb_init(blob);
	id->comment = k->label.len > 0 ? slice_strdup(k->label) :
	    str_dup(p->p11_provider);
	if (id->comment == NULL)
		fatal("out of memory");
	id->kind = pub->kind;
	id->is_cert = pub->is_cert;
	id->p11 = 1;
	id->p11_key = index;
	id->provider = str_dup(p->p11_provider);
	id->key_id = ++P->next_key_id;
	id->confirm = p->keep.confirm;
	id_set_added(P, id, &(struct origin){ .kind = p->keep.added_over,
	    .host = wb_slice_of(&p->origin) });
	if (p->keep.has_dest &&
	    dest_set_build(&id->dest, wb_slice_of(&p->data), &why) != 0)
		fatal("a destination constraint checked at the add no longer builds");
	id->cost = id->blob_len + strlen(id->comment) + strlen(id->provider) +
	    p->data.len + AGENT_KEY_OVERHEAD;
	if (p->keep.has_lifetime)
		id->expiry_ms = p->keep.lifetime == 0 ? 1 :
		    now_ms() + (uint64_t)p->keep.lifetime * 1000;
	else if (P->default_lifetime > 0)
		id->expiry_ms = now_ms() + (uint64_t)P->default_lifetime * 1000;
	return id;
}

/* Into the table, unless it is held already (as ssh-agent) or there is no
 * room; 1 if it went in. */
static int
p11_keep(struct policy *P, struct pending *p, struct identity *id,
    uint32_t index)
{
	if (idt_find(&P->ids, (struct slice){ id->blob, id->blob_len })) {
		identity_free(id);
		return 0;
	}
	if (!idt_room(&P->ids, NULL, id->cost)) {
		log_info("PKCS#11 key %u %s skipped: the agent holds as many "
		    "keys as it may", index, id->fp);
		identity_free(id);
		return 0;
	}
	if (idt_insert(&P->ids, id) != 0)
		fatal("out of memory");
	log_info("added PKCS#11 %s%s %s \"%s\"%s", key_kind_name(id->kind),
	    id->is_cert ? " certificate" : "", id->fp, id->comment,
	    id->dest.n ? " with destination constraints" : "");
	audit_simple(P, "add", "allow", NULL, conn_find(P, p->conn), id);
	return 1;
}

struct graft {
	struct policy *P;
	struct pending *p;
	const struct p11_key *k;
	uint32_t index;
	struct slice plain;     /* the listed key's canonical blob */
	size_t added;
};

/* assoc_parse's callback at the listing: a certificate of the listed key
 * becomes an identity its token signs for. */
static int
p11_graft(void *ctx, struct slice blob, const struct pubkey *k)
{
	struct graft *g = ctx;
	struct wb w;

	(void)blob;
	if (!assoc_certifies(k, g->plain))
		return 0;
	wb_init(&w);
	key_write_public(&w, k);        /* a certificate: the blob as sent */
	if (w.err)
		fatal("cannot encode a parsed certificate");
	g->added += p11_keep(g->P, g->p, p11_identity(g->P, g->p, g->k,
	    g->index, &w, k, g->plain), g->index);
	return 0;
}

/* Every key listed that is fit to be one becomes an identity, with its
 * certificates; how many went into the table. */
static size_t
p11_keep_listed(struct policy *P, struct pending *p, const struct p11_keys *keys)
{
	size_t added = 0;

	for (uint32_t i = 0; i < keys->n; i++) {
		struct pubkey pub;
		struct wb plain;
		struct graft g = { P, p, &keys->key[i], i, { NULL, 0 }, 0 };
		const char *bad = NULL;
		if (p11_token_key(&keys->key[i], i, &pub, &plain) != 0)
			continue;
		/* its certificates first, in the order sent, then the key
		 * itself unless only certificates were asked for; the list
		 * was checked whole at the add */
		g.plain = wb_slice_of(&plain);
		if (p->keep.certs.len > 0 &&
		    assoc_parse(wb_slice_of(&p->keep.certs), p11_graft, &g,
		    &bad) < 0)
			fatal("associated certificates checked at the add no "
			    "longer parse");
		added += g.added;
		if (p->keep.certs_only) {
			wb_free(&plain);
			continue;
		}
		struct slice ps = wb_slice_of(&plain);
		added += p11_keep(P, p, p11_identity(P, p, &keys->key[i], i,
		    &plain, &pub, ps), i);
	}
	return added;
}

/* The helper's listing after its login (reply NULL: the broker's why). */
void
p11_listed(struct policy *P, struct pending *p, struct slice reply, int fail)
{
	struct p11_keys *keys;
	size_t added;
	char why[TOKEN_MAX_PATH + 192];
	struct rd r;

	if (fail) {
		snprintf(why, sizeof(why), "PKCS#11 provider %s: its helper could "
		    "not be started, ended or did not answer (a helper stopped "
		    "by its filter names the syscall in its own line)",
		    p->p11_provider);
		p11_refuse(P, p, "add", why);
		return;
	}
	if ((keys = calloc(1, sizeof(*keys))) == NULL)
		fatal("out of memory");
	rd_init(&r, reply.p, reply.len);
	if (p11_keys_decode(&r, keys) != 0 || keys->status != P11_OK) {
		snprintf(why, sizeof(why), "PKCS#11 provider %s: %s (CKR 0x%lx)",
		    p->p11_provider, p11_ckr_why(keys->status, "the login failed"),
		    (unsigned long)keys->status);
		p11_stop(P, p->p11_provider);
		free(keys);
		p11_refuse(P, p, "add", why);
		return;
	}
	added = p11_keep_listed(P, p, keys);
	free(keys);
	keys_expiry_changed(P);
	if (added == 0) {
		p11_stop(P, p->p11_provider);
		log_info("refused PKCS#11 add: provider %s lists no new key (no "
		    "token present, only keys the agent holds, or only "
		    "certificates asked for and none certifies a key)",
		    p->p11_provider);
	}
	reply_status(P, p->conn, p->req, added > 0 ? ST_OK : ST_FAIL);
	pending_free(P, p);
}

/* sign: every check has passed; its provider's helper signs. */
void
p11_sign(struct policy *P, struct pending *p, const struct identity *id)
{
	struct wb req;

	wb_init(&req);
	p11_sign_encode(&req, id->p11_key, (uint32_t)p->alg, wb_slice_of(&p->data),
	    (struct slice){ NULL, 0 });
	msg_begin(&P->out, MSG_TK_P11_SIGN, p->id, p->conn);
	msg_tk_sign_encode(&P->out, &(struct msg_tk_sign){
	    { (const uint8_t *)id->provider, strlen(id->provider) },
	    wb_slice_of(&req) });
	wb_free(&req);
	p->state = P_P11_SIGN;
	pending_keep(P, p);
	send_to(&P->tk, &P->out, "broker");
}

/* The helper's signature, verified against the key it listed. */
void
p11_signed(struct policy *P, struct pending *p, struct slice reply, int fail)
{
	struct identity *id = idt_find_key(&P->ids, p->key_id);
	struct p11_sig s;
	const struct pubkey *k;
	struct rd r;

	rd_init(&r, reply.p, reply.len);
	if (fail || id == NULL ||
	    p11_sig_decode(&r, (uint32_t)p->alg, &s) != 0 || s.status != P11_OK ||
	    (k = identity_pub(id)) == NULL ||
	    sig_verify(k, s.sig, wb_slice_of(&p->data), NULL) != 0) {
		if (!p->gone)
			log_info("refused PKCS#11 signature%s%s: %s", id ? " with " : "",
			    id ? id->fp : "", fail ? "the helper did not answer" :
			    id == NULL ? "the key was removed meanwhile" :
			    "the token refused, or its signature does not verify");
		reply_status(P, p->conn, p->req, ST_FAIL);
		pending_free(P, p);
		return;
	}
	sign_signed(P, p, s.sig);
}

/* The broker says a provider's helper has ended. */
void
p11_gone(struct policy *P, struct slice provider)
{
	char path[TOKEN_MAX_PATH], shown[TEXT_TERM_MAX];
	size_t n;

	if (provider.len == 0 || provider.len >= sizeof(path))
		peer_broke("broker", "named no provider");
	memcpy(path, provider.p, provider.len);
	path[provider.len] = '\0';
	n = p11_drop(P, path, "PKCS#11 helper ended, key removed", NULL);
	text_term_str(shown, sizeof(shown), path);
	log_error("the PKCS#11 helper for %s has ended: its %zu key(s) are "
	    "removed; the agent serves on", shown, n);
}

/* remove all (ssh-add -D): the providers go with their keys. */
void
p11_remove_all(struct policy *P)
{
	for (size_t i = 0; i < P->ids.n; i++) {
		struct identity *id = P->ids.order[i];
		int seen = 0;
		if (!id->p11)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = P->ids.order[j]->p11 &&
			    strcmp(P->ids.order[j]->provider, id->provider) == 0;
		if (!seen)
			p11_stop(P, id->provider);
	}
}
