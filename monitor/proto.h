/*
 * proto.h - the agent protocol as the monitor sees it: one client request
 * in, one typed IPC message out (or an immediate refusal); one typed IPC
 * reply in, one client frame out.
 */
#ifndef KEYWARD_PROTO_H
#define KEYWARD_PROTO_H

#include "wire/agent.h"
#include "ipc/buf.h"
#include "wire/monitor.h"

/* Turn one client request payload (type byte first) into an IPC message
 * for policy in ipc (header already begun by the caller is replaced).
 * Returns 1 if ipc holds a message to forward, or 0 when the request is
 * refused here, with the client reply payload written to reply. */
int proto_request(const uint8_t *p, size_t len, uint32_t req, uint32_t conn,
    struct wb *ipc, struct wb *reply);
/* What the monitor's loop must know of a request type before it is
 * parsed (clients.c): */
enum {
	PROTO_ADD = 1 << 0,     /* adds keys: counts against MONITOR_MAX_ADDS */
	PROTO_FENCE = 1 << 1,   /* lock, unlock: the connection's later
	                         * requests wait for its answer (doc/protocol.md §5.8) */
};
/* The PROTO_* flags of a request type (0 for one the parser refuses). */
unsigned proto_flags(uint8_t type);
/* Turn a policy reply datagram into the client reply payload. -1 if the
 * reply is malformed (an invariant: policy is trusted to be well-formed). */
int proto_reply(const struct msg_hdr *h, struct rd *payload, struct wb *reply);

#endif
