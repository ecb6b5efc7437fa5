/*
 * fuzz_msg.c - libFuzzer harness for every format that crosses a process
 * boundary (wire/): the inter-process messages (wire/msg.c and one file
 * per boundary: monitor.c, keyholder.c, prompter.c, auditor.c, broker.c), the
 * CONSTRAINTS_EXTENSION answer's body (wire/listing.c), the CONNS_EXTENSION
 * answer's body (wire/conns.c), the extension names
 * (wire/agent.c) and the fingerprint hash names (keys/fphash.c). The input
 * is one datagram as a process receives it: the header (msg_hdr_decode),
 * whose type byte - the first byte - selects the payload decoder its
 * receiver uses (MSG_R_CONSTRAINTS, MSG_R_CONNS: the blob, then the body in
 * it). A type no
 * process accepts is fed to every decoder in turn, the body and the two
 * name tables included, so each input exercises some decoder.
 *
 * Checked: no decoder reads out of bounds or leaks; what a decoder
 * accepts its encoder writes back, and that decodes again to the same
 * bytes (encoder and decoder cannot drift; every encoder writes every
 * field, so the same bytes are the same value). Every decoder refuses
 * trailing bytes, so the re-encoding is the payload byte for byte, except
 * for MSG_ADD, whose comment may lose one trailing NUL (rd_text).
 */
#include "tests/fuzz/fuzz.h"
#include "wire/agent.h"
#include "ipc/buf.h"
#include "wire/conns.h"
#include "keys/fphash.h"
#include "wire/listing.h"
#include "ipc/limits.h"
#include "wire/auditor.h"
#include "wire/session.h"
#include "wire/broker.h"
#include "wire/keyholder.h"
#include "wire/monitor.h"
#include "wire/msg.h"
#include "wire/prompter.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Decode r with one decoder; on success encode the result into w. */
typedef int (*roundtrip_fn)(struct rd *r, struct wb *w);

static int
rt_empty(struct rd *r, struct wb *w)
{
	return msg_empty_decode(r) ? -1 : 0;
}

static int
rt_open(struct rd *r, struct wb *w)
{
	struct msg_open m;

	if (msg_open_decode(r, &m))
		return -1;
	msg_open_encode(w, &m);
	return 0;
}

static int
rt_session(struct rd *r, struct wb *w)
{
	struct msg_session m;

	if (msg_session_decode(r, &m))
		return -1;
	msg_session_encode(w, &m);
	return 0;
}

static int
rt_notice(struct rd *r, struct wb *w)
{
	struct msg_notice m;

	if (msg_notice_decode(r, &m))
		return -1;
	msg_notice_encode(w, &m);
	return 0;
}

static int
rt_sign(struct rd *r, struct wb *w)
{
	struct msg_sign m;

	if (msg_sign_decode(r, &m))
		return -1;
	msg_sign_encode(w, &m);
	return 0;
}

static int
rt_add(struct rd *r, struct wb *w)
{
	struct msg_add m;

	if (msg_add_decode(r, &m))
		return -1;
	CHECK(memchr(m.comment.p, '\0', m.comment.len) == NULL);
	CHECK(m.c.has_dest || m.c.dest.len == 0);
	CHECK(m.c.has_lifetime || m.c.lifetime == 0);
	msg_add_encode(w, &m);
	return 0;
}

static int
rt_p11_add(struct rd *r, struct wb *w)
{
	struct msg_p11_add m;

	if (msg_p11_add_decode(r, &m))
		return -1;
	CHECK(m.provider.len > 0 &&
	    memchr(m.provider.p, '\0', m.provider.len) == NULL);
	CHECK(m.c.has_dest || m.c.dest.len == 0);
	msg_p11_add_encode(w, &m);
	return 0;
}

static int
rt_tk_sign(struct rd *r, struct wb *w)
{
	struct msg_tk_sign m;

	if (msg_tk_sign_decode(r, &m))
		return -1;
	msg_tk_sign_encode(w, &m);
	return 0;
}

static int
rt_tk_fail(struct rd *r, struct wb *w)
{
	struct msg_tk_fail m;

	if (msg_tk_fail_decode(r, &m))
		return -1;
	CHECK(m.why >= TK_BUSY && m.why <= TK_FAIL_MAX);
	msg_tk_fail_encode(w, &m);
	return 0;
}

static int
rt_bind(struct rd *r, struct wb *w)
{
	struct msg_bind m;

	if (msg_bind_decode(r, &m))
		return -1;
	CHECK(m.forwarding == 0 || m.forwarding == 1);
	msg_bind_encode(w, &m);
	return 0;
}

static int
rt_blob(struct rd *r, struct wb *w)
{
	struct slice m;

	if (msg_string_read(r, &m))
		return -1;
	wb_slice(w, m);
	return 0;
}

/* A message whose payload is one string: its typed reader, then its typed
 * writer, which writes the header too; the header must carry the type
 * the reader was chosen for, and the payload goes to w. */
#define RT_STRING(fn, type, read, write) \
static int \
fn(struct rd *r, struct wb *w) \
{ \
	struct slice s; \
	struct wb t; \
\
	if (read(r, &s)) \
		return -1; \
	wb_init(&t); \
	write; \
	CHECK(!t.err && t.len >= IPC_HEADER_LEN && t.p[0] == (type)); \
	wb_bytes(w, t.p + IPC_HEADER_LEN, t.len - IPC_HEADER_LEN); \
	wb_free_secret(&t); \
	return 0; \
}

RT_STRING(rt_remove, MSG_REMOVE, msg_string_read, msg_remove_write(&t, 1, 2, s))
RT_STRING(rt_lock, MSG_LOCK, msg_string_read, msg_lock_write(&t, 0, 1, 2, s))
RT_STRING(rt_unlock, MSG_UNLOCK, msg_string_read, msg_lock_write(&t, 1, 1, 2, s))
RT_STRING(rt_p11_remove, MSG_P11_REMOVE, msg_string_read,
    msg_p11_remove_write(&t, 1, 2, s))
RT_STRING(rt_peer, MSG_PEER, msg_string_read, msg_peer_write(&t, 2, s))
RT_STRING(rt_policy_load, MSG_POLICY_LOAD, msg_string_read,
    msg_policy_load_write(&t, 1, 2, s))
RT_STRING(rt_signature, MSG_R_SIGNATURE, msg_string_read,
    msg_signature_write(&t, 1, 2, s))
RT_STRING(rt_extensions, MSG_R_EXTENSIONS, msg_string_read,
    msg_ext_reply_write(&t, MSG_R_EXTENSIONS, 1, 2, s))
RT_STRING(rt_policy, MSG_R_POLICY, msg_string_read,
    msg_ext_reply_write(&t, MSG_R_POLICY, 1, 2, s))
RT_STRING(rt_kh_lock, MSG_KH_LOCK, msg_string_read, msg_kh_lock_write(&t, 0, 1, s))
RT_STRING(rt_kh_unlock, MSG_KH_UNLOCK, msg_string_read,
    msg_kh_lock_write(&t, 1, 1, s))
RT_STRING(rt_pubkey, MSG_R_PUBKEY, msg_string_read, msg_pubkey_write(&t, 1, s))
RT_STRING(rt_prompt, MSG_PROMPT, msg_string_read, msg_prompt_write(&t, 0, 1, s))
RT_STRING(rt_prompt_secret, MSG_PROMPT_SECRET, msg_string_read,
    msg_prompt_write(&t, 1, 1, s))
RT_STRING(rt_secret, MSG_R_SECRET, msg_string_read, msg_secret_write(&t, 1, s))
RT_STRING(rt_audit, MSG_AUDIT, msg_string_read, msg_audit_write(&t, 1, s))
RT_STRING(rt_tk_resolve, MSG_TK_RESOLVE, msg_string_read,
    msg_tk_resolve_write(&t, 1, 2, s))
RT_STRING(rt_tk_p11_stop, MSG_TK_P11_STOP, msg_string_read,
    msg_tk_p11_stop_write(&t, s))
RT_STRING(rt_path, MSG_R_PATH, msg_string_read, msg_path_write(&t, 1, s))
RT_STRING(rt_token, MSG_R_TOKEN, msg_string_read, msg_token_write(&t, 1, s))
RT_STRING(rt_p11_gone, MSG_R_P11_GONE, msg_string_read,
    msg_p11_gone_write(&t, s))

static int
rt_status(struct rd *r, struct wb *w)
{
	struct msg_status m;

	if (msg_status_decode(r, &m))
		return -1;
	CHECK(m.status <= ST_EXT_FAIL);
	msg_status_encode(w, &m);
	return 0;
}

/* MSG_LIST_CACHE, policy's list answer: the monitor builds a client's
 * answer from it (monitor/listcache.c). */
static int
rt_list_cache(struct rd *r, struct wb *w)
{
	struct msg_list_cache m;
	struct wb reply;

	if (msg_list_cache_decode(r, &m))
		return -1;
	CHECK(m.gen != 0 && (m.tell == 0 || m.tell == 1));
	wb_init(&reply);
	agent_identities_answer(&reply, m.ids.n, m.ids.entries);
	CHECK(!reply.err && reply.len == 5 + m.ids.entries.len);
	wb_free(&reply);
	msg_list_cache_encode(w, &m);
	return 0;
}

static int
rt_listed(struct rd *r, struct wb *w)
{
	struct msg_listed m;

	if (msg_listed_decode(r, &m))
		return -1;
	CHECK(m.gen != 0);
	msg_listed_encode(w, &m);
	return 0;
}

static int
rt_identities(struct rd *r, struct wb *w)
{
	struct msg_identities m;
	struct rd e;
	struct slice s;

	if (msg_identities_decode(r, &m))
		return -1;
	/* exactly n (blob, comment) pairs, as the monitor relays them */
	rd_init(&e, m.entries.p, m.entries.len);
	for (uint32_t i = 0; i < m.n; i++)
		CHECK(rd_string(&e, &s) == 0 && rd_string(&e, &s) == 0);
	CHECK(rd_done(&e) == 0);
	msg_identities_encode(w, &m);
	return 0;
}

static int
rt_kh_add(struct rd *r, struct wb *w)
{
	struct msg_kh_add m;

	if (msg_kh_add_decode(r, &m))
		return -1;
	msg_kh_add_encode(w, &m);
	return 0;
}

static int
rt_kh_sign(struct rd *r, struct wb *w)
{
	struct msg_kh_sign m;

	if (msg_kh_sign_decode(r, &m))
		return -1;
	msg_kh_sign_encode(w, &m);
	return 0;
}

static int
rt_kh_delete(struct rd *r, struct wb *w)
{
	struct msg_kh_delete m;

	if (msg_kh_delete_decode(r, &m))
		return -1;
	msg_kh_delete_encode(w, &m);
	return 0;
}

/* The body of the CONSTRAINTS_EXTENSION answer (wire/listing.h). */
static int
rt_listing(struct rd *r, struct wb *w)
{
	struct listing l;
	const char *why = NULL;

	if (listing_decode(r, &l, &why) != 0) {
		CHECK(why != NULL && l.n == 0 && l.ids == NULL);
		return -1;
	}
	CHECK(r->len == 0);
	for (size_t i = 0; i < l.n; i++) {
		CHECK(l.ids[i].confirm == 0 || l.ids[i].confirm == 1);
		/* a host only for a forwarded add, as the encoder writes it */
		CHECK(l.ids[i].added_over >= LISTING_ADDED_LOCAL &&
		    l.ids[i].added_over <= LISTING_ADDED_UNKNOWN);
		CHECK((l.ids[i].added_over == LISTING_ADDED_FORWARDED) ==
		    (l.ids[i].added_by.len != 0));
		for (size_t j = 0; j < l.ids[i].nrules; j++)
			CHECK(l.ids[i].rules[j].from.user.len == 0 &&
			    l.ids[i].rules[j].to.host.len != 0);
	}
	listing_encode(w, &l);
	listing_free(&l);
	return 0;
}

/* MSG_R_CONSTRAINTS: a blob whose content is the body. */
static int
rt_r_constraints(struct rd *r, struct wb *w)
{
	struct slice m;
	struct rd body;
	struct wb b;
	int rc;

	if (msg_string_read(r, &m))
		return -1;
	rd_init(&body, m.p, m.len);
	wb_init(&b);
	if ((rc = rt_listing(&body, &b)) == 0) {
		CHECK(!b.err);
		wb_slice(w, wb_slice_of(&b));
	}
	wb_free(&b);
	return rc;
}

/* MSG_R_SESSION: a blob whose content is SESSION_EXTENSION's body
 * (wire/session.h), which keyward-ctl session decodes. */
static int
rt_r_session(struct rd *r, struct wb *w)
{
	struct session_view v;
	struct slice m;
	struct rd body;
	struct wb b;

	if (msg_string_read(r, &m))
		return -1;
	rd_init(&body, m.p, m.len);
	if (session_view_decode(&body, &v) != 0)
		return -1;
	CHECK((v.flags & ~SESSION_VIEW_ALL) == 0 &&
	    v.detail.len <= SESSION_REASON_MAX &&
	    (v.followed || (v.flags == 0 && v.last_suspend == 0)));
	wb_init(&b);
	session_view_encode(&b, &v);
	CHECK(!b.err);
	wb_slice(w, wb_slice_of(&b));
	wb_free(&b);
	return 0;
}

/* The body of the CONNS_EXTENSION answer (wire/conns.h). */
static int
rt_conns(struct rd *r, struct wb *w)
{
	struct conns_list l;
	const char *why = NULL;

	if (conns_decode(r, &l, &why) != 0) {
		CHECK(why != NULL && l.n == 0 && l.c == NULL);
		return -1;
	}
	CHECK(r->len == 0 && l.n <= l.total);
	conns_encode_head(w, l.total, (uint32_t)l.n);
	for (size_t i = 0; i < l.n; i++)
		conns_encode_one(w, &l.c[i]);
	conns_free(&l);
	return 0;
}

/* MSG_R_CONNS: a blob whose content is the body. */
static int
rt_r_conns(struct rd *r, struct wb *w)
{
	struct slice m;
	struct rd body;
	struct wb b;
	int rc;

	if (msg_string_read(r, &m))
		return -1;
	rd_init(&body, m.p, m.len);
	wb_init(&b);
	if ((rc = rt_conns(&body, &b)) == 0) {
		CHECK(!b.err);
		wb_slice(w, wb_slice_of(&b));
	}
	wb_free(&b);
	return rc;
}

/* The payload as an extension name (the bytes after its length). */
static int
rt_ext_name(struct rd *r, struct wb *w)
{
	struct slice name = { r->p, r->len };
	const struct agent_ext *e;

	if ((e = agent_ext_named(name)) == NULL)
		return -1;
	CHECK(e->msg != 0 && (e->reply == 0 || agent_ext_answered_by(e->reply) == e));
	r->len = 0;
	wb_bytes(w, e->name, strlen(e->name));
	return 0;
}

/* The payload as POLICY_EXTENSION's arguments (wire/agent.c), as the
 * monitor reads them; written again by keyward-ctl's encoder, whose
 * request prefix (type byte, the name) is dropped. */
static int
rt_policy_args(struct rd *r, struct wb *w)
{
	struct agent_policy_req m;
	struct wb t;
	size_t pre = 1 + 4 + strlen(POLICY_EXTENSION);

	if (agent_policy_request_decode(r, &m))
		return -1;
	wb_init(&t);
	if (m.load)
		agent_policy_load_request(&t, m.rules_text);
	else
		agent_policy_show_request(&t);
	CHECK(!t.err && t.len >= pre);
	wb_bytes(w, t.p + pre, t.len - pre);
	wb_free(&t);
	return 0;
}

/* The payload as an extension's answer (keyward-ctl's reading), its body
 * as POLICY_EXTENSION "show"'s. */
static int
rt_ext_answer(struct rd *r, struct wb *w)
{
	struct slice text;
	struct rd body;
	struct wb b;
	const char *why;

	if (agent_ext_answer_open((struct slice){ r->p, r->len }, POLICY_EXTENSION,
	    0, &body, &why) != EXT_ANSWERED ||
	    agent_policy_show_body_decode(&body, &text) != 0)
		return -1;
	r->len = 0;
	wb_init(&b);
	agent_policy_show_body(&b, text);
	agent_ext_answer(w, POLICY_EXTENSION, wb_slice_of(&b));
	wb_free(&b);
	return 0;
}

/* The payload as an identities answer's head, as keyward-ctl reads it;
 * framed again around what follows the count. */
static int
rt_ids_count(struct rd *r, struct wb *w)
{
	uint32_t n;

	if (agent_identities_count((struct slice){ r->p, r->len }, &n))
		return -1;
	CHECK(r->len >= 5);
	agent_identities_answer(w, n, (struct slice){ r->p + 5, r->len - 5 });
	r->len = 0;
	return 0;
}

/* The payload as a fingerprint hash name: policy takes the canonical
 * name only, and -E any spelling of one in another case. */
static int
rt_fp_hash(struct rd *r, struct wb *w)
{
	const struct fp_hash *h;
	const char *canon;
	char s[32];

	if (r->len >= sizeof(s) || memchr(r->p, '\0', r->len) != NULL)
		return -1;
	memcpy(s, r->p, r->len);
	s[r->len] = '\0';
	canon = fp_hash_parse(s);
	CHECK(canon == NULL || (strcasecmp(canon, s) == 0 &&
	    fp_hash_find(canon) != NULL && fp_hash_find(canon)->name == canon));
	if ((h = fp_hash_find(s)) == NULL)
		return -1;
	CHECK(canon == h->name);
	r->len = 0;
	wb_bytes(w, h->name, strlen(h->name));
	return 0;
}

static int
rt_kh_sk_material(struct rd *r, struct wb *w)
{
	struct msg_kh_sk_material m;

	if (msg_kh_sk_material_decode(r, &m))
		return -1;
	msg_kh_sk_material_encode(w, &m);
	return 0;
}

/* The keyholder's answer carries a key handle: the buffers are wiped as
 * the keyholder's are. */
static int
rt_sk_material(struct rd *r, struct wb *w)
{
	struct msg_sk_material m;

	if (msg_sk_material_decode(r, &m))
		return -1;
	CHECK(m.alg == 0x00 || m.alg == 0x01);
	CHECK(m.application.len <= AGENT_MAX_SK_APPLICATION &&
	    m.key_handle.len <= AGENT_MAX_SK_KEY_HANDLE);
	CHECK(m.application.len == 0 ||
	    memchr(m.application.p, '\0', m.application.len) == NULL);
	msg_sk_material_encode(w, &m);
	return 0;
}

/* The decoder each receiver uses for each type (wire/msg.h and the
 * boundary files), one row per type. */
static const struct {
	uint8_t type;
	roundtrip_fn fn;
} decoders[] = {
	/* session watcher -> policy */
	{ MSG_SESSION, rt_session },
	{ MSG_NOTICE, rt_notice },
	/* monitor <-> policy */
	{ MSG_OPEN, rt_open },
	{ MSG_CLOSE, rt_empty },
	{ MSG_LIST, rt_empty },
	{ MSG_SIGN, rt_sign },
	{ MSG_ADD, rt_add },
	{ MSG_REMOVE, rt_remove },
	{ MSG_REMOVE_ALL, rt_empty },
	{ MSG_LOCK, rt_lock },
	{ MSG_UNLOCK, rt_unlock },
	{ MSG_QUERY, rt_empty },
	{ MSG_BIND, rt_bind },
	{ MSG_BIND_BAD, rt_empty },
	{ MSG_CONSTRAINTS, rt_empty },
	{ MSG_P11_ADD, rt_p11_add },
	{ MSG_P11_REMOVE, rt_p11_remove },
	{ MSG_PEER, rt_peer },
	{ MSG_POLICY_LOAD, rt_policy_load },
	{ MSG_POLICY_SHOW, rt_empty },
	{ MSG_CONNS, rt_empty },
	{ MSG_SESSION_STATE, rt_empty },
	{ MSG_LISTED, rt_listed },
	{ MSG_LIST_CACHE, rt_list_cache },
	{ MSG_LIST_STALE, rt_empty },
	{ MSG_R_IDENTITIES, rt_identities },
	{ MSG_R_EXTENSIONS, rt_extensions },
	{ MSG_R_CONSTRAINTS, rt_r_constraints },
	{ MSG_R_POLICY, rt_policy },
	{ MSG_R_CONNS, rt_r_conns },
	{ MSG_R_SESSION, rt_r_session },
	/* any boundary */
	{ MSG_R_STATUS, rt_status },
	{ MSG_R_SIGNATURE, rt_signature },
	/* policy <-> keyholder */
	{ MSG_KH_ADD, rt_kh_add },
	{ MSG_KH_SIGN, rt_kh_sign },
	{ MSG_KH_DELETE, rt_kh_delete },
	{ MSG_KH_WIPE, rt_empty },
	{ MSG_KH_LOCK, rt_kh_lock },
	{ MSG_KH_UNLOCK, rt_kh_unlock },
	{ MSG_KH_SK_MATERIAL, rt_kh_sk_material },
	{ MSG_R_SK_MATERIAL, rt_sk_material },
	{ MSG_R_PUBKEY, rt_pubkey },
	/* policy <-> prompter */
	{ MSG_PROMPT, rt_prompt },
	{ MSG_PROMPT_CANCEL, rt_empty },
	{ MSG_PROMPT_SECRET, rt_prompt_secret },
	{ MSG_R_SECRET, rt_secret },
	/* policy <-> auditor */
	{ MSG_AUDIT, rt_audit },
	/* policy <-> broker */
	{ MSG_TK_RESOLVE, rt_tk_resolve },
	{ MSG_TK_SIGN, rt_tk_sign },
	{ MSG_TK_CANCEL, rt_empty },
	{ MSG_TK_P11_START, rt_tk_sign },
	{ MSG_TK_P11_SIGN, rt_tk_sign },
	{ MSG_TK_P11_STOP, rt_tk_p11_stop },
	{ MSG_R_PATH, rt_path },
	{ MSG_R_TOKEN, rt_token },
	{ MSG_R_TOKEN_FAIL, rt_tk_fail },
	{ MSG_R_P11_GONE, rt_p11_gone },
};

static roundtrip_fn
decoder_for(uint8_t type)
{
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (decoders[i].type == type)
			return decoders[i].fn;
	return NULL;
}

static const roundtrip_fn all[] = {
	rt_empty, rt_session, rt_notice, rt_open, rt_sign, rt_add, rt_bind, rt_blob, rt_status,
	rt_identities, rt_kh_add, rt_kh_sign, rt_kh_delete, rt_listing, rt_conns,
	rt_ext_name, rt_fp_hash, rt_kh_sk_material, rt_sk_material,
	rt_p11_add, rt_tk_sign, rt_tk_fail, rt_policy_args, rt_ext_answer,
	rt_ids_count, rt_list_cache, rt_listed,
};

static void
roundtrip(roundtrip_fn fn, const uint8_t *p, size_t len)
{
	struct rd r;
	struct wb w1, w2;
	/* Text fields (rd_text) forgive one trailing NUL that the encoder
	 * does not write: those messages re-encode shorter, then stably. */
	int exact = fn != rt_add && fn != rt_p11_add && fn != rt_tk_sign &&
	    fn != rt_policy_args && fn != rt_ext_answer;

	wb_init(&w1);
	wb_init(&w2);
	rd_init(&r, p, len);
	if (fn(&r, &w1) == 0) {
		CHECK(!w1.err);
		CHECK(w1.len <= len);
		if (exact)
			CHECK(w1.len == len && (len == 0 || memcmp(w1.p, p, len) == 0));
		rd_init(&r, w1.p, w1.len);
		CHECK(fn(&r, &w2) == 0);
		CHECK(!w2.err && slice_eq(wb_slice_of(&w1), wb_slice_of(&w2)));
	}
	wb_free_secret(&w1);
	wb_free_secret(&w2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r;
	struct msg_hdr h;
	struct wb w;
	roundtrip_fn fn;

	if (size > IPC_MAX_MSG)
		return -1;
	rd_init(&r, data, size);
	if (msg_hdr_decode(&r, &h) != 0) {
		CHECK(size < IPC_HEADER_LEN);
		return 0;
	}
	CHECK(r.len == size - IPC_HEADER_LEN);
	/* the header writer and reader agree */
	wb_init(&w);
	msg_begin(&w, h.type, h.req, h.conn);
	CHECK(!w.err && w.len == IPC_HEADER_LEN && memcmp(w.p, data, IPC_HEADER_LEN) == 0);
	wb_free(&w);

	if ((fn = decoder_for(h.type)) != NULL) {
		roundtrip(fn, r.p, r.len);
		return 0;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		roundtrip(all[i], r.p, r.len);
	return 0;
}
