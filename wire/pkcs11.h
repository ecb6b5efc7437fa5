/*
 * pkcs11.h - what policy asks a PKCS#11 token helper (keyward-pkcs11) and
 * what it answers, each one SOCK_SEQPACKET datagram of SSH wire types.
 * Encoder and decoder of each side by side; decoders refuse trailing
 * bytes and anything outside ipc/limits.h's P11_* bounds. Slices point
 * into the datagram. A request may carry a PIN: whoever holds its buffer
 * wipes it. Both ends may be compromised (the helper runs a third-party
 * module; policy talks to clients), so each checks the other.
 *
 * requests: byte P11_MSG_LOGIN; string pin
 *           byte P11_MSG_SIGN; uint32 key; uint32 alg; string data;
 *                string pin (context-specific login; empty: none)
 * replies:  byte P11_MSG_KEYS; uint32 status; uint32 n;
 *                n * { string key_blob; string label; uint32 flags }
 *           byte P11_MSG_SIGNATURE; uint32 status; string signature
 *
 * status is a PKCS#11 CKR_* value, 0 (P11_OK) for success; a failure
 * lists no key and carries no signature. key is an index into the list
 * the LOGIN reply gave; alg an enum sig_alg (keys/sshkey.h) of a plain key;
 * key_blob a plain Ed25519, ECDSA or RSA public key (doc/protocol.md §4.2); the
 * signature a whole SSH signature blob (doc/protocol.md §4.6) of algorithm alg.
 */
#ifndef KEYWARD_PKCS11_H
#define KEYWARD_PKCS11_H

#include "ipc/buf.h"
#include "ipc/limits.h"

#include <stdint.h>

#define P11_MSG_LOGIN           1
#define P11_MSG_SIGN            2
#define P11_MSG_KEYS            3
#define P11_MSG_SIGNATURE       4

#define P11_OK                  0
/* The CKR_* values the helper makes up itself (PKCS#11 2.40). */
#define P11_CKR_GENERAL_ERROR           0x005
#define P11_CKR_FUNCTION_FAILED         0x006
#define P11_CKR_ARGUMENTS_BAD           0x007
#define P11_CKR_KEY_HANDLE_INVALID      0x060
#define P11_CKR_MECHANISM_INVALID       0x070
#define P11_CKR_USER_ALREADY_LOGGED_IN  0x100
#define P11_CKR_USER_NOT_LOGGED_IN      0x101

/* Key flags in a listing. */
#define P11_KEY_ALWAYS_AUTH     0x01    /* CKA_ALWAYS_AUTHENTICATE: each
                                         * signature needs the PIN again */

struct p11_req {
	uint8_t type;                   /* P11_MSG_LOGIN or P11_MSG_SIGN */
	struct slice pin;               /* secret; no NUL; may be empty */
	uint32_t key;                   /* SIGN: < P11_MAX_KEYS */
	uint32_t alg;                   /* SIGN: enum sig_alg, not FIDO */
	struct slice data;              /* SIGN */
};

struct p11_key {
	struct slice blob;
	struct slice label;             /* no NUL; may be empty */
	uint32_t flags;
};

struct p11_keys {
	uint32_t status;
	uint32_t n;
	struct p11_key key[P11_MAX_KEYS];
};

struct p11_sig {
	uint32_t status;
	struct slice sig;               /* empty iff status != P11_OK */
};

void p11_login_encode(struct wb *w, struct slice pin);
void p11_sign_encode(struct wb *w, uint32_t key, uint32_t alg,
    struct slice data, struct slice pin);
int p11_req_decode(struct rd *r, struct p11_req *m);

/* A failure is encoded without its keys or signature, whatever m holds. */
void p11_keys_encode(struct wb *w, const struct p11_keys *m);
int p11_keys_decode(struct rd *r, struct p11_keys *m);
void p11_sig_encode(struct wb *w, const struct p11_sig *m);
/* alg: the algorithm the SIGN asked for; a signature of another is refused. */
int p11_sig_decode(struct rd *r, uint32_t alg, struct p11_sig *m);

/* What a user reads for a CKR code (PKCS#11 2.40 §5.1), or dflt. */
const char *p11_ckr_why(uint32_t rv, const char *dflt);

#endif
