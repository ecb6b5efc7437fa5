/*
 * describe.c - what policy can say about a request, and only what it
 * verified (describe.h).
 */
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "policy/describe.h"
#include "policy/policy.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void
purpose_of(struct slice data, const struct identity *id,
    const struct bindings *b, struct purpose *pu)
{
	memset(pu, 0, sizeof(*pu));
	if (userauth_parse(data, (struct slice){ id->blob, id->blob_len },
	    &pu->ua) == 0) {
		pu->kind = PURPOSE_LOGIN;
		pu->unverified = b == NULL ? "no client connection" :
		    b->n == 0 ? "no session-bind on this connection" :
		    login_bound(b, &pu->ua);
	} else if (sshsig_parse(data, &pu->ns) == 0) {
		pu->kind = PURPOSE_SSHSIG;
	}
}

void
describe_path(const struct policy *P, const struct identity *id,
    const struct bindings *b, char *out, size_t n)
{
	size_t o = (size_t)snprintf(out, n, "origin");
	char fp[96];

	for (size_t i = 0; i < b->n && o < n; i++) {
		struct slice k = { b->b[i].key, b->b[i].keylen };
		const char *name = dest_host_name(&id->dest, k, time(NULL));
		if (name == NULL && fingerprint(k, P->fp_hash, fp, sizeof(fp)) == 0)
			name = fp;
		o += (size_t)snprintf(out + o, n - o, " -> %s%s", name ? name : "?",
		    b->b[i].forwarding ? " (forwarding)" : "");
	}
}

struct identity *
identity_by_blob(struct policy *P, struct slice blob)
{
	const char *why = NULL;
	struct identity *id = NULL;
	struct wb canon;

	wb_init(&canon);
	if (key_canonical(blob, NULL, &canon, &why) == 0)
		id = idt_find(&P->ids, wb_slice_of(&canon));
	else
		log_debug("request names an unusable key: %s", why ? why : "malformed");
	wb_free(&canon);
	return id;
}

struct identity *
identity_by_key(struct policy *P, uint64_t key_id)
{
	for (size_t i = 0; i < P->ids.n; i++)
		if (P->ids.order[i]->key_id == key_id)
			return P->ids.order[i];
	return NULL;
}
