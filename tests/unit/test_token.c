/*
 * test_token.c - the token helper's request and reply (wire/token.c): what
 * the encoders write the decoders read back; the decoders refuse every
 * truncation, trailing byte and stretched length, every field outside its
 * TOKEN_* bound, and a reply whose parts do not fit its algorithm. Both
 * ends may be compromised: keyward-sk runs a third-party library, policy
 * talks to clients.
 */
#include "ipc/limits.h"
#include "wire/token.h"
#include "tests/unit/tap.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ requests */

struct req_row {
	const char *name;
	uint8_t type;
	uint32_t alg;
	size_t app_len;         /* bytes of 'a' */
	int app_nul;            /* a NUL in the middle of the application */
	size_t kh_len;
	size_t data_len;
	size_t pin_len;         /* bytes of '7' */
	int pin_nul;
	int want_ok;
};

static const struct req_row req_rows[] = {
	{ "ed25519, ssh: application, no PIN", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 4, 0, 73, 100, 0, 0, 1 },
	{ "ecdsa with a PIN", TOKEN_MSG_SIGN, TOKEN_ALG_ECDSA, 4, 0, 64, 100, 6, 0, 1 },
	{ "empty data is signed too", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 4, 0, 1, 0, 0, 0, 1 },
	{ "every field at its bound", TOKEN_MSG_SIGN, TOKEN_ALG_ECDSA, TOKEN_MAX_APPLICATION, 0, TOKEN_MAX_KEY_HANDLE, TOKEN_MAX_DATA, TOKEN_MAX_PIN, 0, 1 },
	{ "a reply's type byte", TOKEN_MSG_REPLY, TOKEN_ALG_ED25519, 4, 0, 73, 100, 0, 0, 0 },
	{ "type 0", 0, TOKEN_ALG_ED25519, 4, 0, 73, 100, 0, 0, 0 },
	{ "algorithm 2 (none such)", TOKEN_MSG_SIGN, 2, 4, 0, 73, 100, 0, 0, 0 },
	{ "algorithm 0x100 (a byte would wrap to ecdsa)", TOKEN_MSG_SIGN, 0x100, 4, 0, 73, 100, 0, 0, 0 },
	{ "empty application", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 0, 0, 73, 100, 0, 0, 0 },
	{ "application over its bound", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, TOKEN_MAX_APPLICATION + 1, 0, 73, 100, 0, 0, 0 },
	{ "application with a NUL (ssh:\\0evil)", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 9, 1, 73, 100, 0, 0, 0 },
	{ "empty key handle", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 4, 0, 0, 100, 0, 0, 0 },
	{ "key handle over its bound", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 4, 0, TOKEN_MAX_KEY_HANDLE + 1, 100, 0, 0, 0 },
	{ "data over its bound", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 4, 0, 73, TOKEN_MAX_DATA + 1, 0, 0, 0 },
	{ "PIN over its bound", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 4, 0, 73, 100, TOKEN_MAX_PIN + 1, 0, 0 },
	{ "PIN with a NUL (a C string would cut it)", TOKEN_MSG_SIGN, TOKEN_ALG_ED25519, 4, 0, 73, 100, 6, 1, 0 },
};

static uint8_t *
filled(size_t n, int c)
{
	uint8_t *p = malloc(n + 1);

	if (p == NULL)
		abort();
	memset(p, c, n);
	return p;
}

static void
build_req(struct tb *t, const struct req_row *row)
{
	uint8_t *app = filled(row->app_len, 'a'), *kh = filled(row->kh_len, 0xc1);
	uint8_t *data = filled(row->data_len, 0xd0), *pin = filled(row->pin_len, '7');

	if (row->app_nul)
		app[row->app_len / 2] = '\0';
	if (row->pin_nul)
		pin[row->pin_len / 2] = '\0';
	tb_u8(t, row->type);
	tb_u32(t, row->alg);
	tb_string(t, app, row->app_len);
	tb_u8(t, 0x01);
	tb_string(t, kh, row->kh_len);
	tb_string(t, data, row->data_len);
	tb_string(t, pin, row->pin_len);
	free(app);
	free(kh);
	free(data);
	free(pin);
}

static int
decode_req(const uint8_t *p, size_t n, void *arg)
{
	struct token_req m;
	struct rd r;

	(void)arg;
	rd_init(&r, p, n);
	return token_req_decode(&r, &m);
}

static void
test_requests(void)
{
	for (size_t i = 0; i < sizeof(req_rows) / sizeof(req_rows[0]); i++) {
		const struct req_row *row = &req_rows[i];
		struct tb t;

		tb_init(&t);
		build_req(&t, row);
		if (row->want_ok) {
			/* prefixes of a megabyte-long row: one check is enough */
			wire_check(row->name, &t, decode_req, NULL,
			    row->data_len > 1000 ? WIRE_VALID | WIRE_TRAILING :
			    WIRE_ALL);
		} else
			is_int(run_decoder(decode_req, t.w.p, t.w.len, NULL) != 0, 1,
			    "request, %s: refused", row->name);
		tb_free(&t);
	}
}

static void
test_request_roundtrip(void)
{
	static const uint8_t kh[] = { 1, 2, 3, 4, 5 }, data[] = "sign me";
	struct token_req in = {
		.alg = TOKEN_ALG_ECDSA,
		.application = { (const uint8_t *)"ssh:work", 8 },
		.flags = 0x05,
		.key_handle = { kh, sizeof(kh) },
		.data = { data, sizeof(data) },
		.pin = { (const uint8_t *)"123456", 6 },
	}, out;
	struct wb w;
	struct rd r;

	wb_init(&w);
	token_req_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(!w.err && token_req_decode(&r, &out) == 0 && out.alg == in.alg &&
	    out.flags == 0x05 && slice_eq(out.application, in.application) &&
	    slice_eq(out.key_handle, in.key_handle) &&
	    slice_eq(out.data, in.data) && slice_eq(out.pin, in.pin),
	    "request: what the encoder writes the decoder reads back");
	ok(w.len <= TOKEN_MAX_REQUEST, "request: within TOKEN_MAX_REQUEST");
	wb_free_secret(&w);
}

/* ------------------------------------------------------------- replies */

struct rep_row {
	const char *name;
	uint8_t type;
	uint32_t status;
	uint32_t alg;           /* what the decoder is told was asked */
	uint8_t flags;
	uint32_t counter;
	size_t r_len, s_len;
	int want_ok;
};

static const struct rep_row rep_rows[] = {
	{ "ed25519 signature", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ED25519, 0x01, 7, 64, 0, 1 },
	{ "ecdsa r and s, full size", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ECDSA, 0x05, 8, 32, 32, 1 },
	{ "ecdsa r and s, leading zeros cut", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ECDSA, 0x01, 9, 31, 30, 1 },
	{ "no user presence is the token's to say", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ED25519, 0x00, 1, 64, 0, 1 },
	{ "PIN required", TOKEN_MSG_REPLY, (uint32_t)TOKEN_ERR_PIN_REQUIRED, TOKEN_ALG_ED25519, 0, 0, 0, 0, 1 },
	{ "device not found", TOKEN_MSG_REPLY, (uint32_t)TOKEN_ERR_NO_DEVICE, TOKEN_ALG_ECDSA, 0, 0, 0, 0, 1 },
	{ "credential exists (-5, the last code)", TOKEN_MSG_REPLY, (uint32_t)TOKEN_ERR_CRED_EXISTS, TOKEN_ALG_ECDSA, 0, 0, 0, 0, 1 },
	{ "a request's type byte", TOKEN_MSG_SIGN, 0, TOKEN_ALG_ED25519, 0x01, 7, 64, 0, 0 },
	{ "status -6 (none such)", TOKEN_MSG_REPLY, (uint32_t)-6, TOKEN_ALG_ED25519, 0, 0, 0, 0, 0 },
	{ "status 1", TOKEN_MSG_REPLY, 1, TOKEN_ALG_ED25519, 0, 0, 0, 0, 0 },
	{ "failure with a signature", TOKEN_MSG_REPLY, (uint32_t)TOKEN_ERR_GENERAL, TOKEN_ALG_ED25519, 0, 0, 64, 0, 0 },
	{ "failure with a counter", TOKEN_MSG_REPLY, (uint32_t)TOKEN_ERR_GENERAL, TOKEN_ALG_ED25519, 0, 3, 0, 0, 0 },
	{ "failure with flags", TOKEN_MSG_REPLY, (uint32_t)TOKEN_ERR_GENERAL, TOKEN_ALG_ED25519, 1, 0, 0, 0, 0 },
	{ "ed25519 signature of 63 bytes", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ED25519, 0x01, 7, 63, 0, 0 },
	{ "ed25519 signature with an s", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ED25519, 0x01, 7, 64, 1, 0 },
	{ "ecdsa without s", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ECDSA, 0x01, 7, 32, 0, 0 },
	{ "ecdsa without r", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ECDSA, 0x01, 7, 0, 32, 0 },
	{ "ecdsa r of 33 bytes", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ECDSA, 0x01, 7, 33, 32, 0 },
	{ "an ed25519 answer to an ecdsa request", TOKEN_MSG_REPLY, 0, TOKEN_ALG_ECDSA, 0x01, 7, 64, 0, 0 },
	{ "success for an unknown algorithm", TOKEN_MSG_REPLY, 0, 7, 0x01, 7, 64, 0, 0 },
};

static void
build_rep(struct tb *t, const struct rep_row *row)
{
	uint8_t *r = filled(row->r_len, 0x5a), *s = filled(row->s_len, 0xa5);

	tb_u8(t, row->type);
	tb_u32(t, row->status);
	tb_u8(t, row->flags);
	tb_u32(t, row->counter);
	tb_string(t, r, row->r_len);
	tb_string(t, s, row->s_len);
	free(r);
	free(s);
}

static int
decode_rep(const uint8_t *p, size_t n, void *arg)
{
	struct token_reply m;
	struct rd r;

	rd_init(&r, p, n);
	return token_reply_decode(&r, *(const uint32_t *)arg, &m);
}

static void
test_replies(void)
{
	for (size_t i = 0; i < sizeof(rep_rows) / sizeof(rep_rows[0]); i++) {
		const struct rep_row *row = &rep_rows[i];
		uint32_t alg = row->alg;
		struct tb t;

		tb_init(&t);
		build_rep(&t, row);
		if (row->want_ok)
			wire_check(row->name, &t, decode_rep, &alg, WIRE_ALL);
		else
			is_int(run_decoder(decode_rep, t.w.p, t.w.len, &alg) != 0, 1,
			    "reply, %s: refused", row->name);
		ok(t.w.len <= TOKEN_MAX_REPLY || !row->want_ok,
		    "reply, %s: within TOKEN_MAX_REPLY", row->name);
		tb_free(&t);
	}
}

static void
test_reply_encoder(void)
{
	static const uint8_t sig[64] = { 9 };
	struct token_reply in = { .status = TOKEN_OK, .flags = 0x01,
	    .counter = 0x01020304, .sig_r = { sig, 64 } }, out;
	struct wb w;
	struct rd r;

	wb_init(&w);
	token_reply_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(token_reply_decode(&r, TOKEN_ALG_ED25519, &out) == 0 &&
	    out.status == 0 && out.flags == 1 && out.counter == 0x01020304 &&
	    slice_eq(out.sig_r, in.sig_r) && out.sig_s.len == 0,
	    "reply: what the encoder writes the decoder reads back");

	/* A failure never carries what a middleware left in the response. */
	in.status = TOKEN_ERR_PIN_REQUIRED;
	wb_reset(&w);
	token_reply_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(token_reply_decode(&r, TOKEN_ALG_ED25519, &out) == 0 &&
	    out.status == TOKEN_ERR_PIN_REQUIRED && out.flags == 0 &&
	    out.counter == 0 && out.sig_r.len == 0,
	    "reply: a failure is sent without flags, counter or signature");

	/* A code the interface does not have goes out as a general error. */
	in.status = -42;
	wb_reset(&w);
	token_reply_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(token_reply_decode(&r, TOKEN_ALG_ED25519, &out) == 0 &&
	    out.status == TOKEN_ERR_GENERAL, "reply: a made-up error -42 is sent as -1");
	wb_free(&w);
}

static void
test_status(void)
{
	static const struct { int rc; int32_t want; } rows[] = {
		{ 0, TOKEN_OK }, { -1, -1 }, { -2, -2 }, { -3, -3 }, { -4, -4 },
		{ -5, -5 }, { -6, -1 }, { 1, -1 }, { -2147483647 - 1, -1 },
		{ 2147483647, -1 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		is_int(token_status(rows[i].rc), rows[i].want,
		    "token_status(%d)", rows[i].rc);
}

int
main(void)
{
	test_requests();
	test_request_roundtrip();
	test_replies();
	test_reply_encoder();
	test_status();
	return done_testing();
}
