/*
 * reply.c - how policy answers: every message it sends goes through
 * send_to, and a sibling that is gone while policy still needs it ends
 * policy (doc/design.md §4, "A sibling that breaks"): its requests could
 * no longer be answered or its keys reached.
 */
#include "wire/agent.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "policy/dispatch.h"

void
send_to(struct chan *c, struct wb *w, const char *peer)
{
	listcache_before_send(c);       /* a stale list answer goes first */
	if (chan_send(c, w) != 0)
		peer_broke(peer, "is gone while policy still needs it");
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
