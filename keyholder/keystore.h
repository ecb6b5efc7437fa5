/*
 * keystore.h - the private keys, by the id policy gave them. Each entry is
 * an OpenSSL EVP_PKEY built from the wire encoding and checked against its
 * public half. Signing threads hold a reference while they sign, so a key
 * deleted meanwhile is freed (and wiped by OpenSSL) when they finish.
 */
#ifndef KEYWARD_KEYSTORE_H
#define KEYWARD_KEYSTORE_H

#include "ipc/buf.h"

#include <openssl/evp.h>
#include <stdint.h>

struct keyslot {
	struct keyslot *next;
	uint64_t id;
	int kind;                       /* enum key_kind */
	EVP_PKEY *pkey;
};

struct keystore {
	struct keyslot **buckets;
	size_t nbuckets, n;
};

void ks_init(struct keystore *ks);
/* Build and check a key from its plain private encoding; replaces an
 * existing id. 0 or -1 (with the reason logged). */
int ks_add(struct keystore *ks, uint64_t id, struct slice priv);
/* A new reference to the key, or NULL. Caller frees with EVP_PKEY_free. */
EVP_PKEY *ks_get(struct keystore *ks, uint64_t id, int *kind);
void ks_delete(struct keystore *ks, uint64_t id);
void ks_wipe(struct keystore *ks);

#endif
