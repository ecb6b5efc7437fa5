/*
 * composite.h - ssh-mldsa44-ed25519@openssh.com, the composite of
 * ML-DSA-44 and Ed25519 that OpenSSH 10.5 signs with
 * (draft-miller-sshm-mldsa44-ed25519-composite-sigs-00, after
 * draft-ietf-lamps-pq-composite-sigs): both halves sign
 *   M' = "CompositeAlgorithmSignatures2025" ||
 *        "COMPSIG-MLDSA44-Ed25519-SHA512" || 0x00 || SHA-512(message),
 * ML-DSA-44 as pure ML-DSA with the label as its context, hedged. The
 * public key is ML-DSA-44's || Ed25519's, the private key the two
 * seeds, the signature ML-DSA-44's || Ed25519's (ipc/limits.h).
 * Policy verifies, the keyholder signs; the monitor links neither.
 */
#ifndef KEYWARD_COMPOSITE_H
#define KEYWARD_COMPOSITE_H

#include "ipc/buf.h"
#include "ipc/limits.h"

#include <stdint.h>

/* 0 if both halves of sig (MLDSA44_ED25519_SIG_LEN bytes) verify. */
int composite_verify(const uint8_t pk[MLDSA44_ED25519_PK_LEN],
    const uint8_t *sig, size_t siglen, struct slice data);
/* The public key the seeds make. */
int composite_public(const uint8_t sk[MLDSA44_ED25519_SK_LEN],
    uint8_t pk[MLDSA44_ED25519_PK_LEN]);
/* Sign data (rnd from the system's generator, as OpenSSH does). */
int composite_sign(const uint8_t sk[MLDSA44_ED25519_SK_LEN],
    struct slice data, uint8_t sig[MLDSA44_ED25519_SIG_LEN]);

#endif
