/*
 * listcache.h - the list answer policy gives the monitor to serve
 * REQUEST_IDENTITIES with, in one hop, where the answer cannot depend on
 * who asks (doc/design.md §8). Policy decides what it holds and when it
 * goes; the monitor only keeps it and says which connection got it.
 */
#ifndef KEYWARD_LISTCACHE_H
#define KEYWARD_LISTCACHE_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stddef.h>
#include <stdint.h>

struct client;
struct slot;

struct listcache {
	int live;               /* policy's answer is held, not yet stale */
	uint64_t gen;           /* its generation: the last one taken */
	uint64_t until_ms;      /* CLOCK_BOOTTIME it ends at (a key's
	                         * lifetime); 0: none */
	uint32_t n;             /* identities in it */
	int tell;               /* tell policy each list it answers */
	struct wb reply;        /* the client's answer, whole */
};

/* A datagram from policy that answers no request: 1 if it was the list
 * answer or its end (taken), 0 if it is not one of them. A malformed
 * one ends the monitor as a sibling that broke. */
int listcache_from_policy(const struct msg_hdr *h, struct rd *r);
/* Answer request (p, len) of client c in slot s from the list answer
 * held, and tell policy which answer c got: 1 if answered, 0 if it must
 * go to policy. */
int listcache_answer(struct client *c, const uint8_t *p, size_t len,
    struct slot *s);

#endif
