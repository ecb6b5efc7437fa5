/*
 * sign.h - one signature by a PKCS#11 token, for keyward-pkcs11's SIGN
 * (token/pkcs11/sign.c).
 */
#ifndef KEYWARD_TOKEN_PKCS11_SIGN_H
#define KEYWARD_TOKEN_PKCS11_SIGN_H

#include "ipc/buf.h"
#include "keys/sshkey.h"
#include "token/pkcs11/p11keys.h"
#include "wire/pkcs11.h"

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

/* How a token makes one SSH signature algorithm's signature. */
struct sigspec {
	enum sig_alg alg;
	CK_MECHANISM_TYPE mech;
	const EVP_MD *(*md)(void);      /* NULL: the data itself (EdDSA) */
	const uint8_t *di;              /* RSA: the DigestInfo prefix */
	size_t di_len;
};

/* The spec of SSH signature algorithm alg (enum sig_alg), or NULL. */
const struct sigspec *p11_sigspec_of(uint32_t alg);
/* Key k of module f signs req's data (its context PIN, if k always
 * wants one) into raw, at most P11_MAX_RAW_SIG bytes (*rawlen). */
CK_RV p11_sign_raw(CK_FUNCTION_LIST_PTR f, const struct p11key *k,
    const struct sigspec *sp, const struct p11_req *req, uint8_t *raw,
    CK_ULONG *rawlen);
/* The token's raw signature (n bytes) as an SSH signature blob (spec
 * §4.6) appended to w; -1 if it is malformed or too long. */
int p11_sig_blob(const struct sigspec *sp, const struct p11key *k,
    const uint8_t *raw, size_t n, struct wb *w);

#endif
