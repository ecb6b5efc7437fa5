/*
 * listing.c - the CONSTRAINTS_EXTENSION request, and the reply around its
 * body: the agent's answer type and the extension's name, then the body
 * for wire/listing.c to decode (policy/extensions.c encodes it).
 */
#include "ctl/listing.h"
#include "wire/agent.h"

#include <string.h>


void
listing_request(struct wb *w)
{
	agent_ext_request(w, CONSTRAINTS_EXTENSION);
}

enum ext_answer
listing_reply_decode(struct slice reply, struct listing *l,
    const char **why)
{
	enum ext_answer a;
	struct rd r;

	memset(l, 0, sizeof(*l));
	if ((a = agent_ext_answer_open(reply, CONSTRAINTS_EXTENSION, 0, &r, why)) !=
	    EXT_ANSWERED)
		return a;
	if (listing_decode(&r, l, why) != 0)
		return EXT_MALFORMED;
	return EXT_ANSWERED;
}
