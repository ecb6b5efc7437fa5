/*
 * test_identity.c - policy's identity table (policy/identity.c): found by
 * exact blob, listed in first-add order, and the order of the others kept
 * when one goes (spec §5.2: clients depend on the order).
 */
#include "policy/identity.h"
#include "tests/unit/tap.h"

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

int
main(void)
{
	test_many();
	test_blobs();
	return done_testing();
}
