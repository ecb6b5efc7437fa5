/*
 * fuzz_token.c - libFuzzer harness for the token helper's request and
 * reply (wire/token.c): keyward-sk decodes a request from a policy that
 * may be compromised, policy decodes a reply from a process that runs a
 * third-party library. The first byte chooses what the rest is:
 *
 *  0  a request: token_req_decode; one that decodes is within its bounds
 *     (application and PIN without NUL) and encodes back to the same bytes;
 *  1  a reply to an ECDSA request, 2 a reply to an Ed25519 request:
 *     token_reply_decode; one that decodes has a known status, carries no
 *     signature when it failed and the algorithm's parts when it did not,
 *     and encodes back to the same bytes;
 *  other  both decoders on the rest, for whatever they make of it.
 */
#include "tests/fuzz/fuzz.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "wire/token.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
request(const uint8_t *p, size_t n)
{
	struct token_req m;
	struct wb w;
	struct rd r;

	rd_init(&r, p, n);
	if (token_req_decode(&r, &m) != 0)
		return;
	CHECK(m.alg == TOKEN_ALG_ECDSA || m.alg == TOKEN_ALG_ED25519);
	CHECK(m.application.len >= 1 && m.application.len <= TOKEN_MAX_APPLICATION);
	CHECK(memchr(m.application.p, '\0', m.application.len) == NULL);
	CHECK(m.key_handle.len >= 1 && m.key_handle.len <= TOKEN_MAX_KEY_HANDLE);
	CHECK(m.data.len <= TOKEN_MAX_DATA && m.pin.len <= TOKEN_MAX_PIN);
	CHECK(m.pin.len == 0 || memchr(m.pin.p, '\0', m.pin.len) == NULL);
	CHECK(n <= TOKEN_MAX_REQUEST);
	wb_init(&w);
	token_req_encode(&w, &m);
	CHECK(fuzz_same(&w, p, n));
	wb_free_secret(&w);
}

static void
reply(const uint8_t *p, size_t n, uint32_t alg)
{
	struct token_reply m;
	struct wb w;
	struct rd r;

	rd_init(&r, p, n);
	if (token_reply_decode(&r, alg, &m) != 0)
		return;
	CHECK(m.status <= 0 && m.status >= TOKEN_ERR_CRED_EXISTS);
	if (m.status != TOKEN_OK)
		CHECK(m.sig_r.len == 0 && m.sig_s.len == 0 && m.flags == 0 &&
		    m.counter == 0);
	else if (alg == TOKEN_ALG_ED25519)
		CHECK(m.sig_r.len == 64 && m.sig_s.len == 0);
	else
		CHECK(m.sig_r.len >= 1 && m.sig_r.len <= 32 &&
		    m.sig_s.len >= 1 && m.sig_s.len <= 32);
	CHECK(n <= TOKEN_MAX_REPLY);
	wb_init(&w);
	token_reply_encode(&w, &m);
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
		reply(data + 1, size - 1, TOKEN_ALG_ECDSA);
		break;
	case 2:
		reply(data + 1, size - 1, TOKEN_ALG_ED25519);
		break;
	default:
		request(data + 1, size - 1);
		reply(data + 1, size - 1, TOKEN_ALG_ECDSA);
		reply(data + 1, size - 1, TOKEN_ALG_ED25519);
		break;
	}
	return 0;
}
