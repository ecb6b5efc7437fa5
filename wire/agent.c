/*
 * agent.c - the extension requests keyward answers, one row each (a new
 * extension is a row here, a message in wire/monitor.h and a handler in
 * policy), and the client protocol's messages keyward writes at one end
 * and reads at another (agent.h).
 */
#include "wire/agent.h"
#include "wire/monitor.h"

#include <stddef.h>

static const struct agent_ext exts[] = {
	/* name               forwarded as  answer in         in "query" */
	{ EXT_QUERY,          MSG_QUERY,    MSG_R_EXTENSIONS, 0 },
	{ EXT_SESSION_BIND,   MSG_BIND,     0,                1 },
	{ CONSTRAINTS_EXTENSION,  MSG_CONSTRAINTS,  MSG_R_CONSTRAINTS,    1 },
	{ POLICY_EXTENSION,   MSG_POLICY_LOAD, MSG_R_POLICY,  1 },
	{ CONNS_EXTENSION,    MSG_CONNS,    MSG_R_CONNS,      1 },
	{ SESSION_EXTENSION,  MSG_SESSION_STATE, MSG_R_SESSION, 1 },
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

/* ------------------------------------------- keyward's own requests */

void
agent_ext_request(struct wb *w, const char *name)
{
	wb_u8(w, SSH_AGENTC_EXTENSION);
	wb_cstring(w, name);
}

void
agent_policy_show_request(struct wb *w)
{
	agent_ext_request(w, POLICY_EXTENSION);
	wb_cstring(w, POLICY_SUB_SHOW);
}

void
agent_policy_load_request(struct wb *w, struct slice rules_text)
{
	agent_ext_request(w, POLICY_EXTENSION);
	wb_cstring(w, POLICY_SUB_LOAD);
	wb_slice(w, rules_text);
}

int
agent_ext_name_decode(struct rd *r, struct slice *name)
{
	return rd_text(r, name);
}

int
agent_policy_request_decode(struct rd *r, struct agent_policy_req *m)
{
	struct slice sub;

	m->rules_text = (struct slice){ NULL, 0 };
	if (rd_text(r, &sub) != 0)
		return -1;
	if (slice_eq_str(sub, POLICY_SUB_SHOW)) {
		m->load = 0;
		return rd_done(r);
	}
	m->load = 1;
	return !slice_eq_str(sub, POLICY_SUB_LOAD) ||
	    rd_string(r, &m->rules_text) != 0 || rd_done(r) != 0 ? -1 : 0;
}

/* ------------------------------------------------------------ answers */

void
agent_identity_entry(struct wb *entries, struct slice key_blob,
    const char *comment)
{
	wb_slice(entries, key_blob);
	wb_cstring(entries, comment);
}

void
agent_identities_answer(struct wb *reply, uint32_t n, struct slice entries)
{
	wb_u8(reply, SSH2_AGENT_IDENTITIES_ANSWER);
	wb_u32(reply, n);
	wb_bytes(reply, entries.p, entries.len);
}

int
agent_identities_count(struct slice reply, uint32_t *n)
{
	struct rd r;
	uint8_t type;

	rd_init(&r, reply.p, reply.len);
	return rd_u8(&r, &type) != 0 || type != SSH2_AGENT_IDENTITIES_ANSWER ||
	    rd_u32(&r, n) != 0 ? -1 : 0;
}

void
agent_ext_answer(struct wb *reply, const char *name, struct slice body)
{
	wb_u8(reply, SSH_AGENT_EXTENSION_RESPONSE);
	wb_cstring(reply, name);
	wb_bytes(reply, body.p, body.len);
}

enum ext_answer
agent_ext_answer_open(struct slice reply, const char *name, int ok_alone,
    struct rd *r, const char **why)
{
	struct slice got;
	uint8_t type;

	*why = NULL;
	rd_init(r, reply.p, reply.len);
	if (rd_u8(r, &type) != 0) {
		*why = "empty reply";
		return EXT_MALFORMED;
	}
	if ((type == SSH_AGENT_EXTENSION_FAILURE || type == SSH_AGENT_FAILURE) &&
	    rd_done(r) == 0)
		return type == SSH_AGENT_FAILURE ? EXT_UNSUPPORTED : EXT_REFUSED;
	if (ok_alone && type == SSH_AGENT_SUCCESS && rd_done(r) == 0)
		return EXT_ANSWERED;
	if (type != SSH_AGENT_EXTENSION_RESPONSE || ok_alone) {
		*why = "unexpected reply type";
		return EXT_MALFORMED;
	}
	if (rd_text(r, &got) != 0 || !slice_eq_str(got, name)) {
		*why = "the reply names another extension";
		return EXT_MALFORMED;
	}
	return EXT_ANSWERED;
}

void
agent_policy_show_body(struct wb *body, struct slice rules_text)
{
	wb_slice(body, rules_text);
}

int
agent_policy_show_body_decode(struct rd *body, struct slice *rules_text)
{
	return rd_string(body, rules_text) != 0 || rd_done(body) != 0 ? -1 : 0;
}
