/*
 * sksig.h - FIDO (sk-) signature blobs (doc/protocol.md §4.6): what an authenticator's
 * answer becomes on the wire, and the reader policy verifies it with
 * (crypto/: sk_sig_verify). No cryptography: the encoder runs where the
 * token helper's answer is assembled, which need not link libcrypto.
 *
 *   sk-ssh-ed25519@openssh.com:          string name; string sig (64);
 *                                        byte flags; uint32 counter
 *   sk-ecdsa-sha2-nistp256@openssh.com:  string name; string { mpint r;
 *                                        mpint s }; byte flags; uint32 counter
 */
#ifndef KEYWARD_SKSIG_H
#define KEYWARD_SKSIG_H

#include "ipc/buf.h"
#include "keys/sshkey.h"

#define SK_ED25519_SIG_LEN      64
#define SK_P256_SCALAR_LEN      32      /* r and s are below the group order */

struct sk_sig {
	enum sig_alg alg;               /* SIG_SK_ECDSA_P256 or SIG_SK_ED25519 */
	struct slice inner;             /* Ed25519: 64 bytes; ECDSA: the string */
	struct slice r, s;              /* ECDSA: magnitudes, leading zeros cut */
	uint8_t flags;                  /* SK_FLAG_* the authenticator asserted */
	uint32_t counter;
};

/* Append the signature blob for the middleware's answer to w: alg is
 * SK_ALG_ED25519 (sig_r the 64-byte signature, sig_s empty) or
 * SK_ALG_ECDSA_P256 (sig_r, sig_s big-endian, at most 32 significant
 * bytes, neither zero). -1, w unchanged in content, on anything else. */
int sk_sig_encode(struct wb *w, int alg, struct slice sig_r, struct slice sig_s,
    uint8_t flags, uint32_t counter);
/* Read a whole blob: a plain sk- name (never webauthn-, never -cert-),
 * the inner signature well formed for it, nothing after the counter. */
int sk_sig_parse(struct slice blob, struct sk_sig *s);

#endif
