/*
 * agent.c - the extension requests keyward answers, one row each. A new
 * extension is a row here, a message in wire/monitor.h and a handler in policy.
 */
#include "wire/agent.h"
#include "wire/monitor.h"

#include <stddef.h>

static const struct agent_ext exts[] = {
	/* name               forwarded as  answer in         in "query" */
	{ EXT_QUERY,          MSG_QUERY,    MSG_R_EXTENSIONS, 0 },
	{ EXT_SESSION_BIND,   MSG_BIND,     0,                1 },
	{ INSPECT_EXTENSION,  MSG_INSPECT,  MSG_R_INSPECT,    1 },
	{ POLICY_EXTENSION,   MSG_POLICY_LOAD, MSG_R_POLICY,  1 },
	{ CONNS_EXTENSION,    MSG_CONNS,    MSG_R_CONNS,      1 },
};

#define NEXTS (sizeof(exts) / sizeof(exts[0]))

const struct agent_ext *
agent_ext_named(struct slice name)
{
	for (size_t i = 0; i < NEXTS; i++)
		if (slice_eq_str(name, exts[i].name))
			return &exts[i];
	return NULL;
}

const struct agent_ext *
agent_ext_answered_by(uint8_t reply)
{
	for (size_t i = 0; reply != 0 && i < NEXTS; i++)
		if (exts[i].reply == reply)
			return &exts[i];
	return NULL;
}

void
agent_ext_list(struct wb *w)
{
	for (size_t i = 0; i < NEXTS; i++)
		if (exts[i].listed)
			wb_cstring(w, exts[i].name);
}
