/*
 * reply.c - how policy answers: every message it sends goes through
 * send_to, and a sibling that is gone ends policy (its requests could no
 * longer be answered or its keys reached).
 */
#include "wire/agent.h"
#include "ipc/log.h"
#include "policy/dispatch.h"

void
send_to(struct chan *c, struct wb *w, const char *peer)
{
	if (chan_send(c, w) != 0)
		fatal("%s is gone; shutting down", peer);
}

void
reply_status(struct policy *P, uint32_t conn, uint32_t req, uint8_t st)
{
	msg_status_reply(&P->out, req, conn, st);
	send_to(&P->mon, &P->out, "monitor");
}

void
ctx_reply(struct ctx *c, uint8_t st)
{
	reply_status(c->P, c->h.conn, c->h.req, st);
}
