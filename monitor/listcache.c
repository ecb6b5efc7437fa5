/*
 * listcache.c - REQUEST_IDENTITIES answered without asking policy, from
 * the answer policy pushed (listcache.h). Policy pushes it only when it
 * is the answer of every connection that has made no session-bind
 * attempt on the main socket, and sends MSG_LIST_STALE before any reply
 * that follows a change, on the same ordered channel; a key's lifetime
 * ends it here by the clock, as policy would at its next message. The
 * audit record stays policy's: with an audit trail on, MSG_LISTED names
 * the connection and the generation it got, and policy writes the
 * record a list there writes.
 */
#include "ipc/clock.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "wire/agent.h"
#include "wire/monitor.h"
#include "monitor/listcache.h"
#include "monitor/monitor.h"

#include <time.h>

int
listcache_from_policy(const struct msg_hdr *h, struct rd *r)
{
	struct listcache *lc = &M.lc;
	struct msg_list_cache m;

	if (h->type == MSG_LIST_STALE) {
		if (h->req != 0 || h->conn != 0 || msg_empty_decode(r) != 0)
			peer_broke("keyward-policy", "a malformed end of the list "
			    "answer");
		lc->live = 0;
		wb_reset(&lc->reply);
		return 1;
	}
	if (h->type != MSG_LIST_CACHE)
		return 0;
	/* Generations only rise: an old one again is no answer policy
	 * could have meant. */
	if (h->req != 0 || h->conn != 0 || msg_list_cache_decode(r, &m) != 0 ||
	    m.gen <= lc->gen)
		peer_broke("keyward-policy", "a malformed list answer");
	wb_reset(&lc->reply);
	agent_identities_answer(&lc->reply, m.ids.n, m.ids.entries);
	if (lc->reply.err)
		fatal("out of memory");
	lc->gen = m.gen;
	lc->until_ms = m.until_ms;
	lc->n = m.ids.n;
	lc->tell = m.tell;
	lc->live = 1;
	return 1;
}

/* Is every request c sent before the one in slot s answered? A list
 * answered here must not overtake a remove still at policy on its own
 * connection. */
static int
nothing_at_policy(const struct client *c, const struct slot *s)
{
	for (unsigned i = 0; i < c->count; i++) {
		const struct slot *o = &c->slots[(c->head + i) % AGENT_MAX_INFLIGHT];
		if (o != s && !o->done)
			return 0;
	}
	return 1;
}

int
listcache_answer(struct client *c, const uint8_t *p, size_t len,
    struct slot *s)
{
	const struct listcache *lc = &M.lc;
	struct msg_listed m;

	/* The answer is every unbound main-socket connection's: a
	 * session-bind attempted, good or bad, or a named socket, and
	 * policy judges the list as today. */
	if (len != 1 || p[0] != SSH2_AGENTC_REQUEST_IDENTITIES || !lc->live ||
	    c->bind_tried || c->sock != 0 || !nothing_at_policy(c, s))
		return 0;
	if (lc->until_ms != 0 && clock_ms(CLOCK_BOOTTIME) >= lc->until_ms)
		return 0;
	wb_bytes(&s->reply, lc->reply.p, lc->reply.len);
	if (s->reply.err)
		return 0;               /* policy answers it instead */
	log_debug("connection %u: list answered from policy's list answer %llu",
	    c->id, (unsigned long long)lc->gen);
	if (!lc->tell)
		return 1;               /* no audit trail: nothing to record */
	m.gen = lc->gen;
	m.n = lc->n;
	msg_begin(&M.ipc, MSG_LISTED, 0, c->id);
	msg_listed_encode(&M.ipc, &m);
	monitor_send(&M.ipc);
	return 1;
}
