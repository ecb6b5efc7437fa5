/*
 * client.h - one client connection: its input frames, its requests in
 * flight (answered by policy in any order) and its replies, released in
 * request order (spec §1.5).
 */
#ifndef KEYWARD_CLIENT_H
#define KEYWARD_CLIENT_H

#include "ipc/buf.h"
#include "ipc/limits.h"

#include <stdint.h>
#include <sys/types.h>

struct slot {
	uint32_t req;
	int done;
	struct wb reply;        /* client reply payload once done */
};

struct client {
	uint32_t id;
	int fd;
	uid_t uid;
	pid_t pid;
	uint8_t *in;            /* received bytes not yet framed */
	size_t inlen, incap;
	struct wb out;          /* framed replies not yet written */
	size_t outoff;
	struct slot slots[AGENT_MAX_INFLIGHT];
	unsigned head, count;
};

struct client *client_new(int fd, uint32_t id, uid_t uid, pid_t pid);
/* Wipes every buffer (an ADD carries a private key) and closes the fd. */
void client_free(struct client *c);
/* Read what is there. 1 ok, 0 EOF or error (close the client). */
int client_read(struct client *c);
/* Next complete frame: 1 and (p, len) set, 0 if none yet, -1 if the frame
 * is broken (zero-length or over AGENT_MAX_FRAME): close without reply. */
int client_frame(struct client *c, const uint8_t **p, size_t *len);
/* Drop the frame just handled, wiping its bytes. */
void client_consume(struct client *c, size_t len);
/* Reserve the next reply slot for request req. NULL if the pipeline is full. */
struct slot *client_slot(struct client *c, uint32_t req);
struct slot *client_find_slot(struct client *c, uint32_t req);
/* Move finished replies, in order, to the output and write what we can.
 * 0 ok, -1 on a write error (close the client). */
int client_flush(struct client *c);
/* poll events this client wants now (back-pressure included). */
short client_events(const struct client *c);

#endif
