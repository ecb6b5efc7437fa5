/*
 * listing.h - the answer to CONSTRAINTS_EXTENSION (wire/agent.h): every
 * identity with its constraints, written by policy (policy/extensions.c) and
 * read by keyward-ctl (ctl/listing.c) from whatever listens on
 * SSH_AUTH_SOCK, so the decoder trusts nothing in it.
 *
 * Reply: byte 29; string CONSTRAINTS_EXTENSION; then the body:
 *   uint32 n; n times {
 *     string key_blob; string comment; string fingerprint;
 *     uint32 seconds_left (LISTING_NO_LIFETIME: none); bool confirm;
 *     string provider (empty: none; a FIDO key's "internal" or library);
 *     byte added_over (LISTING_ADDED_*: where the ADD came from);
 *     string added_by (FORWARDED: the adding host's key fingerprint;
 *       else empty); string added_by_name (FORWARDED: a name the agent
 *       knows for that host key from a destination constraint, empty:
 *       none; else empty);
 *     uint32 nrules; nrules times { hop from; hop to } }
 *   hop: string user; string host; uint32 nkeys;
 *     nkeys times { string fingerprint; bool is_ca }
 * The body is what MSG_R_CONSTRAINTS carries from policy to the monitor.
 * Text strings hold no NUL and bools are 0 or 1, as the encoder writes
 * them: one encoding per listing, so decode and encode are inverses.
 */
#ifndef KEYWARD_LISTING_H
#define KEYWARD_LISTING_H

#include "ipc/buf.h"
#include "keys/sshkey.h"

#include <stddef.h>
#include <stdint.h>

#define LISTING_NO_LIFETIME 0xffffffffU

/* Where the ADD of a key came from (policy/origin.h). */
#define LISTING_ADDED_LOCAL     0       /* the user's own client */
#define LISTING_ADDED_FORWARDED 1       /* a forwarded host, named by its key */
#define LISTING_ADDED_UNKNOWN   2       /* forwarded from a host keyward
                                         * cannot name (a session-bind
                                         * failed, or none forwards) */

struct listing_key {
	struct slice fp;                /* fingerprint, as the agent hashes them */
	int is_ca;
};

struct listing_hop {
	struct slice user;              /* empty: any user (to-hops only) */
	struct slice host;              /* empty: the origin (from-hops only) */
	struct listing_key *keys;
	size_t nkeys;
};

struct listing_rule {
	struct listing_hop from, to;
};

struct listing_id {
	struct slice blob;              /* public key blob */
	struct pubkey pub;              /* blob parsed, by the decoder only */
	struct slice comment, fp;
	uint32_t seconds_left;          /* LISTING_NO_LIFETIME: none */
	int confirm;
	struct slice provider;          /* empty: none */
	int added_over;                 /* LISTING_ADDED_* */
	struct slice added_by;          /* FORWARDED: the host key's
	                                 * fingerprint; else empty */
	struct slice added_by_name;     /* FORWARDED: its known name, or empty */
	struct listing_rule *rules;     /* none: usable everywhere */
	size_t nrules;
};

/* Decoded, slices point into the body, which must outlive the list. */
struct listing {
	struct listing_id *ids;
	size_t n;
};

/* Append the body of l to w (w->err on overflow). */
void listing_encode(struct wb *w, const struct listing *l);
/* Decode a whole body from r into l (allocated; free with listing_free).
 * -1 with *why for the first thing wrong, l then empty: counts larger
 * than the bytes left could hold, a key blob that does not parse, an
 * added_over out of range or whose added_by strings do not fit it, a
 * from-hop that names a user, a to-hop without a host, trailing bytes. */
int listing_decode(struct rd *r, struct listing *l, const char **why);
/* Free what listing_decode allocated (or a list built the same way:
 * arrays from calloc, slices owned by someone else). */
void listing_free(struct listing *l);

#endif
