/*
 * fphash.c - the fingerprint hashes: SHA256 by default, MD5 in the old
 * hex form, and the others the reference accepts for -E (doc/protocol.md §4.5).
 */
#include "keys/fphash.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const struct fp_hash hashes[] = {
	/* name     label     hex */
	{ "md5",    "MD5",    1 },
	{ "sha1",   "SHA1",   0 },
	{ "sha256", "SHA256", 0 },
	{ "sha384", "SHA384", 0 },
	{ "sha512", "SHA512", 0 },
};

#define NHASHES (sizeof(hashes) / sizeof(hashes[0]))

const struct fp_hash *
fp_hash_find(const char *name)
{
	for (size_t i = 0; i < NHASHES; i++)
		if (strcmp(name, hashes[i].name) == 0)
			return &hashes[i];
	return NULL;
}

const char *
fp_hash_parse(const char *arg)
{
	for (size_t i = 0; i < NHASHES; i++)
		if (strcasecmp(arg, hashes[i].name) == 0)
			return hashes[i].name;
	return NULL;
}
