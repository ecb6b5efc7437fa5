/*
 * proto.h - the agent protocol as the monitor sees it: one client request
 * in, one typed IPC message out (or an immediate refusal); one typed IPC
 * reply in, one client frame out.
 */
#ifndef KEYWARD_PROTO_H
#define KEYWARD_PROTO_H

#include "ipc/buf.h"
#include "ipc/msg.h"

/* Agent protocol numbers (spec §3). */
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

enum {
	SSH_AGENT_CONSTRAIN_LIFETIME = 1,
	SSH_AGENT_CONSTRAIN_CONFIRM = 2,
	SSH_AGENT_CONSTRAIN_EXTENSION = 255,
};

/* Turn one client request payload (type byte first) into an IPC message
 * for policy in ipc (header already begun by the caller is replaced).
 * Returns 1 if ipc holds a message to forward, or 0 when the request is
 * refused here, with the client reply payload written to reply. */
int proto_request(const uint8_t *p, size_t len, uint32_t req, uint32_t conn,
    struct wb *ipc, struct wb *reply);
/* Turn a policy reply datagram into the client reply payload. -1 if the
 * reply is malformed (an invariant: policy is trusted to be well-formed). */
int proto_reply(const struct msg_hdr *h, struct rd *payload, struct wb *reply);

#endif
