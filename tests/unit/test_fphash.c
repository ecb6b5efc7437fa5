/*
 * test_fphash.c - the fingerprint hash names (keys/fphash.c, doc/protocol.md §4.5):
 * -E takes sha256, md5, sha1, sha384 and sha512 in any case and gives
 * the canonical name; policy's argument list and crypto/sig.c take only
 * the canonical name; each hash has its label and form.
 */
#include "keys/fphash.h"
#include "tests/unit/tap.h"

#include <string.h>

static const struct {
	const char *arg;
	const char *canonical;          /* NULL: refused by -E */
	int exact;                      /* fp_hash_find takes it as it is */
	const char *label;
	int hex;
} cases[] = {
	{ "sha256", "sha256", 1, "SHA256", 0 },
	{ "md5", "md5", 1, "MD5", 1 },
	{ "sha1", "sha1", 1, "SHA1", 0 },
	{ "sha384", "sha384", 1, "SHA384", 0 },
	{ "sha512", "sha512", 1, "SHA512", 0 },
	{ "SHA256", "sha256", 0, NULL, 0 },
	{ "Md5", "md5", 0, NULL, 0 },
	{ "sHa512", "sha512", 0, NULL, 0 },
	{ "sha224", NULL, 0, NULL, 0 },
	{ "blake2", NULL, 0, NULL, 0 },
	{ "sha", NULL, 0, NULL, 0 },
	{ "sha2566", NULL, 0, NULL, 0 },
	{ " sha256", NULL, 0, NULL, 0 },
	{ "sha256 ", NULL, 0, NULL, 0 },
	{ "", NULL, 0, NULL, 0 },
};

int
main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *c = fp_hash_parse(cases[i].arg);
		const struct fp_hash *h = fp_hash_find(cases[i].arg);

		if (cases[i].canonical != NULL)
			is_str(c, cases[i].canonical, "-E \"%s\": %s", cases[i].arg,
			    cases[i].canonical);
		else
			ok(c == NULL, "-E \"%s\": refused", cases[i].arg);
		if (cases[i].exact)
			ok(h != NULL && strcmp(h->name, cases[i].arg) == 0 &&
			    strcmp(h->label, cases[i].label) == 0 && h->hex == cases[i].hex,
			    "\"%s\" as policy takes it: label %s, %s", cases[i].arg,
			    cases[i].label, cases[i].hex ? "hex" : "base64");
		else
			ok(h == NULL, "\"%s\" as policy takes it: refused (not canonical)",
			    cases[i].arg);
		/* what -E gives, policy takes: the name keyward passes on */
		if (c != NULL)
			ok(fp_hash_find(c) != NULL && strcmp(fp_hash_find(c)->name, c) == 0,
			    "\"%s\": -E's name is one policy takes", cases[i].arg);
	}
	return done_testing();
}
