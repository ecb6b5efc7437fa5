/*
 * shield.c - seal and open private keys under the prekey-derived key.
 * Thread-safe: the prekey is behind a read-write lock (only a lock of the
 * agent renews it), every call has its own cipher context, and the secure
 * heap takes its own lock.
 */
#include "keyholder/shield.h"
#include "ipc/log.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *prekey;
/* Fetched once: an EVP_sha256() or EVP_aes_256_gcm() is looked up in the
 * provider's tables at every use, twice per signature. Public objects,
 * shared by the threads (each call has its own context). */
static EVP_MD *sha256;
static EVP_CIPHER *aes_gcm;

#ifdef KEYWARD_TESTING
/* Test builds only (never installed): tell the memory-scan test which
 * bytes the current prekey starts with, so it can look for them. */
static void
reveal_prekey(void)
{
	char hex[65];

	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", prekey[i]);
	log_error("test build: prekey begins %s", hex);
}
#else
#define reveal_prekey() ((void)0)
#endif
/* Workers read the prekey for every signature; a lock renews it. */
static pthread_rwlock_t prekey_lock = PTHREAD_RWLOCK_INITIALIZER;

void
shield_init(void)
{
	int r = CRYPTO_secure_malloc_init(SHIELD_HEAP_SIZE, SHIELD_HEAP_MIN);

	if (r == 0)
		fatal("cannot set up the secure heap for private keys");
	if (r == 2)
		log_error("warning: private key memory could not be locked "
		    "(RLIMIT_MEMLOCK too small); it is still kept out of core dumps");
	if ((sha256 = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL ||
	    (aes_gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL)) == NULL)
		fatal("cannot fetch the shielding algorithms");
	if ((prekey = shield_alloc(SHIELD_PREKEY_LEN)) == NULL ||
	    RAND_bytes(prekey, SHIELD_PREKEY_LEN) != 1)
		fatal("cannot make the shielding prekey");
	reveal_prekey();
}

/* The shielding key, derived afresh each time and wiped after use. */
static int
shield_key(uint8_t key[64])
{
	unsigned int n = 0;
	int ok;

	/* SHA-256, not OpenSSH's SHA-512: it is twice as fast over 16 KiB
	 * here (measured: 12 us less per signature) and gives exactly the
	 * 256-bit AES key; any bit of the prekey still changes all of it. */
	pthread_rwlock_rdlock(&prekey_lock);
	ok = EVP_Digest(prekey, SHIELD_PREKEY_LEN, key, &n, sha256, NULL) == 1
	    && n == 32;
	pthread_rwlock_unlock(&prekey_lock);
	return ok ? 0 : -1;
}

/* AES-256-GCM with key (the first 32 bytes), or the shielding key. */
static int
crypt(const uint8_t *with, int enc, const uint8_t *iv, uint8_t *tag,
    const uint8_t *in, size_t len, uint8_t *out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	uint8_t key[64];
	int n, ok;

	if (with != NULL)
		memcpy(key, with, SHIELD_LOCK_KEY_LEN);
	ok = ctx != NULL && (with != NULL || shield_key(key) == 0) &&
	    EVP_CipherInit_ex(ctx, aes_gcm, NULL, key, iv, enc) == 1 &&
	    (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, SHIELD_TAG_LEN,
	    tag) == 1) &&
	    EVP_CipherUpdate(ctx, out, &n, in, (int)len) == 1 &&
	    EVP_CipherFinal_ex(ctx, out + n, &n) == 1 &&
	    (!enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, SHIELD_TAG_LEN,
	    tag) == 1);
	wipe(key, sizeof(key));
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

int
shield_seal(struct slice plain, struct sealed *out)
{
	return shield_seal_with(NULL, plain, out);
}

int
shield_seal_with(const uint8_t *key, struct slice plain, struct sealed *out)
{
	memset(out, 0, sizeof(*out));
	if (plain.len == 0 || plain.len > INT32_MAX ||
	    (out->ct = malloc(plain.len)) == NULL)
		return -1;
	out->len = plain.len;
	if (RAND_bytes(out->iv, SHIELD_IV_LEN) != 1 ||
	    crypt(key, 1, out->iv, out->tag, plain.p, plain.len, out->ct) != 0) {
		sealed_free(out);
		return -1;
	}
	return 0;
}

uint8_t *
shield_open(const struct sealed *s)
{
	return shield_open_with(NULL, s);
}

uint8_t *
shield_open_with(const uint8_t *key, const struct sealed *s)
{
	uint8_t *plain = shield_alloc(s->len), tag[SHIELD_TAG_LEN];

	if (plain == NULL)
		return NULL;
	memcpy(tag, s->tag, sizeof(tag));
	if (crypt(key, 0, s->iv, tag, s->ct, s->len, plain) != 0) {
		shield_release(plain, s->len);
		return NULL;
	}
	return plain;
}

uint8_t *
shield_alloc(size_t n)
{
	return OPENSSL_secure_malloc(n);
}

void
shield_release(uint8_t *p, size_t n)
{
	if (p != NULL)
		OPENSSL_secure_clear_free(p, n);
}

int
sealed_copy(const struct sealed *from, struct sealed *to)
{
	*to = *from;
	if ((to->ct = malloc(from->len)) == NULL)
		return -1;
	memcpy(to->ct, from->ct, from->len);
	return 0;
}

int
shield_rekey(void)
{
	int ok;

	pthread_rwlock_wrlock(&prekey_lock);
	ok = RAND_bytes(prekey, SHIELD_PREKEY_LEN) == 1;
	if (ok)
		reveal_prekey();
	pthread_rwlock_unlock(&prekey_lock);
	return ok ? 0 : -1;
}

void
sealed_free(struct sealed *s)
{
	wipe(s->ct, s->len);
	free(s->ct);
	memset(s, 0, sizeof(*s));
}

int
shield_lock_key(struct slice pass, const uint8_t *salt, uint8_t *key)
{
	/* scrypt: memory-hard, so a stolen locked agent does not give the
	 * keys to a GPU farm cheaply (16 MiB, about 40 ms here). */
	return EVP_PBE_scrypt((const char *)pass.p, pass.len, salt, SHIELD_SALT_LEN,
	    SHIELD_SCRYPT_N, SHIELD_SCRYPT_R, SHIELD_SCRYPT_P, SHIELD_SCRYPT_MAXMEM,
	    key, SHIELD_LOCK_KEY_LEN) == 1 ? 0 : -1;
}
