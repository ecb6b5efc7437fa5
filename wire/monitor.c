/*
 * monitor.c - the messages between the monitor and policy (monitor.h).
 * Decoders trust nothing: the monitor may be compromised, so policy
 * decodes what it sends with the same strictness as a client frame.
 */
#include "wire/monitor.h"

void
msg_open_encode(struct wb *w, const struct msg_open *m)
{
	wb_u32(w, m->uid);
	wb_u32(w, m->pid);
	wb_u32(w, m->sock);
}

int
msg_open_decode(struct rd *r, struct msg_open *m)
{
	return rd_u32(r, &m->uid) || rd_u32(r, &m->pid) ||
	    rd_u32(r, &m->sock) || rd_done(r);
}

void
msg_sign_encode(struct wb *w, const struct msg_sign *m)
{
	wb_slice(w, m->key);
	wb_slice(w, m->data);
	wb_u32(w, m->flags);
}

int
msg_sign_decode(struct rd *r, struct msg_sign *m)
{
	return rd_string(r, &m->key) || rd_string(r, &m->data) ||
	    rd_u32(r, &m->flags) || rd_done(r);
}

/* The constraints of an add (msg_add, msg_p11_add), as one shape. */
static void
constraints_encode(struct wb *w, const struct constraints *c)
{
	wb_u8(w, c->has_lifetime != 0);
	wb_u32(w, c->lifetime);
	wb_u8(w, c->confirm != 0);
	wb_u8(w, c->has_dest != 0);
	wb_slice(w, c->dest);
	wb_u8(w, c->has_provider != 0);
	wb_slice(w, c->provider);
	wb_u8(w, c->has_certs != 0);
	wb_u8(w, c->certs_only != 0);
	wb_slice(w, c->certs);
}

static int
constraints_decode(struct rd *r, struct constraints *c)
{
	uint8_t life, confirm, dest, prov, certs, only;

	if (rd_u8(r, &life) || rd_u32(r, &c->lifetime) ||
	    rd_u8(r, &confirm) || rd_u8(r, &dest) ||
	    rd_string(r, &c->dest) || rd_u8(r, &prov) ||
	    rd_text(r, &c->provider) || rd_u8(r, &certs) || rd_u8(r, &only) ||
	    rd_string(r, &c->certs) || rd_done(r))
		return -1;
	if (life > 1 || confirm > 1 || dest > 1 || prov > 1 || certs > 1 ||
	    only > 1 || (!life && c->lifetime != 0) ||
	    (!dest && c->dest.len != 0) ||
	    (!prov && c->provider.len != 0) ||
	    (prov && c->provider.len == 0) ||
	    (!certs && (only || c->certs.len != 0)))
		return -1;
	c->has_certs = certs;
	c->certs_only = only;
	c->has_provider = prov;
	c->has_dest = dest;
	c->has_lifetime = life;
	c->confirm = confirm;
	return 0;
}

void
msg_add_encode(struct wb *w, const struct msg_add *m)
{
	wb_slice(w, m->pub);
	wb_slice(w, m->key);
	wb_slice(w, m->comment);
	constraints_encode(w, &m->c);
}

int
msg_add_decode(struct rd *r, struct msg_add *m)
{
	if (rd_string(r, &m->pub) || rd_string(r, &m->key) ||
	    rd_text(r, &m->comment))
		return -1;
	return constraints_decode(r, &m->c);
}

void
msg_p11_add_encode(struct wb *w, const struct msg_p11_add *m)
{
	wb_slice(w, m->provider);
	wb_slice(w, m->pin);
	constraints_encode(w, &m->c);
}

int
msg_p11_add_decode(struct rd *r, struct msg_p11_add *m)
{
	if (rd_text(r, &m->provider) || m->provider.len == 0 ||
	    rd_string(r, &m->pin))
		return -1;
	return constraints_decode(r, &m->c);
}

void
msg_bind_encode(struct wb *w, const struct msg_bind *m)
{
	wb_slice(w, m->hostkey);
	wb_slice(w, m->session_id);
	wb_slice(w, m->signature);
	wb_u8(w, m->forwarding != 0);
}

int
msg_bind_decode(struct rd *r, struct msg_bind *m)
{
	uint8_t fwd;

	if (rd_string(r, &m->hostkey) || rd_string(r, &m->session_id) ||
	    rd_string(r, &m->signature) || rd_u8(r, &fwd) || rd_done(r) ||
	    fwd > 1)
		return -1;
	m->forwarding = fwd;
	return 0;
}

void
msg_identities_encode(struct wb *w, const struct msg_identities *m)
{
	wb_u32(w, m->n);
	wb_slice(w, m->entries);
}

int
msg_identities_decode(struct rd *r, struct msg_identities *m)
{
	struct rd e;
	struct slice blob, comment;

	if (rd_u32(r, &m->n) || rd_string(r, &m->entries) || rd_done(r))
		return -1;
	rd_init(&e, m->entries.p, m->entries.len);
	for (uint32_t i = 0; i < m->n; i++)
		if (rd_string(&e, &blob) || rd_string(&e, &comment))
			return -1;
	return rd_done(&e);
}

void
msg_list_cache_encode(struct wb *w, const struct msg_list_cache *m)
{
	wb_u64(w, m->gen);
	wb_u64(w, m->until_ms);
	wb_u8(w, m->tell != 0);
	msg_identities_encode(w, &m->ids);
}

int
msg_list_cache_decode(struct rd *r, struct msg_list_cache *m)
{
	uint8_t tell;

	if (rd_u64(r, &m->gen) || rd_u64(r, &m->until_ms) || m->gen == 0 ||
	    rd_u8(r, &tell) || tell > 1)
		return -1;
	m->tell = tell;
	return msg_identities_decode(r, &m->ids);
}

void
msg_listed_encode(struct wb *w, const struct msg_listed *m)
{
	wb_u64(w, m->gen);
	wb_u32(w, m->n);
}

int
msg_listed_decode(struct rd *r, struct msg_listed *m)
{
	return rd_u64(r, &m->gen) || m->gen == 0 || rd_u32(r, &m->n) ||
	    rd_done(r) ? -1 : 0;
}

void
msg_remove_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice key_blob)
{
	msg_string_write(w, MSG_REMOVE, req, conn, key_blob);
}

void
msg_lock_write(struct wb *w, int unlock, uint32_t req, uint32_t conn,
    struct slice passphrase)
{
	msg_string_write(w, unlock ? MSG_UNLOCK : MSG_LOCK, req, conn,
	    passphrase);
}

void
msg_p11_remove_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice provider)
{
	msg_string_write(w, MSG_P11_REMOVE, req, conn, provider);
}

void
msg_peer_write(struct wb *w, uint32_t conn, struct slice peer_reply)
{
	msg_string_write(w, MSG_PEER, 0, conn, peer_reply);
}

void
msg_policy_load_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice rules_text)
{
	msg_string_write(w, MSG_POLICY_LOAD, req, conn, rules_text);
}

void
msg_ext_reply_write(struct wb *w, uint8_t reply, uint32_t req, uint32_t conn,
    struct slice body)
{
	msg_string_write(w, reply, req, conn, body);
}
