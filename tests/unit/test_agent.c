/*
 * test_agent.c - the extension table (wire/agent.c): each name the monitor
 * forwards, the message it becomes and the reply that carries its answer,
 * byte-exact names, and the list policy answers "query" with.
 */
#include "wire/agent.h"
#include "wire/monitor.h"
#include "tests/unit/tap.h"

#include <string.h>

static const struct {
	const char *name;
	size_t len;                     /* 0: strlen(name) */
	int known;
	uint8_t msg, reply;
} cases[] = {
	{ "query", 0, 1, MSG_QUERY, MSG_R_EXTENSIONS },
	{ "session-bind@openssh.com", 0, 1, MSG_BIND, 0 },
	{ "constraints@keyward.dev", 0, 1, MSG_INSPECT, MSG_R_INSPECT },
	{ "policy@keyward.dev", 0, 1, MSG_POLICY_LOAD, MSG_R_POLICY },
	{ "connections@keyward.dev", 0, 1, MSG_CONNS, MSG_R_CONNS },
	{ "policy@keyward.dev ", 0, 0, 0, 0 },
	{ "Connections@keyward.dev", 0, 0, 0, 0 },
	{ "connections", 0, 0, 0, 0 },
	{ "QUERY", 0, 0, 0, 0 },
	{ "quer", 0, 0, 0, 0 },
	{ "query ", 0, 0, 0, 0 },
	{ "query\0", 6, 0, 0, 0 },      /* the monitor's rd_text strips it first */
	{ "constraints@keyward.dev2", 0, 0, 0, 0 },
	{ "restrict-destination-v00@openssh.com", 0, 0, 0, 0 }, /* a constraint */
	{ "", 0, 0, 0, 0 },
};

static void
test_names(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].name);
		const struct agent_ext *e =
		    agent_ext_named((struct slice){ (const uint8_t *)cases[i].name, len });

		if (!cases[i].known) {
			ok(e == NULL, "extension \"%.*s\" (%zu bytes): not ours", (int)len,
			    cases[i].name, len);
			continue;
		}
		ok(e != NULL && strcmp(e->name, cases[i].name) == 0 &&
		    e->msg == cases[i].msg && e->reply == cases[i].reply,
		    "extension \"%s\": forwarded as %u, answered in %u", cases[i].name,
		    cases[i].msg, cases[i].reply);
		if (cases[i].reply != 0)
			ok(agent_ext_answered_by(cases[i].reply) == e,
			    "reply %u carries the answer of \"%s\"", cases[i].reply,
			    cases[i].name);
	}
	ok(agent_ext_answered_by(0) == NULL, "reply type 0: no extension's answer");
	ok(agent_ext_answered_by(MSG_R_STATUS) == NULL &&
	    agent_ext_answered_by(MSG_R_SIGNATURE) == NULL &&
	    agent_ext_answered_by(MSG_R_IDENTITIES) == NULL,
	    "status, signature, identities: no extension's answer");
}

static void
test_query_list(void)
{
	static const uint8_t want[] =
	    "\0\0\0\x18" "session-bind@openssh.com"
	    "\0\0\0\x17" "constraints@keyward.dev"
	    "\0\0\0\x12" "policy@keyward.dev"
	    "\0\0\0\x17" "connections@keyward.dev";
	struct wb w;

	wb_init(&w);
	agent_ext_list(&w);
	ok(!w.err && w.len == sizeof(want) - 1 && memcmp(w.p, want, w.len) == 0,
	    "query is answered with session-bind@openssh.com, constraints@keyward.dev, "
	    "policy@keyward.dev, connections@keyward.dev");
	wb_free(&w);
}

int
main(void)
{
	test_names();
	test_query_list();
	return done_testing();
}
