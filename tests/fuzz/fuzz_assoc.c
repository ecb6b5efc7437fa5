/*
 * fuzz_assoc.c - libFuzzer harness for the associated-certs constraint's
 * certificate list (keys/assoc.c, doc/protocol.md §6.7). The input is the
 * certsblob as a client sends it inside a PKCS#11 add.
 *
 * Checked on every input:
 *  - assoc_parse answers -1 with a reason, or the number of blobs, at
 *    most AGENT_MAX_ASSOC_CERTS, the same with and without a callback;
 *    the callback sees exactly that many blobs, each inside the input;
 *  - each blob's key is canonical-encodable (key_canonical gives the
 *    certificate whole), and a certificate certifies the plain key of
 *    its own fields (assoc_certifies, as policy grafts it onto a token
 *    key) and no other: not its CA, not a fixed Ed25519 key unless that
 *    is its key; a plain key certifies nothing;
 *  - cert_verify runs on each certificate (any answer, no crash).
 */
#include "tests/fuzz/fuzz.h"
#include "crypto/crypto.h"
#include "ipc/limits.h"
#include "keys/assoc.h"
#include "keys/sshkey.h"

/* ssh-ed25519, 32 bytes of 0x11 */
static const uint8_t fixed_key[] = {
	0, 0, 0, 11, 's', 's', 'h', '-', 'e', 'd', '2', '5', '5', '1', '9',
	0, 0, 0, 32,
	0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
	0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
	0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
	0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
};

struct seen {
	struct slice in;
	int n;
};

static int
each(void *ctx, struct slice blob, const struct pubkey *k)
{
	struct seen *s = ctx;
	struct pubkey plain, again;
	struct wb w, canon;
	struct slice fixed = { fixed_key, sizeof(fixed_key) };

	s->n++;
	CHECK(blob.p >= s->in.p && blob.p + blob.len <= s->in.p + s->in.len);
	wb_init(&canon);
	CHECK(key_canonical(blob, &again, &canon, NULL) == 0);
	CHECK(again.kind == k->kind && again.is_cert == k->is_cert);
	if (k->is_cert)
		CHECK(fuzz_same(&canon, blob.p, blob.len));
	wb_free(&canon);
	plain = *k;
	plain.is_cert = 0;
	wb_init(&w);
	key_write_public(&w, &plain);
	CHECK(!w.err);
	CHECK(assoc_certifies(k, wb_slice_of(&w)) == k->is_cert);
	if (k->is_cert) {
		CHECK(assoc_certifies(k, k->cert.signature_key) == 0 ||
		    slice_eq(k->cert.signature_key, wb_slice_of(&w)));
		CHECK(assoc_certifies(k, fixed) == slice_eq(fixed, wb_slice_of(&w)));
		(void)cert_verify(k);
	}
	wb_free(&w);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slice in = { data, size };
	struct seen s = { in, 0 };
	const char *why = NULL;
	int n;

	n = assoc_parse(in, each, &s, &why);
	CHECK(n == assoc_parse(in, NULL, NULL, NULL));
	if (n < 0) {
		CHECK(why != NULL);
		return 0;
	}
	CHECK(why == NULL && n <= AGENT_MAX_ASSOC_CERTS && n == s.n);
	CHECK((n == 0) == (size == 0));
	return 0;
}
