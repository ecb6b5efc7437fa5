/*
 * conns.h - the answer to CONNS_EXTENSION (wire/agent.h): the agent's open
 * connections, who is at their other end (policy/caller.h) and the
 * session-bind hops each made. Written by policy (policy/extensions.c), read
 * by keyward-ctl from whatever listens on SSH_AUTH_SOCK: the decoder
 * trusts nothing, and every string in it (a caller's executable, command
 * line, ancestors) is text a client chose.
 *
 * Reply: byte 29; string CONNS_EXTENSION; then the body:
 *   uint32 total (connections open; more than n when the listing was cut
 *     at CONNS_MAX_BODY); uint32 n; n times {
 *     uint32 id; uint32 uid; uint32 pid;
 *     uint32 status (PEER_*, wire/peer.h);
 *     string exe; string cmdline (both empty unless status is PEER_OK or
 *       PEER_NOPIDFD);
 *     uint32 nanc (<= PEER_MAX_ANCESTORS); nanc times {
 *       uint32 pid; string exe; string argv0 };
 *     bool bind_attempted;
 *     uint32 nhops (<= AGENT_MAX_BINDINGS); nhops times {
 *       string fingerprint (of the host key); string host (empty: no
 *       loaded key's destination constraints name it); bool forwarding };
 *     string socket (the name of the socket it came in on: "main" or one
 *       the rules declare, 1 to SOCKET_NAME_MAX bytes) }
 * The body is what MSG_R_CONNS carries from policy to the monitor. Text
 * holds no NUL, bools are 0 or 1, lengths are within the limits of
 * ipc/limits.h: one encoding per listing, so decode and encode are
 * inverses.
 */
#ifndef KEYWARD_CONNS_H
#define KEYWARD_CONNS_H

#include "ipc/buf.h"

#include <stddef.h>
#include <stdint.h>

struct conns_anc {
	uint32_t pid;
	struct slice exe, argv0;
};

struct conns_hop {
	struct slice fp;                /* host key fingerprint */
	struct slice host;              /* empty: unnamed */
	int forwarding;
};

struct conns_conn {
	uint32_t id, uid, pid, status;
	struct slice exe, cmdline;
	struct conns_anc *anc;
	size_t nanc;
	int bind_attempted;
	struct conns_hop *hops;
	size_t nhops;
	struct slice socket;            /* its socket's name */
};

/* Decoded, slices point into the body, which must outlive the list. */
struct conns_list {
	uint32_t total;
	struct conns_conn *c;
	size_t n;
};

/* Append the header (total, n) of a body to w: the caller then appends n
 * connections with conns_encode_one. */
void conns_encode_head(struct wb *w, uint32_t total, uint32_t n);
/* Append one connection to w (w->err on overflow or a field past its
 * limit: the encoder never writes what the decoder would refuse). */
void conns_encode_one(struct wb *w, const struct conns_conn *c);
/* Decode a whole body from r into l (allocated; free with conns_free).
 * -1 with *why for the first thing wrong, l then empty. */
int conns_decode(struct rd *r, struct conns_list *l, const char **why);
void conns_free(struct conns_list *l);

#endif
