/*
 * assoc.c - the associated-certs constraint's list of certificates
 * (doc/protocol.md §6.7), read with the one bounds-checked reader. The
 * bytes come from any client that may add a PKCS#11 provider.
 */
#include "keys/assoc.h"
#include "ipc/limits.h"

#include <string.h>

int
assoc_parse(struct slice list,
    int (*fn)(void *ctx, struct slice blob, const struct pubkey *k), void *ctx,
    const char **why)
{
	struct pubkey k;
	struct slice blob;
	struct rd r;
	const char *unused;
	int n = 0;

	if (why == NULL)
		why = &unused;
	*why = NULL;
	rd_init(&r, list.p, list.len);
	while (r.len > 0) {
		if (n == AGENT_MAX_ASSOC_CERTS) {
			*why = "more associated certificates than "
			    "AGENT_MAX_ASSOC_CERTS";
			return -1;
		}
		if (rd_string(&r, &blob) != 0) {
			*why = "a truncated associated certificate";
			return -1;
		}
		if (key_parse_public(blob, &k, why) != 0) {
			if (*why == NULL)
				*why = "an associated certificate does not parse";
			return -1;
		}
		if (fn != NULL && fn(ctx, blob, &k) != 0) {
			if (*why == NULL)
				*why = "an associated certificate was refused";
			return -1;
		}
		n++;
	}
	return n;
}

int
assoc_certifies(const struct pubkey *k, struct slice key)
{
	struct pubkey plain;
	struct wb w;
	int same;

	if (!k->is_cert)
		return 0;
	/* The certified key in its canonical form: the same fields, written
	 * as a plain key (minimal mpints, as key_canonical writes them). */
	plain = *k;
	plain.is_cert = 0;
	wb_init(&w);
	key_write_public(&w, &plain);
	same = !w.err && w.len == key.len && memcmp(w.p, key.p, key.len) == 0;
	wb_free(&w);
	return same;
}
