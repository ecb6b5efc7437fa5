/*
 * keystore.c - the keyholder's table of private keys. Only the main
 * thread touches the table; worker threads only hold EVP_PKEY references.
 */
#include "keyholder/keystore.h"
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "ipc/sshkey.h"

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

int
ks_add(struct keystore *ks, uint64_t id, struct slice priv)
{
	struct privkey k;
	struct keyslot *s;
	struct rd r;
	const char *why = NULL;
	EVP_PKEY *pkey;

	rd_init(&r, priv.p, priv.len);
	if (key_parse_private(&r, &k, &why) != 0 || rd_done(&r) != 0 ||
	    k.pub.is_cert) {
		log_info("refused key: %s", why ? why : "not a plain private key");
		return -1;
	}
	if ((pkey = pkey_private(&k, &why)) == NULL) {
		log_info("refused key: %s", why ? why : "invalid");
		return -1;
	}
	if ((s = ks_find(ks, id)) != NULL) {
		EVP_PKEY_free(s->pkey);
		s->pkey = pkey;
		s->kind = k.pub.kind;
		return 0;
	}
	if ((ks->n >= ks->nbuckets && ks_grow(ks) != 0) ||
	    (s = calloc(1, sizeof(*s))) == NULL) {
		EVP_PKEY_free(pkey);
		return -1;
	}
	s->id = id;
	s->kind = k.pub.kind;
	s->pkey = pkey;
	s->next = *ks_bucket(ks, id);
	*ks_bucket(ks, id) = s;
	ks->n++;
	return 0;
}

EVP_PKEY *
ks_get(struct keystore *ks, uint64_t id, int *kind)
{
	struct keyslot *s = ks_find(ks, id);

	if (s == NULL || EVP_PKEY_up_ref(s->pkey) != 1)
		return NULL;
	*kind = s->kind;
	return s->pkey;
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
			EVP_PKEY_free(s->pkey);
			free(s);
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
			EVP_PKEY_free(s->pkey);
			free(s);
		}
		ks->buckets[i] = NULL;
	}
	ks->n = 0;
}
