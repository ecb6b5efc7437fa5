/*
 * test_keystore.c - the keyholder's key store and its shielding: every
 * key is checked once on add, kept sealed under the prekey-derived key,
 * and opened only to sign. A sealed key that was tampered with does not
 * open; signatures made from sealed keys verify.
 */
#include "keyholder/keystore.h"
#include "keyholder/privkey.h"
#include "ipc/limits.h"
#include "keyholder/shield.h"
#include "wire/keyholder.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"

/* The public key the keyholder derived at the last add. */
static struct wb derived;

static int
add(struct keystore *ks, uint64_t id, struct slice priv)
{
	struct wb w;
	int rc;

	wb_init(&w);
	rc = ks_add(ks, id, priv, &w);
	wb_free(&derived);
	derived = w;
	return rc;
}

static void
sign_rows(struct keystore *ks)
{
	static const struct {
		const char *name;
		enum key_kind kind;
		enum sig_alg alg;
	} rows[] = {
		{ "Ed25519", KEY_ED25519, SIG_ED25519 },
		{ "ECDSA P-256", KEY_ECDSA_P256, SIG_ECDSA_P256 },
		{ "ECDSA P-384", KEY_ECDSA_P384, SIG_ECDSA_P384 },
		{ "ECDSA P-521", KEY_ECDSA_P521, SIG_ECDSA_P521 },
		{ "RSA-2048 rsa-sha2-256", KEY_RSA, SIG_RSA_SHA256 },
		{ "RSA-2048 rsa-sha2-512", KEY_RSA, SIG_RSA_SHA512 },
		{ "RSA-2048 ssh-rsa", KEY_RSA, SIG_RSA_SHA1 },
	};
	static const uint8_t data[] = "data to sign";
	struct slice msg = { data, sizeof(data) };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct testkey k;
		struct tb priv, pub;
		struct pubkey pk;
		struct sealed s;
		struct wb sig;
		int kind = -1;
		uint64_t id = 100 + i;

		testkey_gen(&k, rows[i].kind, 2048);
		tb_init(&priv);
		tb_init(&pub);
		tk_priv(&priv, &k);
		tk_pub(&pub, &k);
		is_int(add(ks, id, tb_slice(&priv)), 0, "%s: a matching key is added", rows[i].name);
		ok(slice_eq(wb_slice_of(&derived), tb_slice(&pub)),
		    "%s: the answer is its public key", rows[i].name);
		is_int(ks_get(ks, id, &kind, &s), 0, "%s: its sealed copy is handed out", rows[i].name);
		is_int(kind, rows[i].kind, "%s: with its kind", rows[i].name);
		is_int(ks_rsa_bits(ks, id), rows[i].kind == KEY_RSA ? 2048 : 0,
		    "%s: its RSA modulus size, which chooses its signing lane", rows[i].name);
		ok(s.len == priv.w.len && memcmp(s.ct, priv.w.p, s.len) != 0,
		    "%s: the stored key is not the plaintext", rows[i].name);
		wb_init(&sig);
		is_int(ks_sign(&s, rows[i].alg, msg, &sig), 0, "%s: signs from the sealed key", rows[i].name);
		ok(key_parse_public(tb_slice(&pub), &pk, NULL) == 0 &&
		    sig_verify(&pk, wb_slice_of(&sig), msg, NULL) == 0,
		    "%s: the signature verifies", rows[i].name);
		wb_free(&sig);
		s.ct[0] ^= 1;
		wb_init(&sig);
		ok(ks_sign(&s, rows[i].alg, msg, &sig) != 0,
		    "%s: a sealed key with one bit flipped does not open", rows[i].name);
		wb_free(&sig);
		sealed_free(&s);
		ks_delete(ks, id);
		ok(ks_get(ks, id, &kind, &s) != 0, "%s: gone after delete", rows[i].name);
		is_int(ks_rsa_bits(ks, id), 0, "%s: no size after delete", rows[i].name);
		tb_free(&priv);
		tb_free(&pub);
		testkey_free(&k);
	}
}

static void
mismatch_rows(struct keystore *ks)
{
	struct testkey a, b;
	struct tb t;
	uint8_t k64[64];

	/* An Ed25519 seed with another key's public half. */
	testkey_gen(&a, KEY_ED25519, 0);
	testkey_gen(&b, KEY_ED25519, 0);
	tb_init(&t);
	tb_cstring(&t, "ssh-ed25519");
	tb_string(&t, a.a.b, 32);
	memcpy(k64, b.seed.b, 32);
	memcpy(k64 + 32, a.a.b, 32);
	tb_string(&t, k64, 64);
	ok(add(ks, 1, tb_slice(&t)) != 0, "Ed25519 seed of another key: refused");
	tb_free(&t);
	testkey_free(&a);
	testkey_free(&b);

	/* A certificate form that does not parse. */
	tb_init(&t);
	tb_cstring(&t, "ssh-ed25519-cert-v01@openssh.com");
	tb_string(&t, "x", 1);
	ok(add(ks, 2, tb_slice(&t)) != 0, "a broken certificate encoding: refused");
	tb_free(&t);
	ok(ks->n == 0, "nothing was stored");
}

/* A certificate's private form, as a client sends it: kept as its plain
 * key, answered with the certificate (what policy judged). */
static void
cert_rows(struct keystore *ks)
{
	static const uint8_t data[] = "data to sign";
	struct slice msg = { data, sizeof(data) };
	struct testkey k, ca;
	struct tb priv, cert;
	struct pubkey pk;
	struct sealed s;
	struct wb sig;
	int kind = -1;

	testkey_gen(&k, KEY_ECDSA_P256, 0);
	testkey_gen(&ca, KEY_ED25519, 0);
	struct certspec cs = { .key = &k, .ca = &ca, .type = 1, .nprincipals = 1 };
	tb_init(&priv);
	tb_init(&cert);
	tk_priv_cert(&priv, &cs);
	tk_cert(&cert, &cs);
	is_int(add(ks, 400, tb_slice(&priv)), 0, "certificate: its private form is added");
	ok(slice_eq(wb_slice_of(&derived), tb_slice(&cert)),
	    "certificate: the answer is the certificate");
	is_int(ks_get(ks, 400, &kind, &s), 0, "certificate: kept");
	ok(s.len < priv.w.len, "certificate: kept as its plain key, without the "
	    "certificate");
	wb_init(&sig);
	ok(ks_sign(&s, SIG_ECDSA_P256, msg, &sig) == 0 &&
	    key_parse_public(tb_slice(&cert), &pk, NULL) == 0 &&
	    sig_verify(&pk, wb_slice_of(&sig), msg, NULL) == 0,
	    "certificate: it signs, and the signature verifies with the "
	    "certificate's key");
	wb_free(&sig);
	sealed_free(&s);
	ks_delete(ks, 400);
	tb_free(&priv);
	tb_free(&cert);
	testkey_free(&k);
	testkey_free(&ca);
}

static void
seal_rows(void)
{
	static const uint8_t secret[] = "private material";
	struct slice p = { secret, sizeof(secret) };
	struct sealed a, b;
	uint8_t *o;

	ok(shield_seal(p, &a) == 0 && shield_seal(p, &b) == 0, "seal twice");
	ok(memcmp(a.iv, b.iv, SHIELD_IV_LEN) != 0, "every seal has a fresh IV");
	ok(memcmp(a.ct, b.ct, a.len) != 0, "so the ciphertexts differ");
	o = shield_open(&a);
	ok(o != NULL && memcmp(o, secret, sizeof(secret)) == 0, "open gives the plaintext back");
	shield_release(o, a.len);
	a.tag[0] ^= 1;
	ok(shield_open(&a) == NULL, "a tag with one bit flipped does not open");
	sealed_free(&a);
	ok(a.ct == NULL && a.len == 0, "sealed_free leaves an empty seal");
	sealed_free(&a);        /* and may be called again */
	sealed_free(&b);
	ok(shield_seal((struct slice){ secret, 0 }, &a) != 0, "empty material is refused");
	o = shield_alloc(SHIELD_LOCK_KEY_LEN);
	ok(o != NULL && CRYPTO_secure_allocated(o),
	    "shield_alloc takes its bytes from the secure heap");
	if (o != NULL)
		memset(o, 0x5a, SHIELD_LOCK_KEY_LEN);
	shield_release(o, SHIELD_LOCK_KEY_LEN);
	shield_release(NULL, 0);        /* nothing to release: no crash */
}

static void
lock_rows(struct keystore *ks)
{
	static const uint8_t data[] = "signed while unlocked";
	struct slice msg = { data, sizeof(data) };
	struct slice good = { (const uint8_t *)"correct horse", 13 };
	struct slice bad = { (const uint8_t *)"correct horsf", 13 };
	struct testkey k;
	struct tb priv, pub;
	struct sealed s, before;
	struct pubkey pk;
	struct wb sig;
	int kind;

	testkey_gen(&k, KEY_ED25519, 0);
	tb_init(&priv);
	tb_init(&pub);
	tk_priv(&priv, &k);
	tk_pub(&pub, &k);
	is_int(add(ks, 7, tb_slice(&priv)), 0, "lock: a key is added");
	is_int(ks_get(ks, 7, &kind, &before), 0, "lock: its prekey seal");
	is_int(ks_lock(ks, good), 0, "lock: the store is sealed under the passphrase");
	ok(ks_lock(ks, good) != 0, "lock: locking twice fails");
	ok(ks_get(ks, 7, &kind, &s) != 0, "lock: no key is handed out for signing while locked");
	ok(add(ks, 8, tb_slice(&priv)) != 0, "lock: no key is added while locked");
	wb_init(&sig);
	ok(ks_sign(&before, SIG_ED25519, msg, &sig) != 0,
	    "lock: the prekey seal taken before the lock no longer opens");
	wb_free(&sig);
	sealed_free(&before);
	ok(ks_unlock(ks, bad) != 0, "unlock: a wrong passphrase fails");
	ok(ks->locked && ks->n == 1, "unlock: and changes nothing");
	is_int(ks_unlock(ks, good), 0, "unlock: the right passphrase opens every key");
	ok(ks_unlock(ks, good) != 0, "unlock: unlocking twice fails");
	is_int(ks_get(ks, 7, &kind, &s), 0, "unlock: the key is handed out again");
	wb_init(&sig);
	ok(ks_sign(&s, SIG_ED25519, msg, &sig) == 0 &&
	    key_parse_public(tb_slice(&pub), &pk, NULL) == 0 &&
	    sig_verify(&pk, wb_slice_of(&sig), msg, NULL) == 0,
	    "unlock: and its signature verifies");
	wb_free(&sig);
	sealed_free(&s);
	is_int(ks_lock(ks, good), 0, "lock again");
	ks_wipe(ks);
	ok(ks->n == 0, "remove-all while locked empties the store");
	is_int(ks_unlock(ks, good), 0, "and a later unlock of the empty store succeeds");
	tb_free(&priv);
	tb_free(&pub);
	testkey_free(&k);
}

/* Does the sealed copy hold n bytes of p anywhere in the clear? */
static int
in_clear(const struct sealed *s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + n <= s->len; i++)
		if (memcmp(s->ct + i, p, n) == 0)
			return 1;
	return 0;
}

/* The material ks_sk_material answers with (wire/keyholder.h). */
static int
material_is(const struct wb *w, const struct testkey *k)
{
	struct msg_sk_material m;
	struct rd r;

	rd_init(&r, w->p, w->len);
	return msg_sk_material_decode(&r, &m) == 0 &&
	    m.alg == key_sk_alg(k->kind) &&
	    slice_eq(m.application, (struct slice){ k->app.b, k->app.len }) &&
	    m.flags == k->skflags &&
	    slice_eq(m.key_handle, (struct slice){ k->kh.b, k->kh.len });
}

/* FIDO keys: added after their public point is checked, kept sealed (the
 * key handle is a secret), listed and removed like any key; never signed
 * with here; their material handed out only unlocked, and only theirs. */
static void
sk_rows(struct keystore *ks)
{
	static const struct {
		const char *name;
		enum key_kind kind;
		uint64_t id;
	} rows[] = {
		{ "sk-ssh-ed25519", KEY_SK_ED25519, 300 },
		{ "sk-ecdsa", KEY_SK_ECDSA_P256, 301 },
	};
	struct slice good = { (const uint8_t *)"correct horse", 13 };
	struct testkey k[2], ed;
	struct tb priv[2], edpriv, t;
	struct sealed s;
	struct wb w, sig;
	int kind;

	for (size_t i = 0; i < 2; i++) {
		testkey_gen(&k[i], rows[i].kind, 0);
		k[i].skflags = 0x05;
		tb_init(&priv[i]);
		tk_priv(&priv[i], &k[i]);
		is_int(add(ks, rows[i].id, tb_slice(&priv[i])), 0, "%s: added",
		    rows[i].name);
		is_int(ks_get(ks, rows[i].id, &kind, &s), 0, "%s: held, kind %s",
		    rows[i].name, key_kind_name(rows[i].kind));
		is_int(kind, rows[i].kind, "%s: its kind is kept", rows[i].name);
		ok(!in_clear(&s, k[i].kh.b, k[i].kh.len) &&
		    !in_clear(&s, k[i].app.b, k[i].app.len),
		    "%s: sealed: neither key handle nor application in the clear",
		    rows[i].name);
		wb_init(&sig);
		ok(ks_sign(&s, sig_alg_for(rows[i].kind, 0), sl_str("data"), &sig) != 0,
		    "%s: the keyholder cannot sign with it", rows[i].name);
		wb_free(&sig);
		sealed_free(&s);
		wb_init(&w);
		ok(ks_sk_material(ks, rows[i].id, &w) == 0 && material_is(&w, &k[i]),
		    "%s: its material: algorithm 0x%02x, application, flags 0x05, key "
		    "handle", rows[i].name, key_sk_alg(rows[i].kind));
		wb_free_secret(&w);
	}

	/* a point off the curve is refused, as any invalid public key */
	tb_init(&t);
	k[1].q.b[64] ^= 0x01;
	tk_priv(&t, &k[1]);
	k[1].q.b[64] ^= 0x01;
	ok(add(ks, 302, tb_slice(&t)) != 0, "sk-ecdsa with a point off the curve: "
	    "refused");
	tb_free(&t);

	/* no material for another kind of key, or for no key */
	testkey_gen(&ed, KEY_ED25519, 0);
	tb_init(&edpriv);
	tk_priv(&edpriv, &ed);
	is_int(add(ks, 303, tb_slice(&edpriv)), 0, "an Ed25519 key beside them");
	wb_init(&w);
	ok(ks_sk_material(ks, 303, &w) != 0 && w.len == 0,
	    "no FIDO material for an Ed25519 key");
	ok(ks_sk_material(ks, 999, &w) != 0 && w.len == 0,
	    "no FIDO material for a key that is not held");

	/* locked: sealed under the passphrase like the others */
	is_int(ks_lock(ks, good), 0, "lock with FIDO keys held");
	ok(ks_sk_material(ks, 300, &w) != 0 && w.len == 0,
	    "locked: no FIDO material handed out");
	ok(ks_get(ks, 301, &kind, &s) != 0, "locked: no sealed copy handed out");
	is_int(ks_unlock(ks, good), 0, "unlock");
	ok(ks_sk_material(ks, 301, &w) == 0 && material_is(&w, &k[1]),
	    "unlocked: the material is the same as before the lock");
	wb_free_secret(&w);

	/* removed like any key */
	ks_delete(ks, 300);
	wb_init(&w);
	ok(ks_sk_material(ks, 300, &w) != 0 && ks_get(ks, 300, &kind, &s) != 0,
	    "sk-ssh-ed25519: gone after delete");
	ks_delete(ks, 301);
	ks_delete(ks, 303);
	wb_free(&w);
	for (size_t i = 0; i < 2; i++) {
		wb_free_secret(&priv[i].w);
		testkey_free(&k[i]);
	}
	wb_free_secret(&edpriv.w);
	testkey_free(&ed);
}

/* The plain private key of a sealed one, parsed into k over *plain
 * (shield_release it after). */
static int
open_key(const struct sealed *s, uint8_t **plain, struct privkey *k)
{
	struct rd r;

	if ((*plain = shield_open(s)) == NULL)
		return -1;
	rd_init(&r, *plain, s->len);
	return key_parse_private(&r, k, NULL);
}

/* RSA signs with a blinding pair kept between signatures
 * (keyholder/rsasign.c). PKCS#1 v1.5 is deterministic, so each signature
 * must be byte for byte the one OpenSSL's EVP makes from the same key,
 * through the 32nd use where the pair is drawn anew and past it. */
static void
rsa_rows(struct keystore *ks)
{
	static const enum sig_alg algs[] = {
		SIG_RSA_SHA256, SIG_RSA_SHA512, SIG_RSA_SHA1 };
	static const uint8_t data[] = "data to sign with RSA";
	struct slice msg = { data, sizeof(data) };
	struct testkey k;
	struct tb priv;
	struct sealed s;
	struct privkey pk;
	uint8_t *plain = NULL;
	EVP_PKEY *ref = NULL;
	int kind, same = 1, verified = 1;

	rsasign_forget();
	testkey_gen(&k, KEY_RSA, 2048);
	tb_init(&priv);
	tk_priv(&priv, &k);
	is_int(add(ks, 300, tb_slice(&priv)), 0, "RSA: added");
	is_int(ks_get(ks, 300, &kind, &s), 0, "RSA: its sealed copy");
	ok(open_key(&s, &plain, &pk) == 0 &&
	    (ref = pkey_private_trusted(&pk)) != NULL, "RSA: the EVP key to compare with");
	is_int((int)rsasign_kept(), 0, "RSA: no blinding kept before a signature");
	for (int i = 0; i < 70; i++) {
		enum sig_alg alg = algs[i % 3];
		struct wb a, b;

		wb_init(&a);
		wb_init(&b);
		if (ks_sign(&s, alg, msg, &a) != 0 || sig_make(ref, alg, msg, &b) != 0 ||
		    !slice_eq(wb_slice_of(&a), wb_slice_of(&b)))
			same = 0;
		if (sig_verify(&pk.pub, wb_slice_of(&a), msg, NULL) != 0)
			verified = 0;
		wb_free(&a);
		wb_free(&b);
	}
	ok(same, "RSA: 70 signatures (SHA-256, SHA-512, SHA-1) equal OpenSSL's EVP ones");
	ok(verified, "RSA: and verify");
	is_int((int)rsasign_kept(), 1, "RSA: one blinding pair kept for the key");
	{
		struct wb w;

		wb_init(&w);
		ok(ks_sign(&s, SIG_ED25519, msg, &w) != 0, "RSA: an Ed25519 algorithm is refused");
		wb_free(&w);
		wb_init(&w);
		ok(ks_sign(&s, SIG_ECDSA_P256, msg, &w) != 0, "RSA: an ECDSA algorithm is refused");
		wb_free(&w);
	}
	ks_wipe(ks);
	is_int((int)rsasign_kept(), 0, "RSA: removing all keys drops the kept blinding");
	EVP_PKEY_free(ref);
	shield_release(plain, s.len);
	sealed_free(&s);
	wb_free_secret(&priv.w);
	testkey_free(&k);
}

/* The table of kept blinding pairs is bounded: more keys than it holds
 * each still sign, and the oldest pair gives way. */
static void
rsa_bound_rows(struct keystore *ks)
{
	static const uint8_t data[] = "bounded";
	struct slice msg = { data, sizeof(data) };
	int signed_all = 1;

	rsasign_forget();
	for (int i = 0; i < KEYHOLDER_RSA_BLINDINGS + 2; i++) {
		struct testkey k;
		struct tb priv;
		struct sealed s;
		struct wb w;
		int kind;

		testkey_gen(&k, KEY_RSA, 1024);
		tb_init(&priv);
		tk_priv(&priv, &k);
		wb_init(&w);
		if (add(ks, 400 + (uint64_t)i, tb_slice(&priv)) != 0 ||
		    ks_get(ks, 400 + (uint64_t)i, &kind, &s) != 0)
			signed_all = 0;
		else {
			if (ks_sign(&s, SIG_RSA_SHA256, msg, &w) != 0)
				signed_all = 0;
			sealed_free(&s);
		}
		wb_free(&w);
		wb_free_secret(&priv.w);
		testkey_free(&k);
	}
	ok(signed_all, "RSA: %d keys each sign", KEYHOLDER_RSA_BLINDINGS + 2);
	is_int((int)rsasign_kept(), KEYHOLDER_RSA_BLINDINGS,
	    "RSA: no more blinding pairs kept than KEYHOLDER_RSA_BLINDINGS");
	is_int(ks_lock(ks, (struct slice){ (const uint8_t *)"pw", 2 }), 0, "RSA: locked");
	is_int((int)rsasign_kept(), 0, "RSA: a lock drops the kept blinding pairs");
	is_int(ks_unlock(ks, (struct slice){ (const uint8_t *)"pw", 2 }), 0, "RSA: unlocked");
	ks_wipe(ks);
}

/* ECDSA signs from the scalar on a curve built once (keyholder/ecsign.c):
 * many signatures verify, and a curve other than the key's is refused. */
static void
ecdsa_rows(struct keystore *ks)
{
	static const struct {
		enum key_kind kind;
		enum sig_alg alg, other;
	} rows[] = {
		{ KEY_ECDSA_P256, SIG_ECDSA_P256, SIG_ECDSA_P384 },
		{ KEY_ECDSA_P384, SIG_ECDSA_P384, SIG_ECDSA_P521 },
		{ KEY_ECDSA_P521, SIG_ECDSA_P521, SIG_ECDSA_P256 },
	};
	static const uint8_t data[] = "data to sign with ECDSA";
	struct slice msg = { data, sizeof(data) };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct testkey k;
		struct tb priv, pub;
		struct pubkey pk;
		struct sealed s;
		struct wb w;
		int kind, verified = 1;

		testkey_gen(&k, rows[i].kind, 0);
		tb_init(&priv);
		tb_init(&pub);
		tk_priv(&priv, &k);
		tk_pub(&pub, &k);
		is_int(add(ks, 500 + i, tb_slice(&priv)), 0, "%s: added", tk_name(rows[i].kind));
		is_int(ks_get(ks, 500 + i, &kind, &s), 0, "%s: its sealed copy", tk_name(rows[i].kind));
		key_parse_public(tb_slice(&pub), &pk, NULL);
		for (int j = 0; j < 20; j++) {
			wb_init(&w);
			if (ks_sign(&s, rows[i].alg, msg, &w) != 0 ||
			    sig_verify(&pk, wb_slice_of(&w), msg, NULL) != 0)
				verified = 0;
			wb_free(&w);
		}
		ok(verified, "%s: 20 signatures verify", tk_name(rows[i].kind));
		wb_init(&w);
		ok(ks_sign(&s, rows[i].other, msg, &w) != 0,
		    "%s: another curve's algorithm is refused", tk_name(rows[i].kind));
		wb_free(&w);
		wb_init(&w);
		ok(ks_sign(&s, SIG_RSA_SHA256, msg, &w) != 0,
		    "%s: an RSA algorithm is refused", tk_name(rows[i].kind));
		wb_free(&w);
		ks_delete(ks, 500 + i);
		sealed_free(&s);
		wb_free_secret(&priv.w);
		wb_free(&pub.w);
		testkey_free(&k);
	}
}

int
main(void)
{
	struct keystore ks;

	shield_init();
	ks_init(&ks);
	seal_rows();
	sign_rows(&ks);
	mismatch_rows(&ks);
	cert_rows(&ks);
	lock_rows(&ks);
	sk_rows(&ks);
	rsa_rows(&ks);
	rsa_bound_rows(&ks);
	ecdsa_rows(&ks);
	ks_wipe(&ks);
	free(ks.buckets);       /* ks_wipe keeps the table for reuse */
	wb_free(&derived);
	return done_testing();
}
