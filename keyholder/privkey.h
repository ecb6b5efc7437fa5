/*
 * privkey.h - private keys and signing, the keyholder's alone: no other
 * program links keyholder/ (tests/integration/90-keyward-procs.t checks
 * keyward-policy with nm).
 */
#ifndef KEYWARD_PRIVKEY_H
#define KEYWARD_PRIVKEY_H

#include "crypto/crypto.h"

#include <openssl/ec.h>

/* A private key, checked to be the private half of k->pub: Ed25519 seed
 * derives A, d·G = Q with d of sane size, RSA n = p·q and d, e, iqmp
 * consistent. Arithmetic only, no primality test: well under a
 * millisecond for any key, so an ADD never stalls the keyholder. Wipes
 * every intermediate. NULL (with *why) on failure. */
EVP_PKEY *pkey_private(const struct privkey *k, const char **why);
/* The same without the checks, for material pkey_private accepted before
 * (the keyholder rebuilds a shielded key for each signature). */
EVP_PKEY *pkey_private_trusted(const struct privkey *k);

/* Sign data with pkey using alg and append the SSH signature blob
 * (string name; string/sub-encoded signature) to out. 0 on success. */
int sig_make(EVP_PKEY *pkey, enum sig_alg alg, struct slice data, struct wb *out);

/* Append the SSH ECDSA signature blob of (r, s) made with alg to out
 * (doc/protocol.md). 0 on success. */
int ecdsa_sig_write(const BIGNUM *r, const BIGNUM *s, enum sig_alg alg,
    struct wb *out);

/* keyholder/ecsign.c: fetch the NIST groups and their digests, once per
 * process (thread-safe; the keyholder calls it before its sandbox). */
int ecsign_prepare(void);
/* The curve of an ECDSA kind, built once and shared: read only. */
const EC_GROUP *ecsign_group(enum key_kind kind);
/* Sign data with the ECDSA key k (trusted, as pkey_private_trusted) and
 * alg, appending the SSH signature blob to out. 0 on success. */
int ecsign(const struct privkey *k, enum sig_alg alg, struct slice data,
    struct wb *out);

/* An RSA key's numbers as BIGNUMs, the secret ones constant-time in the
 * secure heap: rsa_nums_get reads them from k (dmp1 and dmq1 zero),
 * rsa_nums_crt derives dmp1 and dmq1 from d, p and q; each 0 or -1.
 * rsa_nums_free clears and frees what is left (a NULL field is skipped,
 * so a taker of a number sets its field NULL). */
struct rsa_nums {
	BIGNUM *n, *e, *d, *p, *q, *iqmp, *dmp1, *dmq1;
};
int rsa_nums_get(const struct privkey *k, struct rsa_nums *r);
int rsa_nums_crt(struct rsa_nums *r, BN_CTX *bnctx);
void rsa_nums_free(struct rsa_nums *r);

/* keyholder/rsasign.c: fetch the digests, once per process (thread-safe;
 * the keyholder calls it before its sandbox). */
int rsasign_prepare(void);
/* Sign data with the RSA key k (trusted, as pkey_private_trusted) and alg
 * (PKCS#1 v1.5 with SHA-1, SHA-256 or SHA-512), appending the SSH
 * signature blob to out, with a blinding pair kept between signatures of
 * the same key. 0 on success. */
int rsasign(const struct privkey *k, enum sig_alg alg, struct slice data,
    struct wb *out);
/* Drop every kept blinding pair (a lock or a removal of all keys). */
void rsasign_forget(void);
/* How many blinding pairs are kept (tests). */
size_t rsasign_kept(void);

#endif
