/*
 * shield.h - private keys at rest in the keyholder, as OpenSSH 8.2+ keeps
 * them: encrypted (AES-256-GCM) under a key that is the SHA-256 of a
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
#define SHIELD_HEAP_SIZE   (256 * 1024)   /* secure heap: prekey, plaintexts, BNs */
#define SHIELD_HEAP_MIN    32

/* The lock (ssh-add -x): every key is re-sealed under a key derived
 * from the passphrase with scrypt, and the prekey-sealed copies dropped. */
#define SHIELD_LOCK_KEY_LEN 32
#define SHIELD_SALT_LEN     16
#define SHIELD_SCRYPT_N     (1 << 14)
#define SHIELD_SCRYPT_R     8
#define SHIELD_SCRYPT_P     1
#define SHIELD_SCRYPT_MAXMEM (64 * 1024 * 1024)

struct sealed {
	uint8_t iv[SHIELD_IV_LEN], tag[SHIELD_TAG_LEN];
	uint8_t *ct;
	size_t len;
};

/* Before the sandbox: secure heap, prekey. Warns if memory is not locked. */
void shield_init(void);
int shield_seal(struct slice plain, struct sealed *out);
int shield_seal_with(const uint8_t *key, struct slice plain, struct sealed *out);
uint8_t *shield_open_with(const uint8_t *key, const struct sealed *s);
/* The lock key for a passphrase and salt (scrypt); key must hold
 * SHIELD_LOCK_KEY_LEN bytes, ideally in the secure heap. */
int shield_lock_key(struct slice pass, const uint8_t *salt, uint8_t *key);
/* Plaintext in the secure heap, or NULL; release with shield_release. */
uint8_t *shield_open(const struct sealed *s);
/* n bytes of libcrypto's secure heap (mlocked, out of core dumps), or
 * NULL. shield_release wipes and frees them: every secret allocated here
 * ends there, and nowhere else. */
uint8_t *shield_alloc(size_t n);
void shield_release(uint8_t *p, size_t n);
/* A new prekey: whatever was sealed under the old one no longer opens. */
int shield_rekey(void);
int sealed_copy(const struct sealed *from, struct sealed *to);
void sealed_free(struct sealed *s);

#endif
