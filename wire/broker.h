/*
 * broker.h - the messages between policy and the broker (wire/msg.h for
 * the header and MSG_R_STATUS), which resolves provider paths and runs the
 * token helpers: their requests and replies travel inside these as the
 * helpers' own bytes (wire/token.h, wire/pkcs11.h).
 */
#ifndef KEYWARD_WIRE_BROKER_H
#define KEYWARD_WIRE_BROKER_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stdint.h>

enum {
	/* policy -> broker */
	MSG_TK_RESOLVE = 96,    /* msg_tk_resolve_*: a provider path, to realpath */
	MSG_TK_SIGN,            /* msg_tk_sign: one signature by one token helper */
	MSG_TK_CANCEL,          /* no payload; req: that of the MSG_TK_SIGN */
	MSG_TK_P11_START,       /* msg_tk_sign: start a provider's keyward-pkcs11
	                         * with its LOGIN request (wire/pkcs11.h) */
	MSG_TK_P11_SIGN,        /* msg_tk_sign: a SIGN request for its helper */
	MSG_TK_P11_STOP,        /* msg_tk_p11_stop_*; req 0, no answer */
	/* broker -> policy, besides MSG_R_STATUS */
	MSG_R_PATH = 71,        /* msg_path_*: the resolved provider path */
	MSG_R_TOKEN = 72,       /* msg_token_*: the token helper's reply */
	MSG_R_TOKEN_FAIL = 73,  /* msg_tk_fail: no reply from a token helper */
	MSG_R_P11_GONE = 74,    /* msg_p11_gone_*; req 0, unasked */
};

struct msg_tk_sign { struct slice provider, request; };
/* Why the broker has no helper's reply for a MSG_TK_SIGN. */
enum tk_fail {
	TK_BUSY = 1,            /* TOKEN_MAX_HELPERS are running */
	TK_START,               /* the helper could not be started */
	TK_TIMEOUT,             /* no answer in the touch timeout */
	TK_DIED,                /* it ended without an answer */
	TK_CANCELLED,           /* policy cancelled it (the client went away) */
	TK_FAIL_MAX = TK_CANCELLED,
};
struct msg_tk_fail { uint8_t why; };

void msg_tk_sign_encode(struct wb *w, const struct msg_tk_sign *m);
int msg_tk_sign_decode(struct rd *r, struct msg_tk_sign *m);
void msg_tk_fail_encode(struct wb *w, const struct msg_tk_fail *m);
int msg_tk_fail_decode(struct rd *r, struct msg_tk_fail *m);

/* MSG_TK_RESOLVE: a provider path as the client named it. */
void msg_tk_resolve_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice provider);
/* MSG_TK_P11_STOP: the provider whose helper to end. */
void msg_tk_p11_stop_write(struct wb *w, struct slice provider);
/* MSG_R_PATH: the provider path, resolved. */
void msg_path_write(struct wb *w, uint32_t req, struct slice path);
/* MSG_R_TOKEN: a token helper's reply, as it came. */
void msg_token_write(struct wb *w, uint32_t req, struct slice reply);
/* MSG_R_P11_GONE: a provider whose helper ended. */
void msg_p11_gone_write(struct wb *w, struct slice provider);

#endif
