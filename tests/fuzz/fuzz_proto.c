/*
 * fuzz_proto.c - libFuzzer harness for the monitor's request parser
 * (monitor/proto.c). The input is one client request payload, type byte
 * first, as client_frame hands it over (1 to AGENT_MAX_FRAME bytes).
 *
 * Checked on every input:
 *  - a refusal writes exactly one SSH_AGENT_FAILURE byte;
 *  - a forwarded message fits in one IPC datagram, echoes the request and
 *    connection ids, and decodes with the decoder policy uses for its type
 *    (policy ends the agent on an undecodable monitor message, so the
 *    monitor must never emit one); for an ADD also everything policy then
 *    does without a secret: the key part re-parses to its last byte, its
 *    public blob encodes and fingerprints, the comment copies, the
 *    destination constraint parses again;
 *  - the forwarded fields are the ones the client sent.
 * The same bytes are then read as a policy reply datagram for proto_reply.
 */
#include "tests/fuzz/fuzz.h"
#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "keys/dest.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "wire/monitor.h"
#include "keys/sshkey.h"
#include "monitor/proto.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
#define REQ_ID  0x0badc0deU
#define CONN_ID 0x00c0ffeeU

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* The parser logs every refusal; keep the fuzzer's output readable. */
	log_init("fuzz_proto", getenv("FUZZ_LOG") ? LOG_LVL_DEBUG : LOG_LVL_ERROR, 0);
	return 0;
}

/* What policy does with a MSG_ADD before anything needs a secret
 * (policy/keys.c h_add), minus the table lookups. */
static void
policy_add(const struct msg_add *m)
{
	struct privkey k;
	struct rd kr;
	struct wb blob;
	const char *why = NULL;
	char fp[96], *comment;

	struct pubkey pub;

	/* policy judges pub; the keyholder derives it again from key */
	CHECK(key_parse_public(m->pub, &pub, &why) == 0);
	CHECK(fingerprint(m->pub, "sha256", fp, sizeof(fp)) == 0);
	rd_init(&kr, m->key.p, m->key.len);
	CHECK(key_parse_private(&kr, &k, &why) == 0);
	CHECK(rd_done(&kr) == 0);
	wb_init(&blob);
	key_write_public(&blob, &k.pub);
	CHECK(!blob.err && slice_eq(wb_slice_of(&blob), m->pub));
	wb_free(&blob);
	CHECK((comment = slice_strdup(m->comment)) != NULL);
	free(comment);
	if (m->c.has_dest)
		CHECK(dest_parse(m->c.dest, NULL, NULL, &why) >= 1);
	else
		CHECK(m->c.dest.len == 0);
}

/* Decode what the monitor produced the way its receiver does, and compare
 * it with what the client sent (r: the request after its type byte). */
static void
check_forwarded(const uint8_t *p, size_t len, const struct wb *ipc)
{
	struct rd r, req;
	struct msg_hdr h;
	struct slice a, b, c;
	uint32_t u;
	int fwd;

	CHECK(!ipc->err);
	CHECK(ipc->len >= IPC_HEADER_LEN && ipc->len <= IPC_MAX_MSG);
	rd_init(&r, ipc->p, ipc->len);
	CHECK(msg_hdr_decode(&r, &h) == 0);
	CHECK(h.req == REQ_ID && h.conn == CONN_ID);
	rd_init(&req, p + 1, len - 1);

	switch (h.type) {
	case MSG_LIST:
		CHECK(p[0] == SSH2_AGENTC_REQUEST_IDENTITIES && len == 1);
		CHECK(msg_empty_decode(&r) == 0);
		break;
	case MSG_REMOVE_ALL:
		CHECK((p[0] == SSH2_AGENTC_REMOVE_ALL_IDENTITIES ||
		    p[0] == SSH_AGENTC_REMOVE_ALL_RSA_IDENTITIES) && len == 1);
		CHECK(msg_empty_decode(&r) == 0);
		break;
	case MSG_QUERY:
	case MSG_BIND_BAD:
	case MSG_CONSTRAINTS:
	case MSG_POLICY_SHOW:
	case MSG_CONNS:
	case MSG_SESSION_STATE:
		CHECK(p[0] == SSH_AGENTC_EXTENSION);
		CHECK(msg_empty_decode(&r) == 0);
		break;
	case MSG_POLICY_LOAD: {
		/* policy@keyward.dev "load": the text as sent, within the
		 * bound of a rules file */
		struct slice m;
		CHECK(p[0] == SSH_AGENTC_EXTENSION);
		CHECK(msg_string_read(&r, &m) == 0 && m.len <= RULES_MAX_FILE);
		CHECK(rd_string(&req, &a) == 0 && slice_eq_str(a, POLICY_EXTENSION));
		CHECK(rd_string(&req, &a) == 0 && slice_eq_str(a, POLICY_SUB_LOAD));
		CHECK(rd_string(&req, &b) == 0 && rd_done(&req) == 0 &&
		    slice_eq(b, m));
		break;
	}
	case MSG_SIGN: {
		struct msg_sign m;
		CHECK(p[0] == SSH2_AGENTC_SIGN_REQUEST);
		CHECK(msg_sign_decode(&r, &m) == 0);
		CHECK(rd_string(&req, &a) == 0 && rd_string(&req, &b) == 0 &&
		    rd_u32(&req, &u) == 0 && rd_done(&req) == 0);
		CHECK(slice_eq(a, m.key) && slice_eq(b, m.data) && u == m.flags);
		break;
	}
	case MSG_ADD: {
		struct msg_add m;
		CHECK(p[0] == SSH2_AGENTC_ADD_IDENTITY ||
		    p[0] == SSH2_AGENTC_ADD_ID_CONSTRAINED);
		CHECK(msg_add_decode(&r, &m) == 0);
		/* The key part is forwarded byte for byte. */
		CHECK(m.key.len <= req.len && memcmp(m.key.p, req.p, m.key.len) == 0);
		policy_add(&m);
		break;
	}
	case MSG_REMOVE: {
		struct slice m;
		CHECK(p[0] == SSH2_AGENTC_REMOVE_IDENTITY);
		CHECK(msg_string_read(&r, &m) == 0);
		CHECK(rd_string(&req, &a) == 0 && rd_done(&req) == 0 && slice_eq(a, m));
		break;
	}
	case MSG_LOCK:
	case MSG_UNLOCK: {
		struct slice m;
		CHECK(p[0] == (h.type == MSG_LOCK ? SSH_AGENTC_LOCK : SSH_AGENTC_UNLOCK));
		CHECK(msg_string_read(&r, &m) == 0);
		/* the passphrase as sent: a NUL only as its last byte, and that
		 * one kept, since it is hashed too (doc/protocol.md §2) */
		CHECK(m.len < 2 ||
		    memchr(m.p, '\0', m.len - 1) == NULL);
		CHECK(rd_string(&req, &a) == 0 && rd_done(&req) == 0 && slice_eq(a, m));
		break;
	}
	case MSG_BIND: {
		struct msg_bind m;
		CHECK(p[0] == SSH_AGENTC_EXTENSION);
		CHECK(msg_bind_decode(&r, &m) == 0);
		CHECK(rd_text(&req, &a) == 0 &&
		    slice_eq_str(a, "session-bind@openssh.com"));
		CHECK(rd_string(&req, &a) == 0 && rd_string(&req, &b) == 0 &&
		    rd_string(&req, &c) == 0 && rd_bool(&req, &fwd) == 0 &&
		    rd_done(&req) == 0);
		CHECK(slice_eq(a, m.hostkey) && slice_eq(b, m.session_id) &&
		    slice_eq(c, m.signature) && fwd == m.forwarding);
		break;
	}
	case MSG_P11_ADD: {
		struct msg_p11_add m;
		CHECK(p[0] == SSH_AGENTC_ADD_SMARTCARD_KEY ||
		    p[0] == SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED);
		CHECK(msg_p11_add_decode(&r, &m) == 0);
		/* provider and PIN as sent; constraints only on 26 */
		CHECK(rd_text(&req, &a) == 0 && slice_eq(a, m.provider));
		CHECK(rd_string(&req, &b) == 0 && slice_eq(b, m.pin));
		CHECK(p[0] == SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED ||
		    (rd_done(&req) == 0 && !m.c.has_lifetime && !m.c.confirm &&
		    !m.c.has_dest && !m.c.has_provider));
		break;
	}
	case MSG_P11_REMOVE: {
		struct slice m;
		CHECK(p[0] == SSH_AGENTC_REMOVE_SMARTCARD_KEY);
		CHECK(msg_string_read(&r, &m) == 0);
		CHECK(rd_text(&req, &a) == 0 && slice_eq(a, m) &&
		    rd_string(&req, &b) == 0 && rd_done(&req) == 0);
		break;
	}
	default:
		fprintf(stderr, "monitor forwarded message type %u\n", h.type);
		abort();
	}
}

/* The same bytes as a datagram from policy: never reads out of bounds;
 * a reply it accepts becomes a client frame of the right type. */
static void
check_reply(const uint8_t *p, size_t len)
{
	struct rd r;
	struct msg_hdr h;
	struct wb reply;

	rd_init(&r, p, len);
	if (msg_hdr_decode(&r, &h) != 0)
		return;
	wb_init(&reply);
	if (proto_reply(&h, &r, &reply) == 0) {
		CHECK(!reply.err && reply.len >= 1);
		switch (h.type) {
		case MSG_R_STATUS:
			CHECK(reply.len == 1 && (reply.p[0] == SSH_AGENT_SUCCESS ||
			    reply.p[0] == SSH_AGENT_FAILURE ||
			    reply.p[0] == SSH_AGENT_EXTENSION_FAILURE));
			break;
		case MSG_R_SIGNATURE:
			CHECK(reply.p[0] == SSH2_AGENT_SIGN_RESPONSE);
			break;
		case MSG_R_IDENTITIES:
			CHECK(reply.p[0] == SSH2_AGENT_IDENTITIES_ANSWER);
			break;
		case MSG_R_EXTENSIONS:
#ifdef CONSTRAINTS_EXTENSION
		case MSG_R_CONSTRAINTS:
#endif
		case MSG_R_POLICY:
		case MSG_R_CONNS:
		case MSG_R_SESSION:
			CHECK(reply.p[0] == SSH_AGENT_EXTENSION_RESPONSE);
			break;
		default:
			abort();
		}
	}
	wb_free(&reply);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb ipc, reply;
	int rc;

	/* client_frame never hands over an empty or oversized frame. */
	if (size == 0 || size > AGENT_MAX_FRAME)
		return -1;
	wb_init(&ipc);
	wb_init(&reply);
	/* Stale bytes from an earlier request must not leak into this one. */
	wb_u8(&reply, 0xee);
	msg_begin(&ipc, 0xee, 1, 2);
	rc = proto_request(data, size, REQ_ID, CONN_ID, &ipc, &reply);
	if (rc == 1) {
		CHECK(reply.len == 0);
		check_forwarded(data, size, &ipc);
	} else {
		CHECK(rc == 0);
		CHECK(!reply.err && reply.len == 1 && reply.p[0] == SSH_AGENT_FAILURE);
	}
	wb_free_secret(&ipc);
	wb_free(&reply);
	check_reply(data, size);
	return 0;
}
