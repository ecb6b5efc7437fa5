/*
 * test_pkcs11msg.c - the PKCS#11 token helper's requests and replies
 * (wire/pkcs11.c): what the encoders write the decoders read back; the
 * decoders refuse every truncation, trailing byte and stretched length,
 * every field outside its P11_* bound, a listed key that is no plain SSH
 * key, and a signature blob of another algorithm than the one asked for.
 * Both ends may be compromised: keyward-pkcs11 runs a third-party module,
 * policy talks to clients.
 */
#include "ipc/limits.h"
#include "wire/pkcs11.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *
filled(size_t n, int c)
{
	uint8_t *p = malloc(n + 1);

	if (p == NULL)
		abort();
	memset(p, c, n);
	return p;
}

/* ------------------------------------------------------------ requests */

struct req_row {
	const char *name;
	uint8_t type;
	uint32_t key, alg;
	size_t data_len;
	size_t pin_len;         /* bytes of '4' */
	int pin_nul;
	int want_ok;
};

static const struct req_row req_rows[] = {
	{ "login with a PIN", P11_MSG_LOGIN, 0, 0, 0, 4, 0, 1 },
	{ "login without a PIN (protected authentication path)", P11_MSG_LOGIN, 0, 0, 0, 0, 0, 1 },
	{ "login, PIN at its bound", P11_MSG_LOGIN, 0, 0, 0, P11_MAX_PIN, 0, 1 },
	{ "login, PIN over its bound", P11_MSG_LOGIN, 0, 0, 0, P11_MAX_PIN + 1, 0, 0 },
	{ "login, PIN with a NUL (a C string would cut it)", P11_MSG_LOGIN, 0, 0, 0, 8, 1, 0 },
	{ "sign, rsa-sha2-256", P11_MSG_SIGN, 0, SIG_RSA_SHA256, 100, 0, 0, 1 },
	{ "sign, ssh-rsa (SHA-1)", P11_MSG_SIGN, 3, SIG_RSA_SHA1, 100, 0, 0, 1 },
	{ "sign, ed25519, empty data", P11_MSG_SIGN, 1, SIG_ED25519, 0, 0, 0, 1 },
	{ "sign, ecdsa-sha2-nistp521, last key, context PIN", P11_MSG_SIGN, P11_MAX_KEYS - 1, SIG_ECDSA_P521, 100, 6, 0, 1 },
	{ "sign, data at its bound", P11_MSG_SIGN, 0, SIG_ECDSA_P384, P11_MAX_DATA, 0, 0, 1 },
	{ "sign, data over its bound", P11_MSG_SIGN, 0, SIG_ECDSA_P384, P11_MAX_DATA + 1, 0, 0, 0 },
	{ "sign, key index P11_MAX_KEYS", P11_MSG_SIGN, P11_MAX_KEYS, SIG_ED25519, 100, 0, 0, 0 },
	{ "sign, key index 0xffffffff", P11_MSG_SIGN, 0xffffffffU, SIG_ED25519, 100, 0, 0, 0 },
	{ "sign, algorithm none", P11_MSG_SIGN, 0, SIG_NONE, 100, 0, 0, 0 },
	{ "sign, a FIDO algorithm", P11_MSG_SIGN, 0, SIG_SK_ED25519, 100, 0, 0, 0 },
	{ "sign, algorithm 0x100", P11_MSG_SIGN, 0, 0x100, 100, 0, 0, 0 },
	{ "sign, context PIN over its bound", P11_MSG_SIGN, 0, SIG_ED25519, 100, P11_MAX_PIN + 1, 0, 0 },
	{ "sign, context PIN with a NUL", P11_MSG_SIGN, 0, SIG_ED25519, 100, 6, 1, 0 },
	{ "a reply's type byte (keys)", P11_MSG_KEYS, 0, 0, 0, 4, 0, 0 },
	{ "a reply's type byte (signature)", P11_MSG_SIGNATURE, 0, 0, 0, 4, 0, 0 },
	{ "type 0", 0, 0, 0, 0, 4, 0, 0 },
};

static void
build_req(struct tb *t, const struct req_row *row)
{
	uint8_t *data = filled(row->data_len, 0xd0), *pin = filled(row->pin_len, '4');

	if (row->pin_nul)
		pin[row->pin_len / 2] = '\0';
	tb_u8(t, row->type);
	if (row->type == P11_MSG_SIGN) {
		tb_u32(t, row->key);
		tb_u32(t, row->alg);
		tb_string(t, data, row->data_len);
	}
	tb_string(t, pin, row->pin_len);
	free(data);
	free(pin);
}

static int
decode_req(const uint8_t *p, size_t n, void *arg)
{
	struct p11_req m;
	struct rd r;

	(void)arg;
	rd_init(&r, p, n);
	return p11_req_decode(&r, &m);
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
			wire_check(row->name, &t, decode_req, NULL,
			    row->data_len > 1000 ? WIRE_VALID | WIRE_TRAILING :
			    WIRE_ALL);
			ok(t.w.len <= P11_MAX_REQUEST, "request, %s: within "
			    "P11_MAX_REQUEST", row->name);
		} else
			is_int(run_decoder(decode_req, t.w.p, t.w.len, NULL) != 0, 1,
			    "request, %s: refused", row->name);
		tb_free(&t);
	}
}

static void
test_request_roundtrip(void)
{
	static const uint8_t data[] = "sign me";
	struct p11_req out;
	struct wb w;
	struct rd r;

	wb_init(&w);
	p11_login_encode(&w, sl_str("123456"));
	rd_init(&r, w.p, w.len);
	ok(!w.err && p11_req_decode(&r, &out) == 0 &&
	    out.type == P11_MSG_LOGIN && slice_eq_str(out.pin, "123456"),
	    "login: what the encoder writes the decoder reads back");
	wb_reset(&w);
	p11_sign_encode(&w, 7, SIG_RSA_SHA512, sl(data, sizeof(data)),
	    sl_str("0000"));
	rd_init(&r, w.p, w.len);
	ok(!w.err && p11_req_decode(&r, &out) == 0 &&
	    out.type == P11_MSG_SIGN && out.key == 7 &&
	    out.alg == SIG_RSA_SHA512 && slice_eq(out.data, sl(data, sizeof(data))) &&
	    slice_eq_str(out.pin, "0000"),
	    "sign: what the encoder writes the decoder reads back");
	wb_free_secret(&w);
}

/* ------------------------------------------------------------ listings */

static struct testkey k_rsa, k_p256, k_p384, k_p521, k_ed, k_sk;

/* A listing row: each key a test key (or a broken blob), its label. */
enum blob_kind { B_RSA, B_P256, B_P384, B_P521, B_ED, B_SK, B_CERT,
    B_TRAIL, B_JUNK };

struct keys_row {
	const char *name;
	uint32_t status;
	uint32_t n;             /* keys written */
	uint32_t n_claimed;     /* the count on the wire */
	enum blob_kind blob;    /* every key's blob */
	size_t label_len;       /* bytes of 'L' */
	int label_nul;
	uint32_t flags;
	int want_ok;
};

static const struct keys_row keys_rows[] = {
	{ "one RSA key", P11_OK, 1, 1, B_RSA, 7, 0, 0, 1 },
	{ "one P-256 key", P11_OK, 1, 1, B_P256, 4, 0, 0, 1 },
	{ "one P-384 key, always authenticate", P11_OK, 1, 1, B_P384, 4, 0, P11_KEY_ALWAYS_AUTH, 1 },
	{ "one P-521 key", P11_OK, 1, 1, B_P521, 4, 0, 0, 1 },
	{ "three Ed25519 keys, no labels", P11_OK, 3, 3, B_ED, 0, 0, 0, 1 },
	{ "P11_MAX_KEYS RSA keys, labels at their bound", P11_OK, P11_MAX_KEYS, P11_MAX_KEYS, B_RSA, P11_MAX_LABEL, 0, 0, 1 },
	{ "no keys (a token without any)", P11_OK, 0, 0, B_RSA, 0, 0, 0, 1 },
	{ "wrong PIN (CKR_PIN_INCORRECT), nothing listed", 0xa0, 0, 0, B_RSA, 0, 0, 0, 1 },
	{ "wrong PIN, yet a key listed", 0xa0, 1, 1, B_RSA, 4, 0, 0, 0 },
	{ "P11_MAX_KEYS + 1 keys", P11_OK, P11_MAX_KEYS + 1, P11_MAX_KEYS + 1, B_ED, 1, 0, 0, 0 },
	{ "a count of 0xffffffff", P11_OK, 1, 0xffffffffU, B_ED, 1, 0, 0, 0 },
	{ "a count of 2 over one key", P11_OK, 1, 2, B_ED, 1, 0, 0, 0 },
	{ "label over its bound", P11_OK, 1, 1, B_ED, P11_MAX_LABEL + 1, 0, 0, 0 },
	{ "label with a NUL", P11_OK, 1, 1, B_ED, 8, 1, 0, 0 },
	{ "an unknown key flag", P11_OK, 1, 1, B_ED, 4, 0, 0x02, 0 },
	{ "a FIDO key (no token holds one)", P11_OK, 1, 1, B_SK, 4, 0, 0, 0 },
	{ "a certificate", P11_OK, 1, 1, B_CERT, 4, 0, 0, 0 },
	{ "a key blob with a trailing byte", P11_OK, 1, 1, B_TRAIL, 4, 0, 0, 0 },
	{ "a key blob that is no key", P11_OK, 1, 1, B_JUNK, 4, 0, 0, 0 },
};

static void
put_blob(struct tb *t, enum blob_kind b)
{
	struct testkey *k = b == B_RSA ? &k_rsa : b == B_P256 ? &k_p256 :
	    b == B_P384 ? &k_p384 : b == B_P521 ? &k_p521 : b == B_SK ? &k_sk :
	    &k_ed;
	struct tb c;

	switch (b) {
	case B_TRAIL:
		tb_begin(t);
		tb_raw(t, k_ed.blob.p, k_ed.blob.len);
		tb_u8(t, 0);
		tb_end(t);
		break;
	case B_JUNK:
		tb_cstring(t, "ssh-ed25519 but not a key");
		break;
	case B_CERT:
		tb_init(&c);
		tk_cert(&c, &(struct certspec){ .key = &k_ed, .ca = &k_p256,
		    .type = 1, .key_id = "id", .valid_before = ~0ULL });
		tb_string_of(t, &c);
		tb_free(&c);
		break;
	default:
		tb_string(t, k->blob.p, k->blob.len);
		break;
	}
}

static void
build_keys(struct tb *t, const struct keys_row *row)
{
	uint8_t *label = filled(row->label_len, 'L');

	if (row->label_nul)
		label[row->label_len / 2] = '\0';
	tb_u8(t, P11_MSG_KEYS);
	tb_u32(t, row->status);
	tb_u32(t, row->n_claimed);
	for (uint32_t i = 0; i < row->n; i++) {
		put_blob(t, row->blob);
		tb_string(t, label, row->label_len);
		tb_u32(t, row->flags);
	}
	free(label);
}

static int
decode_keys(const uint8_t *p, size_t n, void *arg)
{
	static struct p11_keys m;
	struct rd r;

	(void)arg;
	rd_init(&r, p, n);
	return p11_keys_decode(&r, &m);
}

static void
test_listings(void)
{
	for (size_t i = 0; i < sizeof(keys_rows) / sizeof(keys_rows[0]); i++) {
		const struct keys_row *row = &keys_rows[i];
		struct tb t;

		tb_init(&t);
		build_keys(&t, row);
		if (row->want_ok) {
			/* a listing of 32 RSA keys: the prefixes of a few */
			wire_check(row->name, &t, decode_keys, NULL,
			    row->n > 4 ? WIRE_VALID | WIRE_TRAILING : WIRE_ALL);
			ok(t.w.len <= P11_MAX_REPLY, "listing, %s: within "
			    "P11_MAX_REPLY", row->name);
		} else
			is_int(run_decoder(decode_keys, t.w.p, t.w.len, NULL) != 0,
			    1, "listing, %s: refused", row->name);
		tb_free(&t);
	}
}

static void
test_listing_encoder(void)
{
	static struct p11_keys in, out;
	struct wb w;
	struct rd r;

	in.status = P11_OK;
	in.n = 2;
	in.key[0] = (struct p11_key){ sl(k_rsa.blob.p, k_rsa.blob.len),
	    sl_str("my rsa"), 0 };
	in.key[1] = (struct p11_key){ sl(k_ed.blob.p, k_ed.blob.len),
	    sl_str(""), P11_KEY_ALWAYS_AUTH };
	wb_init(&w);
	p11_keys_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(!w.err && p11_keys_decode(&r, &out) == 0 && out.n == 2 &&
	    slice_eq(out.key[0].blob, in.key[0].blob) &&
	    slice_eq_str(out.key[0].label, "my rsa") &&
	    out.key[1].flags == P11_KEY_ALWAYS_AUTH &&
	    slice_eq(out.key[1].blob, in.key[1].blob),
	    "listing: what the encoder writes the decoder reads back");
	/* a failure is sent without the keys a half-done login found */
	in.status = 0xa0;
	wb_reset(&w);
	p11_keys_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(!w.err && p11_keys_decode(&r, &out) == 0 && out.status == 0xa0 &&
	    out.n == 0, "listing: a failure is encoded with no key");
	wb_free(&w);
}

/* ------------------------------------------------------------ signatures */

struct sig_row {
	const char *name;
	uint32_t status;
	uint32_t asked;         /* the algorithm the SIGN asked for */
	const char *named;      /* the blob's name; NULL: no blob at all */
	size_t sig_len;         /* the blob's signature bytes */
	int trailing;           /* a byte after the blob's two strings */
	int want_ok;
};

static const struct sig_row sig_rows[] = {
	{ "rsa-sha2-256", P11_OK, SIG_RSA_SHA256, "rsa-sha2-256", 256, 0, 1 },
	{ "ssh-rsa", P11_OK, SIG_RSA_SHA1, "ssh-rsa", 256, 0, 1 },
	{ "rsa-sha2-512, RSA-16384", P11_OK, SIG_RSA_SHA512, "rsa-sha2-512", 2048, 0, 1 },
	{ "ecdsa-sha2-nistp384", P11_OK, SIG_ECDSA_P384, "ecdsa-sha2-nistp384", 104, 0, 1 },
	{ "ssh-ed25519", P11_OK, SIG_ED25519, "ssh-ed25519", 64, 0, 1 },
	{ "a failure (CKR_USER_NOT_LOGGED_IN)", 0x101, SIG_ED25519, NULL, 0, 0, 1 },
	{ "a failure with a signature", 0x101, SIG_ED25519, "ssh-ed25519", 64, 0, 0 },
	{ "success without a signature", P11_OK, SIG_ED25519, NULL, 0, 0, 0 },
	{ "ssh-rsa when rsa-sha2-512 was asked (a downgrade)", P11_OK, SIG_RSA_SHA512, "ssh-rsa", 256, 0, 0 },
	{ "ssh-ed25519 when P-256 was asked", P11_OK, SIG_ECDSA_P256, "ssh-ed25519", 64, 0, 0 },
	{ "an empty signature", P11_OK, SIG_ED25519, "ssh-ed25519", 0, 0, 0 },
	{ "a blob with trailing bytes", P11_OK, SIG_ED25519, "ssh-ed25519", 64, 1, 0 },
	{ "a blob over P11_MAX_SIG_BLOB", P11_OK, SIG_RSA_SHA256, "rsa-sha2-256", P11_MAX_SIG_BLOB, 0, 0 },
	{ "a FIDO algorithm asked", P11_OK, SIG_SK_ED25519, "sk-ssh-ed25519@openssh.com", 64, 0, 0 },
	{ "a listing's type byte", P11_OK, SIG_ED25519, "ssh-ed25519", 64, 0, 0 },
};

static void
build_sig(struct tb *t, const struct sig_row *row, uint8_t type)
{
	uint8_t *s = filled(row->sig_len, 0x5a);

	tb_u8(t, type);
	tb_u32(t, row->status);
	tb_begin(t);
	if (row->named != NULL) {
		tb_cstring(t, row->named);
		tb_string(t, s, row->sig_len);
		if (row->trailing)
			tb_u8(t, 0);
	}
	tb_end(t);
	free(s);
}

static int
decode_sig(const uint8_t *p, size_t n, void *arg)
{
	struct p11_sig m;
	struct rd r;

	rd_init(&r, p, n);
	return p11_sig_decode(&r, *(const uint32_t *)arg, &m);
}

static void
test_signatures(void)
{
	size_t last = sizeof(sig_rows) / sizeof(sig_rows[0]) - 1;

	for (size_t i = 0; i <= last; i++) {
		const struct sig_row *row = &sig_rows[i];
		uint32_t alg = row->asked;
		struct tb t;

		tb_init(&t);
		build_sig(&t, row, i == last ? P11_MSG_KEYS : P11_MSG_SIGNATURE);
		if (row->want_ok) {
			wire_check(row->name, &t, decode_sig, &alg, WIRE_ALL);
			ok(t.w.len <= P11_MAX_REPLY, "signature, %s: within "
			    "P11_MAX_REPLY", row->name);
		} else
			is_int(run_decoder(decode_sig, t.w.p, t.w.len, &alg) != 0, 1,
			    "signature, %s: refused", row->name);
		tb_free(&t);
	}
}

static void
test_signature_encoder(void)
{
	struct p11_sig in, out;
	struct wb w, blob;
	struct rd r;
	uint8_t s[64] = { 1 };

	wb_init(&blob);
	wb_cstring(&blob, "ssh-ed25519");
	wb_string(&blob, s, sizeof(s));
	in = (struct p11_sig){ P11_OK, wb_slice_of(&blob) };
	wb_init(&w);
	p11_sig_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(!w.err && p11_sig_decode(&r, SIG_ED25519, &out) == 0 &&
	    out.status == P11_OK && slice_eq(out.sig, in.sig),
	    "signature: what the encoder writes the decoder reads back");
	in.status = 0x06;
	wb_reset(&w);
	p11_sig_encode(&w, &in);
	rd_init(&r, w.p, w.len);
	ok(!w.err && p11_sig_decode(&r, SIG_ED25519, &out) == 0 &&
	    out.status == 0x06 && out.sig.len == 0,
	    "signature: a failure is encoded without the signature");
	wb_free(&w);
	wb_free(&blob);
}

int
main(void)
{
	testkey_gen(&k_rsa, KEY_RSA, 2048);
	testkey_gen(&k_p256, KEY_ECDSA_P256, 0);
	testkey_gen(&k_p384, KEY_ECDSA_P384, 0);
	testkey_gen(&k_p521, KEY_ECDSA_P521, 0);
	testkey_gen(&k_ed, KEY_ED25519, 0);
	testkey_gen(&k_sk, KEY_SK_ED25519, 0);
	test_requests();
	test_request_roundtrip();
	test_listings();
	test_listing_encoder();
	test_signatures();
	test_signature_encoder();
	return done_testing();
}
