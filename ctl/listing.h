/*
 * listing.h - keyward-ctl's side of CONSTRAINTS_EXTENSION: the request, and
 * the reply around the body that wire/listing.h decodes (the frame
 * around it: wire/agent.h agent_ext_answer_open). The reply comes
 * from whatever listens on SSH_AUTH_SOCK, so nothing in it is trusted:
 * the whole frame is decoded and refused on the first error, trailing
 * bytes included.
 */
#ifndef KEYWARD_CTL_LISTING_H
#define KEYWARD_CTL_LISTING_H

#include "ipc/buf.h"
#include "wire/agent.h"
#include "wire/listing.h"

/* The request payload (type byte first), without the frame length. */
void listing_request(struct wb *w);
/* Decode one reply payload (type byte first) into l; slices point into
 * reply, which must outlive the list. */
enum ext_answer listing_reply_decode(struct slice reply,
    struct listing *l, const char **why);

#endif
