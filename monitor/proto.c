/*
 * proto.c - parse client requests (untrusted bytes, from anyone who can
 * reach the socket, including forwarded hosts) into typed requests. The
 * table below is the whole list of what a client may ask. Policy decodes
 * every forwarded field again; this parser exists so that garbage is
 * refused at the edge and policy receives only well-typed requests.
 */
#include "monitor/proto.h"
#include "keys/assoc.h"
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

/* One SSH_AGENT_CONSTRAIN_EXTENSION: a destination, a FIDO provider or,
 * for a smartcard add, associated certificates; any other is refused.
 * 0, or -1. */
static int
constraint_extension(struct rd *r, struct constraints *cs, int smartcard)
{
	struct slice name;
	const char *why = NULL;

	if (rd_text(r, &name) != 0)
		return -1;
	if (slice_eq_str(name, DEST_EXTENSION_NAME)) {
		if (cs->has_dest || rd_string(r, &cs->dest) != 0 ||
		    dest_parse(cs->dest, NULL, NULL, &why) < 0) {
			log_info("refused add: destination constraint: %s",
			    why ? why : "duplicate or truncated");
			return -1;
		}
		cs->has_dest = 1;
		return 0;
	}
	if (slice_eq_str(name, SK_PROVIDER_EXTENSION_NAME)) {
		/* Judged by policy (doc/protocol.md §6.5): only for FIDO keys, a
		 * path resolved and checked against -P. */
		if (cs->has_provider || rd_text(r, &cs->provider) != 0 ||
		    cs->provider.len == 0 ||
		    cs->provider.len >= TOKEN_MAX_PATH)
			return -1;
		cs->has_provider = 1;
		return 0;
	}
	if (smartcard && slice_eq_str(name, ASSOC_EXTENSION_NAME)) {
		if (cs->has_certs ||
		    rd_bool(r, &cs->certs_only) != 0 ||
		    rd_string(r, &cs->certs) != 0 ||
		    assoc_parse(cs->certs, NULL, NULL, &why) < 0) {
			log_info("refused PKCS#11 add: associated "
			    "certificates: %s", why ? why :
			    "duplicate or truncated");
			return -1;
		}
		cs->has_certs = 1;
		return 0;
	}
	/* Never accept a key while ignoring a restriction on it. */
	log_info("refused add: constraint extension \"%.*s\" is not "
	    "supported", (int)(name.len > 64 ? 64 : name.len),
	    (const char *)name.p);
	return -1;
}

/* smartcard: a PKCS#11 add (26), the one request that may carry
 * associated certificates (doc/protocol.md §6.7). */
static int
parse_constraints(struct rd *r, struct constraints *cs, int smartcard)
{
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
			if (constraint_extension(r, cs, smartcard) != 0)
				return -1;
			break;
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
	if (rd_text(&c->r, &m.comment) != 0 ||
	    parse_constraints(&c->r, &m.c, 0) != 0)
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

/* ssh-add -s (doc/protocol.md §5.7): string provider; string pin; and for 26 the
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
	} else if (parse_constraints(&c->r, &m.c, 1) != 0)
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

/* ssh-add -e: string provider; string pin (ignored, doc/protocol.md §5.7). */
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
	 * reason for the agent to exit (doc/protocol.md §5.8). */
	/* A text string, but hashed whole: a trailing NUL is part of the
	 * passphrase ("pw\0" is not "pw", doc/protocol.md §2), as in the reference. */
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

/* A session-bind that does not parse still counts as attempted (doc/protocol.md §7.2), so
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
	struct agent_policy_req m;

	if (agent_policy_request_decode(&c->r, &m) != 0)
		return REFUSE;
	if (!m.load)
		return forward_empty(c, MSG_POLICY_SHOW);
	if (m.rules_text.len > RULES_MAX_FILE) {
		log_info("refused policy load: %zu bytes of rules (at most %u)",
		    m.rules_text.len, (unsigned)RULES_MAX_FILE);
		return REFUSE;
	}
	msg_policy_load_write(c->ipc, c->req, c->conn, m.rules_text);
	return FORWARD;
}

/* The extensions with arguments, and their parsers; the others take
 * none. */
static const struct {
	uint8_t msg;            /* of their row in wire/agent.c */
	int (*fn)(struct req_ctx *);
} ext_args[] = {
	{ MSG_BIND, req_bind },
	{ MSG_POLICY_LOAD, req_policy },
};

static int
req_extension(struct req_ctx *c)
{
	const struct agent_ext *e;
	struct slice name;

	if (agent_ext_name_decode(&c->r, &name) != 0)
		return REFUSE;
	if ((e = agent_ext_named(name)) == NULL) {
		log_debug("unsupported extension \"%.*s\"",
		    (int)(name.len > 64 ? 64 : name.len), (const char *)name.p);
		return REFUSE;
	}
	for (size_t i = 0; i < sizeof(ext_args) / sizeof(ext_args[0]); i++)
		if (ext_args[i].msg == e->msg)
			return ext_args[i].fn(c);
	return forward_empty(c, e->msg);
}

/* PROTO_LOGGED: the handler logs its own refusal, with why. */
enum { PROTO_LOGGED = 1 << 8 };

static const struct {
	uint8_t type;
	unsigned flags;         /* PROTO_* (proto.h) */
	int (*fn)(struct req_ctx *);
} requests[] = {
	{ SSH_AGENTC_REMOVE_ALL_RSA_IDENTITIES, 0, req_remove_all },
	{ SSH2_AGENTC_REQUEST_IDENTITIES, 0, req_list },
	{ SSH2_AGENTC_SIGN_REQUEST, 0, req_sign },
	{ SSH2_AGENTC_ADD_IDENTITY, PROTO_ADD | PROTO_LOGGED, req_add },
	{ SSH2_AGENTC_REMOVE_IDENTITY, 0, req_remove },
	{ SSH2_AGENTC_REMOVE_ALL_IDENTITIES, 0, req_remove_all },
	{ SSH_AGENTC_ADD_SMARTCARD_KEY, PROTO_ADD, req_smartcard },
	{ SSH_AGENTC_REMOVE_SMARTCARD_KEY, 0, req_smartcard_remove },
	{ SSH_AGENTC_LOCK, PROTO_FENCE, req_lock },
	{ SSH_AGENTC_UNLOCK, PROTO_FENCE, req_unlock },
	{ SSH2_AGENTC_ADD_ID_CONSTRAINED, PROTO_ADD | PROTO_LOGGED, req_add },
	{ SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED, PROTO_ADD,
	  req_smartcard_constrained },
	{ SSH_AGENTC_EXTENSION, 0, req_extension },
};

#define NREQUESTS (sizeof(requests) / sizeof(requests[0]))

/* The row of a request type; NREQUESTS: none. */
static size_t
request_row(uint8_t type)
{
	size_t i;

	for (i = 0; i < NREQUESTS && requests[i].type != type; i++)
		;
	return i;
}

unsigned
proto_flags(uint8_t type)
{
	size_t i = request_row(type);

	return i == NREQUESTS ? 0 : requests[i].flags & (PROTO_ADD | PROTO_FENCE);
}

int
proto_request(const uint8_t *p, size_t len, uint32_t req, uint32_t conn,
    struct wb *ipc, struct wb *reply)
{
	struct req_ctx c = { .req = req, .conn = conn, .ipc = ipc };
	size_t i;

	wb_reset(reply);
	if (len == 0) {                 /* client_frame never passes one */
		wb_u8(reply, SSH_AGENT_FAILURE);
		return 0;
	}
	rd_init(&c.r, p + 1, len - 1);
	if ((i = request_row(p[0])) < NREQUESTS && requests[i].fn(&c) == FORWARD &&
	    !ipc->err)
		return 1;
	if (i == NREQUESTS || !(requests[i].flags & PROTO_LOGGED))
		log_debug("request type %u refused by the parser", p[0]);
	wb_u8(reply, SSH_AGENT_FAILURE);
	return 0;
}

/* ------------------------------------------------------------ replies */

static int
rep_status(struct rd *r, struct wb *reply)
{
	static const uint8_t status_byte[] = {
		[ST_OK] = SSH_AGENT_SUCCESS,
		[ST_FAIL] = SSH_AGENT_FAILURE,
		[ST_EXT_FAIL] = SSH_AGENT_EXTENSION_FAILURE,
	};
	struct msg_status st;

	if (msg_status_decode(r, &st) != 0)
		return -1;
	wb_u8(reply, status_byte[st.status]);
	return 0;
}

static int
rep_signature(struct rd *r, struct wb *reply)
{
	struct slice sig;

	if (msg_string_read(r, &sig) != 0)
		return -1;
	wb_u8(reply, SSH2_AGENT_SIGN_RESPONSE);
	wb_slice(reply, sig);
	return 0;
}

static int
rep_identities(struct rd *r, struct wb *reply)
{
	struct msg_identities ids;

	if (msg_identities_decode(r, &ids) != 0)
		return -1;
	agent_identities_answer(reply, ids.n, ids.entries);
	return 0;
}

static const struct {
	uint8_t type;
	int (*fn)(struct rd *, struct wb *);
} replies[] = {
	{ MSG_R_STATUS, rep_status },
	{ MSG_R_SIGNATURE, rep_signature },
	{ MSG_R_IDENTITIES, rep_identities },
};

int
proto_reply(const struct msg_hdr *h, struct rd *r, struct wb *reply)
{
	const struct agent_ext *e;
	struct slice body;

	wb_reset(reply);
	for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++)
		if (replies[i].type == h->type)
			return replies[i].fn(r, reply);
	/* The answer of an extension (its row in wire/agent.c): its name,
	 * then the body policy wrote. */
	if ((e = agent_ext_answered_by(h->type)) == NULL ||
	    msg_string_read(r, &body) != 0)
		return -1;
	agent_ext_answer(reply, e->name, body);
	return 0;
}
