/*
 * keyholder.h - the messages between policy and the keyholder (wire/msg.h
 * for the header and the shared replies). Policy asks by key id; the
 * keyholder answers with a status, a signature (MSG_R_SIGNATURE), the
 * public key it derived or a FIDO key's material.
 */
#ifndef KEYWARD_WIRE_KEYHOLDER_H
#define KEYWARD_WIRE_KEYHOLDER_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stdint.h>

enum {
	/* policy -> keyholder */
	MSG_KH_ADD = 32,        /* msg_kh_add */
	MSG_KH_SIGN,            /* msg_kh_sign */
	MSG_KH_DELETE,          /* msg_kh_delete */
	MSG_KH_WIPE,            /* no payload */
	MSG_KH_LOCK,            /* msg_kh_lock_*: re-seal every key under it */
	MSG_KH_UNLOCK,          /* msg_kh_lock_* */
	MSG_KH_SK_MATERIAL,     /* msg_kh_sk_material: a FIDO key's material for
	                         * one signature; refused while locked */
	/* keyholder -> policy, besides MSG_R_STATUS and MSG_R_SIGNATURE */
	MSG_R_SK_MATERIAL = 69, /* msg_sk_material: holds a key handle (secret) */
	MSG_R_PUBKEY = 77,      /* msg_pubkey_*: the public key the keyholder
	                         * derived from an accepted MSG_KH_ADD */
};

/* priv: an ADD's private encoding (a certificate's form too) */
struct msg_kh_add { uint64_t key_id; struct slice priv; };
struct msg_kh_sign { uint64_t key_id; uint8_t alg; struct slice data; };
struct msg_kh_delete { uint64_t key_id; };
struct msg_kh_sk_material { uint64_t key_id; };
/* What a token helper needs of one FIDO key to sign once: alg is
 * SK_ALG_* (keys/sshkey.h), application is text, key_handle is secret. */
struct msg_sk_material {
	uint8_t alg;
	struct slice application;
	uint8_t flags;
	struct slice key_handle;
};

void msg_kh_add_encode(struct wb *w, const struct msg_kh_add *m);
int msg_kh_add_decode(struct rd *r, struct msg_kh_add *m);
void msg_kh_sign_encode(struct wb *w, const struct msg_kh_sign *m);
int msg_kh_sign_decode(struct rd *r, struct msg_kh_sign *m);
void msg_kh_delete_encode(struct wb *w, const struct msg_kh_delete *m);
int msg_kh_delete_decode(struct rd *r, struct msg_kh_delete *m);
void msg_kh_sk_material_encode(struct wb *w, const struct msg_kh_sk_material *m);
int msg_kh_sk_material_decode(struct rd *r, struct msg_kh_sk_material *m);
void msg_sk_material_encode(struct wb *w, const struct msg_sk_material *m);
int msg_sk_material_decode(struct rd *r, struct msg_sk_material *m);

/* MSG_KH_LOCK (unlock 0) or MSG_KH_UNLOCK (unlock 1): the passphrase. */
void msg_kh_lock_write(struct wb *w, int unlock, uint32_t req,
    struct slice passphrase);
/* MSG_R_PUBKEY: the public key blob the keyholder derived. */
void msg_pubkey_write(struct wb *w, uint32_t req, struct slice key_blob);

#endif
