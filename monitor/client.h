/*
 * client.h - one client connection: its input frames, its requests in
 * flight (answered by policy in any order) and its replies, released in
 * request order (doc/protocol.md §1.5). What a client holds is bounded: an inline
 * input buffer, a larger one only when the monitor grants it (one frame,
 * from an agent-wide budget), AGENT_MAX_INFLIGHT replies, and one batch
 * of replies being written.
 */
#ifndef KEYWARD_CLIENT_H
#define KEYWARD_CLIENT_H

#include "ipc/buf.h"
#include "ipc/limits.h"
#include "monitor/whoisq.h"

#include <stdint.h>
#include <sys/types.h>

struct slot {
	uint32_t req;
	int done;
	int fence;              /* later requests wait for this one's reply */
	struct wb reply;        /* client reply payload once done */
};

struct client {
	uint32_t id;
	int fd;
	uid_t uid;
	pid_t pid;
	uint32_t sock;          /* the socket it came in on: 0 the main one */
	int bind_tried;         /* a session-bind went to policy, good or
	                         * bad: never the list answer (listcache.h) */
	uint8_t *in;            /* received bytes not yet framed: inline or big */
	size_t inlen, incap;
	uint8_t *big;           /* granted for one large frame, else NULL */
	struct wb out;          /* framed replies not yet written */
	size_t outoff;
	struct slot slots[AGENT_MAX_INFLIGHT];
	unsigned head, count;   /* slots in flight or waiting to be written */
	unsigned fences;        /* fence slots not yet done */
	int dead;               /* to be closed at the next sweep */
	uint64_t last_ms;       /* last byte read or written */
	uint64_t frame_ms;      /* first byte of the partial frame in in[]
	                         * came then (CLIENT_FRAME_MS) */
	struct whois_item whois; /* not WHOIS_DONE: policy does not know the
	                         * caller yet; nothing is dispatched (whois.c) */
	size_t inline_hw;       /* inline_in bytes ever written: a wipe of it
	                         * covers those, and the pages never touched
	                         * stay unmapped (client_new) */
	uint8_t inline_in[CLIENT_INLINE_IN];    /* last: see client_new */
};

struct client *client_new(int fd, uint32_t id, uid_t uid, pid_t pid);
/* Wipes every buffer (an ADD carries a private key) and closes the fd. */
void client_free(struct client *c);
/* Read what there is room for. 1 ok, 0 EOF or error (close the client). */
int client_read(struct client *c);
/* Next complete frame: 1 and (p, len) set, 0 if none yet, -1 if the frame
 * is broken (zero-length or over AGENT_MAX_FRAME): close without reply. */
int client_frame(struct client *c, const uint8_t **p, size_t *len);
/* Bytes of buffer the frame at the head needs beyond the inline buffer
 * (0 when it fits, or when its length is not known yet). */
size_t client_need(const struct client *c);
/* Give the client a buffer of client_need() bytes. 0 ok, -1 no memory. */
int client_grow(struct client *c);
/* Drop the frame just handled, wiping its bytes; back to the inline
 * buffer when what is left fits. */
void client_consume(struct client *c, size_t len);
/* Reserve the next reply slot for request req. NULL if the pipeline is full. */
struct slot *client_slot(struct client *c, uint32_t req);
struct slot *client_find_slot(struct client *c, uint32_t req);
/* Mark slot s answered (its reply already in s->reply). */
void client_done(struct client *c, struct slot *s);
/* Write what is pending; when nothing is, move the finished replies, in
 * order, to the output first. 0 ok, -1 on a write error (close it). */
int client_flush(struct client *c, uint64_t now_ms);
/* Unsent reply bytes (the client is not reading). */
size_t client_unsent(const struct client *c);
/* Bytes this client holds beyond its fixed size: large input buffer,
 * replies waiting, output. */
size_t client_held(const struct client *c);
/* poll events this client wants now (back-pressure included). */
short client_events(const struct client *c);

#endif
