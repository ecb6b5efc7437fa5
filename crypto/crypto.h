/*
 * crypto.h - libcrypto glue for verification, shared by policy and the
 * keyholder. Private keys and signing are the keyholder's alone
 * (keyholder/privkey.h). Never linked into the monitor.
 */
#ifndef KEYWARD_CRYPTO_H
#define KEYWARD_CRYPTO_H

#include "ipc/buf.h"
#include "keys/sksig.h"
#include "keys/sshkey.h"

#include <openssl/evp.h>
#include <openssl/param_build.h>

/* A public key for verification; the EC point is checked to lie on its
 * curve. NULL (with *why) on failure. */
EVP_PKEY *pkey_public(const struct pubkey *k, const char **why);
/* For keyholder/privkey.c: the OpenSSL group name of an ECDSA kind (NULL
 * for others), and a key made of the parameters in bld (secret: wipe them
 * after). */
const char *crypto_group_name(enum key_kind kind);
EVP_PKEY *crypto_from_params(const char *type, int selection,
    OSSL_PARAM_BLD *bld, int secret);
/* The digest of a signature algorithm (NULL: the key hashes itself), and
 * whether it is ECDSA (its blob holds r and s, not the raw signature). */
const EVP_MD *sig_alg_md(enum sig_alg alg);
int sig_alg_is_ecdsa(enum sig_alg alg);

/* Verify an SSH signature blob over data with key k. 0 if valid. If
 * alg_out is given, it receives the algorithm the blob named. */
int sig_verify(const struct pubkey *k, struct slice sig, struct slice data,
    enum sig_alg *alg_out);
/* Verify a FIDO signature blob (keys/sksig.h) over data with the sk key
 * k (plain or certificate): the authenticator signed SHA-256(k's
 * application) || flags || counter || SHA-256(data) -- Ed25519 those
 * SK_MESSAGE_LEN bytes, ECDSA P-256 their SHA-256. 0 if valid, and then
 * the flags (user presence, verification) and counter it asserted. */
#define SK_MESSAGE_LEN 69
int sk_sig_verify(const struct pubkey *k, struct slice data, struct slice sig,
    uint8_t *flags, uint32_t *counter);
/* The CA signature of a certificate verifies (doc/protocol.md §4.3). */
int cert_verify(const struct pubkey *cert);

/* "SHA256:base64" or "MD5:hex:..." of a key blob, per -E (doc/protocol.md §4.5). */
int fingerprint(struct slice blob, const char *hash, char *out, size_t n);

#endif
