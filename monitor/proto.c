/*
 * proto.c - parse client requests (untrusted bytes, from anyone who can
 * reach the socket, including forwarded hosts) into typed requests. The
 * table below is the whole list of what a client may ask. Policy decodes
 * every forwarded field again; this parser exists so that garbage is
 * refused at the edge and policy receives only well-typed requests.
 */
#include "monitor/proto.h"
#include "keys/dest.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "keys/sshkey.h"

#include <string.h>

enum { REFUSE = 0, FORWARD = 1 };

struct req_ctx {
	struct rd r;            /* the request after its type byte */
	uint32_t req, conn;
	struct wb *ipc;
};

static int
forward_empty(struct req_ctx *c, uint8_t type)
{
	if (rd_done(&c->r) != 0)
		return REFUSE;
	msg_begin(c->ipc, type, c->req, c->conn);
	return FORWARD;
}

static int
req_list(struct req_ctx *c)
{
	return forward_empty(c, MSG_LIST);
}

static int
req_remove_all(struct req_ctx *c)
{
	return forward_empty(c, MSG_REMOVE_ALL);
}

static int
req_sign(struct req_ctx *c)
{
	struct msg_sign m;

	if (rd_string(&c->r, &m.key) != 0 || rd_string(&c->r, &m.data) != 0 ||
	    rd_u32(&c->r, &m.flags) != 0 || rd_done(&c->r) != 0)
		return REFUSE;
	msg_begin(c->ipc, MSG_SIGN, c->req, c->conn);
	msg_sign_encode(c->ipc, &m);
	return FORWARD;
}

static int
parse_constraints(struct rd *r, struct constraints *cs)
{
	struct slice name;
	uint8_t type;

	memset(cs, 0, sizeof(*cs));
	while (r->len > 0) {
		if (rd_u8(r, &type) != 0)
			return -1;
		switch (type) {
		case SSH_AGENT_CONSTRAIN_LIFETIME:
			if (cs->has_lifetime || rd_u32(r, &cs->lifetime) != 0)
				return -1;
			cs->has_lifetime = 1;
			break;
		case SSH_AGENT_CONSTRAIN_CONFIRM:
			if (cs->confirm)
				return -1;
			cs->confirm = 1;
			break;
		case SSH_AGENT_CONSTRAIN_EXTENSION:
			if (rd_text(r, &name) != 0)
				return -1;
			if (slice_eq_str(name, DEST_EXTENSION_NAME)) {
				const char *why = NULL;
				if (cs->has_dest || rd_string(r, &cs->dest) != 0 ||
				    dest_parse(cs->dest, NULL, NULL, &why) < 0) {
					log_info("refused add: destination constraint: %s",
					    why ? why : "duplicate or truncated");
					return -1;
				}
				cs->has_dest = 1;
				break;
			}
			if (slice_eq_str(name, SK_PROVIDER_EXTENSION_NAME)) {
				/* Judged by policy (§6.5): only for FIDO keys, a
				 * path resolved and checked against -P. */
				if (cs->has_provider || rd_text(r, &cs->provider) != 0 ||
				    cs->provider.len == 0 ||
				    cs->provider.len >= TOKEN_MAX_PATH)
					return -1;
				cs->has_provider = 1;
				break;
			}
			/* Never accept a key while ignoring a restriction on it. */
			log_info("refused add: constraint extension \"%.*s\" is not "
			    "supported", (int)(name.len > 64 ? 64 : name.len),
			    (const char *)name.p);
			return -1;
		default:
			log_info("refused add: unknown constraint type %u", type);
			return -1;
		}
	}
	return 0;
}

/* The monitor reads the key to find where it ends and what its public
 * key is; policy judges that public key and hands the private encoding,
 * unparsed, to the keyholder, which answers with the public key it
 * derives (doc/threat-model.md). */
static int
req_add(struct req_ctx *c)
{
	struct privkey k;
	struct msg_add m;
	struct wb pub;
	const uint8_t *start = c->r.p;
	const char *why = NULL;

	if (key_parse_private(&c->r, &k, &why) != 0) {
		log_info("refused add: %s", why ? why : "malformed key");
		return REFUSE;
	}
	m.key.p = start;
	m.key.len = (size_t)(c->r.p - start);
	if (rd_text(&c->r, &m.comment) != 0 || parse_constraints(&c->r, &m.c) != 0)
		return REFUSE;
	wb_init(&pub);
	key_write_public(&pub, &k.pub);
	if (pub.err) {
		wb_free(&pub);
		return REFUSE;
	}
	m.pub = wb_slice_of(&pub);
	msg_begin(c->ipc, MSG_ADD, c->req, c->conn);
	msg_add_encode(c->ipc, &m);
	wb_free(&pub);
	return FORWARD;
}

static int
req_remove(struct req_ctx *c)
{
	struct slice key;

	if (rd_string(&c->r, &key) != 0 || rd_done(&c->r) != 0)
		return REFUSE;
	msg_remove_write(c->ipc, c->req, c->conn, key);
	return FORWARD;
}

/* ssh-add -s (§5.7): string provider; string pin; and for 26 the
 * constraints of an add. Policy judges the provider (-P, remote). */
static int
req_smartcard_add(struct req_ctx *c, int constrained)
{
	struct msg_p11_add m;

	if (rd_text(&c->r, &m.provider) != 0 || m.provider.len == 0 ||
	    m.provider.len >= TOKEN_MAX_PATH || rd_string(&c->r, &m.pin) != 0)
		return REFUSE;
	if (!constrained) {
		memset(&m.c, 0, sizeof(m.c));
		if (rd_done(&c->r) != 0)
			return REFUSE;
	} else if (parse_constraints(&c->r, &m.c) != 0)
		return REFUSE;
	msg_begin(c->ipc, MSG_P11_ADD, c->req, c->conn);
	msg_p11_add_encode(c->ipc, &m);
	return FORWARD;
}

static int
req_smartcard(struct req_ctx *c)
{
	return req_smartcard_add(c, 0);
}

static int
req_smartcard_constrained(struct req_ctx *c)
{
	return req_smartcard_add(c, 1);
}

/* ssh-add -e: string provider; string pin (ignored, §5.7). */
static int
req_smartcard_remove(struct req_ctx *c)
{
	struct slice provider, pin;

	if (rd_text(&c->r, &provider) != 0 || provider.len == 0 ||
	    provider.len >= TOKEN_MAX_PATH || rd_string(&c->r, &pin) != 0 ||
	    rd_done(&c->r) != 0)
		return REFUSE;
	msg_p11_remove_write(c->ipc, c->req, c->conn, provider);
	return FORWARD;
}

static int
req_lock_common(struct req_ctx *c, int unlock)
{
	struct slice pass;

	/* Unlike the reference, a garbled lock request is refused, never a
	 * reason for the agent to exit (spec §5.8). */
	/* A text string, but hashed whole: a trailing NUL is part of the
	 * passphrase ("pw\0" is not "pw", spec §2), as in the reference. */
	if (rd_string(&c->r, &pass) != 0 || rd_done(&c->r) != 0 ||
	    (pass.len > 1 && memchr(pass.p, '\0', pass.len - 1) != NULL)) {
		log_info("refused malformed lock/unlock request");
		return REFUSE;
	}
	msg_lock_write(c->ipc, unlock, c->req, c->conn, pass);
	return FORWARD;
}

static int
req_lock(struct req_ctx *c)
{
	return req_lock_common(c, 0);
}

static int
req_unlock(struct req_ctx *c)
{
	return req_lock_common(c, 1);
}

/* A session-bind that does not parse still counts as attempted (§7.2), so
 * policy hears of it either way. */
static int
req_bind(struct req_ctx *c)
{
	struct msg_bind m;

	if (rd_string(&c->r, &m.hostkey) != 0 ||
	    rd_string(&c->r, &m.session_id) != 0 ||
	    rd_string(&c->r, &m.signature) != 0 ||
	    rd_bool(&c->r, &m.forwarding) != 0 || rd_done(&c->r) != 0) {
		msg_begin(c->ipc, MSG_BIND_BAD, c->req, c->conn);
		return FORWARD;
	}
	msg_begin(c->ipc, MSG_BIND, c->req, c->conn);
	msg_bind_encode(c->ipc, &m);
	return FORWARD;
}

/* POLICY_EXTENSION (wire/agent.h): string sub-command, then for "load"
 * the rules text. Policy parses the text; a text longer than any rules
 * file may be is refused here, like any malformed request. */
static int
req_policy(struct req_ctx *c)
{
	struct msg_blob m;
	struct slice sub;

	if (rd_text(&c->r, &sub) != 0)
		return REFUSE;
	if (slice_eq_str(sub, POLICY_SUB_SHOW))
		return forward_empty(c, MSG_POLICY_SHOW);
	if (!slice_eq_str(sub, POLICY_SUB_LOAD) ||
	    rd_string(&c->r, &m.blob) != 0 || rd_done(&c->r) != 0)
		return REFUSE;
	if (m.blob.len > RULES_MAX_FILE) {
		log_info("refused policy load: %zu bytes of rules (at most %u)",
		    m.blob.len, (unsigned)RULES_MAX_FILE);
		return REFUSE;
	}
	msg_begin(c->ipc, MSG_POLICY_LOAD, c->req, c->conn);
	msg_blob_encode(c->ipc, &m);
	return FORWARD;
}

static int
req_extension(struct req_ctx *c)
{
	const struct agent_ext *e;
	struct slice name;

	if (rd_text(&c->r, &name) != 0)
		return REFUSE;
	if ((e = agent_ext_named(name)) == NULL) {
		log_debug("unsupported extension \"%.*s\"",
		    (int)(name.len > 64 ? 64 : name.len), (const char *)name.p);
		return REFUSE;
	}
	if (e->msg == MSG_BIND)
		return req_bind(c);
	if (e->msg == MSG_POLICY_LOAD)
		return req_policy(c);
	return forward_empty(c, e->msg);
}

static const struct {
	uint8_t type;
	int (*fn)(struct req_ctx *);
} requests[] = {
	{ SSH_AGENTC_REMOVE_ALL_RSA_IDENTITIES, req_remove_all },
	{ SSH2_AGENTC_REQUEST_IDENTITIES, req_list },
	{ SSH2_AGENTC_SIGN_REQUEST, req_sign },
	{ SSH2_AGENTC_ADD_IDENTITY, req_add },
	{ SSH2_AGENTC_REMOVE_IDENTITY, req_remove },
	{ SSH2_AGENTC_REMOVE_ALL_IDENTITIES, req_remove_all },
	{ SSH_AGENTC_ADD_SMARTCARD_KEY, req_smartcard },
	{ SSH_AGENTC_REMOVE_SMARTCARD_KEY, req_smartcard_remove },
	{ SSH_AGENTC_LOCK, req_lock },
	{ SSH_AGENTC_UNLOCK, req_unlock },
	{ SSH2_AGENTC_ADD_ID_CONSTRAINED, req_add },
	{ SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED, req_smartcard_constrained },
	{ SSH_AGENTC_EXTENSION, req_extension },
};

int
proto_request(const uint8_t *p, size_t len, uint32_t req, uint32_t conn,
    struct wb *ipc, struct wb *reply)
{
	struct req_ctx c = { .req = req, .conn = conn, .ipc = ipc };

	wb_reset(reply);
	if (len == 0) {                 /* client_frame never passes one */
		wb_u8(reply, SSH_AGENT_FAILURE);
		return 0;
	}
	rd_init(&c.r, p + 1, len - 1);
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		if (requests[i].type != p[0])
			continue;
		if (requests[i].fn(&c) == FORWARD && !ipc->err)
			return 1;
		break;
	}
	if (p[0] != SSH2_AGENTC_ADD_IDENTITY && p[0] != SSH2_AGENTC_ADD_ID_CONSTRAINED)
		log_debug("request type %u refused by the parser", p[0]);
	wb_u8(reply, SSH_AGENT_FAILURE);
	return 0;
}

int
proto_reply(const struct msg_hdr *h, struct rd *r, struct wb *reply)
{
	static const uint8_t status_byte[] = {
		[ST_OK] = SSH_AGENT_SUCCESS,
		[ST_FAIL] = SSH_AGENT_FAILURE,
		[ST_EXT_FAIL] = SSH_AGENT_EXTENSION_FAILURE,
	};
	const struct agent_ext *e;
	struct msg_status st;
	struct msg_blob b;
	struct msg_identities ids;

	wb_reset(reply);
	switch (h->type) {
	case MSG_R_STATUS:
		if (msg_status_decode(r, &st) != 0)
			return -1;
		wb_u8(reply, status_byte[st.status]);
		return 0;
	case MSG_R_SIGNATURE:
		if (msg_blob_decode(r, &b) != 0)
			return -1;
		wb_u8(reply, SSH2_AGENT_SIGN_RESPONSE);
		wb_slice(reply, b.blob);
		return 0;
	case MSG_R_IDENTITIES:
		if (msg_identities_decode(r, &ids) != 0)
			return -1;
		wb_u8(reply, SSH2_AGENT_IDENTITIES_ANSWER);
		wb_u32(reply, ids.n);
		wb_bytes(reply, ids.entries.p, ids.entries.len);
		return 0;
	}
	/* The answer of an extension: its name, then the body policy wrote. */
	if ((e = agent_ext_answered_by(h->type)) != NULL) {
		if (msg_blob_decode(r, &b) != 0)
			return -1;
		wb_u8(reply, SSH_AGENT_EXTENSION_RESPONSE);
		wb_cstring(reply, e->name);
		wb_bytes(reply, b.blob.p, b.blob.len);
		return 0;
	}
	return -1;
}
