/*
 * test_mldsa_key.c - ssh-mldsa44-ed25519@openssh.com keys and signatures
 * as OpenSSH 10.5 has them: the public blob and the private key of an
 * ADD (keys/), good, bad and truncated; the keyholder's check that the
 * seeds make the public key (keyholder/privkey.c); signatures made with
 * the seeds (crypto/composite.c) that policy's sig_verify accepts and
 * refuses when either half is broken; the Ed25519 half checked on its own
 * with OpenSSL over the message the draft defines, built here.
 */
#include "tests/unit/tap.h"
#include "crypto/composite.h"
#include "crypto/crypto.h"
#include "crypto/mldsa44.h"
#include "keyholder/privkey.h"
#include "keys/sshkey.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#define NAME "ssh-mldsa44-ed25519@openssh.com"

static uint8_t sk[MLDSA44_ED25519_SK_LEN], pk[MLDSA44_ED25519_PK_LEN];

static void
put_string(struct wb *w, const void *p, size_t n)
{
	wb_string(w, p, n);
}

/* name, pk (pklen bytes of it), and with priv the seeds (sklen). */
static void
blob(struct wb *w, size_t pklen, int priv, size_t sklen)
{
	uint8_t big[MLDSA44_ED25519_PK_LEN + 1] = { 0 };

	wb_init(w);
	wb_cstring(w, NAME);
	memcpy(big, pk, sizeof(pk));
	put_string(w, big, pklen);
	if (priv) {
		uint8_t s[MLDSA44_ED25519_SK_LEN + 1] = { 0 };

		memcpy(s, sk, sizeof(sk));
		put_string(w, s, sklen);
	}
}

static void
test_public(void)
{
	static const struct {
		const char *what;
		size_t pklen;
		int trailing, ok;
		const char *why;
	} cases[] = {
		{ "good public blob", MLDSA44_ED25519_PK_LEN, 0, 1, NULL },
		{ "public key one byte short", MLDSA44_ED25519_PK_LEN - 1, 0, 0,
		  "bad ML-DSA-44/Ed25519 public key length" },
		{ "public key one byte long", MLDSA44_ED25519_PK_LEN + 1, 0, 0,
		  "bad ML-DSA-44/Ed25519 public key length" },
		{ "ML-DSA-44 key alone", MLDSA44_PK_LEN, 0, 0,
		  "bad ML-DSA-44/Ed25519 public key length" },
		{ "a byte after the key", MLDSA44_ED25519_PK_LEN, 1, 0, NULL },
	};
	struct pubkey k;
	struct wb w, c;
	const char *why;
	size_t i, cut, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		blob(&w, cases[i].pklen, 0, 0);
		if (cases[i].trailing)
			wb_u8(&w, 0);
		why = NULL;
		is_int(key_parse_public(wb_slice_of(&w), &k, &why), cases[i].ok ? 0 : -1,
		    "%s", cases[i].what);
		if (cases[i].why != NULL)
			is_str(why ? why : "", cases[i].why, "%s: the reason", cases[i].what);
		if (cases[i].ok) {
			is_int(k.kind, KEY_MLDSA44_ED25519, "kind");
			ok(!k.is_cert && k.mldsa_pk.len == sizeof(pk) &&
			    memcmp(k.mldsa_pk.p, pk, sizeof(pk)) == 0, "the key's bytes");
			wb_init(&c);
			key_write_public(&c, &k);
			ok(c.len == w.len && memcmp(c.p, w.p, w.len) == 0,
			    "canonical form is the blob itself");
			wb_free(&c);
		}
		wb_free(&w);
	}
	/* Every truncation refused. */
	blob(&w, MLDSA44_ED25519_PK_LEN, 0, 0);
	for (cut = 0; cut < w.len; cut++)
		bad += key_parse_public((struct slice){ w.p, cut }, &k, NULL) == 0;
	is_int((int)bad, 0, "no truncation of the public blob parses (%zu tried)", w.len);
	wb_free(&w);
}

static void
test_private(void)
{
	struct privkey k;
	struct rd r;
	struct wb w, plain;
	const char *why;
	EVP_PKEY *p;
	size_t cut, bad = 0;

	blob(&w, MLDSA44_ED25519_PK_LEN, 1, MLDSA44_ED25519_SK_LEN);
	rd_init(&r, w.p, w.len);
	is_int(key_parse_private(&r, &k, &why), 0, "private key as ssh-add 10.5 sends it");
	is_int(rd_done(&r), 0, "read to its end");
	ok(k.mldsa_sk.len == sizeof(sk) && memcmp(k.mldsa_sk.p, sk, sizeof(sk)) == 0,
	    "the seeds");
	wb_init(&plain);
	key_write_private_plain(&plain, &k);
	ok(plain.len == w.len && memcmp(plain.p, w.p, w.len) == 0,
	    "the plain private encoding is the same bytes");
	wb_free(&plain);
	p = pkey_private(&k, &why);
	ok(p != NULL, "the keyholder's check: the seeds make the public key");
	EVP_PKEY_free(p);
	for (cut = 0; cut < w.len; cut += (cut < 64 || cut > w.len - 80 ? 1 : 97)) {
		rd_init(&r, w.p, cut);
		bad += key_parse_private(&r, &k, NULL) == 0 && rd_done(&r) == 0;
	}
	is_int((int)bad, 0, "no truncation of the private key parses");
	wb_free(&w);

	blob(&w, MLDSA44_ED25519_PK_LEN, 1, MLDSA44_ED25519_SK_LEN - 1);
	rd_init(&r, w.p, w.len);
	why = NULL;
	is_int(key_parse_private(&r, &k, &why), -1, "seeds one byte short refused");
	is_str(why ? why : "", "bad ML-DSA-44/Ed25519 private key length", "the reason");
	wb_free(&w);
	blob(&w, MLDSA44_ED25519_PK_LEN, 1, MLDSA44_ED25519_SK_LEN + 1);
	rd_init(&r, w.p, w.len);
	is_int(key_parse_private(&r, &k, NULL), -1, "seeds one byte long refused");
	wb_free(&w);

	/* Seeds that are not the key's: each half in turn. */
	for (int half = 0; half < 2; half++) {
		sk[half * 32] ^= 1;
		blob(&w, MLDSA44_ED25519_PK_LEN, 1, MLDSA44_ED25519_SK_LEN);
		rd_init(&r, w.p, w.len);
		ok(key_parse_private(&r, &k, NULL) == 0, "parses (structure only)");
		why = NULL;
		p = pkey_private(&k, &why);
		ok(p == NULL, "%s seed not the key's: refused by the keyholder",
		    half ? "Ed25519" : "ML-DSA-44");
		is_str(why ? why : "", "ML-DSA-44/Ed25519 private key does not match "
		    "its public key", "the reason");
		EVP_PKEY_free(p);
		wb_free(&w);
		sk[half * 32] ^= 1;
	}
}

static void
test_signature(void)
{
	static const char prefix[] = "CompositeAlgorithmSignatures2025";
	static const char label[] = "COMPSIG-MLDSA44-Ed25519-SHA512";
	uint8_t sig[MLDSA44_ED25519_SIG_LEN], m[32 + 30 + 1 + 64];
	struct slice data = { (const uint8_t *)"session data", 12 };
	struct pubkey k;
	struct wb w, b;
	unsigned int hl;
	EVP_PKEY *ed;
	EVP_MD_CTX *ctx;
	enum sig_alg alg = SIG_NONE;
	int i;

	blob(&w, MLDSA44_ED25519_PK_LEN, 0, 0);
	ok(key_parse_public(wb_slice_of(&w), &k, NULL) == 0, "key parses");
	is_int(sig_alg_for(KEY_MLDSA44_ED25519, 0), SIG_MLDSA44_ED25519,
	    "the kind signs with " NAME);
	is_int(composite_sign(sk, data, sig), 0, "sign with the seeds");
	wb_init(&b);
	wb_cstring(&b, NAME);
	wb_string(&b, sig, sizeof(sig));
	is_int(sig_verify(&k, wb_slice_of(&b), data, &alg), 0, "policy's sig_verify accepts it");
	is_int(alg, SIG_MLDSA44_ED25519, "and names its algorithm");
	is_int(sig_verify(&k, wb_slice_of(&b), (struct slice){ data.p, 11 }, NULL), -1,
	    "other data: refused");
	wb_free(&b);

	/* The Ed25519 half alone, over M' as the draft defines it. */
	memcpy(m, prefix, 32);
	memcpy(m + 32, label, 30);
	m[62] = 0;
	EVP_Digest(data.p, data.len, m + 63, &hl, EVP_sha512(), NULL);
	ed = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk + MLDSA44_PK_LEN, 32);
	ctx = EVP_MD_CTX_new();
	ok(ed != NULL && ctx != NULL && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, ed) == 1 &&
	    EVP_DigestVerify(ctx, sig + MLDSA44_SIG_LEN, 64, m, sizeof(m)) == 1,
	    "Ed25519 half verifies with OpenSSL over M'");
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(ed);
	is_int(mldsa44_verify(pk, m, sizeof(m), (const uint8_t *)label, 30, sig,
	    MLDSA44_SIG_LEN), 0, "ML-DSA-44 half verifies over M' with the label as context");

	/* Either half broken: refused. */
	for (i = 0; i < 2; i++) {
		size_t at = i ? MLDSA44_SIG_LEN + 10 : 100;

		sig[at] ^= 0x40;
		wb_init(&b);
		wb_cstring(&b, NAME);
		wb_string(&b, sig, sizeof(sig));
		is_int(sig_verify(&k, wb_slice_of(&b), data, NULL), -1,
		    "%s half broken: refused", i ? "Ed25519" : "ML-DSA-44");
		wb_free(&b);
		sig[at] ^= 0x40;
	}
	wb_init(&b);
	wb_cstring(&b, NAME);
	wb_string(&b, sig, sizeof(sig) - 1);
	is_int(sig_verify(&k, wb_slice_of(&b), data, NULL), -1, "short signature refused");
	wb_free(&b);
	wb_init(&b);
	wb_cstring(&b, "ssh-ed25519");
	wb_string(&b, sig + MLDSA44_SIG_LEN, 64);
	is_int(sig_verify(&k, wb_slice_of(&b), data, NULL), -1,
	    "the Ed25519 half alone, as ssh-ed25519: refused");
	wb_free(&b);
	wb_free(&w);
}

int
main(void)
{
	memset(sk, 0x11, 32);
	memset(sk + 32, 0x22, 32);
	if (composite_public(sk, pk) != 0)
		abort();
	test_public();
	test_private();
	test_signature();
	return done_testing();
}
