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
	wb_u8(w, SSH_AGENTC_EXTENSION);
	wb_cstring(w, INSPECT_EXTENSION);
}

enum inspect_answer
ext_reply_open(struct slice reply, const char *name, int ok_alone,
    struct rd *r, const char **why)
{
	struct slice got;
	uint8_t type;

	*why = NULL;
	rd_init(r, reply.p, reply.len);
	if (rd_u8(r, &type) != 0) {
		*why = "empty reply";
		return INSPECT_MALFORMED;
	}
	if ((type == SSH_AGENT_EXTENSION_FAILURE || type == SSH_AGENT_FAILURE) &&
	    rd_done(r) == 0)
		return type == SSH_AGENT_FAILURE ? INSPECT_UNSUPPORTED : INSPECT_REFUSED;
	if (ok_alone && type == SSH_AGENT_SUCCESS && rd_done(r) == 0)
		return INSPECT_LISTED;
	if (type != SSH_AGENT_EXTENSION_RESPONSE || ok_alone) {
		*why = "unexpected reply type";
		return INSPECT_MALFORMED;
	}
	if (rd_text(r, &got) != 0 || !slice_eq_str(got, name)) {
		*why = "the reply names another extension";
		return INSPECT_MALFORMED;
	}
	return INSPECT_LISTED;
}

enum inspect_answer
inspect_reply_decode(struct slice reply, struct inspect_list *l,
    const char **why)
{
	enum inspect_answer a;
	struct rd r;

	memset(l, 0, sizeof(*l));
	if ((a = ext_reply_open(reply, INSPECT_EXTENSION, 0, &r, why)) !=
	    INSPECT_LISTED)
		return a;
	if (inspect_decode(&r, l, why) != 0)
		return INSPECT_MALFORMED;
	return INSPECT_LISTED;
}
