/*
 * composite_int.h - what crypto/composite.c (verify, linked by policy) and
 * crypto/composite_sign.c (sign, the keyholder's) share: the message M'
 * both halves of an ssh-mldsa44-ed25519 signature sign.
 */
#ifndef KEYWARD_COMPOSITE_INT_H
#define KEYWARD_COMPOSITE_INT_H

#include "ipc/buf.h"

#include <stdint.h>

#define PREFIX "CompositeAlgorithmSignatures2025"
#define LABEL  "COMPSIG-MLDSA44-Ed25519-SHA512"
/* prefix, label, the context's length byte (no context), SHA-512 */
#define MPRIME_LEN (sizeof(PREFIX) - 1 + sizeof(LABEL) - 1 + 1 + 64)

int composite_mprime(uint8_t out[MPRIME_LEN], struct slice data);

#endif
