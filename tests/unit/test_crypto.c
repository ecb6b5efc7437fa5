/*
 * test_crypto.c - libcrypto glue (crypto/pkey.c, crypto/sig.c): private
 * halves must match public halves (doc/protocol.md §4.4, §15.22), signatures made and
 * verified for every algorithm (doc/protocol.md §4.6), certificate CA signatures (doc/protocol.md §4.3),
 * fingerprints (doc/protocol.md §4.5). OpenSSH's own ssh-keygen is the outside witness:
 * what it signs we verify, what we sign it verifies.
 */
#include "crypto/crypto.h"
#include "keyholder/privkey.h"
#include "ipc/limits.h"
#include "keys/sksig.h"
#include "keys/sshkey.h"
#include "tests/unit/skvectors.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/wire.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ED, ED2, P256, P256B, P384, P521, KRSA, KRSA2, KRSA1024, SKED, SKED2, SKP256,
	NKEYS };
static struct testkey K[NKEYS];
static struct tb PUB[NKEYS];
static struct pubkey PK[NKEYS];

static void
make_keys(void)
{
	static const struct { enum key_kind kind; size_t bits; } spec[NKEYS] = {
		[ED] = { KEY_ED25519, 0 }, [ED2] = { KEY_ED25519, 0 },
		[P256] = { KEY_ECDSA_P256, 0 }, [P256B] = { KEY_ECDSA_P256, 0 },
		[P384] = { KEY_ECDSA_P384, 0 }, [P521] = { KEY_ECDSA_P521, 0 },
		[KRSA] = { KEY_RSA, 2048 }, [KRSA2] = { KEY_RSA, 2048 },
		[KRSA1024] = { KEY_RSA, 1024 },
		[SKED] = { KEY_SK_ED25519, 0 }, [SKED2] = { KEY_SK_ED25519, 0 },
		[SKP256] = { KEY_SK_ECDSA_P256, 0 },
	};

	for (int i = 0; i < NKEYS; i++) {
		testkey_gen(&K[i], spec[i].kind, spec[i].bits);
		tb_init(&PUB[i]);
		tk_pub(&PUB[i], &K[i]);
		if (key_parse_public(tb_slice(&PUB[i]), &PK[i], NULL) != 0)
			abort();
	}
}

/* ------------------------------------------------------ public halves */

static void
test_public(void)
{
	static const int keys[] = { ED, P256, P384, P521, KRSA, KRSA1024 };
	struct pubkey k;
	struct tb t;
	uint8_t q[133];
	EVP_PKEY *pk;
	const char *why = NULL;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		pk = pkey_public(&PK[keys[i]], NULL);
		ok(pk != NULL && EVP_PKEY_eq(pk, K[keys[i]].pkey) == 1,
		    "public key %s%s: the same key OpenSSL made", tk_name(K[keys[i]].kind),
		    keys[i] == KRSA1024 ? " (1024)" : "");
		EVP_PKEY_free(pk);
	}
	/* a point of the right form that is not on the curve */
	for (int c = P256; c <= P521; c++) {
		if (c == P256B)
			continue;
		memcpy(q, K[c].q.b, K[c].q.len);
		q[K[c].q.len - 1] ^= 0x01;
		tb_init(&t);
		tb_cstring(&t, tk_name(K[c].kind));
		tb_cstring(&t, tk_curve(K[c].kind));
		tb_string(&t, q, K[c].q.len);
		why = NULL;
		pk = NULL;
		if (key_parse_public(tb_slice(&t), &k, NULL) == 0)
			pk = pkey_public(&k, &why);
		ok(pk == NULL && why != NULL, "%s: point not on the curve refused (%s)",
		    tk_name(K[c].kind), why ? why : "-");
		EVP_PKEY_free(pk);
		tb_free(&t);
	}
	/* the all-zero X, Y is not a point of any of the curves */
	memset(q, 0, sizeof(q));
	q[0] = 0x04;
	tb_init(&t);
	tb_cstring(&t, "ecdsa-sha2-nistp256");
	tb_cstring(&t, "nistp256");
	tb_string(&t, q, 65);
	pk = NULL;
	if (key_parse_public(tb_slice(&t), &k, NULL) == 0)
		pk = pkey_public(&k, NULL);
	ok(pk == NULL, "ecdsa-sha2-nistp256: point (0, 0) refused");
	EVP_PKEY_free(pk);
	tb_free(&t);
}

/* ----------------------------------------------------- private halves */

enum pm {
	M_NONE, M_CERT, M_ED_OTHER_SEED, M_EC_OTHER_D, M_EC_D_ONE, M_EC_D_HALF,
	M_EC_D_ORDER, M_EC_D_ORDER_MINUS_1, M_RSA_OTHER_PQ, M_RSA_OTHER_D,
	M_RSA_OTHER_IQMP, M_RSA_SWAP_PQ, M_RSA_E3, M_CERT_OTHER_KEY,
	M_ED_OTHER_A, M_EC_D_ZERO, M_EC_D_ORDER_PLUS, M_EC_Q_OFF_CURVE, M_EC_OTHER_CURVE_D,
	M_RSA_SWAP_PQ_IQMP, M_RSA_D_ONE, M_RSA_D_N, M_RSA_E_OTHER, M_RSA_P_ONE,
	M_RSA_P_EQ_Q, M_RSA_IQMP_PLUS_P, M_RSA_OTHER_N,
};

static const struct {
	const char *name;
	int key, other;
	enum pm m;
	int good;               /* 1: a key comes out; 0: refused */
	const char *why;        /* the reason, or NULL for any */
} privrows[] = {
	{ "ssh-ed25519: valid", ED, 0, M_NONE, 1, NULL },
	{ "ecdsa-sha2-nistp256: valid", P256, 0, M_NONE, 1, NULL },
	{ "ecdsa-sha2-nistp384: valid", P384, 0, M_NONE, 1, NULL },
	{ "ecdsa-sha2-nistp521: valid", P521, 0, M_NONE, 1, NULL },
	{ "ssh-rsa 2048: valid", KRSA, 0, M_NONE, 1, NULL },
	{ "ssh-rsa 1024: valid", KRSA1024, 0, M_NONE, 1, NULL },
	{ "ssh-ed25519-cert: valid", ED, 0, M_CERT, 1, NULL },
	{ "ecdsa-sha2-nistp384-cert: valid", P384, 0, M_CERT, 1, NULL },
	{ "ssh-rsa-cert: valid", KRSA, 0, M_CERT, 1, NULL },
	{ "Ed25519 seed of another key (k = seed' || A): refused", ED, ED2, M_ED_OTHER_SEED, 0,
	  "Ed25519 private key does not match its public key" },
	{ "ECDSA d of another key for Q (d·G != Q): refused", P256, P256B, M_EC_OTHER_D, 0,
	  "ECDSA private key does not match its public key" },
	{ "ECDSA d = 1: refused", P256, 0, M_EC_D_ONE, 0, "ECDSA private scalar is too small" },
	{ "ECDSA d of half the order's bits (128 for P-256): refused", P256, 0, M_EC_D_HALF, 0,
	  "ECDSA private scalar is too small" },
	{ "ECDSA d of half the order's bits (192 for P-384): refused", P384, 0, M_EC_D_HALF, 0,
	  "ECDSA private scalar is too small" },
	{ "ECDSA d = order: refused", P256, 0, M_EC_D_ORDER, 0,
	  "ECDSA private scalar is not below the group order minus one" },
	{ "ECDSA d = order - 1 (Q = -G): refused as the reference does", P256, 0,
	  M_EC_D_ORDER_MINUS_1, 0, "ECDSA private scalar is not below the group order minus one" },
	{ "ECDSA P-521 d = order - 1 (Q = -G): refused", P521, 0, M_EC_D_ORDER_MINUS_1, 0,
	  "ECDSA private scalar is not below the group order minus one" },
	{ "RSA p, q of another key (p·q != n): refused", KRSA, KRSA2, M_RSA_OTHER_PQ, 0,
	  "RSA private key does not match its public key (n != p*q)" },
	{ "RSA d of another key: refused", KRSA, KRSA2, M_RSA_OTHER_D, 0,
	  "RSA private key is inconsistent (d, e, iqmp)" },
	{ "RSA iqmp of another key: refused", KRSA, KRSA2, M_RSA_OTHER_IQMP, 0,
	  "RSA private key is inconsistent (d, e, iqmp)" },
	{ "RSA p and q swapped (iqmp is no longer q^-1 mod p): refused", KRSA, 0, M_RSA_SWAP_PQ,
	  0, "RSA private key is inconsistent (d, e, iqmp)" },
	{ "RSA e = 3 with the d of e = 65537: refused", KRSA, 0, M_RSA_E3, 0,
	  "RSA private key is inconsistent (d, e, iqmp)" },
	/* The cheap consistency checks (crypto/pkey.c), one row per way the
	 * private half can fail to belong to the public half. */
	{ "ssh-rsa, p and q swapped with iqmp recomputed: valid", KRSA, 0, M_RSA_SWAP_PQ_IQMP, 1,
	  NULL },
	{ "Ed25519 public key of another key (A' in both places): refused", ED, ED2,
	  M_ED_OTHER_A, 0, "Ed25519 private key does not match its public key" },
	{ "ECDSA d = 0: refused by the parser", P256, 0, M_EC_D_ZERO, 0,
	  "bad ECDSA private scalar" },
	{ "ECDSA d = order + d (d·G = Q, but out of range): refused", P256, 0, M_EC_D_ORDER_PLUS,
	  0, "ECDSA private scalar is not below the group order minus one" },
	{ "ECDSA P-521 d = order + d: refused", P521, 0, M_EC_D_ORDER_PLUS, 0,
	  "ECDSA private scalar is not below the group order minus one" },
	{ "ECDSA Q off the curve with a good d: refused", P384, 0, M_EC_Q_OFF_CURVE, 0,
	  "ECDSA point is not a valid point of its curve" },
	{ "ECDSA P-384 Q with the d of a P-256 key: refused", P384, P256, M_EC_OTHER_CURVE_D, 0,
	  "ECDSA private key does not match its public key" },
	{ "ECDSA P-521 d of another curve's key: refused", P521, P384, M_EC_OTHER_CURVE_D, 0,
	  "ECDSA private key does not match its public key" },
	{ "RSA n, e of another key with this p, q, d: refused", KRSA, KRSA2, M_RSA_OTHER_N, 0,
	  "RSA private key does not match its public key (n != p*q)" },
	{ "RSA d = 1: refused", KRSA, 0, M_RSA_D_ONE, 0, "RSA private exponent is out of range" },
	{ "RSA d = n: refused", KRSA, 0, M_RSA_D_N, 0, "RSA private exponent is out of range" },
	{ "RSA e = 65539 with the d of e = 65537: refused", KRSA, 0, M_RSA_E_OTHER, 0,
	  "RSA private key is inconsistent (d, e, iqmp)" },
	{ "RSA 1024 e = 3 with the d of e = 65537: refused", KRSA1024, 0, M_RSA_E3, 0,
	  "RSA private key is inconsistent (d, e, iqmp)" },
	{ "RSA p = 1, q = n: refused", KRSA, 0, M_RSA_P_ONE, 0,
	  "RSA private key has impossible factors" },
	{ "RSA p = q (n = p^2 written as n): refused", KRSA, 0, M_RSA_P_EQ_Q, 0,
	  "RSA private key has impossible factors" },
	{ "RSA iqmp + p (congruent, not reduced): refused", KRSA, 0, M_RSA_IQMP_PLUS_P, 0,
	  "RSA private key is inconsistent (d, e, iqmp)" },
	{ "ECDSA certificate with the d of another key: refused", P256, P256B,
	  M_CERT_OTHER_KEY, 0, "ECDSA private key does not match its public key" },
	{ "RSA certificate with the private half of another key: refused", KRSA, KRSA2,
	  M_CERT_OTHER_KEY, 0, "RSA private key does not match its public key (n != p*q)" },
};

/* d = order - 1 and Q = d·G = -G, both written for the row's curve. */
static void
order_minus_one(enum key_kind kind, int minus, struct comp *d, struct comp *q)
{
	int nid = kind == KEY_ECDSA_P256 ? NID_X9_62_prime256v1 :
	    kind == KEY_ECDSA_P384 ? NID_secp384r1 : NID_secp521r1;
	EC_GROUP *g = EC_GROUP_new_by_curve_name(nid);
	BIGNUM *n = BN_dup(EC_GROUP_get0_order(g));
	EC_POINT *p = EC_POINT_new(g);

	if (minus)
		BN_sub_word(n, 1);
	d->len = (size_t)BN_bn2bin(n, d->b);
	if (minus) {
		EC_POINT_mul(g, p, n, NULL, NULL, NULL);
		q->len = EC_POINT_point2oct(g, p, POINT_CONVERSION_UNCOMPRESSED, q->b,
		    sizeof(q->b), NULL);
	}
	EC_POINT_free(p);
	BN_free(n);
	EC_GROUP_free(g);
}

/* c = a + b ('+'), a·b ('*') or b^-1 mod a ('i'), on components. */
static void
comp_op(struct comp *c, const struct comp *a, const struct comp *b, int op)
{
	BIGNUM *x = BN_bin2bn(a->b, (int)a->len, NULL);
	BIGNUM *y = BN_bin2bn(b->b, (int)b->len, NULL);
	BIGNUM *z = BN_new();
	BN_CTX *ctx = BN_CTX_new();

	if (x == NULL || y == NULL || z == NULL || ctx == NULL ||
	    (op == '+' ? !BN_add(z, x, y) : op == '*' ? !BN_mul(z, x, y, ctx) :
	    BN_mod_inverse(z, y, x, ctx) == NULL) ||
	    (size_t)BN_num_bytes(z) > sizeof(c->b))
		abort();
	c->len = (size_t)BN_bn2bin(z, c->b);
	BN_clear_free(x);
	BN_clear_free(y);
	BN_clear_free(z);
	BN_CTX_free(ctx);
}

static void
build_priv(struct tb *t, int row)
{
	struct testkey k = K[privrows[row].key];
	const struct testkey *o = &K[privrows[row].other];
	struct certspec cs = { .key = &K[privrows[row].key], .ca = &K[ED2], .nprincipals = 1 };
	struct comp tmp;
	struct tb c;

	k.pkey = NULL;                  /* a copy to change, never to free */
	switch (privrows[row].m) {
	case M_NONE:
		break;
	case M_CERT:
		tk_priv_cert(t, &cs);
		return;
	case M_ED_OTHER_SEED:
		k.seed = o->seed;
		break;
	case M_EC_OTHER_D:
		k.d = o->d;
		break;
	case M_EC_D_ONE:
		k.d.b[0] = 1;
		k.d.len = 1;
		break;
	case M_EC_D_HALF:
		k.d.len = (k.kind == KEY_ECDSA_P256 ? 128 : 192) / 8;
		memset(k.d.b, 0xff, k.d.len);
		break;
	case M_EC_D_ORDER:
		order_minus_one(k.kind, 0, &k.d, &k.q);
		break;
	case M_EC_D_ORDER_MINUS_1:
		order_minus_one(k.kind, 1, &k.d, &k.q);
		break;
	case M_RSA_OTHER_PQ:
		k.p = o->p;
		k.pq = o->pq;
		k.iqmp = o->iqmp;
		break;
	case M_RSA_OTHER_D:
		k.rd = o->rd;
		break;
	case M_RSA_OTHER_IQMP:
		k.iqmp = o->iqmp;
		break;
	case M_RSA_SWAP_PQ:
		tmp = k.p;
		k.p = k.pq;
		k.pq = tmp;
		break;
	case M_RSA_E3:
		k.e.b[0] = 3;
		k.e.len = 1;
		break;
	case M_ED_OTHER_A:
		k.a = o->a;
		break;
	case M_EC_D_ZERO:
		k.d.b[0] = 0;
		k.d.len = 1;
		break;
	case M_EC_D_ORDER_PLUS:
		order_minus_one(k.kind, 0, &tmp, NULL);
		comp_op(&k.d, &tmp, &K[privrows[row].key].d, '+');
		break;
	case M_EC_Q_OFF_CURVE:
		k.q.b[k.q.len - 1] ^= 0x01;
		break;
	case M_EC_OTHER_CURVE_D:
		k.d = o->d;
		break;
	case M_RSA_SWAP_PQ_IQMP:
		tmp = k.p;
		k.p = k.pq;
		k.pq = tmp;
		comp_op(&k.iqmp, &k.p, &k.pq, 'i');
		break;
	case M_RSA_D_ONE:
		k.rd.b[0] = 1;
		k.rd.len = 1;
		break;
	case M_RSA_D_N:
		k.rd = k.n;
		break;
	case M_RSA_E_OTHER:
		comp_set(&k.e, "\x01\x00\x03", 3);
		break;
	case M_RSA_P_ONE:
		k.p.b[0] = 1;
		k.p.len = 1;
		k.pq = k.n;
		k.iqmp.b[0] = 1;
		k.iqmp.len = 1;
		break;
	case M_RSA_P_EQ_Q:
		k.pq = k.p;
		tmp = k.n;
		comp_op(&k.n, &k.p, &k.p, '*');
		break;
	case M_RSA_IQMP_PLUS_P:
		comp_op(&k.iqmp, &K[privrows[row].key].iqmp, &k.p, '+');
		break;
	case M_RSA_OTHER_N:
		k.n = o->n;
		break;
	case M_CERT_OTHER_KEY:
		tb_init(&c);
		tk_cert(&c, &cs);
		tb_cstring(t, tk_cert_name(k.kind));
		tb_string_of(t, &c);
		tk_priv_cert_fields(t, o);
		tb_free(&c);
		return;
	}
	tk_priv(t, &k);
	OPENSSL_cleanse(&k, sizeof(k));
	OPENSSL_cleanse(&tmp, sizeof(tmp));
}

static void
test_private(void)
{
	for (size_t i = 0; i < sizeof(privrows) / sizeof(privrows[0]); i++) {
		struct tb t;
		struct rd r;
		struct privkey pk;
		EVP_PKEY *p = NULL;
		const char *why = NULL;
		int parsed, good;

		tb_init(&t);
		build_priv(&t, (int)i);
		rd_init(&r, t.w.p, t.w.len);
		/* most rows are structurally fine and only the arithmetic is
		 * wrong; a row the parser already refuses says so in its why */
		parsed = key_parse_private(&r, &pk, &why) == 0 && r.len == 0;
		if (parsed)
			p = pkey_private(&pk, &why);
		if (privrows[i].good)
			good = parsed && p != NULL && (pk.pub.is_cert ||
			    privrows[i].m != M_NONE ||
			    EVP_PKEY_eq(p, K[privrows[i].key].pkey) == 1);
		else
			good = p == NULL && why != NULL &&
			    (privrows[i].why == NULL || strcmp(why, privrows[i].why) == 0);
		if (good && privrows[i].good && !pk.pub.is_cert) {
			/* what was accepted also signs for its public key */
			struct wb s;
			enum sig_alg alg = sig_alg_for(pk.pub.kind, SSH_AGENT_RSA_SHA2_256);

			wb_init(&s);
			good = sig_make(p, alg, sl((const uint8_t *)"medea", 5), &s) == 0 &&
			    sig_verify(&PK[privrows[i].key], wb_slice_of(&s),
			    sl((const uint8_t *)"medea", 5), NULL) == 0;
			wb_free(&s);
		}
		ok(good, "private key: %s", privrows[i].name);
		if (!good)
			printf("#   parsed %d, key %s, why \"%s\"\n", parsed, p ? "made" : "none",
			    why ? why : "-");
		EVP_PKEY_free(p);
		wb_free_secret(&t.w);
	}
}

/* --------------------------------------------------------- signatures */

struct vctx {
	const struct pubkey *k;
	struct slice data;
};

static int
decode_sig(const uint8_t *p, size_t n, void *arg)
{
	const struct vctx *v = arg;

	return sig_verify(v->k, sl(p, n), v->data, NULL);
}

/* Re-encode a signature blob into t, so that its string lengths are
 * known (ECDSA: string name; string{ mpint r; mpint s }). */
static int
sig_tb(struct tb *t, struct slice blob)
{
	struct rd r, in;
	struct slice name, sig, rr, ss;

	rd_init(&r, blob.p, blob.len);
	if (rd_string(&r, &name) || rd_string(&r, &sig) || rd_done(&r))
		return -1;
	tb_string(t, name.p, name.len);
	if (name.len > 5 && memcmp(name.p, "ecdsa", 5) == 0) {
		rd_init(&in, sig.p, sig.len);
		if (rd_mpint(&in, &rr) || rd_mpint(&in, &ss) || rd_done(&in))
			return -1;
		tb_begin(t);
		tb_mpint(t, rr.p, rr.len);
		tb_mpint(t, ss.p, ss.len);
		tb_end(t);
	} else {
		tb_string(t, sig.p, sig.len);
	}
	return bytes_eq(tb_slice(t), blob.p, blob.len) ? 0 : -1;
}

static const struct {
	const char *name;
	int key, other;
	enum sig_alg alg;
	size_t rawlen;          /* length of the inner signature, 0: any */
} sigrows[] = {
	{ "ssh-ed25519", ED, ED2, SIG_ED25519, 64 },
	{ "ecdsa-sha2-nistp256 (SHA-256)", P256, P256B, SIG_ECDSA_P256, 0 },
	{ "ecdsa-sha2-nistp384 (SHA-384)", P384, P256, SIG_ECDSA_P384, 0 },
	{ "ecdsa-sha2-nistp521 (SHA-512)", P521, P256, SIG_ECDSA_P521, 0 },
	{ "ssh-rsa (SHA-1)", KRSA, KRSA2, SIG_RSA_SHA1, 256 },
	{ "rsa-sha2-256", KRSA, KRSA2, SIG_RSA_SHA256, 256 },
	{ "rsa-sha2-512", KRSA, KRSA2, SIG_RSA_SHA512, 256 },
	{ "rsa-sha2-512, 1024-bit key", KRSA1024, KRSA, SIG_RSA_SHA512, 128 },
};

static void
test_signatures(void)
{
	static const uint8_t data[] = "session id || userauth request";
	struct slice d = sl(data, sizeof(data) - 1);

	for (size_t i = 0; i < sizeof(sigrows) / sizeof(sigrows[0]); i++) {
		const struct pubkey *k = &PK[sigrows[i].key];
		struct wb sig;
		struct rd r;
		struct slice name, inner;
		struct tb t;
		struct vctx v = { k, d };
		enum sig_alg got = SIG_NONE;
		uint8_t *flip;
		const char *nm = sigrows[i].name;

		wb_init(&sig);
		ok(sig_make(K[sigrows[i].key].pkey, sigrows[i].alg, d, &sig) == 0,
		    "%s: signed", nm);
		rd_init(&r, sig.p, sig.len);
		ok(rd_string(&r, &name) == 0 && slice_eq_str(name, sig_alg_name(sigrows[i].alg)) &&
		    rd_string(&r, &inner) == 0 && rd_done(&r) == 0 &&
		    (sigrows[i].rawlen == 0 || inner.len == sigrows[i].rawlen),
		    "%s: blob is string \"%s\"; string signature%s", nm,
		    sig_alg_name(sigrows[i].alg),
		    sigrows[i].rawlen ? " of the exact length" : "{ mpint r; mpint s }");
		ok(sig_verify(k, wb_slice_of(&sig), d, &got) == 0 && got == sigrows[i].alg,
		    "%s: verifies, algorithm reported", nm);
		flip = malloc(sig.len);
		memcpy(flip, sig.p, sig.len);
		flip[sig.len - 1] ^= 0x01;
		ok(sig_verify(k, sl(flip, sig.len), d, NULL) != 0,
		    "%s: one bit flipped in the signature: fails", nm);
		memcpy(flip, data, d.len);
		flip[0] ^= 0x80;
		ok(sig_verify(k, wb_slice_of(&sig), sl(flip, d.len), NULL) != 0,
		    "%s: one bit flipped in the data: fails", nm);
		free(flip);
		ok(sig_verify(&PK[sigrows[i].other], wb_slice_of(&sig), d, NULL) != 0,
		    "%s: another key does not verify it", nm);
		tb_init(&t);
		if (sig_tb(&t, wb_slice_of(&sig)) != 0)
			ok(0, "%s: signature blob re-encoded", nm);
		else
			wire_check(nm, &t, decode_sig, &v, WIRE_ALL);
		tb_free(&t);
		wb_free(&sig);
	}
}

/* Hand-made variations of valid signatures. */
static void
test_signature_rules(void)
{
	static const uint8_t data[] = "perseus";
	struct slice d = sl(data, 7);
	struct wb s;
	struct tb t;
	struct rd r, in;
	struct slice name, inner, rr, ss;
	uint8_t buf[600];
	char msg[32];
	int found = 0;

	/* RSA: the name must be the algorithm that signed */
	wb_init(&s);
	sig_make(K[KRSA].pkey, SIG_RSA_SHA256, d, &s);
	rd_init(&r, s.p, s.len);
	rd_string(&r, &name);
	rd_string(&r, &inner);
	static const char *const relabel[] = { "rsa-sha2-512", "ssh-rsa",
		"rsa-sha2-256-cert-v01@openssh.com", "ssh-ed25519" };
	for (size_t i = 0; i < sizeof(relabel) / sizeof(relabel[0]); i++) {
		tb_init(&t);
		tb_cstring(&t, relabel[i]);
		tb_string(&t, inner.p, inner.len);
		ok(sig_verify(&PK[KRSA], tb_slice(&t), d, NULL) != 0,
		    "rsa-sha2-256 signature named \"%s\": fails", relabel[i]);
		tb_free(&t);
	}
	/* longer than the modulus: refused, even with a leading zero */
	tb_init(&t);
	tb_cstring(&t, "rsa-sha2-256");
	buf[0] = 0;
	memcpy(buf + 1, inner.p, inner.len);
	tb_string(&t, buf, inner.len + 1);
	ok(sig_verify(&PK[KRSA], tb_slice(&t), d, NULL) != 0,
	    "RSA signature longer than the modulus (extra 0x00): fails");
	tb_free(&t);
	wb_free(&s);

	/* RSA: s is left-padded to the modulus length; a shorter one is
	 * accepted as the reference does. Find a signature starting 0x00. */
	for (int i = 0; i < 20000 && !found; i++) {
		snprintf(msg, sizeof(msg), "try %d", i);
		wb_init(&s);
		sig_make(K[KRSA1024].pkey, SIG_RSA_SHA512, sl_str(msg), &s);
		rd_init(&r, s.p, s.len);
		rd_string(&r, &name);
		rd_string(&r, &inner);
		if (inner.len == 128 && inner.p[0] == 0) {
			found = 1;
			tb_init(&t);
			tb_cstring(&t, "rsa-sha2-512");
			tb_string(&t, inner.p + 1, inner.len - 1);
			ok(sig_verify(&PK[KRSA1024], wb_slice_of(&s), sl_str(msg), NULL) == 0 &&
			    sig_verify(&PK[KRSA1024], tb_slice(&t), sl_str(msg), NULL) == 0,
			    "RSA signature with a leading zero: written padded to the modulus, "
			    "verifies padded and unpadded");
			tb_free(&t);
		}
		wb_free(&s);
	}
	if (!found)
		ok(0, "no RSA signature with a leading zero found");

	/* Ed25519: exactly 64 bytes */
	wb_init(&s);
	sig_make(K[ED].pkey, SIG_ED25519, d, &s);
	rd_init(&r, s.p, s.len);
	rd_string(&r, &name);
	rd_string(&r, &inner);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, inner.p, 64);
	for (size_t n = 63; n <= 65; n += 2) {
		tb_init(&t);
		tb_cstring(&t, "ssh-ed25519");
		tb_string(&t, buf, n);
		ok(sig_verify(&PK[ED], tb_slice(&t), d, NULL) != 0,
		    "Ed25519 signature of %zu bytes: fails", n);
		tb_free(&t);
	}
	ok(sig_verify(&PK[P256], wb_slice_of(&s), d, NULL) != 0,
	    "Ed25519 signature against an ECDSA key: fails");
	wb_free(&s);

	/* ECDSA: mpint rules inside the signature */
	wb_init(&s);
	sig_make(K[P256].pkey, SIG_ECDSA_P256, d, &s);
	rd_init(&r, s.p, s.len);
	rd_string(&r, &name);
	rd_string(&r, &inner);
	rd_init(&in, inner.p, inner.len);
	rd_mpint(&in, &rr);
	rd_mpint(&in, &ss);
	for (int v = 0; v < 3; v++) {
		static const char *const what[] = {
			"r with redundant leading zeros: verifies",
			"bytes after s: fails",
			"r written negative (no 0x00 before a high bit): fails",
		};
		tb_init(&t);
		tb_cstring(&t, "ecdsa-sha2-nistp256");
		tb_begin(&t);
		if (v == 0) {
			buf[0] = buf[1] = buf[2] = 0;
			memcpy(buf + 3, rr.p, rr.len);
			tb_string(&t, buf, rr.len + 3);
		} else if (v == 2) {
			buf[0] = 0x80 | rr.p[0];
			memcpy(buf + 1, rr.p + 1, rr.len - 1);
			tb_string(&t, buf, rr.len);
		} else {
			tb_mpint(&t, rr.p, rr.len);
		}
		tb_mpint(&t, ss.p, ss.len);
		if (v == 1)
			tb_u8(&t, 0);
		tb_end(&t);
		ok((sig_verify(&PK[P256], tb_slice(&t), d, NULL) == 0) == (v == 0),
		    "ECDSA signature, %s", what[v]);
		tb_free(&t);
	}
	ok(sig_verify(&PK[P384], wb_slice_of(&s), d, NULL) != 0,
	    "ecdsa-sha2-nistp256 signature against a P-384 key: fails");
	wb_free(&s);

	/* the empty message signs and verifies */
	wb_init(&s);
	ok(sig_make(K[P521].pkey, SIG_ECDSA_P521, sl("", 0), &s) == 0 &&
	    sig_verify(&PK[P521], wb_slice_of(&s), sl("", 0), NULL) == 0,
	    "empty data: signed and verified");
	wb_free(&s);
}

/* A certificate identity signs with its certified key and a plain name. */
static void
test_cert_identity(void)
{
	static const int keys[] = { ED, P384, KRSA };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct certspec cs = { .key = &K[keys[i]], .ca = &K[ED2], .nprincipals = 1 };
		struct tb t;
		struct rd r;
		struct privkey pk;
		struct wb s;
		struct slice name;
		EVP_PKEY *p = NULL;
		enum sig_alg alg = sig_alg_for(K[keys[i]].kind, SSH_AGENT_RSA_SHA2_512);
		int good;

		tb_init(&t);
		tk_priv_cert(&t, &cs);
		rd_init(&r, t.w.p, t.w.len);
		wb_init(&s);
		good = key_parse_private(&r, &pk, NULL) == 0 &&
		    (p = pkey_private(&pk, NULL)) != NULL &&
		    sig_make(p, alg, sl("x", 1), &s) == 0;
		rd_init(&r, s.p, s.len);
		good = good && rd_string(&r, &name) == 0 &&
		    slice_eq_str(name, sig_alg_name(alg)) &&
		    sig_verify(&pk.pub, wb_slice_of(&s), sl("x", 1), NULL) == 0;
		ok(good, "certificate identity %s: signs with plain name \"%s\", the "
		    "certificate verifies it", tk_cert_name(K[keys[i]].kind), sig_alg_name(alg));
		EVP_PKEY_free(p);
		wb_free(&s);
		wb_free_secret(&t.w);
	}
}

/* ------------------------------------------------------- certificates */

static const struct {
	const char *name;
	int key, ca;
	enum sig_alg alg;
	int corrupt, other_sigkey, alter;
	int rc;
} certrows[] = {
	{ "Ed25519 key, Ed25519 CA", ED, ED2, SIG_NONE, 0, 0, 0, 0 },
	{ "ECDSA P-256 key, RSA CA, rsa-sha2-512", P256, KRSA, SIG_RSA_SHA512, 0, 0, 0, 0 },
	{ "ECDSA P-256 key, RSA CA, rsa-sha2-256", P256, KRSA, SIG_RSA_SHA256, 0, 0, 0, 0 },
	{ "ECDSA P-256 key, RSA CA, ssh-rsa (SHA-1): verifies at decode", P256, KRSA,
	  SIG_RSA_SHA1, 0, 0, 0, 0 },
	{ "RSA key, ECDSA P-384 CA", KRSA, P384, SIG_NONE, 0, 0, 0, 0 },
	{ "Ed25519 key, ECDSA P-521 CA", ED, P521, SIG_NONE, 0, 0, 0, 0 },
	{ "ECDSA P-521 key, ECDSA P-256 CA", P521, P256, SIG_NONE, 0, 0, 0, 0 },
	{ "CA signature with one bit flipped: fails", ED, ED2, SIG_NONE, 1, 0, 0, -1 },
	{ "signed by another CA than the signature key: fails", ED, ED2, SIG_NONE, 0, 1, 0, -1 },
	{ "a signed byte changed after signing: fails", P256, ED2, SIG_NONE, 0, 0, 1, -1 },
	{ "P-256 CA signature labelled nistp384: fails", ED, P256, SIG_ECDSA_P384, 0, 0, 0, -1 },
};

static void
test_certs(void)
{
	for (size_t i = 0; i < sizeof(certrows) / sizeof(certrows[0]); i++) {
		struct certspec cs = { .key = &K[certrows[i].key], .ca = &K[certrows[i].ca],
		    .ca_alg = certrows[i].alg, .nprincipals = 2, .serial = 99,
		    .corrupt_signature = certrows[i].corrupt };
		struct tb t;
		struct pubkey k;
		int rc = -2;

		if (certrows[i].other_sigkey) {
			cs.sigkey = PUB[ED].w.p;        /* signed by ED2, names ED */
			cs.sigkeylen = PUB[ED].w.len;
		}
		tb_init(&t);
		tk_cert(&t, &cs);
		if (certrows[i].alter)          /* the last byte of the nonce */
			t.w.p[4 + strlen(tk_cert_name(K[certrows[i].key].kind)) + 4 + 31] ^= 0x01;
		if (key_parse_public(tb_slice(&t), &k, NULL) == 0)
			rc = cert_verify(&k) == 0 ? 0 : -1;
		ok(rc == certrows[i].rc, "certificate: %s", certrows[i].name);
		if (rc != certrows[i].rc)
			printf("#   got %d\n", rc);
		tb_free(&t);
	}
	ok(cert_verify(&PK[ED]) != 0, "cert_verify of a plain key: fails");
}

/* ------------------------------------------------------- fingerprints */

static const struct {
	const char *hash, *want;
} fps[] = {
	/* ssh-keygen -l -E HASH of ssh-ed25519 with A = 00 01 .. 1f */
	{ "sha256", "SHA256:ZkAslGjFiUHdGf/WUL8rQvkib4PTvQatUV0OUQSncCA" },
	{ "md5", "MD5:0f:a2:0a:d7:38:3e:65:45:08:6b:63:84:1c:ff:dc:ba" },
	{ "sha1", "SHA1:Vovoeg+7YjqReTrdzlKf9MJUq9M" },
	{ "sha384", "SHA384:6rHOelGddqwFiilTZbfax88LKfiU2v9vxs3gffXeBYgFajyhzsZNmFKClw4E6HuN" },
	{ "sha512", "SHA512:YWORBwu0O3dVo5oD4BEs0Bm8St48ZqImtWNTc2+wogjEI9+lX8fRx3PV+LCeOcvgx3FA"
	  "5IULipy07eQHhpZ+Xg" },
	{ "blake2", NULL },
	{ "", NULL },
};

static void
test_fingerprints(void)
{
	uint8_t a[32];
	struct tb t;
	char out[128];

	for (int i = 0; i < 32; i++)
		a[i] = (uint8_t)i;
	tb_init(&t);
	tb_cstring(&t, "ssh-ed25519");
	tb_string(&t, a, 32);
	for (size_t i = 0; i < sizeof(fps) / sizeof(fps[0]); i++) {
		int rc = fingerprint(tb_slice(&t), fps[i].hash, out, sizeof(out));
		if (fps[i].want != NULL)
			ok(rc == 0 && strcmp(out, fps[i].want) == 0, "fingerprint -E %s: %s",
			    fps[i].hash, fps[i].want);
		else
			ok(rc != 0, "fingerprint -E \"%s\": unknown hash refused", fps[i].hash);
	}
	/* FP_TEXT_MAX holds the longest: every hash fits, NUL and all */
	for (size_t h = 0; h < 5; h++) {
		char o[FP_TEXT_MAX];
		ok(fingerprint(tb_slice(&t), fps[h].hash, o, sizeof(o)) == 0 &&
		    strcmp(o, fps[h].want) == 0, "fingerprint -E %s fits FP_TEXT_MAX",
		    fps[h].hash);
	}
	/* an output buffer too small is never overrun (malloc'd to size) */
	for (size_t h = 0; h < 5; h++) {
		int good = 1;
		for (size_t n = 1; n < 100; n++) {
			char *o = malloc(n);
			int rc = fingerprint(tb_slice(&t), fps[h].hash, o, n);
			good = good && (rc != 0 || memchr(o, '\0', n) != NULL);
			free(o);
		}
		ok(good, "fingerprint -E %s into buffers of 1..99 bytes: within bounds",
		    fps[h].hash);
	}
	tb_free(&t);
}

/* ---------------------------------------------------- FIDO (sk-) keys */

/* What a token's middleware answers for one signature (sk_sign: sig_r,
 * sig_s as the API gives them), made with the stand-in key: Ed25519 the
 * 64-byte signature in sig_r; ECDSA r and s, 32 bytes each. Then the
 * agent's encoder (sk_sig_encode) makes the blob. */
static void
token_sign(const struct testkey *k, struct slice app, struct slice data,
    uint8_t flags, uint32_t counter, struct wb *blob)
{
	uint8_t msg[SK_MESSAGE_LEN], sig[128], r[32], s[32];
	const unsigned char *der = sig;
	size_t len = sizeof(sig);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	ECDSA_SIG *es;
	const BIGNUM *br, *bs;
	int rc;

	/* SHA-256(application) || flags || counter || SHA-256(data) */
	SHA256(app.p, app.len, msg);
	msg[32] = flags;
	msg[33] = (uint8_t)(counter >> 24);
	msg[34] = (uint8_t)(counter >> 16);
	msg[35] = (uint8_t)(counter >> 8);
	msg[36] = (uint8_t)counter;
	SHA256(data.p, data.len, msg + 37);
	if (ctx == NULL || EVP_DigestSignInit(ctx, NULL, k->kind == KEY_SK_ED25519 ?
	    NULL : EVP_sha256(), NULL, k->pkey) != 1 ||
	    EVP_DigestSign(ctx, sig, &len, msg, sizeof(msg)) != 1)
		abort();
	EVP_MD_CTX_free(ctx);
	if (k->kind == KEY_SK_ED25519) {
		rc = sk_sig_encode(blob, SK_ALG_ED25519, sl(sig, len), sl(NULL, 0),
		    flags, counter);
	} else {
		if ((es = d2i_ECDSA_SIG(NULL, &der, (long)len)) == NULL)
			abort();
		ECDSA_SIG_get0(es, &br, &bs);
		if (BN_bn2binpad(br, r, 32) != 32 || BN_bn2binpad(bs, s, 32) != 32)
			abort();
		ECDSA_SIG_free(es);
		rc = sk_sig_encode(blob, SK_ALG_ECDSA_P256, sl(r, 32), sl(s, 32),
		    flags, counter);
	}
	if (rc != 0)
		abort();
}

enum skv { SV_OK, SV_DATA, SV_APP, SV_KEY, SV_FLAGS, SV_COUNTER, SV_SIGBIT,
	SV_PLAIN_KEY, SV_PLAIN_NAME, SV_TRAILING, SV_CUT };

static const struct {
	const char *name;
	int key;
	enum skv m;
	int rc;
} skrows[] = {
	{ "sk-ssh-ed25519: token signature verifies", SKED, SV_OK, 0 },
	{ "sk-ecdsa: token signature verifies", SKP256, SV_OK, 0 },
	{ "sk-ssh-ed25519: other data fails", SKED, SV_DATA, -1 },
	{ "sk-ecdsa: other data fails", SKP256, SV_DATA, -1 },
	{ "sk-ssh-ed25519: signed for another application fails", SKED, SV_APP, -1 },
	{ "sk-ecdsa: signed for another application fails", SKP256, SV_APP, -1 },
	{ "sk-ssh-ed25519: another key's signature fails", SKED2, SV_KEY, -1 },
	{ "sk-ssh-ed25519: flags byte changed after signing fails", SKED, SV_FLAGS, -1 },
	{ "sk-ecdsa: flags byte changed after signing fails", SKP256, SV_FLAGS, -1 },
	{ "sk-ssh-ed25519: counter changed after signing fails", SKED, SV_COUNTER, -1 },
	{ "sk-ecdsa: counter changed after signing fails", SKP256, SV_COUNTER, -1 },
	{ "sk-ssh-ed25519: a bit of the signature flipped fails", SKED, SV_SIGBIT, -1 },
	{ "sk-ecdsa: a bit of s flipped fails", SKP256, SV_SIGBIT, -1 },
	{ "an ssh-ed25519 key does not take an sk signature", SKED, SV_PLAIN_KEY, -1 },
	{ "an sk-ssh-ed25519 key does not take a plain ssh-ed25519 blob", SKED,
	  SV_PLAIN_NAME, -1 },
	{ "sk-ecdsa: a byte after the counter fails", SKP256, SV_TRAILING, -1 },
	{ "sk-ssh-ed25519: the counter cut short fails", SKED, SV_CUT, -1 },
};

/* sk_sig_verify over the message a token signs (doc/protocol.md §4.6), and everything
 * that must make it fail; sig_verify takes the same blobs for sk keys. */
static void
test_sk_verify(void)
{
	static const uint8_t data[] = "userauth request of perseus";
	struct slice d = { data, sizeof(data) - 1 };

	for (size_t i = 0; i < sizeof(skrows) / sizeof(skrows[0]); i++) {
		const struct testkey *k = &K[skrows[i].key];
		struct pubkey verifier = PK[skrows[i].m == SV_KEY ? SKED : skrows[i].key];
		struct slice app = { k->app.b, k->app.len }, vd = d;
		struct wb blob;
		uint8_t flags = 0, wantflags = 0x05;
		uint32_t counter = 0;
		int rc, rc2;

		wb_init(&blob);
		if (skrows[i].m == SV_APP)
			app = sl_str("ssh:other");
		if (skrows[i].m == SV_PLAIN_NAME) {
			if (sig_make(K[ED].pkey, SIG_ED25519, d, &blob) != 0)
				abort();
			/* the FIDO tail after a plain Ed25519 signature */
			wb_u8(&blob, wantflags);
			wb_u32(&blob, 1);
		} else {
			token_sign(k, app, d, wantflags, 0x01020304, &blob);
		}
		switch (skrows[i].m) {
		case SV_DATA:
			vd = sl_str("userauth request of medea");
			break;
		case SV_FLAGS:
			blob.p[blob.len - 5] ^= 0x04;
			break;
		case SV_COUNTER:
			blob.p[blob.len - 1] ^= 0x01;
			break;
		case SV_SIGBIT:
			blob.p[blob.len - 6] ^= 0x01;
			break;
		case SV_PLAIN_KEY:
			verifier = PK[ED];
			break;
		case SV_TRAILING:
			wb_u8(&blob, 0);
			break;
		case SV_CUT:
			blob.len--;
			break;
		default:
			break;
		}
		rc = sk_sig_verify(&verifier, vd, wb_slice_of(&blob), &flags, &counter);
		rc2 = sig_verify(&verifier, wb_slice_of(&blob), vd, NULL);
		ok(rc == skrows[i].rc && rc2 == skrows[i].rc &&
		    (rc != 0 || (flags == wantflags && counter == 0x01020304)),
		    "sk_sig_verify and sig_verify: %s%s", skrows[i].name,
		    skrows[i].rc == 0 ? " (flags 0x05, counter 0x01020304 read back)" : "");
		wb_free(&blob);
	}
}

/* A FIDO key in the rest of the crypto layer: its public point checked,
 * no private key built, no signature made here; its certificate (plain
 * signature name) and a FIDO CA's certificates verify. */
static void
test_sk_keys(void)
{
	const char *why = NULL;
	EVP_PKEY *pk;
	struct privkey k;
	struct pubkey bad;
	struct rd r;
	struct tb t;
	struct wb s;
	uint8_t q[65];

	pk = pkey_public(&PK[SKP256], &why);
	ok(pk != NULL, "pkey_public of sk-ecdsa: a P-256 public key");
	EVP_PKEY_free(pk);
	pk = pkey_public(&PK[SKED], &why);
	ok(pk != NULL && EVP_PKEY_get_id(pk) == EVP_PKEY_ED25519,
	    "pkey_public of sk-ssh-ed25519: an Ed25519 public key");
	EVP_PKEY_free(pk);
	memcpy(q, K[SKP256].q.b, 65);
	q[64] ^= 0x01;                  /* no longer on the curve */
	tb_init(&t);
	tb_cstring(&t, "sk-ecdsa-sha2-nistp256@openssh.com");
	tb_cstring(&t, "nistp256");
	tb_string(&t, q, 65);
	tb_cstring(&t, "ssh:");
	ok(key_parse_public(tb_slice(&t), &bad, NULL) == 0 &&
	    pkey_public(&bad, &why) == NULL,
	    "pkey_public of sk-ecdsa with a point off the curve: refused");
	tb_free(&t);

	tb_init(&t);
	tk_priv(&t, &K[SKED]);
	rd_init(&r, t.w.p, t.w.len);
	why = NULL;
	ok(key_parse_private(&r, &k, NULL) == 0 && pkey_private(&k, &why) == NULL &&
	    why != NULL && strcmp(why, "a FIDO key has no private key to build") == 0 &&
	    pkey_private_trusted(&k) == NULL,
	    "pkey_private of an sk key: refused (the private key is in the token)");
	wb_free_secret(&t.w);
	wb_init(&s);
	ok(sig_make(K[ED].pkey, SIG_SK_ED25519, sl("x", 1), &s) != 0 &&
	    sig_make(K[P256].pkey, SIG_SK_ECDSA_P256, sl("x", 1), &s) != 0,
	    "sig_make refuses the sk algorithms (only a token makes them)");
	wb_free(&s);

	/* a certificate identity's signature carries the plain sk name */
	static const int certified[] = { SKED, SKP256 };
	for (size_t i = 0; i < 2; i++) {
		const struct testkey *tk = &K[certified[i]];
		struct certspec cs = { .key = tk, .ca = &K[ED2], .nprincipals = 1 };
		struct pubkey ck;
		struct wb blob;
		tb_init(&t);
		tk_cert(&t, &cs);
		wb_init(&blob);
		token_sign(tk, sl(tk->app.b, tk->app.len), sl("x", 1), 0x01, 9, &blob);
		ok(key_parse_public(tb_slice(&t), &ck, NULL) == 0 && ck.is_cert &&
		    cert_verify(&ck) == 0 &&
		    sk_sig_verify(&ck, sl("x", 1), wb_slice_of(&blob), NULL, NULL) == 0 &&
		    sig_verify(&ck, wb_slice_of(&blob), sl("x", 1), NULL) == 0,
		    "%s: the certificate verifies, and a token signature with the plain "
		    "name \"%s\" verifies under it", tk_cert_name(tk->kind), tk_name(tk->kind));
		wb_free(&blob);
		tb_free(&t);
	}

	/* certificates a FIDO CA signed (its token's signature) */
	for (int corrupt = 0; corrupt < 2; corrupt++)
		for (size_t i = 0; i < 2; i++) {
			struct certspec cs = { .key = &K[P384], .ca = &K[certified[i]],
			    .nprincipals = 1, .corrupt_signature = corrupt };
			struct pubkey ck;
			int rc = -2;
			tb_init(&t);
			tk_cert(&t, &cs);
			if (key_parse_public(tb_slice(&t), &ck, NULL) == 0)
				rc = cert_verify(&ck);
			ok(corrupt ? rc == -1 : rc == 0, "certificate signed by an %s CA%s",
			    tk_name(K[certified[i]].kind), corrupt ?
			    ", signature bit flipped: fails" : ": verifies");
			tb_free(&t);
		}

	/* the certificates ssh-keygen -s made for the real vectors */
	static const char *const certs[] = { SKV_ADD_ED25519_SK_CERT, SKV_ADD_ECDSA_SK_CERT };
	static const char *const keyfps[] = { SKV_FP_ED, SKV_FP_EC };
	for (size_t i = 0; i < 2; i++) {
		size_t n;
		uint8_t *p = skv_decode(certs[i], &n), type;
		struct slice name, cert;
		struct pubkey ck;
		struct wb plain;
		char fp[128] = "";
		int good = 0;

		rd_init(&r, p, n);
		wb_init(&plain);
		if (rd_u8(&r, &type) == 0 && rd_text(&r, &name) == 0 &&
		    rd_string(&r, &cert) == 0 && key_parse_public(cert, &ck, NULL) == 0) {
			good = cert_verify(&ck) == 0;
			ck.is_cert = 0;
			key_write_public(&plain, &ck);
			good = good && fingerprint(wb_slice_of(&plain), "sha256", fp,
			    sizeof(fp)) == 0 && strcmp(fp, keyfps[i]) == 0;
		}
		ok(good, "ssh-keygen -s certificate of sk key %zu: CA signature verifies; "
		    "the key's fingerprint is ssh-keygen -l's", i);
		if (!good)
			printf("#   fingerprint %s, want %s\n", fp, keyfps[i]);
		wb_free(&plain);
		free(p);
	}
}

/* ---------------------------------------------- ssh-keygen as witness */

static char dir[64];

static int
sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	if (fread(b, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	b[n] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return b;
}

/* base64 of s[0..n) without whitespace, decoded into w. */
static int
b64_decode(const char *s, size_t n, struct wb *w)
{
	char *clean = malloc(n + 1);
	size_t m = 0, pad = 0;
	uint8_t *out;
	int len;

	for (size_t i = 0; i < n; i++)
		if (s[i] != '\n' && s[i] != '\r' && s[i] != ' ')
			clean[m++] = s[i];
	clean[m] = '\0';
	while (m > pad && clean[m - 1 - pad] == '=')
		pad++;
	out = malloc(m + 1);
	len = EVP_DecodeBlock(out, (const unsigned char *)clean, (int)m);
	if (len >= 0)
		wb_bytes(w, out, (size_t)len - pad);
	free(clean);
	free(out);
	return len < 0 ? -1 : 0;
}

static char *
b64_encode(const uint8_t *p, size_t n)
{
	char *o = malloc(4 * ((n + 2) / 3) + 1);

	EVP_EncodeBlock((unsigned char *)o, p, (int)n);
	return o;
}

/* The key blob of a .pub file: "type base64 comment". */
static int
pub_file_blob(const char *path, struct wb *w)
{
	char *s = slurp(path, NULL), *b, *e;
	int rc = -1;

	if (s != NULL && (b = strchr(s, ' ')) != NULL) {
		b++;
		e = b + strcspn(b, " \n");
		rc = b64_decode(b, (size_t)(e - b), w);
	}
	free(s);
	return rc;
}

/* SSHSIG (OpenSSH PROTOCOL.sshsig): what the signature covers. */
static void
sshsig_signed_data(struct wb *w, const char *ns, const char *msg)
{
	uint8_t h[SHA512_DIGEST_LENGTH];

	SHA512((const unsigned char *)msg, strlen(msg), h);
	wb_bytes(w, "SSHSIG", 6);
	wb_cstring(w, ns);
	wb_cstring(w, "");
	wb_cstring(w, "sha512");
	wb_string(w, h, sizeof(h));
}

static const struct {
	const char *type, *bits;
} sshkeys[] = {
	{ "ed25519", "256" }, { "ecdsa", "256" }, { "ecdsa", "384" }, { "ecdsa", "521" },
	{ "rsa", "2048" },
};

/* ssh-keygen signs (-Y sign); sig_verify must accept it. */
static void
test_openssh_signs(void)
{
	static const char *msg = "the message ssh-keygen signed\n";

	for (size_t i = 0; i < sizeof(sshkeys) / sizeof(sshkeys[0]); i++) {
		char key[128], path[160], *armored, *b, *e;
		struct wb pubblob, raw, signed_data;
		struct rd r;
		struct slice magic, pk, ns, resv, halg, sig;
		struct pubkey k;
		uint32_t ver;
		FILE *f;
		int good = 0;

		wb_init(&pubblob);
		wb_init(&raw);
		wb_init(&signed_data);
		snprintf(key, sizeof(key), "%s/k%zu", dir, i);
		snprintf(path, sizeof(path), "%s.msg", key);
		if ((f = fopen(path, "w")) != NULL) {
			fputs(msg, f);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s.pub", key);
		if (sh("ssh-keygen -q -t %s -b %s -N '' -C perseus -f %s </dev/null",
		    sshkeys[i].type, sshkeys[i].bits, key) != 0 ||
		    sh("ssh-keygen -q -Y sign -f %s -n file %s.msg >/dev/null 2>&1", key, key) != 0 ||
		    pub_file_blob(path, &pubblob) != 0)
			goto next;
		snprintf(path, sizeof(path), "%s.msg.sig", key);
		if ((armored = slurp(path, NULL)) == NULL)
			goto next;
		if ((b = strchr(armored, '\n')) != NULL && (e = strstr(armored, "-----END")) != NULL &&
		    e > b)
			b64_decode(b + 1, (size_t)(e - b - 1), &raw);
		free(armored);
		rd_init(&r, raw.p, raw.len);
		good = rd_bytes(&r, 6, &magic) == 0 && memcmp(magic.p, "SSHSIG", 6) == 0 &&
		    rd_u32(&r, &ver) == 0 && rd_string(&r, &pk) == 0 &&
		    rd_string(&r, &ns) == 0 && rd_string(&r, &resv) == 0 &&
		    rd_string(&r, &halg) == 0 && rd_string(&r, &sig) == 0 &&
		    rd_done(&r) == 0 && slice_eq_str(halg, "sha512") &&
		    slice_eq(pk, wb_slice_of(&pubblob)) &&
		    key_parse_public(pk, &k, NULL) == 0;
		sshsig_signed_data(&signed_data, "file", msg);
		good = good && sig_verify(&k, sig, wb_slice_of(&signed_data), NULL) == 0;
		if (good) {
			/* and not for another message */
			wb_reset(&signed_data);
			sshsig_signed_data(&signed_data, "file", "another message\n");
			good = sig_verify(&k, sig, wb_slice_of(&signed_data), NULL) != 0;
		}
next:
		ok(good, "ssh-keygen -t %s -b %s, -Y sign: sig_verify accepts it (and not for "
		    "other data)", sshkeys[i].type, sshkeys[i].bits);
		wb_free(&pubblob);
		wb_free(&raw);
		wb_free(&signed_data);
	}
}

/* sig_make signs; ssh-keygen -Y verify must accept it. */
static void
test_openssh_verifies(void)
{
	static const struct { int key; enum sig_alg alg; } rows[] = {
		{ ED, SIG_ED25519 }, { P256, SIG_ECDSA_P256 }, { P384, SIG_ECDSA_P384 },
		{ P521, SIG_ECDSA_P521 }, { KRSA, SIG_RSA_SHA256 }, { KRSA, SIG_RSA_SHA512 },
		{ KRSA1024, SIG_RSA_SHA512 },
		/* a token's answer, made into a blob by sk_sig_encode */
		{ SKED, SIG_SK_ED25519 }, { SKP256, SIG_SK_ECDSA_P256 },
	};
	static const char *msg = "the message keyward signed\n";

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct wb data, sig, file;
		char path[128], *b64, *pub;
		FILE *f;
		int ok1 = 0, ok2 = 0;

		wb_init(&data);
		wb_init(&sig);
		wb_init(&file);
		sshsig_signed_data(&data, "file", msg);
		if (key_is_sk(K[rows[i].key].kind)) {
			token_sign(&K[rows[i].key], sl(K[rows[i].key].app.b,
			    K[rows[i].key].app.len), wb_slice_of(&data), SK_FLAG_USER_PRESENCE,
			    42, &sig);
			ok(sk_sig_verify(&PK[rows[i].key], wb_slice_of(&data),
			    wb_slice_of(&sig), NULL, NULL) == 0,
			    "%s: sk_sig_verify accepts what goes to ssh-keygen",
			    sig_alg_name(rows[i].alg));
		} else {
			sig_make(K[rows[i].key].pkey, rows[i].alg, wb_slice_of(&data), &sig);
		}
		for (int bad = 0; bad < 2; bad++) {
			/* a bit of the signature proper: a FIDO blob ends in
			 * flags and counter (which the token signed too, so
			 * ssh-keygen's acceptance shows where they go) */
			if (bad)
				sig.p[sig.len - (key_is_sk(K[rows[i].key].kind) ? 6 : 1)] ^= 0x01;
			wb_reset(&file);
			wb_bytes(&file, "SSHSIG", 6);
			wb_u32(&file, 1);
			wb_slice(&file, tb_slice(&PUB[rows[i].key]));
			wb_cstring(&file, "file");
			wb_cstring(&file, "");
			wb_cstring(&file, "sha512");
			wb_slice(&file, wb_slice_of(&sig));
			b64 = b64_encode(file.p, file.len);
			snprintf(path, sizeof(path), "%s/v%zu.sig", dir, i);
			f = fopen(path, "w");
			fprintf(f, "-----BEGIN SSH SIGNATURE-----\n");
			for (size_t o = 0; o < strlen(b64); o += 70)
				fprintf(f, "%.70s\n", b64 + o);
			fprintf(f, "-----END SSH SIGNATURE-----\n");
			fclose(f);
			free(b64);
			pub = b64_encode(PUB[rows[i].key].w.p, PUB[rows[i].key].w.len);
			snprintf(path, sizeof(path), "%s/v%zu.allowed", dir, i);
			f = fopen(path, "w");
			fprintf(f, "perseus@argos %s %s\n", tk_name(K[rows[i].key].kind), pub);
			fclose(f);
			free(pub);
			snprintf(path, sizeof(path), "%s/v%zu.msg", dir, i);
			f = fopen(path, "w");
			fputs(msg, f);
			fclose(f);
			if (!bad)
				ok1 = sh("ssh-keygen -Y verify -f %s/v%zu.allowed -I perseus@argos "
				    "-n file -s %s/v%zu.sig < %s >/dev/null 2>&1", dir, i, dir, i,
				    path) == 0;
			else
				ok2 = sh("ssh-keygen -Y verify -f %s/v%zu.allowed -I perseus@argos "
				    "-n file -s %s/v%zu.sig < %s >/dev/null 2>&1", dir, i, dir, i,
				    path) != 0;
		}
		ok(ok1 && ok2, "%s %s%s: ssh-keygen -Y verify accepts it, and refuses it "
		    "with one bit flipped", key_is_sk(K[rows[i].key].kind) ?
		    "token answer through sk_sig_encode" : "sig_make", sig_alg_name(rows[i].alg),
		    rows[i].key == KRSA1024 ? " (1024-bit)" : "");
		wb_free(&data);
		wb_free(&sig);
		wb_free(&file);
	}
}

/* ssh-keygen -s makes certificates; they decode and their CA signature
 * verifies; fingerprints agree with ssh-keygen -l. */
static void
test_openssh_certs(void)
{
	static const struct {
		const char *name, *ca_type, *ca_bits, *key_type, *key_bits, *opts;
		uint32_t type;
		unsigned nprincipals;
	} rows[] = {
		{ "user certificate, Ed25519 CA", "ed25519", "256", "ed25519", "256",
		  "-n perseus,andromeda -V always:forever", 1, 2 },
		{ "host certificate, RSA CA (rsa-sha2-512)", "rsa", "2048", "ecdsa", "384",
		  "-h -n scylla.example", 2, 1 },
		{ "user certificate, ECDSA CA, options and expiry", "ecdsa", "521", "rsa", "2048",
		  "-n perseus -O force-command=/bin/true -O no-pty -V 19700101:19700102", 1, 1 },
		{ "user certificate without principals", "ecdsa", "256", "ed25519", "256",
		  "", 1, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char ca[128], key[128], path[160];
		struct wb blob;
		struct pubkey k;
		int good = 0;

		snprintf(ca, sizeof(ca), "%s/ca%zu", dir, i);
		snprintf(key, sizeof(key), "%s/u%zu", dir, i);
		wb_init(&blob);
		snprintf(path, sizeof(path), "%s-cert.pub", key);
		if (sh("ssh-keygen -q -t %s -b %s -N '' -f %s </dev/null", rows[i].ca_type,
		    rows[i].ca_bits, ca) == 0 &&
		    sh("ssh-keygen -q -t %s -b %s -N '' -f %s </dev/null", rows[i].key_type,
		    rows[i].key_bits, key) == 0 &&
		    sh("ssh-keygen -q -s %s -I medea-%zu -z 4242 %s %s.pub >/dev/null 2>&1", ca, i,
		    rows[i].opts, key) == 0 &&
		    pub_file_blob(path, &blob) == 0 &&
		    key_parse_public(wb_slice_of(&blob), &k, NULL) == 0) {
			char id[32];
			snprintf(id, sizeof(id), "medea-%zu", i);
			good = k.is_cert && k.cert.type == rows[i].type &&
			    k.cert.serial == 4242 && slice_eq_str(k.cert.key_id, id) &&
			    k.cert.nprincipals == rows[i].nprincipals && cert_verify(&k) == 0;
			/* a byte of the key id changed: the CA signature fails */
			if (good) {
				uint8_t *kid = (uint8_t *)(uintptr_t)k.cert.key_id.p;
				kid[0] ^= 0x20;
				good = key_parse_public(wb_slice_of(&blob), &k, NULL) == 0 &&
				    cert_verify(&k) != 0;
			}
		}
		ok(good, "ssh-keygen -s: %s: decodes, fields as issued, CA signature verifies "
		    "(and fails when altered)", rows[i].name);
		wb_free(&blob);
	}
}

static void
test_openssh_fingerprints(void)
{
	static const char *const hashes[] = { "sha256", "md5", "sha512" };

	for (size_t i = 0; i < sizeof(sshkeys) / sizeof(sshkeys[0]); i++)
		for (size_t h = 0; h < 3; h++) {
			char path[128], *line, ours[128], want[128] = "";
			struct wb blob;
			int good = 0;

			snprintf(path, sizeof(path), "%s/k%zu.pub", dir, i);
			wb_init(&blob);
			if (pub_file_blob(path, &blob) == 0 &&
			    sh("ssh-keygen -l -E %s -f %s > %s.fp", hashes[h], path, path) == 0) {
				strcat(path, ".fp");
				line = slurp(path, NULL);
				if (line != NULL)
					sscanf(line, "%*s %127s", want);
				free(line);
				good = fingerprint(wb_slice_of(&blob), hashes[h], ours,
				    sizeof(ours)) == 0 && strcmp(ours, want) == 0;
			}
			ok(good, "fingerprint -E %s of an ssh-keygen %s-%s key: as ssh-keygen -l",
			    hashes[h], sshkeys[i].type, sshkeys[i].bits);
			if (!good)
				printf("#   ours %s, ssh-keygen %s\n", ours, want);
			wb_free(&blob);
		}
}

static void
test_openssh(void)
{
	if (sh("command -v ssh-keygen >/dev/null 2>&1") != 0) {
		ok(1, "ssh-keygen interoperability # skip ssh-keygen not installed");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/kwtest.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL) {
		ok(0, "temporary directory");
		return;
	}
	test_openssh_signs();
	test_openssh_verifies();
	test_openssh_certs();
	test_openssh_fingerprints();
	sh("rm -rf '%s'", dir);
}

int
main(void)
{
	make_keys();
	test_public();
	test_private();
	test_signatures();
	test_signature_rules();
	test_cert_identity();
	test_certs();
	test_fingerprints();
	test_sk_verify();
	test_sk_keys();
	test_openssh();
	for (int i = 0; i < NKEYS; i++) {
		tb_free(&PUB[i]);
		testkey_free(&K[i]);
	}
	return done_testing();
}
