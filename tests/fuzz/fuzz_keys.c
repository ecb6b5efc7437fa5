/*
 * fuzz_keys.c - libFuzzer harness for key, certificate and private-key
 * parsing (keys/sshkey.c) and the crypto checks policy and the keyholder
 * make on what parses (crypto/: pkey_public, cert_verify; keyholder/privkey.c: pkey_private).
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
 *     (pkey_private), as the keyholder does before it keeps a key;
 *  3. as a FIDO signature blob (keys/sksig.h): what parses is written again
 *     by the agent's encoder, sk_sig_encode, from the fields a token's
 *     middleware would give, which parses back to the same fields; then
 *     sk_sig_verify and sig_verify check it against two fixed FIDO keys
 *     over fixed data (the seeds hold valid signatures of theirs), and
 *     the answers must agree.
 * FIDO keys (sk-*) and their certificates take paths 1 and 2 like the
 * others: their application, flags and key handle must survive both
 * re-encodings.
 */
#include "tests/fuzz/fuzz.h"
#include "crypto/crypto.h"
#include "keyholder/privkey.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "keys/sksig.h"
#include "keys/sshkey.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	case KEY_SK_ED25519:
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
	if (key_is_sk(k.kind)) {
		CHECK(slice_eq(k.sk_app, k2.sk_app));
		CHECK(k.sk_app.len == 0 || memchr(k.sk_app.p, '\0', k.sk_app.len) == NULL);
		CHECK(key_sk_alg(k.kind) == 0x00 || key_sk_alg(k.kind) == 0x01);
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
	if (key_is_sk(k.pub.kind)) {
		/* what the keyholder seals and hands back for a signature */
		CHECK(k2.sk_flags == k.sk_flags && slice_eq(k2.pub.sk_app, k.pub.sk_app) &&
		    slice_eq(k2.sk_key_handle, k.sk_key_handle) &&
		    slice_eq(k2.sk_reserved, k.sk_reserved));
		CHECK(k.sk_key_handle.len <= AGENT_MAX_SK_KEY_HANDLE);
	}
	if (k.pub.is_cert)
		(void)cert_verify(&k.pub);
	if ((pk = pkey_private(&k, NULL)) != NULL)
		EVP_PKEY_free(pk);
	wb_free_secret(&w1);
	wb_free_secret(&w2);
	wb_free(&pub);
}

/* The fixed FIDO keys: Ed25519 of seed 01..20, P-256 of d = 0x1234..ef
 * (tests/unit/skvectors.h), application "ssh:"; the signed data. */
static const uint8_t sk_ed_blob[] = {
	0, 0, 0, 26, 's', 'k', '-', 's', 's', 'h', '-', 'e', 'd', '2', '5', '5', '1',
	'9', '@', 'o', 'p', 'e', 'n', 's', 's', 'h', '.', 'c', 'o', 'm',
	0, 0, 0, 32,
	0x79, 0xb5, 0x56, 0x2e, 0x8f, 0xe6, 0x54, 0xf9, 0x40, 0x78, 0xb1, 0x12,
	0xe8, 0xa9, 0x8b, 0xa7, 0x90, 0x1f, 0x85, 0x3a, 0xe6, 0x95, 0xbe, 0xd7,
	0xe0, 0xe3, 0x91, 0x0b, 0xad, 0x04, 0x96, 0x64,
	0, 0, 0, 4, 's', 's', 'h', ':',
};
static const uint8_t sk_ec_blob[] = {
	0, 0, 0, 34, 's', 'k', '-', 'e', 'c', 'd', 's', 'a', '-', 's', 'h', 'a', '2',
	'-', 'n', 'i', 's', 't', 'p', '2', '5', '6', '@', 'o', 'p', 'e', 'n', 's', 's',
	'h', '.', 'c', 'o', 'm',
	0, 0, 0, 8, 'n', 'i', 's', 't', 'p', '2', '5', '6',
	0, 0, 0, 65,
	0x04, 0x47, 0x1c, 0x3e, 0x75, 0x8c, 0x49, 0x04, 0x28, 0x5b, 0xba, 0x7e,
	0x53, 0x11, 0x8e, 0xd0, 0xf5, 0x24, 0xad, 0xeb, 0x07, 0x57, 0xd2, 0x5b,
	0xd2, 0xf8, 0xe7, 0xb0, 0xd7, 0x6d, 0xfa, 0x71, 0x4c, 0xdd, 0x52, 0x0f,
	0x7a, 0xca, 0x8a, 0x8b, 0x91, 0x7a, 0xcc, 0x37, 0xf5, 0x1d, 0xe8, 0xf0,
	0xc9, 0xbb, 0xe3, 0xad, 0x85, 0x83, 0x82, 0xe7, 0x02, 0xdc, 0x25, 0xa1,
	0x2d, 0x09, 0xf7, 0xa8, 0x58,
	0, 0, 0, 4, 's', 's', 'h', ':',
};
#define SK_FUZZ_DATA "fuzz_keys: the data a FIDO key signed"

static void
check_sk_sig(struct slice blob)
{
	static const struct slice keys[] = {
		{ sk_ed_blob, sizeof(sk_ed_blob) }, { sk_ec_blob, sizeof(sk_ec_blob) } };
	struct slice d = { (const uint8_t *)SK_FUZZ_DATA, sizeof(SK_FUZZ_DATA) - 1 };
	struct sk_sig s, s2;
	struct wb w;
	int rc;

	if (sk_sig_parse(blob, &s) != 0)
		return;
	CHECK(s.alg == SIG_SK_ED25519 || s.alg == SIG_SK_ECDSA_P256);
	wb_init(&w);
	if (s.alg == SIG_SK_ED25519)
		rc = sk_sig_encode(&w, SK_ALG_ED25519, s.inner, (struct slice){ NULL, 0 },
		    s.flags, s.counter);
	else
		rc = sk_sig_encode(&w, SK_ALG_ECDSA_P256, s.r, s.s, s.flags, s.counter);
	CHECK(rc == 0 && !w.err);
	CHECK(sk_sig_parse(wb_slice_of(&w), &s2) == 0);
	CHECK(s2.alg == s.alg && s2.flags == s.flags && s2.counter == s.counter);
	if (s.alg == SIG_SK_ED25519)
		CHECK(slice_eq(s2.inner, s.inner));
	else
		CHECK(slice_eq(s2.r, s.r) && slice_eq(s2.s, s.s));
	for (size_t i = 0; i < 2; i++) {
		struct pubkey k;
		uint8_t flags = 0;
		uint32_t counter = 0;
		CHECK(key_parse_public(keys[i], &k, NULL) == 0);
		rc = sk_sig_verify(&k, d, blob, &flags, &counter);
		CHECK(rc == sig_verify(&k, blob, d, NULL));
		CHECK(rc != 0 || (flags == s.flags && counter == s.counter));
		/* the canonical form verifies exactly when the input does */
		CHECK(sk_sig_verify(&k, d, wb_slice_of(&w), NULL, NULL) == rc);
	}
	wb_free(&w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slice blob = { data, size };

	check_public(blob);
	check_private(data, size);
	check_sk_sig(blob);
	return 0;
}
