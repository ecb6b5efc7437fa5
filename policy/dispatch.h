/*
 * dispatch.h - what a handler of a monitor request gets, and every
 * handler (one file per idea: conn.c, keys.c, sign.c, lock.c,
 * extensions.c, add.c, p11.c). The table in dispatch.c says which of them may run when.
 */
#ifndef KEYWARD_DISPATCH_H
#define KEYWARD_DISPATCH_H

#include "policy/policy.h"

struct ctx {
	struct policy *P;
	struct msg_hdr h;
	struct rd r;            /* the payload, decoded again from scratch */
	struct conn *conn;      /* NULL for the monitor's own requests (conn 0) */
	int barrier;            /* its row is F_BARRIER (dispatch.c): the
	                         * requests pending_new makes from it are */
};

/* Handlers return -1 when the payload does not decode (the dispatcher
 * then refuses it), else 0 once they have answered or taken the request
 * on (a pending request answers later). */
void ctx_reply(struct ctx *c, uint8_t st);

int h_open(struct ctx *c);
int h_close(struct ctx *c);
int h_bind(struct ctx *c);
int h_bind_bad(struct ctx *c);
int h_peer(struct ctx *c);
int h_list(struct ctx *c);
int h_add(struct ctx *c);
int h_remove(struct ctx *c);
int h_remove_all(struct ctx *c);
int h_sign(struct ctx *c);
int h_lock(struct ctx *c);
int h_unlock(struct ctx *c);
int h_query(struct ctx *c);
int h_constraints(struct ctx *c);
int h_conns(struct ctx *c);
int h_policy_show(struct ctx *c);
int h_p11_add(struct ctx *c);
int h_p11_remove(struct ctx *c);

#endif
