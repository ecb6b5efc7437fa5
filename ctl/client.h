/*
 * client.h - keyward-ctl's one way to ask the agent something.
 */
#ifndef KEYWARD_CTL_CLIENT_H
#define KEYWARD_CTL_CLIENT_H

#include "ipc/buf.h"

#include <stddef.h>
#include <stdint.h>

/* Exit statuses, as ssh-add -l has them, plus one for what it calls fatal. */
enum {
	EX_LISTED = 0,
	EX_NONE_OR_REFUSED = 1,     /* empty agent, or the agent said no */
	EX_NO_AGENT = 2,            /* nothing to connect to */
	EX_BAD = 255,               /* usage, or an answer we cannot trust */
};

/* A connection to the agent's socket at path; -1 (said on stderr) if
 * there is nothing to connect to. */
int agent_connect(const char *path);
/* One request (its payload in req) on fd, one reply frame into *reply
 * (malloc'd): EX_LISTED; EX_NONE_OR_REFUSED when the agent hung up
 * without a byte of answer (as keyward does to a peer it will not
 * serve); EX_BAD for a stalled agent or a malformed frame. */
int exchange(int fd, const struct wb *req, uint8_t **reply, size_t *len);
/* Connect to sock, exchange, close: EX_NO_AGENT where there is no agent. */
int agent_request(const char *sock, const struct wb *req, uint8_t **reply,
    size_t *len);
/* The same with the request build writes. */
int agent_request_built(const char *sock, void (*build)(struct wb *),
    uint8_t **reply, size_t *len);

#endif
