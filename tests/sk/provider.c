/*
 * tests/sk/provider.c - a FIDO "security key" middleware for tests, built
 * as $(BUILD)/tests/libkwsk-test.so. It speaks the SecurityKeyProvider
 * interface OpenSSH 9.2-10.5 load (API 0x000a0000), written here from the
 * published structures and constants, and is a software token: the private
 * key travels inside the key handle, so any handle it made it can sign with.
 * Never a real token: the handle is a private key in the clear.
 *
 * Environment (read at every call):
 *   KWSK_TEST_WAIT_MS=N   sleep N ms before signing (a touch that is slow)
 *   KWSK_TEST_PIN=VALUE   signing needs this PIN: none -3, wrong one -1
 *   KWSK_TEST_REFUSE=1    every enroll and sign fails with -1
 *   KWSK_TEST_FLAGS=HEX   the flags byte reported by sign (default: the
 *                         user-presence bit, 0x04 too when a PIN was given)
 *   KWSK_TEST_CORRUPT=1   the signature is wrong (one bit flipped): for
 *                         tests of whoever must verify it
 *   KWSK_TEST_PAD=1       ECDSA r and s with a leading zero byte (33 bytes)
 *   KWSK_TEST_SHORT=1     a malformed signature: Ed25519 one byte short,
 *                         ECDSA without s
 *   KWSK_TEST_COUNTER=PATH  a file holding the signature counter; without
 *                         it the counter counts within the process
 *   KWSK_TEST_LIST=1      before signing, list the FIDO tokens present with
 *                         libfido2, as a middleware built on it does
 *                         (libudev's walk of /sys/class/hidraw, each node
 *                         opened for its report descriptor); the count goes
 *                         to stderr and signing goes on whatever it is
 *                         (FIDO_DEBUG=1: libfido2's own debug lines too)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fido.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "wire/token.h"           /* algorithms and errors */
#include "token/sk/skapi.h"         /* the published structures */

#define SK_ALG_ECDSA            TOKEN_ALG_ECDSA
#define SK_ALG_ED25519          TOKEN_ALG_ED25519
#define SK_ERR_GENERAL          TOKEN_ERR_GENERAL
#define SK_ERR_UNSUPPORTED      TOKEN_ERR_UNSUPPORTED
#define SK_ERR_PIN_REQUIRED     TOKEN_ERR_PIN_REQUIRED

uint32_t sk_api_version(void);
int sk_enroll(uint32_t, const uint8_t *, size_t, const char *, uint8_t,
    const char *, struct sk_option **, struct sk_enroll_response **);
int sk_sign(uint32_t, const uint8_t *, size_t, const char *, const uint8_t *,
    size_t, uint8_t, const char *, struct sk_option **,
    struct sk_sign_response **);
int sk_load_resident_keys(const char *, struct sk_option **,
    struct sk_resident_key ***, size_t *);

/*
 * Our key handle: "KWSKTEST" (8), algorithm (1), SHA-256 of the
 * application it was made for (32), private seed or scalar (32).
 */
#define KH_MAGIC                "KWSKTEST"
#define KH_MAGIC_LEN            8
#define KH_SECRET_LEN           32
#define KH_LEN                  (KH_MAGIC_LEN + 1 + SHA256_DIGEST_LENGTH + \
                                 KH_SECRET_LEN)
#define EC_POINT_LEN            65      /* uncompressed P-256 point */
#define ED25519_PK_LEN          32
#define ED25519_SIG_LEN         64
#define ECDSA_DER_MAX           80      /* DER of a P-256 (r, s): 72 at most */
#define SIGNED_LEN              (SHA256_DIGEST_LENGTH + 1 + 4 + \
                                 SHA256_DIGEST_LENGTH)
#define WAIT_MAX_MS             600000  /* KWSK_TEST_WAIT_MS at most */

static uint32_t counter_mem;

uint32_t
sk_api_version(void)
{
	return SK_API_VERSION;
}

static int
env_flag(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && strcmp(v, "1") == 0;
}

/* One software token, no device to choose and no user id to keep: an
 * option we cannot honour fails only when it is marked required. */
static int
options_ok(struct sk_option **options)
{
	size_t i;

	for (i = 0; options != NULL && options[i] != NULL; i++) {
		if (options[i]->required)
			return 0;
	}
	return 1;
}

static void
wait_ms(void)
{
	const char *v = getenv("KWSK_TEST_WAIT_MS");
	struct timespec ts;
	unsigned long ms;
	char *end;

	if (v == NULL || *v == '\0')
		return;
	errno = 0;
	ms = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || ms > WAIT_MAX_MS)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* The next counter value: from KWSK_TEST_COUNTER's file when set. */
static uint32_t
next_counter(void)
{
	const char *path = getenv("KWSK_TEST_COUNTER");
	unsigned long v = 0;
	FILE *f;

	if (path == NULL || *path == '\0')
		return ++counter_mem;
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	v = (v + 1) & 0xffffffffUL;
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "%lu\n", v);
		fclose(f);
	}
	return (uint32_t)v;
}

static EVP_PKEY *
ed25519_from_seed(const uint8_t *seed)
{
	return EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed,
	    KH_SECRET_LEN);
}

/*
 * A P-256 key from a 32-byte scalar, and its public point (65 bytes,
 * uncompressed) in pub when pub is not NULL; NULL when the scalar is out
 * of range.
 */
static EVP_PKEY *
p256_from_scalar(const uint8_t *scalar, uint8_t *pub)
{
	uint8_t point[EC_POINT_LEN];
	EC_GROUP *g = NULL;
	EC_POINT *q = NULL;
	BIGNUM *d = NULL;
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pk = NULL;

	if ((g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)) == NULL ||
	    (d = BN_bin2bn(scalar, KH_SECRET_LEN, NULL)) == NULL ||
	    BN_is_zero(d) || BN_cmp(d, EC_GROUP_get0_order(g)) >= 0 ||
	    (q = EC_POINT_new(g)) == NULL ||
	    !EC_POINT_mul(g, q, d, NULL, NULL, NULL) ||
	    EC_POINT_point2oct(g, q, POINT_CONVERSION_UNCOMPRESSED, point,
	    sizeof(point), NULL) != sizeof(point))
		goto out;
	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
	    "prime256v1", 0) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
	    point, sizeof(point)) ||
	    (params = OSSL_PARAM_BLD_to_param(bld)) == NULL ||
	    (ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_KEYPAIR, params) != 1) {
		EVP_PKEY_free(pk);
		pk = NULL;
		goto out;
	}
	if (pub != NULL)
		memcpy(pub, point, sizeof(point));
 out:
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EC_POINT_free(q);
	BN_clear_free(d);
	EC_GROUP_free(g);
	return pk;
}

/* The public key for a secret, as the response carries it. */
static int
public_of(uint32_t alg, const uint8_t *secret, uint8_t **pk, size_t *pklen)
{
	EVP_PKEY *key;
	size_t len;

	*pklen = 0;
	len = alg == SK_ALG_ED25519 ? ED25519_PK_LEN : EC_POINT_LEN;
	if ((*pk = malloc(len)) == NULL)
		return -1;
	if (alg == SK_ALG_ED25519) {
		if ((key = ed25519_from_seed(secret)) == NULL ||
		    !EVP_PKEY_get_raw_public_key(key, *pk, &len) ||
		    len != ED25519_PK_LEN)
			goto fail;
	} else if ((key = p256_from_scalar(secret, *pk)) == NULL)
		goto fail;
	EVP_PKEY_free(key);
	*pklen = len;
	return 0;
 fail:
	EVP_PKEY_free(key);
	free(*pk);
	*pk = NULL;
	return -1;
}

static void
free_enroll(struct sk_enroll_response *r)
{
	if (r == NULL)
		return;
	free(r->public_key);
	if (r->key_handle != NULL)
		OPENSSL_clear_free(r->key_handle, r->key_handle_len);
	free(r->signature);
	free(r->attestation_cert);
	free(r->authdata);
	free(r);
}

int
sk_enroll(uint32_t alg, const uint8_t *challenge, size_t challenge_len,
    const char *application, uint8_t flags, const char *pin,
    struct sk_option **options, struct sk_enroll_response **enroll_response)
{
	struct sk_enroll_response *r = NULL;
	uint8_t secret[KH_SECRET_LEN];
	EVP_PKEY *key;
	int tries;

	if (enroll_response == NULL || application == NULL)
		return SK_ERR_GENERAL;
	*enroll_response = NULL;
	if (alg != SK_ALG_ECDSA && alg != SK_ALG_ED25519)
		return SK_ERR_UNSUPPORTED;
	if (!options_ok(options))
		return SK_ERR_UNSUPPORTED;
	if ((flags & SK_FLAG_RESIDENT) != 0)
		return SK_ERR_UNSUPPORTED;	/* a handle is all we keep */
	if (env_flag("KWSK_TEST_REFUSE"))
		return SK_ERR_GENERAL;
	/* A P-256 scalar must be below the group order: draw again. */
	for (tries = 0; ; tries++) {
		if (tries == 8 || RAND_bytes(secret, sizeof(secret)) != 1)
			goto fail;
		if (alg == SK_ALG_ED25519)
			break;
		if ((key = p256_from_scalar(secret, NULL)) != NULL) {
			EVP_PKEY_free(key);
			break;
		}
	}
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    public_of(alg, secret, &r->public_key, &r->public_key_len) != 0 ||
	    (r->key_handle = malloc(KH_LEN)) == NULL)
		goto fail;
	memcpy(r->key_handle, KH_MAGIC, KH_MAGIC_LEN);
	r->key_handle[KH_MAGIC_LEN] = (uint8_t)alg;
	SHA256((const uint8_t *)application, strlen(application),
	    r->key_handle + KH_MAGIC_LEN + 1);
	memcpy(r->key_handle + KH_MAGIC_LEN + 1 + SHA256_DIGEST_LENGTH,
	    secret, KH_SECRET_LEN);
	r->key_handle_len = KH_LEN;
	r->flags = flags;
	OPENSSL_cleanse(secret, sizeof(secret));
	*enroll_response = r;
	return 0;
 fail:
	OPENSSL_cleanse(secret, sizeof(secret));
	free_enroll(r);
	return SK_ERR_GENERAL;
}

/* The 69 bytes an authenticator signs (published in PROTOCOL.u2f). */
static void
signed_bytes(uint8_t out[SIGNED_LEN], const char *application,
    uint8_t flags, uint32_t counter, const uint8_t *data, size_t data_len)
{
	SHA256((const uint8_t *)application, strlen(application), out);
	out[SHA256_DIGEST_LENGTH] = flags;
	out[SHA256_DIGEST_LENGTH + 1] = (uint8_t)(counter >> 24);
	out[SHA256_DIGEST_LENGTH + 2] = (uint8_t)(counter >> 16);
	out[SHA256_DIGEST_LENGTH + 3] = (uint8_t)(counter >> 8);
	out[SHA256_DIGEST_LENGTH + 4] = (uint8_t)counter;
	SHA256(data, data_len, out + SHA256_DIGEST_LENGTH + 5);
}

static int
sign_ed25519(const uint8_t *secret, const uint8_t *msg,
    struct sk_sign_response *r)
{
	EVP_PKEY *pk;
	EVP_MD_CTX *md = NULL;
	size_t len = ED25519_SIG_LEN;
	int ret = -1;

	if ((pk = ed25519_from_seed(secret)) == NULL ||
	    (md = EVP_MD_CTX_new()) == NULL ||
	    (r->sig_r = malloc(ED25519_SIG_LEN)) == NULL ||
	    EVP_DigestSignInit(md, NULL, NULL, NULL, pk) != 1 ||
	    EVP_DigestSign(md, r->sig_r, &len, msg, SIGNED_LEN) != 1 ||
	    len != ED25519_SIG_LEN)
		goto out;
	r->sig_r_len = len;
	ret = 0;
 out:
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pk);
	return ret;
}

static int
bn_out(const BIGNUM *bn, uint8_t **p, size_t *len)
{
	int n = BN_num_bytes(bn);

	if (n <= 0 || (*p = malloc((size_t)n)) == NULL)
		return -1;
	*len = (size_t)BN_bn2bin(bn, *p);
	return 0;
}

/* ECDSA over SHA-256 of the 69 bytes; r and s out of the DER signature. */
static int
sign_p256(const uint8_t *secret, const uint8_t *msg,
    struct sk_sign_response *r)
{
	uint8_t der[ECDSA_DER_MAX];
	const uint8_t *p = der;
	size_t derlen = sizeof(der);
	EVP_MD_CTX *md = NULL;
	ECDSA_SIG *sig = NULL;
	const BIGNUM *sr, *ss;
	EVP_PKEY *pk;
	int ret = -1;

	if ((pk = p256_from_scalar(secret, NULL)) == NULL)
		return -1;
	if ((md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, pk) != 1 ||
	    EVP_DigestSign(md, der, &derlen, msg, SIGNED_LEN) != 1 ||
	    (sig = d2i_ECDSA_SIG(NULL, &p, (long)derlen)) == NULL)
		goto out;
	ECDSA_SIG_get0(sig, &sr, &ss);
	if (bn_out(sr, &r->sig_r, &r->sig_r_len) != 0 ||
	    bn_out(ss, &r->sig_s, &r->sig_s_len) != 0)
		goto out;
	ret = 0;
 out:
	ECDSA_SIG_free(sig);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pk);
	return ret;
}

static void
free_sign(struct sk_sign_response *r)
{
	if (r == NULL)
		return;
	free(r->sig_r);
	free(r->sig_s);
	free(r);
}

/* A leading zero byte before a big-endian number. */
static int
pad(uint8_t **p, size_t *len)
{
	uint8_t *q;

	if ((q = malloc(*len + 1)) == NULL)
		return -1;
	q[0] = 0;
	memcpy(q + 1, *p, *len);
	free(*p);
	*p = q;
	(*len)++;
	return 0;
}

/* What KWSK_TEST_CORRUPT, _PAD and _SHORT ask to be done to a signature. */
static int
mangle(uint32_t alg, struct sk_sign_response *r)
{
	if (env_flag("KWSK_TEST_CORRUPT"))
		r->sig_r[r->sig_r_len - 1] ^= 0x01;
	if (env_flag("KWSK_TEST_PAD") && alg == SK_ALG_ECDSA &&
	    (pad(&r->sig_r, &r->sig_r_len) != 0 ||
	    pad(&r->sig_s, &r->sig_s_len) != 0))
		return -1;
	if (env_flag("KWSK_TEST_SHORT")) {
		if (alg == SK_ALG_ED25519)
			r->sig_r_len--;
		else
			r->sig_s_len = 0;
	}
	return 0;
}

/* KWSK_TEST_FLAGS, or what a token that saw a touch (and a PIN) reports. */
static uint8_t
reported_flags(const char *pin)
{
	const char *v = getenv("KWSK_TEST_FLAGS");
	unsigned long f;
	char *end;

	if (v != NULL && *v != '\0') {
		errno = 0;
		f = strtoul(v, &end, 16);
		if (errno == 0 && *end == '\0' && f <= 0xff)
			return (uint8_t)f;
	}
	return SK_FLAG_UP_REQD | (pin != NULL && *pin != '\0' ?
	    SK_FLAG_UV_REQD : 0);
}

/* KWSK_TEST_LIST: what a libfido2-based middleware does first. */
static void
list_tokens(void)
{
	fido_dev_info_t *list;
	size_t n = 0;
	int r;

	fido_init(0);                   /* FIDO_DEBUG in the environment */
	if ((list = fido_dev_info_new(16)) == NULL)
		return;
	r = fido_dev_info_manifest(list, 16, &n);
	fprintf(stderr, "kwsk-test: listed %zu FIDO token(s): %s\n", n,
	    fido_strerr(r));
	fido_dev_info_free(&list, 16);
}

int
sk_sign(uint32_t alg, const uint8_t *data, size_t data_len,
    const char *application, const uint8_t *key_handle, size_t key_handle_len,
    uint8_t flags, const char *pin, struct sk_option **options,
    struct sk_sign_response **sign_response)
{
	struct sk_sign_response *r = NULL;
	uint8_t h[SHA256_DIGEST_LENGTH], msg[SIGNED_LEN];
	const uint8_t *secret;
	const char *want;
	int ret = SK_ERR_GENERAL;

	if (sign_response == NULL || application == NULL ||
	    key_handle == NULL || (data == NULL && data_len != 0))
		return SK_ERR_GENERAL;
	*sign_response = NULL;
	if (alg != SK_ALG_ECDSA && alg != SK_ALG_ED25519)
		return SK_ERR_UNSUPPORTED;
	if (!options_ok(options))
		return SK_ERR_UNSUPPORTED;
	if ((want = getenv("KWSK_TEST_LIST")) != NULL && strcmp(want, "1") == 0)
		list_tokens();
	/* Not one of ours, or made for another algorithm or application. */
	SHA256((const uint8_t *)application, strlen(application), h);
	if (key_handle_len != KH_LEN ||
	    memcmp(key_handle, KH_MAGIC, KH_MAGIC_LEN) != 0 ||
	    key_handle[KH_MAGIC_LEN] != alg ||
	    memcmp(key_handle + KH_MAGIC_LEN + 1, h, sizeof(h)) != 0)
		return SK_ERR_GENERAL;
	if ((want = getenv("KWSK_TEST_PIN")) != NULL && *want != '\0') {
		if (pin == NULL || *pin == '\0')
			return SK_ERR_PIN_REQUIRED;
		if (strcmp(pin, want) != 0)
			return SK_ERR_GENERAL;
	}
	wait_ms();
	if (env_flag("KWSK_TEST_REFUSE"))
		return SK_ERR_GENERAL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return SK_ERR_GENERAL;
	r->flags = reported_flags(pin);
	r->counter = next_counter();
	signed_bytes(msg, application, r->flags, r->counter, data, data_len);
	secret = key_handle + KH_MAGIC_LEN + 1 + SHA256_DIGEST_LENGTH;
	if ((alg == SK_ALG_ED25519 ? sign_ed25519(secret, msg, r) :
	    sign_p256(secret, msg, r)) != 0 || mangle(alg, r) != 0)
		goto out;
	*sign_response = r;
	r = NULL;
	ret = 0;
 out:
	free_sign(r);
	return ret;
}

/* No resident keys: a handle is all this token keeps. A PIN still gates
 * the listing when KWSK_TEST_PIN asks for one, as a real token's does. */
int
sk_load_resident_keys(const char *pin, struct sk_option **options,
    struct sk_resident_key ***rks, size_t *nrks)
{
	const char *want;

	if (rks == NULL || nrks == NULL)
		return SK_ERR_GENERAL;
	*rks = NULL;
	*nrks = 0;
	if (!options_ok(options))
		return SK_ERR_UNSUPPORTED;
	if (env_flag("KWSK_TEST_REFUSE"))
		return SK_ERR_GENERAL;
	if ((want = getenv("KWSK_TEST_PIN")) != NULL && *want != '\0') {
		if (pin == NULL || *pin == '\0')
			return SK_ERR_PIN_REQUIRED;
		if (strcmp(pin, want) != 0)
			return SK_ERR_GENERAL;
	}
	return 0;
}
