/*
 * constraints.c - the INSPECT_EXTENSION request, and the reply around its
 * body: the agent's answer type and the extension's name, then the body
 * for wire/constraints.c to decode (policy/inspect.c encodes it).
 */
#include "ctl/constraints.h"
#include "wire/agent.h"

#include <string.h>


void
inspect_request(struct wb *w)
{
	agent_ext_request(w, INSPECT_EXTENSION);
}

enum ext_answer
inspect_reply_decode(struct slice reply, struct inspect_list *l,
    const char **why)
{
	enum ext_answer a;
	struct rd r;

	memset(l, 0, sizeof(*l));
	if ((a = agent_ext_answer_open(reply, INSPECT_EXTENSION, 0, &r, why)) !=
	    EXT_ANSWERED)
		return a;
	if (inspect_decode(&r, l, why) != 0)
		return EXT_MALFORMED;
	return EXT_ANSWERED;
}
