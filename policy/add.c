/*
 * add.c - an ADD (keys.c holds the rest of the identity table). It is
 * judged on its public key; it takes effect only when the keyholder has
 * accepted the private half (which policy hands on unparsed) and derived
 * that same public key from it; until then it is a barrier (pending.h).
 */
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "ipc/text.h"
#include "policy/audit.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
#include "policy/token.h"
#include "rules/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void keys_add_refused(struct policy *P, struct pending *p, const char *why);

static void
refuse_add(struct ctx *c, const char *why, struct identity *id)
{
	log_info("refused add: %s", why);
	audit_simple(c->P, "add", "refuse", why, c->conn, NULL);
	identity_free(id);
	ctx_reply(c, ST_FAIL);
}

/* A new identity of the public key pub, its comment and confirm
 * constraint; its fingerprint is identity_fingerprint's. */
static struct identity *
identity_new(const struct pubkey *pub, const struct msg_add *m)
{
	struct identity *id;
	struct wb blob;

	if ((id = calloc(1, sizeof(*id))) == NULL ||
	    (id->comment = slice_strdup(m->comment)) == NULL)
		fatal("out of memory");
	wb_init(&blob);
	key_write_public(&blob, pub);
	if (blob.err)
		fatal("cannot encode a parsed key");
	id->blob = blob.p;      /* the identity takes the buffer */
	id->blob_len = blob.len;
	id->kind = pub->kind;
	id->is_cert = pub->is_cert;
	id->confirm = m->c.confirm;
	return id;
}

/* id's fingerprint, of the public key pub. A certificate's is its plain
 * key's, as OpenSSH makes it: ssh-add -l, the logs and keyward-ctl then
 * agree. */
static void
identity_fingerprint(const struct policy *P, const struct pubkey *pub,
    struct identity *id)
{
	struct pubkey plain = *pub;
	struct wb blob;

	plain.is_cert = 0;
	wb_init(&blob);
	key_write_public(&blob, &plain);
	if (blob.err || fingerprint(wb_slice_of(&blob), P->fp_hash, id->fp,
	    sizeof(id->fp)) != 0)
		fatal("cannot encode a parsed key");
	wb_free(&blob);
}

/* Why id may not replace the identity of its key the agent holds
 * (*held, or NULL: none held), or NULL. */
static const char *
readd_refuses(const struct policy *P, const struct conn *c,
    const struct identity *id, struct identity **held)
{
	struct verdict v;

	/* Re-adding replaces an identity: only one this connection may see
	 * (doc/protocol.md §8.10), judged against the table as every request before left it. */
	if ((*held = idt_find(&P->ids, (struct slice){ id->blob, id->blob_len })) != NULL &&
	    !id_visible(*held, c, &v))
		return "the key is already held and not visible on this connection";
	/* Re-adding a key the agent holds replaces its constraints, its
	 * provider and its FIDO key handle: management, refused where a
	 * forwarded host may be asking, as REMOVE is (keyward(1)). */
	if (*held != NULL && conn_forwarded(c) && !P->args.allow_remote_manage)
		return "re-adding a key the agent holds is management, refused "
		    "on a forwarded connection (keyward -O allow-remote-manage)";
	return NULL;
}

/* When id expires: its lifetime constraint, else -t's; 0: never. */
static void
identity_expiry(const struct policy *P, const struct msg_add *m,
    struct identity *id)
{
	if (m->c.has_lifetime)
		id->expiry_ms = now_ms() + (uint64_t)m->c.lifetime * 1000;
	else if (P->default_lifetime > 0)
		id->expiry_ms = now_ms() + (uint64_t)P->default_lifetime * 1000;
	/* lifetime 0 means "expire now": keep it non-zero so it is swept */
	if (m->c.has_lifetime && m->c.lifetime == 0)
		id->expiry_ms = id->expiry_ms ? id->expiry_ms : 1;
}

/* The identity an ADD would make, from its public key and constraints:
 * NULL (and *why) when the request must be refused. */
static struct identity *
identity_of(struct ctx *c, const struct pubkey *pub, const struct msg_add *m,
    size_t cost, const char **why)
{
	struct policy *P = c->P;
	struct identity *id, *held;
	const char *readd;

	if (pub->is_cert && cert_verify(pub) != 0) {
		*why = "certificate signature does not verify";
		return NULL;
	}
	id = identity_new(pub, m);
	if ((readd = readd_refuses(P, c->conn, id, &held)) != NULL) {
		*why = readd;
		identity_free(id);
		return NULL;
	}
	/* Adds are judged one at a time (the barrier), so the room counted
	 * here is the room the add will find. */
	if (!idt_room(&P->ids, held, cost)) {
		*why = "the agent holds as many keys as it may (AGENT_MAX_KEYS, "
		    "AGENT_MAX_HELD_BYTES)";
		identity_free(id);
		return NULL;
	}
	id->cost = cost;
	if (m->c.has_dest && dest_set_build(&id->dest, m->c.dest, why) != 0) {
		if (*why == NULL)
			*why = "invalid destination constraint";
		identity_free(id);
		return NULL;
	}
	identity_expiry(P, m, id);
	return id;
}

int
add_origin(const struct policy *P, const struct conn *c, struct origin *o,
    const char **why)
{
	conn_origin(c, o);
	/* Without a host to name (a session-bind failed, or no binding
	 * forwards) there is no one the key could belong to, and it is
	 * refused. */
	if (o->kind == ORIGIN_UNKNOWN && !P->args.allow_remote_add) {
		*why = "added over a forwarded connection whose host keyward "
		    "cannot name (a session-bind failed or none forwards)";
		return -1;
	}
	return 0;
}

void
id_set_added(const struct policy *P, struct identity *id,
    const struct origin *o)
{
	/* Where it came from, said to the user by keyward-ctl and prompts
	 * whether or not the key is that host's own. */
	id->added_over = o->kind;
	if (o->kind != ORIGIN_FORWARDED)
		return;
	id->added_by = bytes_dup(o->host);
	id->added_by_len = o->host.len;
	/* A key added where a forwarded host may be asking belongs to that
	 * host: it serves only connections forwarded from it (keys.c
	 * id_owner_refuses), never the user's own. */
	if (P->args.allow_remote_add)
		return;
	id->owner = bytes_dup(o->host);
	id->owner_len = o->host.len;
}

/* Why an ADD's form alone refuses it (its public key parsed into *pub
 * first), or NULL. */
static const char *
add_form_refuses(const struct msg_add *m, struct pubkey *pub)
{
	const char *why = NULL;

	/* Judged on its public key alone: the private half is never parsed
	 * here (doc/threat-model.md). */
	if (key_parse_public(m->pub, pub, &why) != 0)
		return why ? why : "malformed public key";
	/* the monitor never forwards one: a PKCS#11 add's alone (doc/protocol.md §6.7) */
	if (m->c.has_certs)
		return "associated certificates on an add that is not a "
		    "PKCS#11 one";
	if (m->c.has_provider && !key_is_sk(pub->kind))
		return "an sk-provider constraint on a key that is not a "
		    "FIDO key";
	return NULL;
}

/* A FIDO key's provider: "internal" is kept as is, a library is resolved
 * once the keyholder has accepted the key (p->data names it); -1 when
 * the add is refused (and answered). */
static int
add_sk_provider(struct policy *P, const struct conn *c, struct pending *p,
    const struct msg_add *m)
{
	struct slice prov = m->c.has_provider ? m->c.provider :
	    (struct slice){ (const uint8_t *)"internal", 8 };

	if (token_provider_internal(prov)) {
		p->add->provider = str_dup("internal");
	} else if (conn_remote(c) && !P->args.allow_remote_providers) {
		/* doc/protocol.md §8.10: a forwarded connection loads no library */
		keys_add_refused(P, p, "a forwarded connection may not name "
		    "a FIDO provider library (keyward -O allow-remote-pkcs11)");
		return -1;
	} else {
		wb_bytes(&p->data, prov.p, prov.len);
	}
	return 0;
}

int
h_add(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_add m;
	struct pubkey pub;
	struct identity *id;
	struct pending *p;
	struct origin o;
	const char *why = NULL;

	if (msg_add_decode(&c->r, &m) != 0)
		return -1;
	/* what keeping it costs, as ipc/limits.h counts */
	size_t cost = m.key.len + m.comment.len + AGENT_KEY_OVERHEAD +
	    (m.c.has_dest ? m.c.dest.len : 0) +
	    (m.c.has_provider ? m.c.provider.len : 0);
	if ((why = add_form_refuses(&m, &pub)) != NULL ||
	    (id = identity_of(c, &pub, &m, cost, &why)) == NULL) {
		refuse_add(c, why, NULL);
		return 0;
	}
	id->sock = c->conn->sock;       /* its scope (rules/scope.h) */
	if (add_origin(P, c->conn, &o, &why) != 0) {
		refuse_add(c, why, id);
		return 0;
	}
	id_set_added(P, id, &o);
	p = pending_new(c, P_ADD);
	p->add = id;
	p->key_id = id->key_id = ++P->next_key_id;
	if (key_is_sk(pub.kind) && add_sk_provider(P, c->conn, p, &m) != 0)
		return 0;
	/* The private half goes on as it came; policy keeps no copy. */
	p->state = P_ADD;
	pending_keep(P, p);
	msg_begin(&P->out, MSG_KH_ADD, p->id, p->conn);
	msg_kh_add_encode(&P->out, &(struct msg_kh_add){ p->key_id, m.key });
	send_to(&P->kh, &P->out, "keyholder");
	wipe(P->out.p, P->out.len);
	/* While the keyholder checks the key: nothing judged above needs
	 * the fingerprint, and nothing reads the identity before its answer. */
	identity_fingerprint(P, &pub, id);
	return 0;
}

static void
keys_add_refused(struct policy *P, struct pending *p, const char *why)
{
	log_info("refused add: %s", why);
	audit_simple(P, "add", "refuse", why, conn_find(P, p->conn), NULL);
	reply_status(P, p->conn, p->req, ST_FAIL);
	pending_free(P, p);
}

/* The add is judged whole: the identity goes live; an existing one keeps
 * its list position and takes every new attribute (doc/protocol.md §5.4).
 * Its audit record and log line follow the client's success, so their
 * writes are not in the client's wait. Both are out before policy reads
 * any other message, so they keep their order and precede the record of
 * anything done with the key; should policy die between the reply and
 * them, the agent ends (a child's death is fatal, and logged) and the
 * key with it: it was never used. */
static void
keys_add_live(struct policy *P, struct pending *p)
{
	struct identity *id = p->add, *old;
	const struct conn *c = conn_find(P, p->conn);

	old = idt_find(&P->ids, (struct slice){ id->blob, id->blob_len });
	if (old != NULL) {
		uint64_t stale = old->key_id;
		free(old->comment);
		old->comment = id->comment;
		id->comment = NULL;
		idt_rekey(&P->ids, old, id->key_id);
		old->expiry_ms = id->expiry_ms;
		old->confirm = id->confirm;
		free(old->provider);
		old->provider = id->provider;
		id->provider = NULL;
		free(old->owner);               /* and whom it belongs to */
		old->owner = id->owner;
		old->owner_len = id->owner_len;
		id->owner = NULL;
		free(old->added_by);            /* and where it came from */
		old->added_by = id->added_by;
		old->added_by_len = id->added_by_len;
		old->added_over = id->added_over;
		id->added_by = NULL;
		dest_set_free(&old->dest);      /* re-adding replaces every constraint */
		old->dest = id->dest;
		memset(&id->dest, 0, sizeof(id->dest));
		idt_recharge(&P->ids, old, id->cost);
		kh_delete(P, stale);
		keys_expiry_changed(P);         /* its expiry may have moved out */
	} else {
		if (idt_insert(&P->ids, id) != 0)
			fatal("out of memory");
		p->add = NULL;
		keys_expiry_added(P, id->expiry_ms);
	}
	reply_status(P, p->conn, p->req, ST_OK);
	pending_free(P, p);
	if (old != NULL) {
		audit_simple(P, "add", "allow", "replaced an identity already held",
		    c, old);
		log_info("replaced %s %s \"%s\"", key_kind_name(old->kind), old->fp,
		    old->comment);
	} else {
		audit_simple(P, "add", "allow", NULL, c, id);
		log_info("added %s%s %s \"%s\"%s", key_kind_name(id->kind),
		    id->is_cert ? " certificate" : "", id->fp, id->comment,
		    id->dest.n ? " with destination constraints" : "");
	}
}

/* The keyholder has judged the private half (pub.p NULL: refused) and
 * answered with the public key it derived: the add goes on only if that
 * is the key policy judged. A FIDO key naming a library then waits for
 * the broker to resolve its path. */
void
keys_add_done(struct policy *P, struct pending *p, struct slice pub)
{
	struct identity *id = p->add;

	if (pub.p == NULL) {
		keys_add_refused(P, p, "the keyholder rejected the private key");
		return;
	}
	if (pub.len != id->blob_len || memcmp(pub.p, id->blob, pub.len) != 0) {
		log_error("the keyholder derived another public key than the "
		    "monitor sent for an add");
		kh_delete(P, p->key_id);
		keys_add_refused(P, p, "the private key does not match its "
		    "public key");
		return;
	}
	if (p->data.len > 0) {
		token_resolve(P, p, wb_slice_of(&p->data));
		return;
	}
	keys_add_live(P, p);
}

/* The broker has resolved an ADD's provider path (path.p NULL: it could
 * not): the add goes on only for a library -P allows (doc/protocol.md §6.5). The
 * keyholder holds the key already and forgets it on a refusal. */
void
keys_resolved(struct policy *P, struct pending *p, struct slice path)
{
	char real[TOKEN_MAX_PATH];

	if (path.p == NULL || path.len == 0 || path.len >= sizeof(real) ||
	    memchr(path.p, '\0', path.len) != NULL) {
		kh_delete(P, p->key_id);
		keys_add_refused(P, p, "the FIDO provider path does not resolve");
		return;
	}
	memcpy(real, path.p, path.len);
	real[path.len] = '\0';
	if (!match_list(real, P->args.providers)) {
		char why[TOKEN_MAX_PATH + 64], shown[TEXT_TERM_MAX];
		text_term_str(shown, sizeof(shown), real);
		snprintf(why, sizeof(why), "FIDO provider %s is not allowed by -P",
		    shown);
		kh_delete(P, p->key_id);
		keys_add_refused(P, p, why);
		return;
	}
	p->add->provider = str_dup(real);
	keys_add_live(P, p);
}
