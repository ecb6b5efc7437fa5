/*
 * fuzz_pkcs11.c - libFuzzer harness for the PKCS#11 token helper's
 * requests and replies (wire/pkcs11.c): keyward-pkcs11 decodes requests
 * from a policy that may be compromised, policy decodes replies from a
 * process that runs a third-party module. The first byte chooses what
 * the rest is:
 *
 *  0  a request: p11_req_decode; one that decodes is within its bounds
 *     (PIN without NUL, a plain algorithm, a key index under
 *     P11_MAX_KEYS) and encodes back to the same bytes;
 *  1  a listing: p11_keys_decode; one that decodes lists no key when it
 *     failed, at most P11_MAX_KEYS plain keys that parse, labels without
 *     NUL, and encodes back to the same bytes;
 *  2  a signature reply; the next byte is the algorithm that was asked
 *     for (enum sig_alg): p11_sig_decode; one that decodes carries no
 *     signature when it failed, else a blob named for that algorithm,
 *     and encodes back to the same bytes;
 *  other  every decoder on the rest, for whatever they make of it.
 */
#include "tests/fuzz/fuzz.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "wire/pkcs11.h"
#include "keys/sshkey.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
request(const uint8_t *p, size_t n)
{
	struct p11_req m;
	struct wb w;
	struct rd r;

	rd_init(&r, p, n);
	if (p11_req_decode(&r, &m) != 0)
		return;
	CHECK(m.type == P11_MSG_LOGIN || m.type == P11_MSG_SIGN);
	CHECK(m.pin.len <= P11_MAX_PIN);
	CHECK(m.pin.len == 0 || memchr(m.pin.p, '\0', m.pin.len) == NULL);
	CHECK(n <= P11_MAX_REQUEST);
	wb_init(&w);
	if (m.type == P11_MSG_LOGIN)
		p11_login_encode(&w, m.pin);
	else {
		CHECK(m.key < P11_MAX_KEYS && m.data.len <= P11_MAX_DATA);
		CHECK(m.alg != SIG_NONE && m.alg != SIG_SK_ED25519 &&
		    m.alg != SIG_SK_ECDSA_P256 && sig_alg_from_name((struct slice){
		    (const uint8_t *)sig_alg_name(m.alg),
		    strlen(sig_alg_name(m.alg)) }) == m.alg);
		p11_sign_encode(&w, m.key, m.alg, m.data, m.pin);
	}
	CHECK(fuzz_same(&w, p, n));
	wb_free_secret(&w);
}

static void
listing(const uint8_t *p, size_t n)
{
	static struct p11_keys m;
	struct pubkey pk;
	struct wb w;
	struct rd r;

	rd_init(&r, p, n);
	if (p11_keys_decode(&r, &m) != 0)
		return;
	CHECK(m.n <= P11_MAX_KEYS);
	CHECK(m.status == P11_OK || m.n == 0);
	for (uint32_t i = 0; i < m.n; i++) {
		CHECK(key_parse_public(m.key[i].blob, &pk, NULL) == 0);
		CHECK(!pk.is_cert && !key_is_sk(pk.kind));
		CHECK(m.key[i].blob.len <= P11_MAX_KEY_BLOB);
		CHECK(m.key[i].label.len <= P11_MAX_LABEL);
		CHECK(m.key[i].label.len == 0 ||
		    memchr(m.key[i].label.p, '\0', m.key[i].label.len) == NULL);
		CHECK((m.key[i].flags & ~(uint32_t)P11_KEY_ALWAYS_AUTH) == 0);
	}
	CHECK(n <= P11_MAX_REPLY);
	wb_init(&w);
	p11_keys_encode(&w, &m);
	CHECK(fuzz_same(&w, p, n));
	wb_free(&w);
}

static void
signature(const uint8_t *p, size_t n, uint32_t alg)
{
	struct p11_sig m;
	struct slice name;
	struct wb w;
	struct rd r;

	rd_init(&r, p, n);
	if (p11_sig_decode(&r, alg, &m) != 0)
		return;
	if (m.status != P11_OK)
		CHECK(m.sig.len == 0);
	else {
		CHECK(m.sig.len > 0 && m.sig.len <= P11_MAX_SIG_BLOB);
		rd_init(&r, m.sig.p, m.sig.len);
		CHECK(rd_string(&r, &name) == BUF_OK);
		CHECK(sig_alg_from_name(name) == (enum sig_alg)alg);
	}
	CHECK(n <= P11_MAX_REPLY);
	wb_init(&w);
	p11_sig_encode(&w, &m);
	CHECK(fuzz_same(&w, p, n));
	wb_free(&w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0]) {
	case 0:
		request(data + 1, size - 1);
		break;
	case 1:
		listing(data + 1, size - 1);
		break;
	case 2:
		if (size >= 2)
			signature(data + 2, size - 2, data[1]);
		break;
	default:
		request(data + 1, size - 1);
		listing(data + 1, size - 1);
		for (uint32_t alg = SIG_ED25519; alg <= SIG_RSA_SHA512; alg++)
			signature(data + 1, size - 1, alg);
		break;
	}
	return 0;
}
