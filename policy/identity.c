/*
 * identity.c - identity table: an array for list order and a chained hash
 * table on the canonical blob, so adding 10,000 keys is linear, not
 * quadratic, and a sign request finds its key in constant time; and a
 * second on the keyholder's key id, which every answer about a signature
 * names (the keyholder, the prompter, the broker), found as fast.
 */
#include "policy/identity.h"
#include "ipc/log.h"

#include <stdlib.h>
#include <string.h>

static uint64_t
hash_blob(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;   /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

void
idt_init(struct idtable *t)
{
	memset(t, 0, sizeof(*t));
}

struct identity *
idt_find(const struct idtable *t, struct slice blob)
{
	struct identity *id;

	if (t->nbuckets == 0)
		return NULL;
	for (id = t->buckets[hash_blob(blob.p, blob.len) % t->nbuckets]; id != NULL;
	    id = id->hnext)
		if (id->blob_len == blob.len && memcmp(id->blob, blob.p, blob.len) == 0)
			return id;
	return NULL;
}

struct identity *
idt_find_request(const struct idtable *t, struct slice blob)
{
	const char *why = NULL;
	struct identity *id = NULL;
	struct wb canon;

	wb_init(&canon);
	if (key_canonical(blob, NULL, &canon, &why) == 0)
		id = idt_find(t, wb_slice_of(&canon));
	else
		log_debug("request names an unusable key: %s", why ? why : "malformed");
	wb_free(&canon);
	return id;
}

/* Key ids are handed out one by one: the low bits spread them. */
static size_t
hash_key(uint64_t key_id, size_t nb)
{
	return (size_t)(key_id % nb);
}

struct identity *
idt_find_key(const struct idtable *t, uint64_t key_id)
{
	struct identity *id;

	if (t->nbuckets == 0)
		return NULL;
	for (id = t->kbuckets[hash_key(key_id, t->nbuckets)]; id != NULL;
	    id = id->knext)
		if (id->key_id == key_id)
			return id;
	return NULL;
}

static void
key_link(struct idtable *t, struct identity *id)
{
	size_t h = hash_key(id->key_id, t->nbuckets);

	id->knext = t->kbuckets[h];
	t->kbuckets[h] = id;
}

static void
key_unlink(struct idtable *t, struct identity *id)
{
	struct identity **pp;

	for (pp = &t->kbuckets[hash_key(id->key_id, t->nbuckets)]; *pp != NULL;
	    pp = &(*pp)->knext)
		if (*pp == id) {
			*pp = id->knext;
			break;
		}
}

void
idt_rekey(struct idtable *t, struct identity *id, uint64_t key_id)
{
	key_unlink(t, id);
	id->key_id = key_id;
	key_link(t, id);
}

static int
rehash(struct idtable *t, size_t nb)
{
	struct identity **b = calloc(nb, sizeof(*b));
	struct identity **kb = calloc(nb, sizeof(*kb));

	if (b == NULL || kb == NULL) {
		free(b);
		free(kb);
		return -1;
	}
	free(t->buckets);
	free(t->kbuckets);
	t->buckets = b;
	t->kbuckets = kb;
	t->nbuckets = nb;
	for (size_t i = 0; i < t->n; i++) {
		struct identity *id = t->order[i];
		size_t h = hash_blob(id->blob, id->blob_len) % nb;
		id->hnext = b[h];
		b[h] = id;
		key_link(t, id);
	}
	return 0;
}

int
idt_insert(struct idtable *t, struct identity *id)
{
	size_t h;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct identity **o = realloc(t->order, cap * sizeof(*o));
		if (o == NULL)
			return -1;
		t->order = o;
		t->cap = cap;
	}
	id->order = t->n;
	t->order[t->n++] = id;
	if (t->n > t->nbuckets) {
		/* Grow at load factor 1; rehash links every entry, this one too. */
		if (rehash(t, t->nbuckets ? t->nbuckets * 2 : 64) != 0) {
			t->n--;
			return -1;
		}
	} else {
		h = hash_blob(id->blob, id->blob_len) % t->nbuckets;
		id->hnext = t->buckets[h];
		t->buckets[h] = id;
		key_link(t, id);
	}
	t->bytes += id->cost;
	t->gen++;
	return 0;
}

void
idt_remove(struct idtable *t, struct identity *id)
{
	struct identity **pp;
	size_t h = hash_blob(id->blob, id->blob_len) % t->nbuckets;

	for (pp = &t->buckets[h]; *pp != NULL; pp = &(*pp)->hnext)
		if (*pp == id) {
			*pp = id->hnext;
			break;
		}
	key_unlink(t, id);
	/* Keep the order of the rest (clients rely on it). */
	memmove(&t->order[id->order], &t->order[id->order + 1],
	    (t->n - id->order - 1) * sizeof(*t->order));
	t->n--;
	for (size_t i = id->order; i < t->n; i++)
		t->order[i]->order = i;
	t->bytes -= id->cost;
	t->gen++;
}

void
idt_recharge(struct idtable *t, struct identity *held, size_t cost)
{
	t->bytes = t->bytes - held->cost + cost;
	held->cost = cost;
	t->gen++;
}

int
idt_room(const struct idtable *t, const struct identity *held, size_t cost)
{
	size_t n = t->n, bytes = t->bytes;

	if (held != NULL) {
		n--;
		bytes -= held->cost;
	}
	return n < AGENT_MAX_KEYS && cost <= AGENT_MAX_HELD_BYTES &&
	    bytes <= AGENT_MAX_HELD_BYTES - cost;
}

void
identity_free(struct identity *id)
{
	if (id == NULL)
		return;
	free(id->blob);
	free(id->comment);
	free(id->provider);
	free(id->pub);
	free(id->owner);
	free(id->added_by);
	dest_set_free(&id->dest);
	free(id);
}

/* Only the keys that need it pay for it (FIDO and PKCS#11 keys sign
 * through it): its slices point into the blob, which never changes. */
const struct pubkey *
identity_pub(struct identity *id)
{
	if (id->pub != NULL)
		return id->pub;
	if ((id->pub = malloc(sizeof(*id->pub))) == NULL)
		fatal("out of memory");
	if (key_parse_public((struct slice){ id->blob, id->blob_len }, id->pub,
	    NULL) != 0) {
		free(id->pub);
		id->pub = NULL;
	}
	return id->pub;
}

char *
str_dup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		fatal("out of memory");
	return d;
}

uint8_t *
bytes_dup(struct slice s)
{
	uint8_t *d = malloc(s.len > 0 ? s.len : 1);

	if (d == NULL)
		fatal("out of memory");
	memcpy(d, s.p, s.len);
	return d;
}
