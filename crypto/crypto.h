/*
 * crypto.h - libcrypto glue shared by policy (verify only) and keyholder
 * (private keys, signing). Never linked into the monitor.
 */
#ifndef KEYWARD_CRYPTO_H
#define KEYWARD_CRYPTO_H

#include "ipc/buf.h"
#include "ipc/sksig.h"
#include "ipc/sshkey.h"

#include <openssl/evp.h>

/* A public key for verification; the EC point is checked to lie on its
 * curve. NULL (with *why) on failure. */
EVP_PKEY *pkey_public(const struct pubkey *k, const char **why);
/* A private key, checked to be the private half of k->pub: Ed25519 seed
 * derives A, d·G = Q with d of sane size, RSA n = p·q and d, e, iqmp
 * consistent. Arithmetic only, no primality test: well under a
 * millisecond for any key, so an ADD never stalls the keyholder. Wipes
 * every intermediate. NULL (with *why) on failure. */
EVP_PKEY *pkey_private(const struct privkey *k, const char **why);
/* The same without the checks, for material pkey_private accepted before
 * (the keyholder rebuilds a shielded key for each signature). */
EVP_PKEY *pkey_private_trusted(const struct privkey *k);

/* Verify an SSH signature blob over data with key k. 0 if valid. If
 * alg_out is given, it receives the algorithm the blob named. */
int sig_verify(const struct pubkey *k, struct slice sig, struct slice data,
    enum sig_alg *alg_out);
/* Verify a FIDO signature blob (ipc/sksig.h) over data with the sk key
 * k (plain or certificate): the authenticator signed SHA-256(k's
 * application) || flags || counter || SHA-256(data) -- Ed25519 those
 * SK_MESSAGE_LEN bytes, ECDSA P-256 their SHA-256. 0 if valid, and then
 * the flags (user presence, verification) and counter it asserted. */
#define SK_MESSAGE_LEN 69
int sk_sig_verify(const struct pubkey *k, struct slice data, struct slice sig,
    uint8_t *flags, uint32_t *counter);
/* Sign data with pkey using alg and append the SSH signature blob
 * (string name; string/sub-encoded signature) to out. 0 on success. */
int sig_make(EVP_PKEY *pkey, enum sig_alg alg, struct slice data, struct wb *out);

/* The CA signature of a certificate verifies (spec §4.3). */
int cert_verify(const struct pubkey *cert);

/* "SHA256:base64" or "MD5:hex:..." of a key blob, per -E (spec §4.5). */
int fingerprint(struct slice blob, const char *hash, char *out, size_t n);

#endif
