/*
 * test_lock.c - the lock passphrase check (policy/lock.c, doc/protocol.md §5.8): a
 * fresh salt at every lock, only the right passphrase unlocks.
 */
#include "policy/policy.h"
#include "tests/unit/tap.h"

#include <string.h>

static struct slice
pw(const char *s)
{
	struct slice p = { (const uint8_t *)s, strlen(s) };

	return p;
}

static const struct {
	const char *name;
	struct slice pass;
	int rc;
} tries[] = {
	{ "the right passphrase unlocks", { (const uint8_t *)"andromeda", 9 }, 0 },
	{ "a wrong passphrase does not", { (const uint8_t *)"cassiopeia", 10 }, -1 },
	{ "empty passphrase does not", { (const uint8_t *)"", 0 }, -1 },
	{ "a prefix of the passphrase does not", { (const uint8_t *)"andromed", 8 }, -1 },
	{ "the passphrase plus one byte does not", { (const uint8_t *)"andromedaa", 10 }, -1 },
	{ "the last byte different does not", { (const uint8_t *)"andromedb", 9 }, -1 },
	{ "another case does not", { (const uint8_t *)"Andromeda", 9 }, -1 },
	{ "the passphrase plus a trailing NUL does not (doc/protocol.md §2: hashed as sent; "
	  "HMAC alone would pad it away)", { (const uint8_t *)"andromeda\0", 10 }, -1 },
	{ "the passphrase plus two NULs does not", { (const uint8_t *)"andromeda\0\0", 11 }, -1 },
};

int
main(void)
{
	struct lockstate l, l2;

	memset(&l, 0, sizeof(l));
	ok(lock_set(&l, pw("andromeda")) == 0 && l.locked, "lock: locked");
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++)
		is_int(lock_check(&l, tries[i].pass), tries[i].rc, "unlock: %s", tries[i].name);

	memset(&l2, 0, sizeof(l2));
	lock_set(&l2, pw("andromeda"));
	ok(memcmp(l.salt, l2.salt, sizeof(l.salt)) != 0 &&
	    memcmp(l.hash, l2.hash, sizeof(l.hash)) != 0,
	    "the same passphrase locked twice: fresh salt, different hash");
	ok(memmem(&l, sizeof(l), "andromeda", 9) == NULL,
	    "the passphrase itself is not kept");

	/* locking again replaces the old passphrase */
	lock_set(&l, pw("perseus"));
	ok(lock_check(&l, pw("perseus")) == 0 && lock_check(&l, pw("andromeda")) != 0,
	    "locked again with a new passphrase: only the new one unlocks");

	/* binary passphrases are compared in full */
	struct slice bin = { (const uint8_t *)"\x00\xff\x01", 3 };
	struct slice bin2 = { (const uint8_t *)"\x00\xff\x02", 3 };
	lock_set(&l, bin);
	ok(lock_check(&l, bin) == 0 && lock_check(&l, bin2) != 0,
	    "binary passphrase: right one unlocks, one byte different does not");
	/* "pw\0" locked: "pw" is another passphrase */
	struct slice nul = { (const uint8_t *)"pw\0", 3 };
	lock_set(&l, nul);
	ok(lock_check(&l, nul) == 0 && lock_check(&l, pw("pw")) != 0,
	    "locked with \"pw\\0\": \"pw\\0\" unlocks, \"pw\" does not");
	return done_testing();
}
