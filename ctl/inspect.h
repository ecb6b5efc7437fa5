/*
 * inspect.h - keyward-ctl's decoder of the INSPECT_EXTENSION reply
 * (ipc/msg.h). The reply comes from whatever listens on SSH_AUTH_SOCK, so
 * nothing in it is trusted: the whole frame is decoded with struct rd and
 * refused on the first error, trailing bytes included.
 */
#ifndef KEYWARD_CTL_INSPECT_H
#define KEYWARD_CTL_INSPECT_H

#include "ipc/buf.h"
#include "ipc/sshkey.h"

#include <stddef.h>
#include <stdint.h>

struct inspect_key {
	struct slice fp;                /* fingerprint, as the agent hashes them */
	int is_ca;
};

struct inspect_hop {
	struct slice user;              /* empty: any user (to-hops only) */
	struct slice host;              /* empty: the origin (from-hops only) */
	struct inspect_key *keys;
	size_t nkeys;
};

struct inspect_rule {
	struct inspect_hop from, to;
};

struct inspect_id {
	struct pubkey pub;              /* parsed key blob: type and bits */
	struct slice comment, fp;
	uint32_t seconds_left;          /* INSPECT_NO_LIFETIME: none */
	int confirm;
	struct inspect_rule *rules;     /* none: usable everywhere */
	size_t nrules;
};

/* Slices point into the reply, which must outlive the list. */
struct inspect_list {
	struct inspect_id *ids;
	size_t n;
};

enum inspect_answer {
	INSPECT_LISTED,                 /* SSH_AGENT_EXTENSION_RESPONSE, decoded */
	INSPECT_REFUSED,                /* SSH_AGENT_EXTENSION_FAILURE (forwarded) */
	INSPECT_UNSUPPORTED,            /* SSH_AGENT_FAILURE */
	INSPECT_MALFORMED,              /* anything else; *why says what */
};

/* The request payload (type byte first), without the frame length. */
void inspect_request(struct wb *w);
/* Decode one reply payload (type byte first) into l. */
enum inspect_answer inspect_decode(struct slice reply, struct inspect_list *l,
    const char **why);
void inspect_free(struct inspect_list *l);

#endif
