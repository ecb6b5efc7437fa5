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

#define SSHSIG_MAGIC "SSHSIG"

/* An SSHSIG blob as ssh-keygen -Y sign sends it: the magic, then
 * string namespace, string reserved, string hash algorithm, string hash. */
static int
sshsig_parse(struct slice data, struct slice *ns)
{
	struct slice reserved, alg, hash;
	struct rd r;

	if (data.len < sizeof(SSHSIG_MAGIC) - 1 ||
	    memcmp(data.p, SSHSIG_MAGIC, sizeof(SSHSIG_MAGIC) - 1) != 0)
		return -1;
	rd_init(&r, data.p + sizeof(SSHSIG_MAGIC) - 1,
	    data.len - (sizeof(SSHSIG_MAGIC) - 1));
	if (rd_text(&r, ns) != 0 || rd_string(&r, &reserved) != 0 ||
	    rd_text(&r, &alg) != 0 || rd_string(&r, &hash) != 0 ||
	    rd_done(&r) != 0)
		return -1;
	return 0;
}

void
purpose_of(struct slice data, const struct identity *id,
    const struct bindings *b, struct purpose *pu)
{
	memset(pu, 0, sizeof(*pu));
	if (userauth_parse(data, (struct slice){ id->blob, id->blob_len },
	    &pu->ua) == 0) {
		pu->kind = PURPOSE_LOGIN;
		pu->unverified = login_bound(b, &pu->ua);
	} else if (sshsig_parse(data, &pu->ns) == 0) {
		pu->kind = PURPOSE_SSHSIG;
	}
}

void
describe_text(char *out, size_t n, struct slice s)
{
	size_t o = 0;

	/* Printable ASCII passes; every other byte is shown as \xHH. */
	for (size_t i = 0; i < s.len && o + 5 < n; i++) {
		unsigned char ch = s.p[i];
		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, n - o, "\\x%02x", ch);
	}
	if (n > 0)
		out[o < n ? o : n - 1] = '\0';
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
	struct pubkey k;
	struct wb canon;

	if (key_parse_public(blob, &k, &why) != 0) {
		log_debug("request names an unusable key: %s", why ? why : "malformed");
		return NULL;
	}
	wb_init(&canon);
	key_write_public(&canon, &k);
	if (!canon.err)
		id = idt_find(&P->ids, wb_slice_of(&canon));
	wb_free(&canon);
	return id;
}
