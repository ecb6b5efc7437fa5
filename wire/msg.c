/*
 * msg.c - encoders and decoders for the inter-process messages. Decoders
 * trust nothing: the monitor may be compromised, so policy decodes what it
 * sends with the same strictness as a client frame.
 */
#include "wire/msg.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"

#include <string.h>

void
msg_begin(struct wb *w, uint8_t type, uint32_t req, uint32_t conn)
{
	wb_reset(w);
	wb_u8(w, type);
	wb_u32(w, req);
	wb_u32(w, conn);
}

int
msg_hdr_decode(struct rd *r, struct msg_hdr *h)
{
	return rd_u8(r, &h->type) || rd_u32(r, &h->req) || rd_u32(r, &h->conn);
}

int
msg_empty_decode(struct rd *r)
{
	return rd_done(r);
}

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
}

static int
constraints_decode(struct rd *r, struct constraints *c)
{
	uint8_t life, confirm, dest, prov;

	if (rd_u8(r, &life) || rd_u32(r, &c->lifetime) ||
	    rd_u8(r, &confirm) || rd_u8(r, &dest) ||
	    rd_string(r, &c->dest) || rd_u8(r, &prov) ||
	    rd_text(r, &c->provider) || rd_done(r))
		return -1;
	if (life > 1 || confirm > 1 || dest > 1 || prov > 1 ||
	    (!life && c->lifetime != 0) || (!dest && c->dest.len != 0) ||
	    (!prov && c->provider.len != 0) ||
	    (prov && c->provider.len == 0))
		return -1;
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
msg_blob_encode(struct wb *w, const struct msg_blob *m)
{
	wb_slice(w, m->blob);
}

int
msg_blob_decode(struct rd *r, struct msg_blob *m)
{
	return rd_string(r, &m->blob) || rd_done(r);
}

void
msg_status_encode(struct wb *w, const struct msg_status *m)
{
	wb_u8(w, m->status);
}

int
msg_status_decode(struct rd *r, struct msg_status *m)
{
	if (rd_u8(r, &m->status) || rd_done(r))
		return -1;
	return m->status <= ST_EXT_FAIL ? 0 : -1;
}

void
msg_status_reply(struct wb *w, uint32_t req, uint32_t conn, uint8_t st)
{
	msg_begin(w, MSG_R_STATUS, req, conn);
	msg_status_encode(w, &(struct msg_status){ st });
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
msg_kh_add_encode(struct wb *w, const struct msg_kh_add *m)
{
	wb_u64(w, m->key_id);
	wb_slice(w, m->priv);
}

int
msg_kh_add_decode(struct rd *r, struct msg_kh_add *m)
{
	return rd_u64(r, &m->key_id) || rd_string(r, &m->priv) || rd_done(r);
}

void
msg_kh_sign_encode(struct wb *w, const struct msg_kh_sign *m)
{
	wb_u64(w, m->key_id);
	wb_u8(w, m->alg);
	wb_slice(w, m->data);
}

int
msg_kh_sign_decode(struct rd *r, struct msg_kh_sign *m)
{
	return rd_u64(r, &m->key_id) || rd_u8(r, &m->alg) ||
	    rd_string(r, &m->data) || rd_done(r);
}

void
msg_kh_delete_encode(struct wb *w, const struct msg_kh_delete *m)
{
	wb_u64(w, m->key_id);
}

int
msg_kh_delete_decode(struct rd *r, struct msg_kh_delete *m)
{
	return rd_u64(r, &m->key_id) || rd_done(r);
}

void
msg_kh_sk_material_encode(struct wb *w, const struct msg_kh_sk_material *m)
{
	wb_u64(w, m->key_id);
}

int
msg_kh_sk_material_decode(struct rd *r, struct msg_kh_sk_material *m)
{
	return rd_u64(r, &m->key_id) || rd_done(r);
}

/* The answer is the keyholder's own, but policy decodes it as strictly
 * as anything: the application is text without any NUL (it is hashed as
 * it stands), and the sizes are what the keyholder ever accepts. */
void
msg_sk_material_encode(struct wb *w, const struct msg_sk_material *m)
{
	wb_u8(w, m->alg);
	wb_slice(w, m->application);
	wb_u8(w, m->flags);
	wb_slice(w, m->key_handle);
}

int
msg_sk_material_decode(struct rd *r, struct msg_sk_material *m)
{
	if (rd_u8(r, &m->alg) || rd_string(r, &m->application) ||
	    rd_u8(r, &m->flags) || rd_string(r, &m->key_handle) || rd_done(r))
		return -1;
	if (m->alg != SK_ALG_ECDSA_P256 && m->alg != SK_ALG_ED25519)
		return -1;
	if ((m->application.len > 0 &&
	    memchr(m->application.p, '\0', m->application.len) != NULL) ||
	    m->application.len > AGENT_MAX_SK_APPLICATION ||
	    m->key_handle.len > AGENT_MAX_SK_KEY_HANDLE)
		return -1;
	return 0;
}

void
msg_tk_sign_encode(struct wb *w, const struct msg_tk_sign *m)
{
	wb_slice(w, m->provider);
	wb_slice(w, m->request);
}

int
msg_tk_sign_decode(struct rd *r, struct msg_tk_sign *m)
{
	return rd_text(r, &m->provider) || rd_string(r, &m->request) ||
	    rd_done(r);
}

void
msg_tk_fail_encode(struct wb *w, const struct msg_tk_fail *m)
{
	wb_u8(w, m->why);
}

int
msg_tk_fail_decode(struct rd *r, struct msg_tk_fail *m)
{
	if (rd_u8(r, &m->why) || rd_done(r))
		return -1;
	return m->why >= TK_BUSY && m->why <= TK_FAIL_MAX ? 0 : -1;
}
