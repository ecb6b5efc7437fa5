/*
 * shield.c - seal and open private keys under the prekey-derived key.
 * Thread-safe: the prekey is read-only after shield_init and every call
 * has its own cipher context; the secure heap takes its own lock.
 */
#include "keyholder/shield.h"
#include "ipc/log.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *prekey;

void
shield_init(void)
{
	int r = CRYPTO_secure_malloc_init(SHIELD_HEAP_SIZE, SHIELD_HEAP_MIN);

	if (r == 0)
		fatal("cannot set up the secure heap for private keys");
	if (r == 2)
		log_error("warning: private key memory could not be locked "
		    "(RLIMIT_MEMLOCK too small); it is still kept out of core dumps");
	if ((prekey = OPENSSL_secure_malloc(SHIELD_PREKEY_LEN)) == NULL ||
	    RAND_bytes(prekey, SHIELD_PREKEY_LEN) != 1)
		fatal("cannot make the shielding prekey");
}

/* The shielding key, derived afresh each time and wiped after use. */
static int
shield_key(uint8_t key[64])
{
	unsigned int n = 0;

	return EVP_Digest(prekey, SHIELD_PREKEY_LEN, key, &n, EVP_sha512(), NULL) == 1
	    && n == 64 ? 0 : -1;
}

static int
crypt(int enc, const uint8_t *iv, uint8_t *tag, const uint8_t *in, size_t len,
    uint8_t *out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	uint8_t key[64];
	int n, ok;

	ok = ctx != NULL && shield_key(key) == 0 &&
	    EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, iv, enc) == 1 &&
	    (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, SHIELD_TAG_LEN,
	    tag) == 1) &&
	    EVP_CipherUpdate(ctx, out, &n, in, (int)len) == 1 &&
	    EVP_CipherFinal_ex(ctx, out + n, &n) == 1 &&
	    (!enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, SHIELD_TAG_LEN,
	    tag) == 1);
	OPENSSL_cleanse(key, sizeof(key));
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

int
shield_seal(struct slice plain, struct sealed *out)
{
	memset(out, 0, sizeof(*out));
	if (plain.len == 0 || plain.len > INT32_MAX ||
	    (out->ct = malloc(plain.len)) == NULL)
		return -1;
	out->len = plain.len;
	if (RAND_bytes(out->iv, SHIELD_IV_LEN) != 1 ||
	    crypt(1, out->iv, out->tag, plain.p, plain.len, out->ct) != 0) {
		sealed_free(out);
		return -1;
	}
	return 0;
}

uint8_t *
shield_open(const struct sealed *s)
{
	uint8_t *plain = OPENSSL_secure_malloc(s->len), tag[SHIELD_TAG_LEN];

	if (plain == NULL)
		return NULL;
	memcpy(tag, s->tag, sizeof(tag));
	if (crypt(0, s->iv, tag, s->ct, s->len, plain) != 0) {
		shield_release(plain, s->len);
		return NULL;
	}
	return plain;
}

void
shield_release(uint8_t *plain, size_t len)
{
	if (plain != NULL)
		OPENSSL_secure_clear_free(plain, len);
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

void
sealed_free(struct sealed *s)
{
	free(s->ct);
	memset(s, 0, sizeof(*s));
}
