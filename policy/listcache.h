/*
 * listcache.h - the list answer policy lends the monitor (doc/design.md
 * §8): REQUEST_IDENTITIES on a connection that has attempted no
 * session-bind, on the main socket, gets one answer whoever asks, so
 * where policy can show that (no key a forwarded host added, no list
 * cut, not locked) it pushes that answer, and takes it back before any
 * reply that follows a change of what it was made from.
 */
#ifndef KEYWARD_POLICY_LISTCACHE_H
#define KEYWARD_POLICY_LISTCACHE_H

#include "ipc/chan.h"
#include "wire/monitor.h"

#include <stdint.h>

struct policy;
struct conn;
struct ctx;

struct listcache {
	int live;               /* the monitor holds it */
	uint64_t gen;           /* the last generation pushed */
	uint32_t n;             /* its identities */
	/* what it was made from: any change makes it stale */
	uint64_t ids_gen, rules_gen, expiry_ms;
};

/* Policy's one state: the send hook below checks it. */
void listcache_watch(struct policy *P);
/* Before anything goes to the monitor on c, and once each loop: if the
 * answer the monitor holds is stale, MSG_LIST_STALE first. */
void listcache_before_send(const struct chan *c);
void listcache_check(struct policy *P);
/* h_list answered cn with m; whole: nothing hidden, nothing cut. If
 * that is every unbound main-socket connection's answer and the monitor
 * holds none, push it. */
void listcache_offer(struct policy *P, const struct conn *cn,
    const struct msg_identities *m, int whole);
/* MSG_LISTED: the record h_list writes, for the answer the monitor gave. */
int h_listed(struct ctx *c);

#endif
