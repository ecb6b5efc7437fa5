/*
 * requests.c - every decision keyward makes. The monitor may be
 * compromised, so each message is decoded again from scratch and each
 * request is checked against policy's own state (open connections, lock,
 * identities). The table at the end is all the monitor can ask.
 */
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "policy/audit.h"
#include "policy/userauth.h"

#include <openssl/crypto.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
send_or_die(struct chan *c, struct wb *w, const char *peer)
{
	if (chan_send(c, w) != 0)
		fatal("%s is gone; shutting down", peer);
}

static void
reply_status(struct policy *P, uint32_t conn, uint32_t req, uint8_t st)
{
	struct msg_status m = { st };

	msg_begin(&P->out, MSG_R_STATUS, req, conn);
	msg_status_encode(&P->out, &m);
	send_or_die(&P->mon, &P->out, "monitor");
}

static struct conn *
conn_find(struct policy *P, uint32_t id)
{
	for (struct conn *c = P->conns; c != NULL; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

static void
audit(struct policy *P, const char *event, const char *decision,
    const char *reason, const struct conn *c, const struct identity *id,
    enum sig_alg alg, struct slice data, long count)
{
	struct audit_rec r = { event, decision, reason, c, id, alg, data, count };

	audit_emit(P, &r, 0);
}

#define NODATA ((struct slice){ NULL, 0 })

static struct identity *
id_by_key(struct policy *P, uint64_t key_id)
{
	for (size_t i = 0; i < P->ids.n; i++)
		if (P->ids.order[i]->key_id == key_id)
			return P->ids.order[i];
	return NULL;
}

static uint32_t
new_req(struct policy *P)
{
	if (++P->next_req == 0)
		P->next_req = 1;        /* 0 marks fire-and-forget requests */
	return P->next_req;
}

static struct pending *
pending_new(struct policy *P, enum pending_kind kind, uint32_t conn, uint32_t req)
{
	struct pending *p = calloc(1, sizeof(*p));

	if (p == NULL)
		fatal("out of memory");
	p->kind = kind;
	p->conn = conn;
	p->req = req;
	p->id = new_req(P);
	wb_init(&p->data);
	p->next = P->pending;
	P->pending = p;
	return p;
}

static struct pending *
pending_take(struct policy *P, uint32_t id, int prompter)
{
	for (struct pending **pp = &P->pending; *pp != NULL; pp = &(*pp)->next) {
		struct pending *p = *pp;
		if (p->id == id && p->kind != P_UNLOCK_DELAY &&
		    (p->kind == P_CONFIRM) == prompter) {
			*pp = p->next;
			return p;
		}
	}
	return NULL;
}

static void
pending_free(struct pending *p)
{
	wb_free(&p->data);
	identity_free(p->add);
	free(p);
}

static void
kh_delete(struct policy *P, uint64_t key_id)
{
	struct msg_kh_delete m = { key_id };

	msg_begin(&P->out, MSG_KH_DELETE, 0, 0);
	msg_kh_delete_encode(&P->out, &m);
	send_or_die(&P->kh, &P->out, "keyholder");
}

static void
drop_identity(struct policy *P, struct identity *id, const char *why,
    const struct conn *c)
{
	log_info("%s: %s %s \"%s\"", why, key_kind_name(id->kind), id->fp,
	    id->comment);
	audit(P, c != NULL ? "remove" : "expire", "allow", c != NULL ? NULL : why,
	    c, id, SIG_NONE, NODATA, -1);
	kh_delete(P, id->key_id);
	idt_remove(&P->ids, id);
	identity_free(id);
}

static void
recompute_next_expiry(struct policy *P)
{
	P->next_expiry_ms = 0;
	for (size_t i = 0; i < P->ids.n; i++) {
		uint64_t e = P->ids.order[i]->expiry_ms;
		if (e != 0 && (P->next_expiry_ms == 0 || e < P->next_expiry_ms))
			P->next_expiry_ms = e;
	}
}

static void
expire(struct policy *P)
{
	uint64_t now = now_ms();

	if (P->next_expiry_ms == 0 || now < P->next_expiry_ms)
		return;
	for (size_t i = P->ids.n; i-- > 0;) {
		struct identity *id = P->ids.order[i];
		if (id->expiry_ms != 0 && id->expiry_ms <= now)
			drop_identity(P, id, "lifetime expired, removed", NULL);
	}
	recompute_next_expiry(P);
}

int
policy_timers(struct policy *P)
{
	uint64_t now, next = 0;
	struct pending **pp;

	expire(P);
	now = now_ms();
	for (pp = &P->pending; *pp != NULL;) {
		struct pending *p = *pp;
		if (p->kind == P_UNLOCK_DELAY && p->due_ms <= now) {
			*pp = p->next;
			reply_status(P, p->conn, p->req, ST_FAIL);
			pending_free(p);
			continue;
		}
		if (p->kind == P_UNLOCK_DELAY && (next == 0 || p->due_ms < next))
			next = p->due_ms;
		pp = &p->next;
	}
	if (P->next_expiry_ms != 0 && (next == 0 || P->next_expiry_ms < next))
		next = P->next_expiry_ms;
	if (next == 0)
		return -1;
	return next <= now ? 0 : (int)(next - now > 60000 ? 60000 : next - now);
}

/* Decode a key blob from a request into its canonical form (§4.5). */
static int
canonical_blob(struct slice blob, struct pubkey *k, struct wb *out)
{
	const char *why = NULL;

	wb_reset(out);
	if (key_parse_public(blob, k, &why) != 0) {
		log_debug("request names an unusable key: %s", why ? why : "malformed");
		return -1;
	}
	key_write_public(out, k);
	return out->err ? -1 : 0;
}

/* Is identity I usable at all on connection C (§8.4 with u = ANY)? */
static int
visible_why(const struct identity *id, const struct conn *c, struct verdict *v)
{
	return path_permitted(&id->dest, &c->bind, NULL, time(NULL), v);
}

static int
visible(const struct identity *id, const struct conn *c)
{
	struct verdict v;

	return visible_why(id, c, &v);
}

/* "origin -> scylla -> charybdis": names from the key's own constraints
 * where a host key matches one, else the host key's fingerprint. */
static void
describe_path(const struct policy *P, const struct identity *id,
    const struct bindings *b, char *out, size_t n)
{
	size_t o = (size_t)snprintf(out, n, "origin");
	char fp[96];

	for (size_t i = 0; i < b->n && o < n; i++) {
		struct slice k = { b->b[i].key, b->b[i].keylen };
		const char *name = dest_host_name(&id->dest, k, time(NULL));
		if (name == NULL && fingerprint(k, P->fp_hash, fp, sizeof(fp)) == 0)
			name = fp;
		o += (size_t)snprintf(out + o, n - o, " -> %s%s", name ? name : "?",
		    b->b[i].forwarding ? " (forwarding)" : "");
	}
}

static void
log_refusal(const struct policy *P, const struct identity *id,
    const struct conn *c, const char *user, const char *rule, size_t hop)
{
	char path[1024];

	describe_path(P, id, &c->bind, path, sizeof(path));
	log_info("refused signature with %s %s \"%s\" for user %s: %s "
	    "(failed at hop %zu of path %s)", key_kind_name(id->kind), id->fp,
	    id->comment, user != NULL ? user : "(any)", rule, hop + 1, path);
}

/* ---------------------------------------------------------------- handlers */

struct ctx {
	struct policy *P;
	struct msg_hdr h;
	struct rd r;
	struct conn *conn;      /* NULL for the monitor's own requests (conn 0) */
};

static int
h_open(struct ctx *c)
{
	struct msg_open m;
	struct conn *n;

	if (msg_open_decode(&c->r, &m) != 0 || c->h.conn == 0 ||
	    conn_find(c->P, c->h.conn) != NULL)
		return -1;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		fatal("out of memory");
	n->id = c->h.conn;
	n->uid = m.uid;
	n->pid = m.pid;
	n->next = c->P->conns;
	c->P->conns = n;
	return 0;
}

static int
h_close(struct ctx *c)
{
	struct policy *P = c->P;
	struct conn **pp;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	for (pp = &P->conns; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->id == c->h.conn) {
			struct conn *gone = *pp;
			*pp = gone->next;
			bindings_free(&gone->bind);
			free(gone);
			break;
		}
	/* Cancel what the client was waiting for: an open prompt goes away. */
	for (struct pending *p = P->pending; p != NULL; p = p->next) {
		if (p->conn != c->h.conn)
			continue;
		if (p->kind == P_CONFIRM) {
			msg_begin(&P->out, MSG_PROMPT_CANCEL, p->id, 0);
			send_or_die(&P->pr, &P->out, "prompter");
		}
		p->conn = 0;    /* its answer is dropped */
	}
	return 0;
}

static void
reply(struct ctx *c, uint8_t st)
{
	reply_status(c->P, c->h.conn, c->h.req, st);
}

static int
h_list(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_identities m = { 0, { NULL, 0 } };
	struct wb e;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	wb_init(&e);
	for (size_t i = 0; !P->lock.locked && i < P->ids.n; i++) {
		struct identity *id = P->ids.order[i];
		size_t need = 8 + id->blob_len + strlen(id->comment);
		struct verdict v;
		if (!visible_why(id, c->conn, &v)) {      /* §8.5 */
			char path[1024];
			describe_path(P, id, &c->conn->bind, path, sizeof(path));
			log_info("connection %u: %s %s \"%s\" not listed: %s (hop %zu "
			    "of path %s)", c->h.conn, key_kind_name(id->kind), id->fp,
			    id->comment, v.rule, v.hop + 1, path);
			continue;
		}
		/* Clients refuse answers over 256 KiB; send what they accept. */
		if (e.len + need + 16 > AGENT_MAX_FRAME) {
			log_error("identity list cut at %u of %zu keys: clients refuse "
			    "answers over 256 KiB", m.n, P->ids.n);
			break;
		}
		wb_string(&e, id->blob, id->blob_len);
		wb_cstring(&e, id->comment);
		m.n++;
	}
	m.entries = wb_slice_of(&e);
	audit(P, "list", "allow", NULL, c->conn, NULL, SIG_NONE, NODATA, m.n);
	msg_begin(&P->out, MSG_R_IDENTITIES, c->h.req, c->h.conn);
	msg_identities_encode(&P->out, &m);
	wb_free(&e);
	send_or_die(&P->mon, &P->out, "monitor");
	return 0;
}

static void
kh_sign(struct policy *P, struct pending *p, struct slice data)
{
	struct msg_kh_sign m = { p->key_id, (uint8_t)p->alg, data };

	p->kind = P_SIGN;
	msg_begin(&P->out, MSG_KH_SIGN, p->id, 0);
	msg_kh_sign_encode(&P->out, &m);
	send_or_die(&P->kh, &P->out, "keyholder");
}

/* The question a confirm prompt asks: which key, for whom, where to and
 * along which hops, as far as the session bindings tell (spec §6.3; the
 * hop names come from the key's own constraints, else fingerprints). */
static void
confirm_text(const struct policy *P, const struct identity *id,
    const struct bindings *b, struct slice data, char *out, size_t n)
{
	struct userauth ua;
	char path[1024];
	size_t o;

	o = (size_t)snprintf(out, n, "Allow use of key %s?\nKey fingerprint %s.",
	    id->comment, id->fp);
	if (o >= n)
		return;
	if (b->n == 0) {
		snprintf(out + o, n - o, "\nRequested by a local program: the "
		    "connection is not bound to any host%s.", b->attempted ?
		    " (its session-bind failed)" : "");
		return;
	}
	describe_path(P, id, b, path, sizeof(path));
	if (userauth_parse(data, (struct slice){ id->blob, id->blob_len }, &ua) == 0)
		o += (size_t)snprintf(out + o, n - o, "\nLogin as user \"%.*s\" to %s.",
		    (int)(ua.user.len > 64 ? 64 : ua.user.len),
		    (const char *)ua.user.p, strrchr(path, '>') ?
		    strrchr(path, '>') + 2 : path);
	else
		o += (size_t)snprintf(out + o, n - o, "\nThe data to sign is not a "
		    "login.");
	if (o < n)
		snprintf(out + o, n - o, "\nPath: %s.%s", path,
		    b->b[b->n - 1].forwarding || b->n > 1 ?
		    "\nThe request comes through a forwarded agent." : "");
}

/* Every check has passed: record the signature, then make it. With an
 * audit trail the keyholder is asked only once the auditor has written
 * the record (fail closed: no record, no signature). */
static void
go_sign(struct policy *P, struct pending *p, const struct identity *id,
    const struct conn *c, struct slice data)
{
	struct audit_rec r = { "sign", "allow", NULL, c, id, p->alg, data, -1 };

	if (!P->audit_on) {
		kh_sign(P, p, data);
		return;
	}
	if (p->data.p != data.p) {
		wb_reset(&p->data);
		wb_bytes(&p->data, data.p, data.len);
	}
	p->kind = P_AUDIT;
	audit_emit(P, &r, p->id);
}

static int
h_sign(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_sign m;
	struct pubkey k;
	struct identity *id;
	struct pending *p;
	struct wb blob;
	char prompt[PROMPT_MAX_TEXT];

	if (msg_sign_decode(&c->r, &m) != 0)
		return -1;
	if (P->lock.locked) {
		log_info("refused signature: agent is locked");
		audit(P, "sign", "refuse", "the agent is locked", c->conn, NULL,
		    SIG_NONE, m.data, -1);
		reply(c, ST_FAIL);
		return 0;
	}
	wb_init(&blob);
	id = canonical_blob(m.key, &k, &blob) == 0 ?
	    idt_find(&P->ids, wb_slice_of(&blob)) : NULL;
	wb_free(&blob);
	if (id == NULL) {
		log_info("refused signature: key not found in the agent");
		audit(P, "sign", "refuse", "the key is not in the agent", c->conn,
		    NULL, SIG_NONE, m.data, -1);
		reply(c, ST_FAIL);
		return 0;
	}
	if (id->dest.n > 0) {
		char user[AGENT_MAX_USER_PATTERN + 64];
		size_t hop;
		const char *rule = sign_permitted(&id->dest,
		    (struct slice){ id->blob, id->blob_len }, &c->conn->bind, m.data,
		    time(NULL), &hop, user, sizeof(user));
		if (rule != NULL) {
			log_refusal(P, id, c->conn, user, rule, hop);
			audit(P, "sign", "refuse", rule, c->conn, id,
			    sig_alg_for(id->kind, m.flags), m.data, -1);
			reply(c, ST_FAIL);
			return 0;
		}
	}
	p = pending_new(P, P_SIGN, c->h.conn, c->h.req);
	p->key_id = id->key_id;
	p->alg = sig_alg_for(id->kind, m.flags);
	if (!id->confirm) {
		go_sign(P, p, id, c->conn, m.data);
		return 0;
	}
	p->kind = P_CONFIRM;
	wb_bytes(&p->data, m.data.p, m.data.len);
	confirm_text(P, id, &c->conn->bind, m.data, prompt, sizeof(prompt));
	msg_begin(&P->out, MSG_PROMPT, p->id, 0);
	msg_blob_encode(&P->out, &(struct msg_blob){ { (const uint8_t *)prompt,
	    strlen(prompt) } });
	send_or_die(&P->pr, &P->out, "prompter");
	return 0;
}

static int
h_add(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_add m;
	struct privkey k;
	struct identity *id;
	struct pending *p;
	struct wb blob;
	struct rd kr;
	const char *why = NULL;
	char fp[96];

	if (msg_add_decode(&c->r, &m) != 0)
		return -1;
	if (P->lock.locked) {
		log_info("refused add: agent is locked");
		reply(c, ST_FAIL);
		return 0;
	}
	rd_init(&kr, m.key.p, m.key.len);
	if (key_parse_private(&kr, &k, &why) != 0 || rd_done(&kr) != 0) {
		log_info("refused add: %s", why ? why : "bytes after the key");
		audit(P, "add", "refuse", why ? why : "bytes after the key", c->conn,
		    NULL, SIG_NONE, NODATA, -1);
		reply(c, ST_FAIL);
		return 0;
	}
	if (k.pub.is_cert && cert_verify(&k.pub) != 0) {
		log_info("refused add: certificate signature does not verify");
		reply(c, ST_FAIL);
		return 0;
	}
	/* A certificate's fingerprint is its plain key's, as OpenSSH makes
	 * it: ssh-add -l, the logs and keyward-ctl then agree. */
	struct pubkey plain = k.pub;
	plain.is_cert = 0;
	wb_init(&blob);
	key_write_public(&blob, &plain);
	if (blob.err || fingerprint(wb_slice_of(&blob), P->fp_hash, fp, sizeof(fp)) != 0)
		fatal("cannot encode a parsed key");
	wb_free(&blob);
	wb_init(&blob);
	key_write_public(&blob, &k.pub);
	if (blob.err)
		fatal("cannot encode a parsed key");
	/* Re-adding replaces an identity: only one this connection may see. */
	if ((id = idt_find(&P->ids, wb_slice_of(&blob))) != NULL &&
	    !visible(id, c->conn)) {
		log_info("refused add: %s \"%s\" is already held and not visible "
		    "on this connection", id->fp, id->comment);
		wb_free(&blob);
		reply(c, ST_FAIL);
		return 0;
	}
	if ((id = calloc(1, sizeof(*id))) == NULL ||
	    (id->comment = slice_strdup(m.comment)) == NULL)
		fatal("out of memory");
	if (m.c.has_dest && dest_set_build(&id->dest, m.c.dest, &why) != 0) {
		log_info("refused add of %s: destination constraint: %s", fp,
		    why ? why : "invalid");
		wb_free(&blob);
		identity_free(id);
		reply(c, ST_FAIL);
		return 0;
	}
	id->blob = blob.p;      /* the identity takes the buffer */
	id->blob_len = blob.len;
	id->kind = k.pub.kind;
	id->is_cert = k.pub.is_cert;
	id->confirm = m.c.confirm;
	memcpy(id->fp, fp, sizeof(id->fp));
	if (m.c.has_lifetime)
		id->expiry_ms = now_ms() + (uint64_t)m.c.lifetime * 1000;
	else if (P->default_lifetime > 0)
		id->expiry_ms = now_ms() + (uint64_t)P->default_lifetime * 1000;
	/* lifetime 0 means "expire now": keep it non-zero so it is swept */
	if (m.c.has_lifetime && m.c.lifetime == 0)
		id->expiry_ms = id->expiry_ms ? id->expiry_ms : 1;

	p = pending_new(P, P_ADD, c->h.conn, c->h.req);
	p->add = id;
	p->key_id = id->key_id = ++P->next_key_id;
	wb_reset(&P->secret);
	key_write_private_plain(&P->secret, &k);
	msg_begin(&P->out, MSG_KH_ADD, p->id, 0);
	msg_kh_add_encode(&P->out, &(struct msg_kh_add){ p->key_id,
	    wb_slice_of(&P->secret) });
	wipe(P->secret.p, P->secret.len);
	send_or_die(&P->kh, &P->out, "keyholder");
	wipe(P->out.p, P->out.len);
	return 0;
}

/* The keyholder accepted the private half: the identity goes live. An
 * existing identity keeps its list position and takes every new
 * attribute (spec §5.4). */
static void
add_done(struct policy *P, struct pending *p)
{
	struct identity *id = p->add, *old;

	old = idt_find(&P->ids, (struct slice){ id->blob, id->blob_len });
	if (old != NULL) {
		uint64_t stale = old->key_id;
		free(old->comment);
		old->comment = id->comment;
		id->comment = NULL;
		old->key_id = id->key_id;
		old->expiry_ms = id->expiry_ms;
		old->confirm = id->confirm;
		dest_set_free(&old->dest);      /* re-adding replaces every constraint */
		old->dest = id->dest;
		memset(&id->dest, 0, sizeof(id->dest));
		kh_delete(P, stale);
		log_info("replaced %s %s \"%s\"", key_kind_name(old->kind), old->fp,
		    old->comment);
		audit(P, "add", "allow", "replaced an identity already held",
		    conn_find(P, p->conn), old, SIG_NONE, NODATA, -1);
	} else {
		if (idt_insert(&P->ids, id) != 0)
			fatal("out of memory");
		p->add = NULL;
		log_info("added %s%s %s \"%s\"%s", key_kind_name(id->kind),
		    id->is_cert ? " certificate" : "", id->fp, id->comment,
		    id->dest.n ? " with destination constraints" : "");
		audit(P, "add", "allow", NULL, conn_find(P, p->conn), id, SIG_NONE,
		    NODATA, -1);
	}
	recompute_next_expiry(P);
}

static int
h_remove(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_blob m;
	struct pubkey k;
	struct identity *id;
	struct wb blob;

	if (msg_blob_decode(&c->r, &m) != 0)
		return -1;
	if (P->lock.locked) {
		reply(c, ST_FAIL);
		return 0;
	}
	wb_init(&blob);
	id = canonical_blob(m.blob, &k, &blob) == 0 ?
	    idt_find(&P->ids, wb_slice_of(&blob)) : NULL;
	wb_free(&blob);
	if (id == NULL || !visible(id, c->conn)) {
		reply(c, ST_FAIL);
		return 0;
	}
	drop_identity(P, id, "removed", c->conn);
	recompute_next_expiry(P);
	reply(c, ST_OK);
	return 0;
}

static int
h_remove_all(struct ctx *c)
{
	struct policy *P = c->P;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	/* SIGUSR1 (conn 0) works while locked; clients do not (§5.11). */
	if (P->lock.locked && c->h.conn != 0) {
		reply(c, ST_FAIL);
		return 0;
	}
	while (P->ids.n > 0) {
		struct identity *id = P->ids.order[P->ids.n - 1];
		idt_remove(&P->ids, id);
		identity_free(id);
	}
	msg_begin(&P->out, MSG_KH_WIPE, 0, 0);
	send_or_die(&P->kh, &P->out, "keyholder");
	P->next_expiry_ms = 0;
	log_info("all identities removed");
	audit(P, "remove-all", "allow", c->h.conn == 0 ? "SIGUSR1" : NULL, c->conn,
	    NULL, SIG_NONE, NODATA, -1);
	if (c->h.conn != 0)
		reply(c, ST_OK);
	return 0;
}

static void
kh_lock(struct policy *P, struct pending *p, uint8_t type, struct slice pass)
{
	msg_begin(&P->out, type, p->id, 0);
	msg_blob_encode(&P->out, &(struct msg_blob){ pass });
	send_or_die(&P->kh, &P->out, "keyholder");
	wipe(P->out.p, P->out.len);     /* the passphrase */
}

/* The keyholder has (un)sealed the keys: now the lock state changes. */
static void
lock_done(struct policy *P, struct pending *p, int ok)
{
	audit(P, p->kind == P_LOCK ? "lock" : "unlock", ok ? "allow" : "refuse",
	    ok ? NULL : "the keyholder could not re-seal the keys",
	    conn_find(P, p->conn), NULL, SIG_NONE, NODATA, -1);
	if (p->kind == P_LOCK && ok) {
		log_info("agent locked: private keys sealed under the passphrase");
	} else if (p->kind == P_LOCK) {
		wipe(&P->lock.hash, sizeof(P->lock.hash));
		P->lock.locked = 0;
		log_error("lock failed: the keyholder could not seal the keys");
	} else if (ok) {
		wipe(&P->lock, sizeof(P->lock));        /* failures reset too */
		log_info("agent unlocked");
	} else {
		log_error("unlock failed: the keyholder could not open the keys");
	}
	if (p->conn != 0)
		reply_status(P, p->conn, p->req, ok ? ST_OK : ST_FAIL);
}

static int
h_lock(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_blob m;

	if (msg_blob_decode(&c->r, &m) != 0)
		return -1;
	if (P->lock.locked || m.blob.len == 0 || lock_set(&P->lock, m.blob) != 0) {
		reply(c, ST_FAIL);
		return 0;
	}
	/* Locked from now on; the answer waits until the keyholder has
	 * sealed every key under the passphrase. */
	kh_lock(P, pending_new(P, P_LOCK, c->h.conn, c->h.req), MSG_KH_LOCK, m.blob);
	return 0;
}

static int
h_unlock(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_blob m;
	struct pending *p;

	if (msg_blob_decode(&c->r, &m) != 0)
		return -1;
	if (!P->lock.locked || m.blob.len == 0) {
		reply(c, ST_FAIL);
		return 0;
	}
	if (lock_check(&P->lock, m.blob) == 0) {
		/* Still locked until the keyholder has opened every key. */
		kh_lock(P, pending_new(P, P_UNLOCK, c->h.conn, c->h.req),
		    MSG_KH_UNLOCK, m.blob);
		return 0;
	}
	/* Wrong passphrase: the answer to this client alone comes later,
	 * 0.1 s per failure so far, up to 10 s. Nobody else waits. */
	if (P->lock.failures < LOCK_FAIL_MAX)
		P->lock.failures++;
	p = pending_new(P, P_UNLOCK_DELAY, c->h.conn, c->h.req);
	p->due_ms = now_ms() + (uint64_t)P->lock.failures * LOCK_FAIL_STEP_MS;
	audit(P, "unlock", "refuse", "wrong passphrase", c->conn, NULL, SIG_NONE,
	    NODATA, -1);
	log_info("failed unlock attempt %u; answering in %u ms", P->lock.failures,
	    P->lock.failures * LOCK_FAIL_STEP_MS);
	return 0;
}

static int
h_query(struct ctx *c)
{
	struct policy *P = c->P;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	if (P->lock.locked) {
		reply(c, ST_FAIL);
		return 0;
	}
	/* The extension requests we answer, as the reference lists them. */
	struct wb names;
	wb_init(&names);
	wb_cstring(&names, "session-bind@openssh.com");
	wb_cstring(&names, INSPECT_EXTENSION);
	msg_begin(&P->out, MSG_R_EXTENSIONS, c->h.req, c->h.conn);
	msg_blob_encode(&P->out, &(struct msg_blob){ wb_slice_of(&names) });
	wb_free(&names);
	send_or_die(&P->mon, &P->out, "monitor");
	return 0;
}

static void
inspect_hop(const struct policy *P, struct wb *w, const struct hop *h)
{
	char fp[96];

	wb_cstring(w, h->user != NULL ? h->user : "");
	wb_cstring(w, h->host != NULL ? h->host : "");
	wb_u32(w, (uint32_t)h->nkeys);
	for (size_t i = 0; i < h->nkeys; i++) {
		if (fingerprint((struct slice){ h->keys[i].blob, h->keys[i].len },
		    P->fp_hash, fp, sizeof(fp)) != 0)
			snprintf(fp, sizeof(fp), "?");
		wb_cstring(w, fp);
		wb_u8(w, h->keys[i].is_ca != 0);
	}
}

/* keyward's inspection extension (ipc/msg.h): the identities with their
 * constraints. A forwarded connection gets nothing: what a key may do is
 * the owner's business, not that of the hosts it is forwarded to. */
static int
h_inspect(struct ctx *c)
{
	struct policy *P = c->P;
	const struct bindings *b = &c->conn->bind;
	uint64_t now = now_ms();
	struct wb body;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	if (P->lock.locked) {
		reply(c, ST_FAIL);
		return 0;
	}
	for (size_t i = 0; i < b->n; i++)
		if (b->b[i].forwarding) {
			log_info("connection %u: constraints not shown to a forwarded "
			    "connection", c->h.conn);
			reply(c, ST_EXT_FAIL);
			return 0;
		}
	wb_init(&body);
	wb_u32(&body, (uint32_t)P->ids.n);
	for (size_t i = 0; i < P->ids.n; i++) {
		const struct identity *id = P->ids.order[i];
		wb_string(&body, id->blob, id->blob_len);
		wb_cstring(&body, id->comment);
		wb_cstring(&body, id->fp);
		wb_u32(&body, id->expiry_ms == 0 ? INSPECT_NO_LIFETIME :
		    id->expiry_ms <= now ? 0 : (uint32_t)((id->expiry_ms - now + 999) / 1000));
		wb_u8(&body, id->confirm != 0);
		wb_u32(&body, (uint32_t)id->dest.n);
		for (size_t j = 0; j < id->dest.n; j++) {
			inspect_hop(P, &body, &id->dest.c[j].from);
			inspect_hop(P, &body, &id->dest.c[j].to);
		}
	}
	if (body.err || body.len > AGENT_MAX_FRAME - 64) {
		log_error("constraint listing too long to send");
		wb_free(&body);
		reply(c, ST_EXT_FAIL);
		return 0;
	}
	msg_begin(&P->out, MSG_R_INSPECT, c->h.req, c->h.conn);
	msg_blob_encode(&P->out, &(struct msg_blob){ wb_slice_of(&body) });
	wb_free(&body);
	send_or_die(&P->mon, &P->out, "monitor");
	return 0;
}

/* §7.2: session-bind, processed even while locked (10.5). */
static int
h_bind(struct ctx *c)
{
	struct bindings *b = &c->conn->bind;
	struct msg_bind m;
	const char *why;

	b->attempted = 1;               /* before parsing (§7.2 step 1) */
	if (msg_bind_decode(&c->r, &m) != 0)
		why = "malformed session-bind";
	else
		why = bind_add(b, m.hostkey, m.session_id, m.signature, m.forwarding);
	if (why != NULL) {
		log_info("connection %u: session-bind refused: %s", c->h.conn, why);
		audit(c->P, "bind", "refuse", why, c->conn, NULL, SIG_NONE, NODATA, -1);
		reply(c, ST_EXT_FAIL);
		return 0;
	}
	log_debug("connection %u: %zu binding(s), the last one %s", c->h.conn,
	    b->n, b->b[b->n - 1].forwarding ? "forwarding" : "authentication");
	audit(c->P, "bind", "allow", NULL, c->conn, NULL, SIG_NONE, NODATA, -1);
	reply(c, ST_OK);
	return 0;
}

static int
h_bind_bad(struct ctx *c)
{
	c->conn->bind.attempted = 1;
	(void)msg_empty_decode(&c->r);  /* refused whatever it carries */
	log_info("connection %u: malformed session-bind refused", c->h.conn);
	audit(c->P, "bind", "refuse", "malformed session-bind", c->conn, NULL,
	    SIG_NONE, NODATA, -1);
	reply(c, ST_EXT_FAIL);
	return 0;
}

/* What the monitor may ask, and whether the request must name an open
 * client connection (everything but SIGUSR1's remove-all). */
static const struct {
	uint8_t type;
	int needs_conn;
	int (*fn)(struct ctx *);
} from_monitor[] = {
	{ MSG_OPEN, 0, h_open },
	{ MSG_CLOSE, 1, h_close },
	{ MSG_LIST, 1, h_list },
	{ MSG_SIGN, 1, h_sign },
	{ MSG_ADD, 1, h_add },
	{ MSG_REMOVE, 1, h_remove },
	{ MSG_REMOVE_ALL, 0, h_remove_all },
	{ MSG_LOCK, 1, h_lock },
	{ MSG_UNLOCK, 1, h_unlock },
	{ MSG_QUERY, 1, h_query },
	{ MSG_BIND, 1, h_bind },
	{ MSG_BIND_BAD, 1, h_bind_bad },
	{ MSG_INSPECT, 1, h_inspect },
};

void
policy_from_monitor(struct policy *P, const uint8_t *p, size_t n)
{
	struct ctx c = { .P = P };
	size_t i;

	expire(P);
	rd_init(&c.r, p, n);
	if (msg_hdr_decode(&c.r, &c.h) != 0)
		fatal("undecodable message from the monitor");
	for (i = 0; i < sizeof(from_monitor) / sizeof(from_monitor[0]); i++)
		if (from_monitor[i].type == c.h.type)
			break;
	if (i == sizeof(from_monitor) / sizeof(from_monitor[0])) {
		log_error("monitor sent unknown message type %u; ignored", c.h.type);
		return;
	}
	c.conn = conn_find(P, c.h.conn);
	if (from_monitor[i].needs_conn && c.conn == NULL) {
		log_error("monitor named connection %u, which is not open; refused",
		    c.h.conn);
		if (c.h.type != MSG_CLOSE)
			reply(&c, ST_FAIL);
		return;
	}
	if (c.h.type == MSG_REMOVE_ALL && c.h.conn != 0 && c.conn == NULL) {
		reply(&c, ST_FAIL);
		return;
	}
	if (from_monitor[i].fn(&c) != 0) {
		log_error("malformed message type %u from the monitor; refused",
		    c.h.type);
		if (c.h.type != MSG_OPEN && c.h.type != MSG_CLOSE)
			reply(&c, ST_FAIL);
	}
}

void
policy_from_keyholder(struct policy *P, const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct msg_status st;
	struct msg_blob sig;
	struct pending *pd;
	struct rd r;

	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0)
		fatal("undecodable message from the keyholder");
	if (h.req == 0)
		return;                 /* answer to a delete or wipe */
	if ((pd = pending_take(P, h.req, 0)) == NULL)
		fatal("keyholder answered request %u, which nobody asked", h.req);
	if (h.type == MSG_R_SIGNATURE && pd->kind == P_SIGN &&
	    msg_blob_decode(&r, &sig) == 0) {
		if (pd->conn != 0) {
			msg_begin(&P->out, MSG_R_SIGNATURE, pd->req, pd->conn);
			msg_blob_encode(&P->out, &sig);
			send_or_die(&P->mon, &P->out, "monitor");
		}
	} else if (h.type == MSG_R_STATUS && msg_status_decode(&r, &st) == 0) {
		if (pd->kind == P_LOCK || pd->kind == P_UNLOCK)
			lock_done(P, pd, st.status == ST_OK);
		else if (pd->kind == P_ADD && st.status == ST_OK)
			add_done(P, pd);
		else if (pd->kind == P_ADD) {
			log_info("refused add: the keyholder rejected the private key");
			audit(P, "add", "refuse", "the private key does not match its "
			    "public key", conn_find(P, pd->conn), NULL, SIG_NONE,
			    NODATA, -1);
		}
		if (pd->conn != 0 && pd->kind != P_LOCK && pd->kind != P_UNLOCK)
			reply_status(P, pd->conn, pd->req, st.status);
	} else {
		fatal("malformed reply from the keyholder");
	}
	pending_free(pd);
}

/* The prompter and the auditor answer with a status alone. */
static void
status_reply(const uint8_t *p, size_t n, const char *peer, struct msg_hdr *h,
    struct msg_status *st)
{
	struct rd r;

	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, h) != 0 || h->type != MSG_R_STATUS ||
	    msg_status_decode(&r, st) != 0)
		fatal("malformed message from the %s", peer);
}

/* A pending request taken off the list goes on to its next step. */
static void
pending_keep(struct policy *P, struct pending *pd)
{
	pd->next = P->pending;
	P->pending = pd;
}

void
policy_from_prompter(struct policy *P, const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct msg_status st;
	struct pending *pd;

	status_reply(p, n, "prompter", &h, &st);
	if ((pd = pending_take(P, h.req, 1)) == NULL)
		return;                 /* cancelled meanwhile */
	if (st.status == ST_OK && pd->conn != 0) {
		go_sign(P, pd, id_by_key(P, pd->key_id), conn_find(P, pd->conn),
		    wb_slice_of(&pd->data));
		pending_keep(P, pd);
		return;
	}
	if (pd->conn != 0) {
		log_info("refused signature: user did not confirm");
		audit(P, "sign", "refuse", "the user did not confirm",
		    conn_find(P, pd->conn), id_by_key(P, pd->key_id), pd->alg,
		    wb_slice_of(&pd->data), -1);
		reply_status(P, pd->conn, pd->req, ST_FAIL);
	}
	pending_free(pd);
}

void
policy_from_auditor(struct policy *P, const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct msg_status st;
	struct pending *pd;

	status_reply(p, n, "auditor", &h, &st);
	if ((pd = pending_take(P, h.req, 0)) == NULL || pd->kind != P_AUDIT)
		fatal("the auditor answered request %u, which nobody asked", h.req);
	if (st.status == ST_OK && pd->conn != 0) {
		kh_sign(P, pd, wb_slice_of(&pd->data));
		pending_keep(P, pd);
		return;
	}
	if (pd->conn != 0) {
		log_error("refused signature: the audit trail cannot be written");
		reply_status(P, pd->conn, pd->req, ST_FAIL);
	}
	pending_free(pd);
}
