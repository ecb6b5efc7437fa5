/*
 * agent.h - the agent protocol's numbers (doc/protocol.md §3) and the one table of
 * the extension requests keyward answers (doc/protocol.md §5.9, §7): the monitor forwards
 * by it, policy lists it in its answer to "query", keyward-ctl asks for
 * keyward's own by it; and the client protocol's messages that keyward
 * writes at one end and reads at the other: keyward's own extension
 * requests (keyward-ctl writes, the monitor reads), the identities answer
 * (policy writes the entries, the monitor the frame) and the frame of an
 * extension's answer (the monitor writes, keyward-ctl reads). The rest of
 * the protocol, written by ssh and ssh-add, is parsed in monitor/proto.c.
 */
#ifndef KEYWARD_AGENT_H
#define KEYWARD_AGENT_H

#include "ipc/buf.h"

#include <stdint.h>

/* Message numbers (doc/protocol.md §3). */
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

/* Constraint types of an ADD (doc/protocol.md §6). */
enum {
	SSH_AGENT_CONSTRAIN_LIFETIME = 1,
	SSH_AGENT_CONSTRAIN_CONFIRM = 2,
	SSH_AGENT_CONSTRAIN_EXTENSION = 255,
};

/* The constraint extension naming a FIDO key's provider (doc/protocol.md §6.5). */
#define SK_PROVIDER_EXTENSION_NAME "sk-provider@openssh.com"

#define EXT_QUERY               "query"
#define EXT_SESSION_BIND        "session-bind@openssh.com"
/* keyward's own: every identity with its constraints (wire/listing.h), for
 * keyward-ctl; refused where a session-bind was attempted. */
#define CONSTRAINTS_EXTENSION       "constraints@keyward.dev"
/* keyward's own: the rules of keyward(5), for keyward-ctl policy. After
 * the name, string sub-command:
 *   "load", string rules_text (at most RULES_MAX_FILE bytes): replace the
 *       rules whole; SSH_AGENT_SUCCESS, or SSH_AGENT_EXTENSION_FAILURE
 *       (text that does not parse, a session-bind attempted, locked);
 *   "show": SSH_AGENT_EXTENSION_RESPONSE, the name, string rules_text
 *       (rules_format's canonical text; empty: no rules).
 * Refused where a session-bind was attempted, like CONSTRAINTS_EXTENSION. */
#define POLICY_EXTENSION        "policy@keyward.dev"
#define POLICY_SUB_LOAD         "load"
#define POLICY_SUB_SHOW         "show"
/* keyward's own: the open connections and who is at their other end
 * (wire/conns.h); refused where a session-bind was attempted. */
#define CONNS_EXTENSION         "connections@keyward.dev"
/* keyward's own: the login session the agent follows and what it knows
 * of it (wire/session.h, struct session_view); refused where a
 * session-bind was attempted. */
#define SESSION_EXTENSION       "session@keyward.dev"

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

/* ------------------------------------------- keyward's own requests
 * byte SSH_AGENTC_EXTENSION; string name; then the arguments:
 *   CONSTRAINTS_EXTENSION, CONNS_EXTENSION: none;
 *   POLICY_EXTENSION: string sub-command ("show", or "load" then string
 *     rules_text).
 * Written without the frame length. */
void agent_ext_request(struct wb *w, const char *name);
void agent_policy_show_request(struct wb *w);
void agent_policy_load_request(struct wb *w, struct slice rules_text);
/* The name of an extension request (after its type byte), r left at its
 * arguments. */
int agent_ext_name_decode(struct rd *r, struct slice *name);
/* POLICY_EXTENSION's arguments, to the end: load 1 with the rules text,
 * or load 0 (show). */
struct agent_policy_req { int load; struct slice rules_text; };
int agent_policy_request_decode(struct rd *r, struct agent_policy_req *m);

/* ------------------------------------------------------ answers
 * SSH2_AGENT_IDENTITIES_ANSWER: byte 12; uint32 n; n times { string
 * key_blob; string comment }. Policy appends the entries, the monitor
 * frames them with their count. */
void agent_identity_entry(struct wb *entries, struct slice key_blob,
    const char *comment);
void agent_identities_answer(struct wb *reply, uint32_t n,
    struct slice entries);
/* The count of an identities answer payload (type byte first), entries
 * unread: all keyward-ctl needs to tell a locked agent from another. */
int agent_identities_count(struct slice reply, uint32_t *n);

/* The answer to one of keyward's own extensions, as the client reads it:
 * byte SSH_AGENT_EXTENSION_RESPONSE; string name; the body. */
void agent_ext_answer(struct wb *reply, const char *name, struct slice body);
/* What one extension request was answered with (keyward-ctl). */
enum ext_answer {
	EXT_ANSWERED,                   /* SSH_AGENT_EXTENSION_RESPONSE, decoded */
	EXT_REFUSED,                    /* SSH_AGENT_EXTENSION_FAILURE (forwarded) */
	EXT_UNSUPPORTED,                /* SSH_AGENT_FAILURE */
	EXT_MALFORMED,                  /* anything else; *why says what */
};
/* Open one extension answer payload (type byte first), from whatever
 * listens on SSH_AUTH_SOCK: for EXT_ANSWERED, *body is what follows the
 * name, which must be name; SSH_AGENT_SUCCESS (a "load" answered) is
 * EXT_ANSWERED with an empty body when ok_alone. */
enum ext_answer agent_ext_answer_open(struct slice reply, const char *name,
    int ok_alone, struct rd *body, const char **why);
/* POLICY_EXTENSION "show"'s body: string rules_text. */
void agent_policy_show_body(struct wb *body, struct slice rules_text);
int agent_policy_show_body_decode(struct rd *body, struct slice *rules_text);

#endif
