/*
 * fuzz_keys.c - libFuzzer harness for key, certificate and private-key
 * parsing (ipc/sshkey.c) and the crypto checks policy and the keyholder
 * make on what parses (crypto/: pkey_public, cert_verify, pkey_private).
 *
 * The whole input is tried two ways:
 *  1. as a public key blob: what parses re-encodes (key_write_public, and
 *     key_canonical to the same bytes) to a canonical blob that parses again to the same kind and re-encodes to
 *     the same bytes; a certificate is kept whole; cert_verify and
 *     pkey_public run on it (any answer, no crash, no leak);
 *  2. as the key part of an ADD message (key_parse_private): what parses
 *     re-encodes in the plain private form policy hands the keyholder,
 *     which parses again to its last byte and re-encodes to the same
 *     bytes; its public half encodes; cert_verify on a certificate key;
 *     the private half is checked against the public half with libcrypto
 *     (pkey_private), as the keyholder does before it keeps a key.
 */
#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "ipc/sshkey.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) do { if (!(x)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #x); \
	abort(); } } while (0)

static void
check_public(struct slice blob)
{
	struct pubkey k, k2;
	struct wb w1, w2, canon;
	EVP_PKEY *pk;
	const char *why = NULL;
	int rc;

	/* key_canonical is key_parse_public and key_write_public in one */
	wb_init(&canon);
	rc = key_canonical(blob, NULL, &canon, NULL);
	if (key_parse_public(blob, &k, &why) != 0) {
		CHECK(why != NULL && rc != 0 && canon.len == 0);
		wb_free(&canon);
		return;
	}
	CHECK(k.kind != KEY_NONE);
	wb_init(&w1);
	wb_init(&w2);
	key_write_public(&w1, &k);
	CHECK(!w1.err);
	CHECK(rc == 0 && slice_eq(wb_slice_of(&canon), wb_slice_of(&w1)));
	wb_free(&canon);
	if (k.is_cert)
		CHECK(slice_eq(wb_slice_of(&w1), blob));   /* kept as received */
	if (key_parse_public(wb_slice_of(&w1), &k2, &why) != 0) {
		fprintf(stderr, "canonical blob does not parse again: %s\n", why);
		abort();
	}
	CHECK(k2.kind == k.kind && k2.is_cert == k.is_cert);
	key_write_public(&w2, &k2);
	CHECK(!w2.err && slice_eq(wb_slice_of(&w1), wb_slice_of(&w2)));
	switch (k.kind) {
	case KEY_ED25519:
		CHECK(k.ed_a.len == 32 && slice_eq(k.ed_a, k2.ed_a));
		break;
	case KEY_RSA:
		CHECK(slice_eq(k.rsa_e, k2.rsa_e) && slice_eq(k.rsa_n, k2.rsa_n));
		CHECK(k.rsa_bits >= 1024 && k.rsa_bits <= 16384);
		break;
	default:
		CHECK(slice_eq(k.ec_q, k2.ec_q));
		break;
	}
	if (k.is_cert) {
		CHECK(k.cert.signed_len <= blob.len);
		CHECK(k.cert.nprincipals <= 256);
		(void)cert_verify(&k);
	}
	if ((pk = pkey_public(&k, NULL)) != NULL)
		EVP_PKEY_free(pk);
	wb_free(&w1);
	wb_free(&w2);
}

static void
check_private(const uint8_t *data, size_t size)
{
	struct privkey k, k2;
	struct wb w1, w2, pub;
	struct rd r, r2;
	EVP_PKEY *pk;
	const char *why = NULL;

	rd_init(&r, data, size);
	if (key_parse_private(&r, &k, &why) != 0) {
		CHECK(why != NULL);
		return;
	}
	CHECK(r.len <= size);
	wb_init(&w1);
	wb_init(&w2);
	wb_init(&pub);
	key_write_public(&pub, &k.pub);
	CHECK(!pub.err);
	key_write_private_plain(&w1, &k);
	CHECK(!w1.err);
	rd_init(&r2, w1.p, w1.len);
	if (key_parse_private(&r2, &k2, &why) != 0) {
		fprintf(stderr, "plain private encoding does not parse again: %s\n", why);
		abort();
	}
	CHECK(rd_done(&r2) == 0);
	CHECK(k2.pub.kind == k.pub.kind && !k2.pub.is_cert);
	key_write_private_plain(&w2, &k2);
	CHECK(!w2.err && slice_eq(wb_slice_of(&w1), wb_slice_of(&w2)));
	if (k.pub.is_cert)
		(void)cert_verify(&k.pub);
	if ((pk = pkey_private(&k, NULL)) != NULL)
		EVP_PKEY_free(pk);
	wb_free_secret(&w1);
	wb_free_secret(&w2);
	wb_free(&pub);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slice blob = { data, size };

	check_public(blob);
	check_private(data, size);
	return 0;
}
