/*
 * keyholder.c - the messages between policy and the keyholder
 * (keyholder.h).
 */
#include "wire/keyholder.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"

#include <string.h>

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
msg_kh_lock_write(struct wb *w, int unlock, uint32_t req,
    struct slice passphrase)
{
	msg_string_write(w, unlock ? MSG_KH_UNLOCK : MSG_KH_LOCK, req, 0,
	    passphrase);
}

void
msg_pubkey_write(struct wb *w, uint32_t req, struct slice key_blob)
{
	msg_string_write(w, MSG_R_PUBKEY, req, 0, key_blob);
}
