/*
 * fuzz_msg.c - libFuzzer harness for every format that crosses a process
 * boundary (wire/): the inter-process messages (wire/msg.c), the
 * INSPECT_EXTENSION answer's body (wire/constraints.c), the CONNS_EXTENSION
 * answer's body (wire/conns.c), the extension names
 * (wire/agent.c) and the fingerprint hash names (keys/fphash.c). The input
 * is one datagram as a process receives it: the header (msg_hdr_decode),
 * whose type byte - the first byte - selects the payload decoder its
 * receiver uses (MSG_R_INSPECT, MSG_R_CONNS: the blob, then the body in
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
#include "wire/constraints.h"
#include "ipc/limits.h"
#include "wire/msg.h"

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
	struct msg_blob m;

	if (msg_blob_decode(r, &m))
		return -1;
	msg_blob_encode(w, &m);
	return 0;
}

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

/* The body of the INSPECT_EXTENSION answer (wire/constraints.h). */
static int
rt_inspect(struct rd *r, struct wb *w)
{
	struct inspect_list l;
	const char *why = NULL;

	if (inspect_decode(r, &l, &why) != 0) {
		CHECK(why != NULL && l.n == 0 && l.ids == NULL);
		return -1;
	}
	CHECK(r->len == 0);
	for (size_t i = 0; i < l.n; i++) {
		CHECK(l.ids[i].confirm == 0 || l.ids[i].confirm == 1);
		for (size_t j = 0; j < l.ids[i].nrules; j++)
			CHECK(l.ids[i].rules[j].from.user.len == 0 &&
			    l.ids[i].rules[j].to.host.len != 0);
	}
	inspect_encode(w, &l);
	inspect_free(&l);
	return 0;
}

/* MSG_R_INSPECT: a blob whose content is the body. */
static int
rt_r_inspect(struct rd *r, struct wb *w)
{
	struct msg_blob m;
	struct rd body;
	struct wb b;
	int rc;

	if (msg_blob_decode(r, &m))
		return -1;
	rd_init(&body, m.blob.p, m.blob.len);
	wb_init(&b);
	if ((rc = rt_inspect(&body, &b)) == 0) {
		CHECK(!b.err);
		msg_blob_encode(w, &(struct msg_blob){ wb_slice_of(&b) });
	}
	wb_free(&b);
	return rc;
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
	struct msg_blob m;
	struct rd body;
	struct wb b;
	int rc;

	if (msg_blob_decode(r, &m))
		return -1;
	rd_init(&body, m.blob.p, m.blob.len);
	wb_init(&b);
	if ((rc = rt_conns(&body, &b)) == 0) {
		CHECK(!b.err);
		msg_blob_encode(w, &(struct msg_blob){ wb_slice_of(&b) });
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

/* The decoder each receiver uses for each type (msg.h). */
static roundtrip_fn
decoder_for(uint8_t type)
{
	switch (type) {
	case MSG_OPEN: return rt_open;
	case MSG_CLOSE: case MSG_LIST: case MSG_REMOVE_ALL: case MSG_QUERY:
	case MSG_BIND_BAD: case MSG_KH_WIPE: case MSG_PROMPT_CANCEL:
	case MSG_INSPECT: case MSG_POLICY_SHOW: case MSG_CONNS:
		return rt_empty;
	case MSG_SIGN: return rt_sign;
	case MSG_ADD: return rt_add;
	case MSG_REMOVE: case MSG_LOCK: case MSG_UNLOCK: case MSG_PROMPT:
	case MSG_R_SIGNATURE: case MSG_R_EXTENSIONS: case MSG_AUDIT:
	case MSG_POLICY_LOAD: case MSG_R_POLICY:
		return rt_blob;
	case MSG_R_INSPECT: return rt_r_inspect;
	case MSG_R_CONNS: return rt_r_conns;
	case MSG_BIND: return rt_bind;
	case MSG_KH_ADD: return rt_kh_add;
	case MSG_KH_SIGN: return rt_kh_sign;
	case MSG_KH_DELETE: return rt_kh_delete;
	case MSG_KH_SK_MATERIAL: return rt_kh_sk_material;
	case MSG_R_SK_MATERIAL: return rt_sk_material;
	case MSG_R_STATUS: return rt_status;
	case MSG_R_IDENTITIES: return rt_identities;
	}
	return NULL;
}

static const roundtrip_fn all[] = {
	rt_empty, rt_open, rt_sign, rt_add, rt_bind, rt_blob, rt_status,
	rt_identities, rt_kh_add, rt_kh_sign, rt_kh_delete, rt_inspect, rt_conns,
	rt_ext_name, rt_fp_hash, rt_kh_sk_material, rt_sk_material,
	rt_p11_add, rt_tk_sign, rt_tk_fail,
};

static void
roundtrip(roundtrip_fn fn, const uint8_t *p, size_t len)
{
	struct rd r;
	struct wb w1, w2;
	/* Text fields (rd_text) forgive one trailing NUL that the encoder
	 * does not write: those messages re-encode shorter, then stably. */
	int exact = fn != rt_add && fn != rt_p11_add && fn != rt_tk_sign;

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
