/*
 * fphash.h - the fingerprint hashes keyward knows (doc/protocol.md §4.5), in one
 * table: keyward's -E takes their names in any case, policy's argument
 * list takes the canonical (lower-case) name keyward passes on, and
 * crypto/sig.c writes fingerprints with each one's label and form.
 */
#ifndef KEYWARD_FPHASH_H
#define KEYWARD_FPHASH_H

struct fp_hash {
	const char *name;       /* canonical: lower case, as libcrypto names it */
	const char *label;      /* the fingerprint's prefix, before the ':' */
	int hex;                /* hex bytes joined by ':'; else base64 unpadded */
};

/* The hash of a canonical name, byte for byte; NULL: none. */
const struct fp_hash *fp_hash_find(const char *name);
/* -E: the canonical name of a hash named in any case; NULL: none. */
const char *fp_hash_parse(const char *arg);

#endif
