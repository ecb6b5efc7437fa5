/*
 * shield.h - private keys at rest in the keyholder, as OpenSSH 8.2+ keeps
 * them: encrypted (AES-256-GCM) under a key that is the SHA-512 of a
 * 16 KiB random prekey. A partial or error-prone read of memory (Spectre,
 * RAMBleed, a stray core) recovers nothing unless it has every bit of the
 * prekey. A key is decrypted only for the one signature that needs it.
 * The prekey and every plaintext live in OpenSSL's secure heap: mlocked,
 * excluded from core dumps, wiped when freed.
 */
#ifndef KEYWARD_SHIELD_H
#define KEYWARD_SHIELD_H

#include "ipc/buf.h"

#include <stddef.h>
#include <stdint.h>

#define SHIELD_PREKEY_LEN  (16 * 1024)
#define SHIELD_IV_LEN      12
#define SHIELD_TAG_LEN     16
#define SHIELD_HEAP_SIZE   (1024 * 1024)  /* secure heap: prekey, plaintexts, BNs */
#define SHIELD_HEAP_MIN    32

struct sealed {
	uint8_t iv[SHIELD_IV_LEN], tag[SHIELD_TAG_LEN];
	uint8_t *ct;
	size_t len;
};

/* Before the sandbox: secure heap, prekey. Warns if memory is not locked. */
void shield_init(void);
int shield_seal(struct slice plain, struct sealed *out);
/* Plaintext in the secure heap, or NULL; release with shield_release. */
uint8_t *shield_open(const struct sealed *s);
void shield_release(uint8_t *plain, size_t len);
int sealed_copy(const struct sealed *from, struct sealed *to);
void sealed_free(struct sealed *s);

#endif
