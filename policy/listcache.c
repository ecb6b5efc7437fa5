/*
 * listcache.c - the list answer lent to the monitor (listcache.h,
 * doc/design.md §8). What an unbound main-socket connection is listed
 * rests on the identity table alone (policy/keys.c h_list): id_visible
 * passes every key but a forwarded host's own (path_permitted permits
 * any path to a connection with no binding), in_scope every key on the
 * main socket, and the dispatcher answers every list with no keys while
 * the agent or the session is locked. So the answer is pushed only when
 * no key is hidden or cut and nothing locks, and it is stale as soon as
 * the table (ids.gen: a key comes, goes or is replaced), the next
 * lifetime's end, the rules or a lock changes.
 */
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "policy/audit.h"
#include "policy/dispatch.h"
#include "policy/listcache.h"
#include "policy/policy.h"

static struct policy *watched;

void
listcache_watch(struct policy *P)
{
	watched = P;
}

static int
stale(const struct policy *P)
{
	const struct listcache *lc = &P->lc;

	return lc->ids_gen != P->ids.gen || lc->rules_gen != P->rules_gen ||
	    lc->expiry_ms != P->next_expiry_ms || P->lock.locked ||
	    session_locks_agent(P);
}

void
listcache_check(struct policy *P)
{
	struct wb w;

	if (!P->lc.live || !stale(P))
		return;
	P->lc.live = 0;
	wb_init(&w);
	msg_begin(&w, MSG_LIST_STALE, 0, 0);
	if (chan_send(&P->mon, &w) != 0)
		peer_broke("monitor", "is gone while policy still needs it");
	wb_free(&w);
}

void
listcache_before_send(const struct chan *c)
{
	if (watched != NULL && c == &watched->mon)
		listcache_check(watched);
}

void
listcache_offer(struct policy *P, const struct conn *cn,
    const struct msg_identities *m, int whole)
{
	struct msg_list_cache lm;
	struct wb w;

	/* A connection whose answer is every other unbound one's: on the
	 * main socket, no session-bind attempted (a failed one restricts
	 * it for good, policy/origin.h). */
	if (P->lc.live || !whole || cn == NULL || cn->sock != 0 ||
	    cn->bind.attempted || cn->bind.failed || cn->bind.n != 0 ||
	    P->lock.locked || session_locks_agent(P))
		return;
	lm.gen = ++P->lc.gen;
	lm.until_ms = P->next_expiry_ms;
	lm.tell = P->audit_on;
	lm.ids = *m;
	wb_init(&w);
	msg_begin(&w, MSG_LIST_CACHE, 0, 0);
	msg_list_cache_encode(&w, &lm);
	if (chan_send(&P->mon, &w) != 0)
		peer_broke("monitor", "is gone while policy still needs it");
	wb_free(&w);
	P->lc.live = 1;
	P->lc.n = m->n;
	P->lc.ids_gen = P->ids.gen;
	P->lc.rules_gen = P->rules_gen;
	P->lc.expiry_ms = P->next_expiry_ms;
}

int
h_listed(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_listed m;
	struct audit_rec r = { "list", "allow", NULL, c->conn, NULL, SIG_NONE,
	    0, NULL, NULL };

	/* A generation not pushed yet, or the last one with another count,
	 * is not what the monitor was given. */
	if (msg_listed_decode(&c->r, &m) != 0 || m.gen > P->lc.gen ||
	    (m.gen == P->lc.gen && m.n != P->lc.n))
		return -1;
	r.count = m.n;
	audit_emit(P, &r, 0);
	return 0;
}
