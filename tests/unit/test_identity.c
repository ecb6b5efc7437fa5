/*
 * test_identity.c - policy's identity table (policy/identity.c): found by
 * exact blob, listed in first-add order, and the order of the others kept
 * when one goes (doc/protocol.md §5.2: clients depend on the order), found
 * by the keyholder's key id, a re-add's new id too; and the budget
 * of keys held (AGENT_MAX_KEYS, AGENT_MAX_HELD_BYTES) that refuses an add
 * past it.
 */
#include "policy/identity.h"
#include "tests/unit/tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIDS 10000

static struct identity *
make(const void *blob, size_t n)
{
	struct identity *id = calloc(1, sizeof(*id));

	if (id == NULL || (id->blob = malloc(n ? n : 1)) == NULL)
		abort();
	memcpy(id->blob, blob, n);
	id->blob_len = n;
	return id;
}

static struct identity *
make_nth(unsigned i)
{
	char b[32];
	int n = snprintf(b, sizeof(b), "perseus-%u", i);

	return make(b, (size_t)n);
}

static struct identity *
find_nth(const struct idtable *t, unsigned i)
{
	char b[32];
	int n = snprintf(b, sizeof(b), "perseus-%u", i);
	struct slice s = { (const uint8_t *)b, (size_t)n };

	return idt_find(t, s);
}

/* order[] holds exactly want[0..n), each knowing its index. */
static int
order_is(const struct idtable *t, struct identity *const *want, size_t n)
{
	if (t->n != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (t->order[i] != want[i] || t->order[i]->order != i)
			return 0;
	return 1;
}

static void
table_free(struct idtable *t)
{
	for (size_t i = 0; i < t->n; i++)
		identity_free(t->order[i]);
	free(t->order);
	free(t->buckets);
	free(t->kbuckets);
	idt_init(t);
}

static void
test_many(void)
{
	static struct identity *ids[NIDS], *kept[NIDS];
	struct idtable t;
	size_t nk = 0, found = 0, gone = 0, failed = 0;
	struct identity *late;

	idt_init(&t);
	ok(idt_find(&t, (struct slice){ (const uint8_t *)"x", 1 }) == NULL,
	    "empty table: nothing found");
	for (unsigned i = 0; i < NIDS; i++) {
		ids[i] = make_nth(i);
		failed += idt_insert(&t, ids[i]) != 0;
	}
	ok(failed == 0 && t.n == NIDS, "insert 10,000 identities");
	for (unsigned i = 0; i < NIDS; i++)
		found += find_nth(&t, i) == ids[i];
	is_int(found, NIDS, "each of the 10,000 found by its blob");
	ok(order_is(&t, ids, NIDS), "listed in the order they were added");
	ok(find_nth(&t, NIDS) == NULL && idt_find(&t, (struct slice){
	    (const uint8_t *)"perseus-", 8 }) == NULL &&
	    idt_find(&t, (struct slice){ (const uint8_t *)"perseus-12", 10 }) == ids[12] &&
	    idt_find(&t, (struct slice){ (const uint8_t *)"perseus-1", 9 }) == ids[1],
	    "a blob that is a prefix of another is its own identity; unknown blobs not found");

	/* remove every other one, from the front */
	for (unsigned i = 0; i < NIDS; i += 2) {
		idt_remove(&t, ids[i]);
		identity_free(ids[i]);
	}
	for (unsigned i = 1; i < NIDS; i += 2)
		kept[nk++] = ids[i];
	ok(order_is(&t, kept, nk), "after removing every other one: 5,000 left, order kept");
	found = 0;
	for (unsigned i = 0; i < NIDS; i++) {
		struct identity *f = find_nth(&t, i);
		if (i % 2 == 0)
			gone += f == NULL;
		else
			found += f == ids[i];
	}
	ok(gone == NIDS / 2 && found == NIDS / 2,
	    "removed ones are not found, the others still are");

	/* the last one, the first one, then one re-added goes to the end */
	idt_remove(&t, kept[nk - 1]);
	identity_free(kept[--nk]);
	idt_remove(&t, kept[0]);
	identity_free(kept[0]);
	memmove(kept, kept + 1, --nk * sizeof(kept[0]));
	ok(order_is(&t, kept, nk), "removing the last and the first keeps the order");
	late = make_nth(0);
	ok(idt_insert(&t, late) == 0 && find_nth(&t, 0) == late, "a removed blob added again");
	kept[nk++] = late;
	ok(order_is(&t, kept, nk), "the re-added identity is appended at the end");
	for (unsigned i = NIDS; i < 2 * NIDS; i++) {
		kept[nk] = make_nth(i);
		if (nk < NIDS && idt_insert(&t, kept[nk]) == 0)
			nk++;
		else
			identity_free(kept[nk]);
		if (nk == NIDS)
			break;
	}
	ok(order_is(&t, kept, nk) && find_nth(&t, 0) == late && find_nth(&t, 3) == kept[0] &&
	    find_nth(&t, 1) == NULL,
	    "growing again after removals: order and lookups intact");
	table_free(&t);
}

static void
test_blobs(void)
{
	struct idtable t;
	struct identity *a = make("\0\0\0\x0bssh-ed25519A", 16);
	struct identity *b = make("\0\0\0\x0bssh-ed25519B", 16);
	struct identity *c = make("\0\0\0\x0bssh-ed25519", 15);
	struct identity *one[1];

	idt_init(&t);
	idt_insert(&t, a);
	idt_insert(&t, b);
	idt_insert(&t, c);
	ok(idt_find(&t, (struct slice){ (const uint8_t *)"\0\0\0\x0bssh-ed25519B", 16 }) == b,
	    "blobs differing in the last byte are different identities");
	ok(idt_find(&t, (struct slice){ (const uint8_t *)"\0\0\0\x0bssh-ed25519", 15 }) == c,
	    "binary blobs with NUL bytes compared in full");
	idt_remove(&t, b);
	identity_free(b);
	idt_remove(&t, a);
	identity_free(a);
	one[0] = c;
	ok(order_is(&t, one, 1) && idt_find(&t, (struct slice){
	    (const uint8_t *)"\0\0\0\x0bssh-ed25519A", 16 }) == NULL,
	    "remove the first two of three: the third is first");
	idt_remove(&t, c);
	identity_free(c);
	ok(t.n == 0 && idt_find(&t, (struct slice){ (const uint8_t *)"\0\0\0\x0bssh-ed25519",
	    15 }) == NULL, "remove the only one: the table is empty");
	table_free(&t);
}

static struct identity *
make_cost(unsigned i, size_t cost)
{
	struct identity *id = make_nth(i);

	id->cost = cost;
	return id;
}

/* The byte budget, case by case: room for one more of cost `add` (held:
 * replacing the table's first identity) with the table holding `have`. */
static void
test_bytes(void)
{
	static const struct {
		size_t have;            /* cost of the one identity held, 0: none */
		int replace;
		size_t add;
		int room;
		const char *what;
	} T[] = {
		{ 0, 0, 0, 1, "empty: a key of no cost" },
		{ 0, 0, AGENT_MAX_HELD_BYTES, 1, "empty: a key of the whole budget" },
		{ 0, 0, AGENT_MAX_HELD_BYTES + 1, 0, "empty: one byte over the budget" },
		{ 0, 0, SIZE_MAX, 0, "empty: SIZE_MAX does not wrap into room" },
		{ AGENT_MAX_HELD_BYTES - 100, 0, 100, 1, "100 bytes left: 100 fit" },
		{ AGENT_MAX_HELD_BYTES - 100, 0, 101, 0, "100 bytes left: 101 do not" },
		{ AGENT_MAX_HELD_BYTES, 0, 0, 1, "budget spent: a key of no cost fits" },
		{ AGENT_MAX_HELD_BYTES, 0, 1, 0, "budget spent: one byte does not" },
		{ AGENT_MAX_HELD_BYTES, 1, AGENT_MAX_HELD_BYTES, 1,
		    "budget spent by one key: re-adding it at the same size fits" },
		{ AGENT_MAX_HELD_BYTES, 1, AGENT_MAX_HELD_BYTES + 1, 0,
		    "budget spent by one key: re-adding it one byte larger does not" },
		{ AGENT_MAX_HELD_BYTES - 1, 1, 1, 1, "a re-add smaller than before fits" },
		{ 1, 1, SIZE_MAX, 0, "a re-add of SIZE_MAX does not wrap" },
	};

	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
		struct idtable t;
		struct identity *held = NULL;

		idt_init(&t);
		if (T[i].have > 0 && idt_insert(&t, held = make_cost(0, T[i].have)) != 0)
			abort();
		ok(idt_room(&t, T[i].replace ? held : NULL, T[i].add) == T[i].room,
		    "room: %s", T[i].what);
		table_free(&t);
	}
}

/* The count budget, the running sum and the generation. */
static void
test_budget(void)
{
	struct idtable t;
	struct identity *first, *last = NULL, *extra;
	size_t failed = 0;
	uint64_t g;

	idt_init(&t);
	g = t.gen;
	first = make_cost(0, 10);
	ok(idt_insert(&t, first) == 0 && t.bytes == 10 && t.gen != g,
	    "insert: its cost is counted and the generation moves");
	for (unsigned i = 1; i < AGENT_MAX_KEYS; i++)
		failed += idt_insert(&t, last = make_cost(i, 3)) != 0;
	ok(failed == 0 && t.n == AGENT_MAX_KEYS &&
	    t.bytes == 10 + 3 * (size_t)(AGENT_MAX_KEYS - 1),
	    "AGENT_MAX_KEYS identities held, their costs summed");
	ok(!idt_room(&t, NULL, 0), "at AGENT_MAX_KEYS: no room for another, "
	    "whatever its cost");
	ok(idt_room(&t, last, 3), "at AGENT_MAX_KEYS: a re-add of a held key fits");
	g = t.gen;
	idt_recharge(&t, first, 1000);
	ok(t.bytes == 1000 + 3 * (size_t)(AGENT_MAX_KEYS - 1) && first->cost == 1000 &&
	    t.gen != g, "a re-add recharges: the old cost out, the new in, "
	    "the generation moves");
	g = t.gen;
	idt_remove(&t, last);
	identity_free(last);
	ok(t.n == AGENT_MAX_KEYS - 1 && t.bytes == 1000 + 3 * (size_t)(AGENT_MAX_KEYS - 2) &&
	    t.gen != g, "remove: its cost is returned and the generation moves");
	ok(idt_room(&t, NULL, 0), "one removed: room for one more");
	ok(idt_insert(&t, extra = make_cost(AGENT_MAX_KEYS, 0)) == 0 &&
	    !idt_room(&t, NULL, 0), "... and after it, none again");
	table_free(&t);
}

/* Found by key id as by blob: through growth, removals and a re-add's
 * new id (the keyholder's name for the key changes, the identity stays). */
static void
test_keys(void)
{
	static struct identity *ids[NIDS];
	struct idtable t;
	size_t found = 0, gone = 0, failed = 0;

	idt_init(&t);
	ok(idt_find_key(&t, 1) == NULL, "empty table: no key id found");
	for (unsigned i = 0; i < NIDS; i++) {
		ids[i] = make_nth(i);
		ids[i]->key_id = 1000 + (uint64_t)i * 7;
		failed += idt_insert(&t, ids[i]) != 0;
	}
	for (unsigned i = 0; i < NIDS; i++)
		found += idt_find_key(&t, 1000 + (uint64_t)i * 7) == ids[i];
	ok(failed == 0 && found == NIDS, "each of the 10,000 found by its key id");
	ok(idt_find_key(&t, 1001) == NULL && idt_find_key(&t, 0) == NULL &&
	    idt_find_key(&t, UINT64_MAX) == NULL, "unknown key ids not found");
	for (unsigned i = 0; i < NIDS; i += 2) {
		idt_remove(&t, ids[i]);
		identity_free(ids[i]);
	}
	found = 0;
	for (unsigned i = 0; i < NIDS; i++) {
		struct identity *f = idt_find_key(&t, 1000 + (uint64_t)i * 7);
		if (i % 2 == 0)
			gone += f == NULL;
		else
			found += f == ids[i];
	}
	ok(gone == NIDS / 2 && found == NIDS / 2,
	    "removed ones are not found by key id, the others still are");
	idt_rekey(&t, ids[1], 5);
	ok(idt_find_key(&t, 5) == ids[1] && idt_find_key(&t, 1007) == NULL &&
	    find_nth(&t, 1) == ids[1] && ids[1]->key_id == 5,
	    "a re-add's new key id finds it, the old one does not");
	idt_rekey(&t, ids[3], 1007);
	ok(idt_find_key(&t, 1007) == ids[3] && idt_find_key(&t, 1021) == NULL &&
	    idt_find_key(&t, 5) == ids[1], "an id given up is free for another");
	table_free(&t);
}

int
main(void)
{
	test_many();
	test_blobs();
	test_keys();
	test_bytes();
	test_budget();
	return done_testing();
}
