/*
 * constraints.h - keyward-ctl's side of INSPECT_EXTENSION: the request, and
 * the reply around the body that wire/constraints.h decodes. The reply comes
 * from whatever listens on SSH_AUTH_SOCK, so nothing in it is trusted:
 * the whole frame is decoded and refused on the first error, trailing
 * bytes included.
 */
#ifndef KEYWARD_CTL_INSPECT_H
#define KEYWARD_CTL_INSPECT_H

#include "ipc/buf.h"
#include "wire/constraints.h"

enum inspect_answer {
	INSPECT_LISTED,                 /* SSH_AGENT_EXTENSION_RESPONSE, decoded */
	INSPECT_REFUSED,                /* SSH_AGENT_EXTENSION_FAILURE (forwarded) */
	INSPECT_UNSUPPORTED,            /* SSH_AGENT_FAILURE */
	INSPECT_MALFORMED,              /* anything else; *why says what */
};

/* Open one extension reply payload (type byte first): for
 * INSPECT_LISTED, *body is what follows the name, which must be name;
 * SSH_AGENT_SUCCESS (a "load" answered) is INSPECT_LISTED with an empty
 * body when ok_alone. */
enum inspect_answer ext_reply_open(struct slice reply, const char *name,
    int ok_alone, struct rd *body, const char **why);
/* The request payload (type byte first), without the frame length. */
void inspect_request(struct wb *w);
/* Decode one reply payload (type byte first) into l; slices point into
 * reply, which must outlive the list. */
enum inspect_answer inspect_reply_decode(struct slice reply,
    struct inspect_list *l, const char **why);

#endif
