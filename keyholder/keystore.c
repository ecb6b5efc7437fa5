/*
 * keystore.c - the keyholder's table of private keys. Only the main
 * thread touches the table; worker threads get their own copy of a sealed
 * key and open it for one signature.
 */
#include "keyholder/keystore.h"
#include "keyholder/privkey.h"
#include "ipc/log.h"
#include "wire/keyholder.h"
#include "keys/sshkey.h"
#include "crypto/composite.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

void
ks_init(struct keystore *ks)
{
	memset(ks, 0, sizeof(*ks));
}

static struct keyslot **
ks_bucket(struct keystore *ks, uint64_t id)
{
	return &ks->buckets[(id * 11400714819323198485ULL) % ks->nbuckets];
}

static struct keyslot *
ks_find(struct keystore *ks, uint64_t id)
{
	if (ks->nbuckets == 0)
		return NULL;
	for (struct keyslot *s = *ks_bucket(ks, id); s != NULL; s = s->next)
		if (s->id == id)
			return s;
	return NULL;
}

static int
ks_grow(struct keystore *ks)
{
	size_t nb = ks->nbuckets ? ks->nbuckets * 2 : 64, old = ks->nbuckets;
	struct keyslot **ob = ks->buckets, *s, *next;

	if ((ks->buckets = calloc(nb, sizeof(*ks->buckets))) == NULL) {
		ks->buckets = ob;
		return -1;
	}
	ks->nbuckets = nb;
	for (size_t i = 0; i < old; i++)
		for (s = ob[i]; s != NULL; s = next) {
			struct keyslot **b = ks_bucket(ks, s->id);
			next = s->next;
			s->next = *b;
			*b = s;
		}
	free(ob);
	return 0;
}

/* Seal priv (a plain private encoding) into slot s and keep its plain
 * public blob; s is unchanged on failure. */
static int
slot_fill(struct keyslot *s, struct slice priv, const struct privkey *k)
{
	struct pubkey plain = k->pub;
	struct sealed fresh;
	struct wb pub;

	plain.is_cert = 0;
	wb_init(&pub);
	key_write_public(&pub, &plain);
	if (pub.err || shield_seal(priv, &fresh) != 0) {
		wb_free(&pub);
		return -1;
	}
	sealed_free(&s->key);
	wb_free(&s->pub);
	s->key = fresh;
	s->pub = pub;
	s->kind = k->pub.kind;
	s->rsa_bits = k->pub.kind == KEY_RSA ? k->pub.rsa_bits : 0;
	return 0;
}

static void
slot_free(struct keyslot *s)
{
	sealed_free(&s->key);
	wb_free(&s->pub);
	free(s);
}

/* Keep the checked key k (its plain encoding plain) under id. */
static int
ks_keep(struct keystore *ks, uint64_t id, struct slice plain,
    const struct privkey *k)
{
	struct keyslot *s;

	if ((s = ks_find(ks, id)) != NULL)
		return slot_fill(s, plain, k);
	if ((ks->n >= ks->nbuckets && ks_grow(ks) != 0) ||
	    (s = calloc(1, sizeof(*s))) == NULL)
		return -1;
	if (slot_fill(s, plain, k) != 0) {
		free(s);
		return -1;
	}
	s->id = id;
	s->next = *ks_bucket(ks, id);
	*ks_bucket(ks, id) = s;
	ks->n++;
	return 0;
}

int
ks_add(struct keystore *ks, uint64_t id, struct slice priv, struct wb *pub)
{
	struct privkey k;
	struct rd r;
	struct wb plain;
	const char *why = NULL;
	EVP_PKEY *pkey;
	int rc;

	if (ks->locked) {
		log_info("refused key: the keyholder is locked");
		return -1;
	}
	rd_init(&r, priv.p, priv.len);
	if (key_parse_private(&r, &k, &why) != 0 || rd_done(&r) != 0) {
		log_info("refused key: %s", why ? why : "bytes after the key");
		return -1;
	}
	/* Checked once, here; then only the shielded encoding is kept. A
	 * FIDO key's private half is in its authenticator: what can be
	 * checked is its public point; its key handle is kept sealed all
	 * the same, for it is what lets the token sign. */
	pkey = key_is_sk(k.pub.kind) ? pkey_public(&k.pub, &why) :
	    pkey_private(&k, &why);
	if (pkey == NULL) {
		log_info("refused key: %s", why ? why : "invalid");
		return -1;
	}
	EVP_PKEY_free(pkey);
	/* What policy compares with the public key it was given. */
	key_write_public(pub, &k.pub);
	if (pub->err)
		return -1;
	/* A certificate's key is kept in its plain form; policy holds the
	 * certificate. */
	wb_init(&plain);
	key_write_private_plain(&plain, &k);
	rc = plain.err ? -1 : ks_keep(ks, id, wb_slice_of(&plain), &k);
	wb_free_secret(&plain);
	return rc;
}

int
ks_get(struct keystore *ks, uint64_t id, int *kind, struct sealed *out)
{
	struct keyslot *s = ks_find(ks, id);

	if (ks->locked || s == NULL || sealed_copy(&s->key, out) != 0)
		return -1;
	*kind = s->kind;
	return 0;
}

int
ks_sk_material(struct keystore *ks, uint64_t id, struct wb *out)
{
	struct keyslot *s = ks_find(ks, id);
	struct msg_sk_material m;
	struct privkey k;
	uint8_t *plain;
	struct rd r;
	int rc = -1;

	if (ks->locked || s == NULL || !key_is_sk(s->kind) ||
	    (plain = shield_open(&s->key)) == NULL)
		return -1;
	rd_init(&r, plain, s->key.len);
	if (key_parse_private(&r, &k, NULL) == 0 && rd_done(&r) == 0 &&
	    key_is_sk(k.pub.kind)) {
		m = (struct msg_sk_material){ (uint8_t)key_sk_alg(k.pub.kind),
		    k.pub.sk_app, k.sk_flags, k.sk_key_handle };
		msg_sk_material_encode(out, &m);
		rc = out->err ? -1 : 0;
	}
	shield_release(plain, s->key.len);
	return rc;
}

unsigned
ks_rsa_bits(struct keystore *ks, uint64_t id)
{
	struct keyslot *s = ks_find(ks, id);

	return s != NULL ? s->rsa_bits : 0;
}

/* ssh-mldsa44-ed25519: both halves from the seeds (crypto/composite.h). */
static int
sign_mldsa(const struct privkey *k, int alg, struct slice data, struct wb *out)
{
	uint8_t sig[MLDSA44_ED25519_SIG_LEN];

	if (alg != SIG_MLDSA44_ED25519 ||
	    composite_sign(k->mldsa_sk.p, data, sig) != 0)
		return -1;
	wb_cstring(out, sig_alg_name(SIG_MLDSA44_ED25519));
	wb_string(out, sig, sizeof(sig));
	return out->err ? -1 : 0;
}

int
ks_sign(const struct sealed *key, int alg, struct slice data, struct wb *sig)
{
	struct privkey k;
	EVP_PKEY *pkey = NULL;
	uint8_t *plain;
	struct rd r;
	int rc = -1;

	if ((plain = shield_open(key)) == NULL)
		return -1;
	rd_init(&r, plain, key->len);
	if (key_parse_private(&r, &k, NULL) != 0)
		rc = -1;
	else if (k.pub.kind == KEY_MLDSA44_ED25519)
		rc = sign_mldsa(&k, alg, data, sig);
	else if (k.pub.kind == KEY_ECDSA_P256 || k.pub.kind == KEY_ECDSA_P384 ||
	    k.pub.kind == KEY_ECDSA_P521)
		rc = ecsign(&k, (enum sig_alg)alg, data, sig);
	else if (k.pub.kind == KEY_RSA)
		rc = rsasign(&k, (enum sig_alg)alg, data, sig);
	else if ((pkey = pkey_private_trusted(&k)) != NULL)
		rc = sig_make(pkey, (enum sig_alg)alg, data, sig);
	EVP_PKEY_free(pkey);            /* OpenSSL clears its private copy */
	shield_release(plain, key->len);
	return rc;
}

void
ks_delete(struct keystore *ks, uint64_t id)
{
	struct keyslot **pp, *s;

	if (ks->nbuckets == 0)
		return;
	for (pp = ks_bucket(ks, id); (s = *pp) != NULL; pp = &s->next)
		if (s->id == id) {
			*pp = s->next;
			slot_free(s);
			ks->n--;
			return;
		}
}

void
ks_wipe(struct keystore *ks)
{
	struct keyslot *s, *next;

	for (size_t i = 0; i < ks->nbuckets; i++) {
		for (s = ks->buckets[i]; s != NULL; s = next) {
			next = s->next;
			slot_free(s);
		}
		ks->buckets[i] = NULL;
	}
	ks->n = 0;              /* a lock stays: unlocking an empty store works */
	rsasign_forget();
}

/* Re-seal every key: open with from (NULL: the prekey), seal with to.
 * All or nothing: on any failure the new seals are dropped. */
static int
reseal(struct keystore *ks, const uint8_t *from, const uint8_t *to)
{
	struct sealed *fresh = NULL;
	struct keyslot *s;
	size_t i, j = 0;
	int rc = -1;

	if (ks->n > 0 && (fresh = calloc(ks->n, sizeof(*fresh))) == NULL)
		return -1;
	for (i = 0; i < ks->nbuckets; i++)
		for (s = ks->buckets[i]; s != NULL; s = s->next, j++) {
			uint8_t *plain = shield_open_with(from, &s->key);
			int ok = plain != NULL && shield_seal_with(to,
			    (struct slice){ plain, s->key.len }, &fresh[j]) == 0;
			shield_release(plain, s->key.len);
			if (!ok)
				goto out;
		}
	for (i = 0, j = 0; i < ks->nbuckets; i++)
		for (s = ks->buckets[i]; s != NULL; s = s->next, j++) {
			sealed_free(&s->key);
			s->key = fresh[j];
			memset(&fresh[j], 0, sizeof(fresh[j]));
		}
	rc = 0;
out:
	for (i = 0; i < ks->n; i++)
		sealed_free(&fresh[i]);
	free(fresh);
	return rc;
}

int
ks_lock(struct keystore *ks, struct slice pass)
{
	uint8_t *key = shield_alloc(SHIELD_LOCK_KEY_LEN);
	int rc = -1;

	if (key != NULL && !ks->locked && pass.len > 0 &&
	    RAND_bytes(ks->salt, sizeof(ks->salt)) == 1 &&
	    shield_lock_key(pass, ks->salt, key) == 0 &&
	    reseal(ks, NULL, key) == 0) {
		/* A fresh prekey: a stray copy sealed under the old one (a
		 * worker's, a freed block's) is now useless too. */
		if (shield_rekey() != 0)
			fatal("cannot renew the shielding prekey");
		ks->locked = 1;
		rsasign_forget();
		rc = 0;
	}
	shield_release(key, SHIELD_LOCK_KEY_LEN);
	return rc;
}

int
ks_unlock(struct keystore *ks, struct slice pass)
{
	uint8_t *key = shield_alloc(SHIELD_LOCK_KEY_LEN);
	int rc = -1;

	if (key != NULL && ks->locked &&
	    shield_lock_key(pass, ks->salt, key) == 0 &&
	    reseal(ks, key, NULL) == 0) {
		ks->locked = 0;
		rc = 0;
	}
	shield_release(key, SHIELD_LOCK_KEY_LEN);
	return rc;
}
