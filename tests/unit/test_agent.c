/*
 * test_agent.c - the extension table (wire/agent.c): each name the monitor
 * forwards, the message it becomes and the reply that carries its answer,
 * byte-exact names, and the list policy answers "query" with; keyward's own
 * requests as keyward-ctl writes them and the monitor reads them, and the
 * answers' frames, byte for byte.
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
	{ "constraints@keyward.dev", 0, 1, MSG_CONSTRAINTS, MSG_R_CONSTRAINTS },
	{ "policy@keyward.dev", 0, 1, MSG_POLICY_LOAD, MSG_R_POLICY },
	{ "connections@keyward.dev", 0, 1, MSG_CONNS, MSG_R_CONNS },
	{ "session@keyward.dev", 0, 1, MSG_SESSION_STATE, MSG_R_SESSION },
	{ "session@keyward.dev\0", 20, 0, 0, 0 },
	{ "session", 0, 0, 0, 0 },
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
	    "\0\0\0\x17" "connections@keyward.dev"
	    "\0\0\0\x13" "session@keyward.dev";
	struct wb w;

	wb_init(&w);
	agent_ext_list(&w);
	ok(!w.err && w.len == sizeof(want) - 1 && memcmp(w.p, want, w.len) == 0,
	    "query is answered with session-bind@openssh.com, constraints@keyward.dev, "
	    "policy@keyward.dev, connections@keyward.dev, session@keyward.dev");
	wb_free(&w);
}

#define B(s) (struct slice){ (const uint8_t *)(s), sizeof(s) - 1 }

static int
same(const struct wb *w, struct slice want)
{
	return !w->err && w->len == want.len && memcmp(w->p, want.p, want.len) == 0;
}

/* What keyward-ctl writes is what the monitor reads, byte for byte. */
static void
test_requests(void)
{
	struct agent_policy_req m;
	struct slice name;
	struct wb w;
	struct rd r;
	uint8_t type;

	wb_init(&w);
	agent_ext_request(&w, CONSTRAINTS_EXTENSION);
	ok(same(&w, B("\x1b\0\0\0\x17" "constraints@keyward.dev")),
	    "constraints request: 27, the name");
	wb_reset(&w);
	agent_policy_show_request(&w);
	ok(same(&w, B("\x1b\0\0\0\x12" "policy@keyward.dev" "\0\0\0\x04" "show")),
	    "policy show request: 27, the name, \"show\"");
	rd_init(&r, w.p, w.len);
	ok(rd_u8(&r, &type) == 0 && agent_ext_name_decode(&r, &name) == 0 &&
	    slice_eq_str(name, POLICY_EXTENSION) &&
	    agent_policy_request_decode(&r, &m) == 0 && !m.load,
	    "policy show request: read back as show");
	wb_reset(&w);
	agent_policy_load_request(&w, B("key k\n"));
	ok(same(&w, B("\x1b\0\0\0\x12" "policy@keyward.dev" "\0\0\0\x04" "load"
	    "\0\0\0\x06" "key k\n")), "policy load request: the rules as a string");
	rd_init(&r, w.p, w.len);
	ok(rd_u8(&r, &type) == 0 && agent_ext_name_decode(&r, &name) == 0 &&
	    agent_policy_request_decode(&r, &m) == 0 && m.load &&
	    slice_eq_str(m.rules_text, "key k\n"), "policy load request: read back");
	wb_free(&w);

	static const struct {
		const char *name;
		struct slice in;
		int rc, load;
	} args[] = {
		{ "show", B("\0\0\0\x04" "show"), 0, 0 },
		{ "show, then a byte", B("\0\0\0\x04" "show" "x"), -1, 0 },
		{ "load, no text", B("\0\0\0\x04" "load"), -1, 0 },
		{ "load, empty text", B("\0\0\0\x04" "load" "\0\0\0\0"), 0, 1 },
		{ "load, text cut", B("\0\0\0\x04" "load" "\0\0\0\x05" "ab"), -1, 0 },
		{ "load, then a byte", B("\0\0\0\x04" "load" "\0\0\0\0" "x"), -1, 0 },
		{ "another sub-command", B("\0\0\0\x04" "drop"), -1, 0 },
		{ "SHOW", B("\0\0\0\x04" "SHOW"), -1, 0 },
		{ "no sub-command", B(""), -1, 0 },
		{ "a sub-command with a NUL inside", B("\0\0\0\x05" "sh\0ow"), -1, 0 },
	};
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		rd_init(&r, args[i].in.p, args[i].in.len);
		int rc = agent_policy_request_decode(&r, &m);
		ok((rc == 0 ? 0 : -1) == args[i].rc && (rc != 0 || m.load == args[i].load),
		    "policy request arguments: %s: %s", args[i].name,
		    args[i].rc == 0 ? "read" : "refused");
	}
}

static void
test_answers(void)
{
	struct slice text;
	struct wb w, e;
	struct rd r;
	uint32_t n;
	const char *why;

	wb_init(&e);
	agent_identity_entry(&e, B("blob"), "comment");
	wb_init(&w);
	agent_identities_answer(&w, 1, wb_slice_of(&e));
	ok(same(&w, B("\x0c\0\0\0\x01" "\0\0\0\x04" "blob" "\0\0\0\x07" "comment")),
	    "identities answer: 12, the count, blob and comment");
	ok(agent_identities_count(wb_slice_of(&w), &n) == 0 && n == 1,
	    "identities answer: its count read back");
	ok(agent_identities_count(B("\x0c\0\0\0"), &n) != 0 &&
	    agent_identities_count(B("\x05\0\0\0\0"), &n) != 0,
	    "identities count: a cut count, a failure refused");
	wb_free(&e);

	wb_reset(&w);
	wb_init(&e);
	agent_policy_show_body(&e, B("rules"));
	agent_ext_answer(&w, POLICY_EXTENSION, wb_slice_of(&e));
	ok(same(&w, B("\x1d\0\0\0\x12" "policy@keyward.dev" "\0\0\0\x05" "rules")),
	    "extension answer: 29, the name, the body");
	ok(agent_ext_answer_open(wb_slice_of(&w), POLICY_EXTENSION, 0, &r, &why) ==
	    EXT_ANSWERED && agent_policy_show_body_decode(&r, &text) == 0 &&
	    slice_eq_str(text, "rules"), "extension answer: opened, its body read back");
	ok(agent_ext_answer_open(wb_slice_of(&w), CONNS_EXTENSION, 0, &r, &why) ==
	    EXT_MALFORMED && why != NULL, "extension answer naming another: malformed");
	ok(agent_ext_answer_open(wb_slice_of(&w), POLICY_EXTENSION, 1, &r, &why) ==
	    EXT_MALFORMED, "extension answer where a status alone was due: malformed");
	wb_free(&e);
	wb_free(&w);

	static const struct {
		const char *name;
		struct slice in;
		int ok_alone;
		enum ext_answer want;
	} opens[] = {
		{ "empty", B(""), 0, EXT_MALFORMED },
		{ "failure", B("\x05"), 0, EXT_UNSUPPORTED },
		{ "extension failure", B("\x1c"), 0, EXT_REFUSED },
		{ "failure with a byte after it", B("\x05x"), 0, EXT_MALFORMED },
		{ "success, a status alone due", B("\x06"), 1, EXT_ANSWERED },
		{ "success, a body due", B("\x06"), 0, EXT_MALFORMED },
		{ "success with a byte after it", B("\x06x"), 1, EXT_MALFORMED },
		{ "response with its name cut", B("\x1d\0\0\0\x12" "policy"), 0,
		  EXT_MALFORMED },
		{ "response, empty body", B("\x1d\0\0\0\x12" "policy@keyward.dev"), 0,
		  EXT_ANSWERED },
	};
	for (size_t i = 0; i < sizeof(opens) / sizeof(opens[0]); i++)
		ok(agent_ext_answer_open(opens[i].in, POLICY_EXTENSION,
		    opens[i].ok_alone, &r, &why) == opens[i].want,
		    "extension answer: %s", opens[i].name);
}

int
main(void)
{
	test_names();
	test_query_list();
	test_requests();
	test_answers();
	return done_testing();
}
