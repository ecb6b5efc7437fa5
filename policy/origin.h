/*
 * origin.h - where a connection's requests come from: the one answer that
 * the rules, destination constraints, management, the prompt and token
 * shares, the audit trail and remembered approvals all read.
 *
 * The first session-bind of a connection is made by the user's own ssh
 * before a forwarded client sends its first byte; later ones are the
 * server's claims. So the first binding is the anchor. When any bind is
 * refused -- a host key keyward cannot read, a bad signature, a session id
 * too long, too many bindings, a malformed message -- the anchor is lost
 * for good: the connection counts as forwarded from a host nobody can
 * name, and no later binding replaces it (doc/threat-model.md, "What a
 * refusal leaves behind"). A failure never leaves a connection less
 * restricted than before.
 */
#ifndef KEYWARD_ORIGIN_H
#define KEYWARD_ORIGIN_H

#include "ipc/buf.h"

#include <stdint.h>

struct conn;
struct bindings;

enum origin_kind {
	ORIGIN_LOCAL,           /* no session-bind, or only the user's ssh's
	                         * own authentication binding */
	ORIGIN_FORWARDED,       /* the first binding is a forwarding one made
	                         * by the user's ssh: host names that host */
	ORIGIN_UNKNOWN,         /* a session-bind was refused: forwarded from
	                         * a host keyward cannot name */
};

struct origin {
	enum origin_kind kind;
	struct slice host;      /* FORWARDED: the first binding's host key */
	uint32_t relay;         /* the peer's pid: the program carrying it */
};

/* The origin of bindings b on a connection whose peer is pid relay. */
void origin_of_bindings(const struct bindings *b, uint32_t relay,
    struct origin *o);
/* The origin of connection c (NULL: a local one, gone or never open). */
void conn_origin(const struct conn *c, struct origin *o);

/* Whether requests on c may come from another host: forwarded, or of an
 * unknown origin. */
int conn_forwarded(const struct conn *c);

/* Whether c is "remote" in OpenSSH's sense (doc/protocol.md §8.10): a
 * session-bind was attempted or made, a forwarding one or not. Wider than
 * conn_forwarded: the user's own ssh that bound its login counts too. It
 * decides only what OpenSSH's agent decides with it (loading a PKCS#11
 * provider); everything keyward adds reads the origin. */
int conn_remote(const struct conn *c);

/*
 * The bytes a per-origin share (prompts, token helpers, audit coalescing)
 * counts a connection under; empty for a local one. A known origin is its
 * host key; where there is none (a refused bind before any good one) the
 * relay carries the count, so a server cannot escape its share by making
 * its binds fail. The two never collide: a host key blob starts with a
 * zero byte, the relay's key with 'r'.
 */
void origin_share_key(const struct origin *o, struct wb *out);

#endif
