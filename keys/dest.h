/*
 * dest.h - the restrict-destination-v00@openssh.com constraint (doc/protocol.md
 * §6.6): structure and every validation rule that needs no cryptography.
 * The monitor runs it to refuse garbage at the edge; policy runs it again
 * to build the identity's constraints (and then checks the keys fully).
 */
#ifndef KEYWARD_DEST_H
#define KEYWARD_DEST_H

#include "ipc/buf.h"

#define DEST_EXTENSION_NAME "restrict-destination-v00@openssh.com"

struct dest_hop {
	struct slice user;      /* empty: any user (to-hop) / none (from-hop) */
	struct slice host;      /* empty: origin (from-hop only) */
	struct slice keys;      /* repeat{ string key_blob; bool is_ca } */
	size_t nkeys;
};

struct dest_rule {
	struct dest_hop from, to;
};

/* Walk every key spec of a hop: fn(ctx, blob, is_ca); non-zero stops. */
int dest_hop_keys(const struct dest_hop *h,
    int (*fn)(void *ctx, struct slice blob, int is_ca), void *ctx);

/* Parse and validate a constraint_list (the string after the extension
 * name). fn, if given, sees each rule; a non-zero return fails the parse.
 * Returns the number of rules (at least 1) or -1 with *why set. */
int dest_parse(struct slice list,
    int (*fn)(void *ctx, const struct dest_rule *r), void *ctx, const char **why);

#endif
