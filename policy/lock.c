/*
 * lock.c - the lock passphrase is never kept, only a salted PBKDF2 hash
 * of it, compared in constant time.
 */
#include "policy/policy.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

static int
derive(const uint8_t *salt, struct slice pass, uint8_t *out)
{
	return PKCS5_PBKDF2_HMAC((const char *)pass.p, (int)pass.len, salt,
	    LOCK_SALT_LEN, LOCK_KDF_ITERATIONS, EVP_sha256(), LOCK_HASH_LEN,
	    out) == 1 ? 0 : -1;
}

int
lock_set(struct lockstate *l, struct slice pass)
{
	if (RAND_bytes(l->salt, LOCK_SALT_LEN) != 1 ||
	    derive(l->salt, pass, l->hash) != 0)
		return -1;
	l->locked = 1;
	return 0;
}

int
lock_check(const struct lockstate *l, struct slice pass)
{
	uint8_t h[LOCK_HASH_LEN];
	int r;

	if (derive(l->salt, pass, h) != 0)
		return -1;
	r = CRYPTO_memcmp(h, l->hash, LOCK_HASH_LEN) == 0 ? 0 : -1;
	OPENSSL_cleanse(h, sizeof(h));
	return r;
}
