/*
 * keystore.h - the private keys, by the id policy gave them. A key is
 * checked once, when it is added (built as an OpenSSL EVP_PKEY against
 * its public half), and then kept only shielded (keyholder/shield.h).
 */
#ifndef KEYWARD_KEYSTORE_H
#define KEYWARD_KEYSTORE_H

#include "ipc/buf.h"
#include "keyholder/shield.h"

#include <stdint.h>

struct keyslot {
	struct keyslot *next;
	uint64_t id;
	int kind;                       /* enum key_kind */
	unsigned rsa_bits;              /* modulus size of an RSA key, else 0 */
	struct sealed key;              /* the plain private encoding, sealed */
	struct wb pub;                  /* its public blob, in the clear: it is
	                                 * public, and it marks where each key
	                                 * lives for a memory scan (94-memscan.t) */
};

struct keystore {
	struct keyslot **buckets;
	size_t nbuckets, n;
	int locked;             /* keys sealed under the passphrase, not the prekey */
	uint8_t salt[SHIELD_SALT_LEN];
};

void ks_init(struct keystore *ks);
/* Check and shield a key given in the private encoding of an ADD (a
 * certificate's is kept plain); replaces an existing id. 0, with the
 * public key it derived (the certificate, if one came) appended to pub,
 * or -1 (with the reason logged). */
int ks_add(struct keystore *ks, uint64_t id, struct slice priv, struct wb *pub);
/* A copy of the sealed key (the caller frees it), or -1. */
int ks_get(struct keystore *ks, uint64_t id, int *kind, struct sealed *out);
/* A FIDO key's material for one signature (wire/keyholder.h msg_sk_material:
 * algorithm, application, flags, key handle) appended to out, which then
 * holds the key handle: the caller wipes it once sent. -1 while locked,
 * for no such key, or for a key that is not a FIDO key. */
int ks_sk_material(struct keystore *ks, uint64_t id, struct wb *out);
/* The modulus size of an RSA key, 0 for other kinds or no such key. */
unsigned ks_rsa_bits(struct keystore *ks, uint64_t id);
void ks_delete(struct keystore *ks, uint64_t id);
void ks_wipe(struct keystore *ks);
/* Lock: re-seal every key under a key scrypt derives from the passphrase
 * and a fresh salt; the prekey-sealed copies are dropped. Unlock: the
 * reverse; a wrong passphrase changes nothing. 0 or -1. */
int ks_lock(struct keystore *ks, struct slice pass);
int ks_unlock(struct keystore *ks, struct slice pass);

/* Unshield, rebuild, sign, wipe: what a worker thread does per request. */
int ks_sign(const struct sealed *key, int alg, struct slice data, struct wb *sig);

#endif
