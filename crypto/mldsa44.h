/*
 * mldsa44.h - ML-DSA-44 (FIPS 204), key generation from a seed, signing
 * and verification. Linked by the keyholder (sign: crypto/mldsa44_sign.c)
 * and policy (verify: crypto/mldsa44.c, which links no signing code);
 * never by the monitor. Sizes are those of FIPS 204 table 2, named in
 * ipc/limits.h.
 *
 * Every function returns 0 on success, -1 on failure (bad length, bad
 * encoding, signature not valid).
 */
#ifndef KEYWARD_MLDSA44_H
#define KEYWARD_MLDSA44_H

#include "ipc/limits.h"

#include <stddef.h>
#include <stdint.h>

/* ML-KeyGen_internal (FIPS 204 algorithm 6) from the 32-byte seed xi: the
 * public key, and if sk is not NULL the expanded private key. */
int mldsa44_keygen(uint8_t pk[MLDSA44_PK_LEN], uint8_t *sk,
    const uint8_t xi[MLDSA44_SEED_LEN]);

/* ML-DSA.Sign_internal (algorithm 7): the message is M' as given, with
 * the 32 bytes rnd (all zero: deterministic; random: hedged). */
int mldsa44_sign_internal(uint8_t sig[MLDSA44_SIG_LEN],
    const uint8_t sk[MLDSA44_SK_LEN], const uint8_t *m, size_t mlen,
    const uint8_t rnd[MLDSA44_RND_LEN]);

/* Pure ML-DSA.Sign (algorithm 2): M' = 0 || |ctx| || ctx || M, ctx at
 * most MLDSA44_CTX_MAX bytes. */
int mldsa44_sign(uint8_t sig[MLDSA44_SIG_LEN], const uint8_t sk[MLDSA44_SK_LEN],
    const uint8_t *m, size_t mlen, const uint8_t *ctx, size_t ctxlen,
    const uint8_t rnd[MLDSA44_RND_LEN]);

/* The same from the seed: the key is expanded, used and wiped. */
int mldsa44_sign_seed(uint8_t sig[MLDSA44_SIG_LEN],
    const uint8_t xi[MLDSA44_SEED_LEN], const uint8_t *m, size_t mlen,
    const uint8_t *ctx, size_t ctxlen, const uint8_t rnd[MLDSA44_RND_LEN]);

/* ML-DSA.Verify_internal (algorithm 8) and pure ML-DSA.Verify
 * (algorithm 3). siglen must be MLDSA44_SIG_LEN. */
int mldsa44_verify_internal(const uint8_t pk[MLDSA44_PK_LEN],
    const uint8_t *m, size_t mlen, const uint8_t *sig, size_t siglen);
int mldsa44_verify(const uint8_t pk[MLDSA44_PK_LEN], const uint8_t *m,
    size_t mlen, const uint8_t *ctx, size_t ctxlen, const uint8_t *sig,
    size_t siglen);

/* SHAKE128/256 in one call, for the tests that hold the Keccak here
 * against OpenSSL's. */
void mldsa44_shake(int bits, const uint8_t *in, size_t inlen, uint8_t *out,
    size_t outlen);

#endif
