/*
 * whoisq.h - the connections waiting for keyward-peer's answer, as a pure
 * structure (no fd is read or written here; monitor/whois.c does that): a
 * FIFO of those not yet asked, each holding its pidfd, and the at most
 * PEER_MAX_QUEUE asked, by request id. A client that goes, or whose time
 * is up, is forgotten: its place in the FIFO is freed, and its request at
 * the inspector stays (it still counts against PEER_MAX_QUEUE) until the
 * answer comes, which is then discarded.
 */
#ifndef KEYWARD_MONITOR_WHOISQ_H
#define KEYWARD_MONITOR_WHOISQ_H

#include "ipc/limits.h"

#include <stddef.h>
#include <stdint.h>

enum whois_state {
	WHOIS_DONE = 0,           /* answered, timed out or never asked: serve it */
	WHOIS_WAITING,            /* in the FIFO, not yet asked */
	WHOIS_OUT,                /* asked: its request is at the inspector */
};

/* One per client (struct client holds it): while state is not WHOIS_DONE,
 * the client's requests are not dispatched. */
struct whois_item {
	struct whois_item *prev, *next;   /* the FIFO, while WHOIS_WAITING */
	uint32_t conn;
	uint32_t pid, uid;
	uint32_t req;                   /* WHOIS_OUT: its id at the inspector */
	int pidfd;                      /* WHOIS_WAITING: held, else -1 */
	int state;                      /* enum whois_state */
	uint64_t deadline;              /* monotonic ms: served anyway then */
};

struct whois_out {
	uint32_t req;                   /* 0: a free entry */
	struct whois_item *it;            /* NULL: its client went or timed out */
};

struct whoisq {
	struct whois_item *head, *tail;
	size_t nwait;                   /* in the FIFO */
	size_t nfds;                    /* pidfds the FIFO holds */
	struct whois_out out[PEER_MAX_QUEUE];
	size_t nout;                    /* entries of out[] in use */
	uint32_t next_req;
};

void whoisq_init(struct whoisq *q);
/* Queue it at the tail (state WHOIS_WAITING); pidfd may be -1. */
void whoisq_push(struct whoisq *q, struct whois_item *it, uint32_t conn,
    uint32_t pid, uint32_t uid, int pidfd, uint64_t deadline);
/* The FIFO's head if the inspector has room for one more, else NULL. */
struct whois_item *whoisq_next(const struct whoisq *q);
/* The id the next request sent will have. */
uint32_t whoisq_next_id(const struct whoisq *q);
/* The head was sent: out of the FIFO into out[], under a fresh request
 * id (returned; never 0). Its pidfd is the caller's to close (it->pidfd
 * is set to -1; the value is returned in *pidfd). */
uint32_t whoisq_sent(struct whoisq *q, int *pidfd);
/* An answer with id req came. 1 and *it (NULL if its client went or
 * timed out: discard it) if req was asked; 0 if it never was (the
 * inspector misbehaves). The entry is freed; *it, if any, is WHOIS_DONE. */
int whoisq_answer(struct whoisq *q, uint32_t req, struct whois_item **it);
/* Its client goes or its time is up: WHOIS_DONE; a pidfd it held is
 * returned (the caller closes it), else -1. */
int whoisq_forget(struct whoisq *q, struct whois_item *it);
/* The first item whose deadline is <= now, or NULL. */
struct whois_item *whoisq_expired(const struct whoisq *q, uint64_t now);
/* The earliest deadline of any item not WHOIS_DONE; UINT64_MAX if none. */
uint64_t whoisq_deadline(const struct whoisq *q);
/* The inspector is gone: forget everything, calling release(it, pidfd,
 * arg) for each item still waiting or asked (pidfd -1 if none), and
 * empty out[]. */
void whoisq_flush(struct whoisq *q, void (*release)(struct whois_item *, int, void *),
    void *arg);

#endif
