/*
 * agent.h - the agent protocol's numbers (spec §3) and the one table of
 * the extension requests keyward answers (§5.9, §7): the monitor forwards
 * by it, policy lists it in its answer to "query", keyward-ctl asks for
 * keyward's own by it. Names only: parsing is the monitor's (proto.c).
 */
#ifndef KEYWARD_AGENT_H
#define KEYWARD_AGENT_H

#include "ipc/buf.h"

#include <stdint.h>

/* Message numbers (spec §3). */
enum {
	SSH_AGENT_FAILURE = 5,
	SSH_AGENT_SUCCESS = 6,
	SSH_AGENTC_REMOVE_ALL_RSA_IDENTITIES = 9,
	SSH2_AGENTC_REQUEST_IDENTITIES = 11,
	SSH2_AGENT_IDENTITIES_ANSWER = 12,
	SSH2_AGENTC_SIGN_REQUEST = 13,
	SSH2_AGENT_SIGN_RESPONSE = 14,
	SSH2_AGENTC_ADD_IDENTITY = 17,
	SSH2_AGENTC_REMOVE_IDENTITY = 18,
	SSH2_AGENTC_REMOVE_ALL_IDENTITIES = 19,
	SSH_AGENTC_ADD_SMARTCARD_KEY = 20,
	SSH_AGENTC_REMOVE_SMARTCARD_KEY = 21,
	SSH_AGENTC_LOCK = 22,
	SSH_AGENTC_UNLOCK = 23,
	SSH2_AGENTC_ADD_ID_CONSTRAINED = 25,
	SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED = 26,
	SSH_AGENTC_EXTENSION = 27,
	SSH_AGENT_EXTENSION_FAILURE = 28,
	SSH_AGENT_EXTENSION_RESPONSE = 29,
};

/* Constraint types of an ADD (spec §6). */
enum {
	SSH_AGENT_CONSTRAIN_LIFETIME = 1,
	SSH_AGENT_CONSTRAIN_CONFIRM = 2,
	SSH_AGENT_CONSTRAIN_EXTENSION = 255,
};

/* The constraint extension naming a FIDO key's provider (§6.5). */
#define SK_PROVIDER_EXTENSION_NAME "sk-provider@openssh.com"

#define EXT_QUERY               "query"
#define EXT_SESSION_BIND        "session-bind@openssh.com"
/* keyward's own: every identity with its constraints (wire/constraints.h), for
 * keyward-ctl; refused where a session-bind was attempted. */
#define INSPECT_EXTENSION       "constraints@keyward.dev"
/* keyward's own: the rules of keyward(5), for keyward-ctl policy. After
 * the name, string sub-command:
 *   "load", string rules_text (at most RULES_MAX_FILE bytes): replace the
 *       rules whole; SSH_AGENT_SUCCESS, or SSH_AGENT_EXTENSION_FAILURE
 *       (text that does not parse, a session-bind attempted, locked);
 *   "show": SSH_AGENT_EXTENSION_RESPONSE, the name, string rules_text
 *       (rules_format's canonical text; empty: no rules).
 * Refused where a session-bind was attempted, like INSPECT_EXTENSION. */
#define POLICY_EXTENSION        "policy@keyward.dev"
#define POLICY_SUB_LOAD         "load"
#define POLICY_SUB_SHOW         "show"
/* keyward's own: the open connections and who is at their other end
 * (wire/conns.h); refused where a session-bind was attempted. */
#define CONNS_EXTENSION         "connections@keyward.dev"

struct agent_ext {
	const char *name;
	uint8_t msg;            /* the request the monitor forwards
	                         * (wire/monitor.h);
	                         * MSG_POLICY_LOAD: by its sub-command, load
	                         * or MSG_POLICY_SHOW (monitor/proto.c) */
	uint8_t reply;          /* the reply message carrying its answer's
	                         * body, 0: a status only */
	int listed;             /* named in the answer to "query" */
};

/* The row of an extension name, compared byte for byte; NULL: none. */
const struct agent_ext *agent_ext_named(struct slice name);
/* The row whose answer a reply message of this type carries; NULL: none. */
const struct agent_ext *agent_ext_answered_by(uint8_t reply);
/* The answer to "query": repeat{ string name } of the listed rows. */
void agent_ext_list(struct wb *w);

#endif
