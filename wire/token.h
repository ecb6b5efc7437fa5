/*
 * token.h - the one request policy sends a token helper (keyward-sk) and
 * the one reply it gets back, each a single SOCK_SEQPACKET datagram of SSH
 * wire types. Encoder and decoder of each side by side; decoders refuse
 * trailing bytes and anything outside ipc/limits.h's TOKEN_* bounds.
 * Slices in decoded messages point into the datagram. The request carries
 * a key handle and maybe a PIN: whoever holds its buffer wipes it.
 *
 * request: byte TOKEN_MSG_SIGN; uint32 alg; string application;
 *          byte flags; string key_handle; string data; string pin
 * reply:   byte TOKEN_MSG_REPLY; uint32 status (two's complement);
 *          byte flags; uint32 counter; string sig_r; string sig_s
 */
#ifndef KEYWARD_TOKEN_H
#define KEYWARD_TOKEN_H

#include "ipc/buf.h"

#include <stdint.h>

#define TOKEN_MSG_SIGN          1
#define TOKEN_MSG_REPLY         2

/* Algorithms and errors of the SecurityKeyProvider interface. */
#define TOKEN_ALG_ECDSA         0x00    /* P-256 */
#define TOKEN_ALG_ED25519       0x01

#define TOKEN_OK                0
#define TOKEN_ERR_GENERAL       -1
#define TOKEN_ERR_UNSUPPORTED   -2
#define TOKEN_ERR_PIN_REQUIRED  -3
#define TOKEN_ERR_NO_DEVICE     -4
#define TOKEN_ERR_CRED_EXISTS   -5

struct token_req {
	uint32_t alg;
	struct slice application;       /* text: no NUL, not empty */
	uint8_t flags;
	struct slice key_handle;        /* secret: not empty */
	struct slice data;
	struct slice pin;               /* secret; empty: no PIN; no NUL */
};

struct token_reply {
	int32_t status;                 /* TOKEN_OK or a TOKEN_ERR_* */
	uint8_t flags;
	uint32_t counter;
	struct slice sig_r;             /* Ed25519: the signature; P-256: r */
	struct slice sig_s;             /* Ed25519: empty; P-256: s */
};

void token_req_encode(struct wb *w, const struct token_req *m);
int token_req_decode(struct rd *r, struct token_req *m);

/* A failure carries no flags, counter or signature; a success carries
 * the parts alg's signature has (the decoder is told which alg it asked
 * for). An error the middleware made up is sent as TOKEN_ERR_GENERAL. */
void token_reply_encode(struct wb *w, const struct token_reply *m);
int token_reply_decode(struct rd *r, uint32_t alg, struct token_reply *m);

/* A middleware's return code as the reply carries it. */
int32_t token_status(int rc);

#endif
