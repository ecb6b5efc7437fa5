/*
 * bind.c - session-bind@openssh.com (doc/protocol.md §7.2): the host proves, with its
 * signature over the session id, which host this connection is bound to.
 * The chain of bindings is what every destination decision walks.
 */
#include "crypto/crypto.h"
#include "policy/hop.h"

#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

const char *
bind_add(struct bindings *b, struct slice hostkey, struct slice sid,
    struct slice sig, int forwarding)
{
	struct pubkey k;
	struct wb canon;
	const char *bad = NULL;

	if (b->failed)
		return "an earlier session-bind on this connection was refused, "
		    "so no later one is taken";
	wb_init(&canon);
	if (key_canonical(hostkey, &k, &canon, NULL) != 0 ||            /* 2 */
	    (k.is_cert && cert_verify(&k) != 0))
		bad = "the host key does not decode (unknown type, or a "
		    "certificate whose CA signature does not verify)";
	else if (sid.len > AGENT_MAX_SESSION_ID)                        /* 3 */
		bad = "the session id is longer than 128 bytes";
	else if (sig_verify(&k, sig, sid, NULL) != 0)                   /* 4 */
		bad = "the host's signature over the session id does not verify";
	if (bad != NULL) {
		wb_free(&canon);
		return bad;
	}
	for (size_t i = 0; i < b->n; i++) {                             /* 5 */
		const struct binding *x = &b->b[i];
		int same_sid = x->sidlen == sid.len &&
		    CRYPTO_memcmp(x->sid, sid.p, sid.len) == 0;
		int same_key = slice_eq((struct slice){ x->key, x->keylen },
		    wb_slice_of(&canon));
		const char *why = NULL;
		if (!x->forwarding)
			why = "nothing may be bound after an authentication binding";
		else if (same_sid && !same_key)
			why = "the session id is already bound to another host key";
		if (why != NULL || (same_sid && same_key)) {
			wb_free(&canon);
			return why;             /* NULL: a duplicate, nothing added */
		}
	}
	if (b->n >= AGENT_MAX_BINDINGS) {                               /* 6 */
		wb_free(&canon);
		return "the connection already has 16 bindings";
	}
	b->b[b->n].key = canon.p;                                       /* 7 */
	b->b[b->n].keylen = canon.len;
	memcpy(b->b[b->n].sid, sid.p, sid.len);
	b->b[b->n].sidlen = sid.len;
	b->b[b->n].forwarding = forwarding;
	b->n++;
	return NULL;
}

const char *
bind_session(struct bindings *b, struct slice hostkey, struct slice sid,
    struct slice sig, int forwarding)
{
	const char *why;

	b->attempted = 1;                                               /* 1 */
	if ((why = bind_add(b, hostkey, sid, sig, forwarding)) != NULL)
		b->failed = 1;
	return why;
}

void
bind_refused(struct bindings *b)
{
	b->attempted = 1;
	b->failed = 1;
}

void
bindings_free(struct bindings *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->b[i].key);
	memset(b, 0, sizeof(*b));
}
