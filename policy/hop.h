/*
 * hop.h - destination constraints and the decision procedure of doc/protocol.md §8,
 * with doc/protocol.md's names: hop_matches, hop_permitted, path_permitted
 * (wmatch, doc/protocol.md §8.1, is rules/match.h's). Pure functions of their arguments
 * (and the clock for certificate validity), so unit tests can walk every
 * clause.
 */
#ifndef KEYWARD_HOP_H
#define KEYWARD_HOP_H

#include "ipc/buf.h"
#include "ipc/limits.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct hopkey {
	uint8_t *blob;          /* canonical public blob */
	size_t len;
	int is_ca;
};

struct hop {
	char *user;             /* NULL: none given (any user) */
	char *host;             /* NULL: the origin (from-hops only) */
	struct hopkey *keys;
	size_t nkeys;
};

struct dconstraint {
	struct hop from, to;
};

struct dest_set {
	struct dconstraint *c;
	size_t n;
};

struct binding {
	uint8_t *key;           /* canonical host key blob (certificates whole) */
	size_t keylen;
	uint8_t sid[AGENT_MAX_SESSION_ID];
	size_t sidlen;
	int forwarding;
};

struct bindings {
	struct binding b[AGENT_MAX_BINDINGS];
	size_t n;
	int attempted;          /* a session-bind was seen, good or bad */
	int failed;             /* one was refused: the connection's origin is
	                         * unknown for good and no later binding is
	                         * taken (policy/origin.h) */
};

/* The verdict of path_permitted, for the log: which hop failed and why. */
struct verdict {
	size_t hop;             /* index of the binding that failed */
	const char *rule;       /* in words a user can act on */
};

/* doc/protocol.md §8.1, wmatch: rules/match.h (one matcher for the whole agent). */
/* doc/protocol.md §8.2: does host key K (canonical blob, plain or certificate) match h? */
int hop_matches(struct slice K, const struct hop *h, time_t now);
/* doc/protocol.md §8.3: prev NULL = ORIGIN; K.p NULL = ANY; user NULL = ANY. The index of
 * the constraint that permitted the hop goes to *which if given. */
int hop_permitted(const struct dest_set *I, const struct slice *prev,
    struct slice K, const char *user, time_t now, size_t *which);
/* doc/protocol.md §8.4: 1 if permitted, else 0 with *v filled in. */
int path_permitted(const struct dest_set *I, const struct bindings *C,
    const char *user, time_t now, struct verdict *v);

/* doc/protocol.md §8.6 step 3, the checks a sign request with a constrained key must
 * pass: bound connection, data that is a login with this key (its
 * purpose, decided once: purpose.h), path_permitted for its user, session
 * id and host key of the last binding, hostbound after a forwarding hop.
 * NULL if it may sign, else the rule that failed, with the failing hop
 * and the request's user (for the log). */
struct purpose;
const char *sign_permitted(const struct dest_set *I, const struct bindings *C,
    const struct purpose *pu, time_t now, size_t *hop, char *user, size_t ulen);

/* doc/protocol.md §8.6 steps 3.4-3.6: is the login pu for the last host the connection
 * is bound to? NULL if so, else why not. */
const char *login_bound(const struct bindings *b, const struct purpose *pu);

/* doc/protocol.md §7.2 steps 2-7 (the caller sets attempted first, and failed when this
 * refuses): verify and append a session-bind. NULL on success (a
 * duplicate adds nothing), else why. After a refusal every later bind is
 * refused too: the first binding is the anchor of every decision, and a
 * server that made the user's own bind fail must not supply its own. */
const char *bind_add(struct bindings *C, struct slice hostkey,
    struct slice session_id, struct slice signature, int forwarding);
/* One session-bind as a connection takes it: attempted, then bind_add;
 * a refusal marks the connection failed for good (origin.h). */
const char *bind_session(struct bindings *C, struct slice hostkey,
    struct slice session_id, struct slice signature, int forwarding);
/* A session-bind that did not even decode: refused, failed for good. */
void bind_refused(struct bindings *C);
void bindings_free(struct bindings *C);

/* destset.c: build a dest_set from a constraint_list (checked again by
 * keys/dest.c); the host keys are fully decoded (certificates verified,
 * points checked) and kept canonical. -1 with *why on failure. */
int dest_set_build(struct dest_set *d, struct slice list, const char **why);
void dest_set_free(struct dest_set *d);
/* The name a constraint gives to host key K, or NULL. */
const char *dest_host_name(const struct dest_set *d, struct slice K, time_t now);

#endif
