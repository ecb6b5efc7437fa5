/*
 * test_msg.c - the inter-process messages (wire/msg.c and the boundary
 * files monitor.c, keyholder.c, prompter.c, auditor.c, broker.c): every encoder's
 * output is what its decoder accepts, and every decoder refuses truncated
 * input, oversized lengths and trailing bytes, because the peer that sends
 * it may be compromised.
 */
#include "ipc/limits.h"
#include "wire/auditor.h"
#include "wire/broker.h"
#include "wire/keyholder.h"
#include "wire/monitor.h"
#include "wire/msg.h"
#include "wire/prompter.h"
#include "wire/session.h"
#include "tests/unit/tap.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- the header */

static int
decode_hdr_then_empty(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_hdr h;

	(void)arg;
	rd_init(&r, p, n);
	return msg_hdr_decode(&r, &h) != 0 || msg_empty_decode(&r) != 0;
}

static void
test_header(void)
{
	struct wb w;
	struct rd r;
	struct msg_hdr h;
	struct tb t;

	wb_init(&w);
	wb_cstring(&w, "stale bytes from the last message");
	msg_begin(&w, MSG_SIGN, 0xa1b2c3d4, 0x01020304);
	ok(w.len == IPC_HEADER_LEN && !w.err &&
	    memcmp(w.p, "\x04\xa1\xb2\xc3\xd4\x01\x02\x03\x04", 9) == 0,
	    "header: type byte, request id, connection id; replaces what was there");
	rd_init(&r, w.p, w.len);
	ok(msg_hdr_decode(&r, &h) == 0 && h.type == MSG_SIGN && h.req == 0xa1b2c3d4 &&
	    h.conn == 0x01020304 && r.len == 0, "header decoded");
	wb_u8(&w, 0x55);
	rd_init(&r, w.p, w.len);
	ok(msg_hdr_decode(&r, &h) == 0 && r.len == 1 && r.p[0] == 0x55,
	    "header decode leaves the payload");
	{
		size_t n;

		for (n = 0; n < IPC_HEADER_LEN; n++) {
			rd_init(&r, w.p, n);
			if (msg_hdr_decode(&r, &h) == 0)
				break;
		}
		is_int(n, IPC_HEADER_LEN, "header cut to each of 0..8 bytes: refused");
	}
	wb_free(&w);

	tb_init(&t);
	msg_begin(&t.w, MSG_CLOSE, 7, 9);
	wire_check("MSG_CLOSE (header, no payload)", &t, decode_hdr_then_empty, NULL,
	    WIRE_VALID | WIRE_PREFIXES | WIRE_TRAILING);
	tb_free(&t);
}

/* ------------------------------------------------- one row per message */

static struct msg_open open_in = { 1000, 4242, 3 };
static struct msg_sign sign_in;
static struct msg_add add_in;
static struct slice blob_in;
static struct msg_bind bind_in;
static struct msg_identities ids_in;
static struct msg_list_cache lc_in;
static struct msg_listed listed_in = { 0x0102030405060708ULL, 2 };
static struct msg_kh_add khadd_in;
static struct msg_kh_sign khsign_in;
static struct msg_kh_delete khdel_in = { 0x1122334455667788ULL };
static struct msg_kh_sk_material khskm_in = { 0x0102030405060708ULL };
static struct msg_sk_material skm_in;

static int
d_open(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_open m;

	rd_init(&r, p, n);
	if (msg_open_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (m.uid == open_in.uid && m.pid == open_in.pid &&
	    m.sock == open_in.sock) ? 0 : -2;
}

static int
d_sign(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_sign m;

	rd_init(&r, p, n);
	if (msg_sign_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (slice_eq(m.key, sign_in.key) &&
	    slice_eq(m.data, sign_in.data) && m.flags == sign_in.flags) ? 0 : -2;
}

static int
d_add(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_add m;

	rd_init(&r, p, n);
	if (msg_add_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (slice_eq(m.pub, add_in.pub) &&
	    slice_eq(m.key, add_in.key) &&
	    slice_eq(m.comment, add_in.comment) &&
	    m.c.has_lifetime == add_in.c.has_lifetime &&
	    m.c.lifetime == add_in.c.lifetime && m.c.confirm == add_in.c.confirm &&
	    m.c.has_dest == add_in.c.has_dest && slice_eq(m.c.dest, add_in.c.dest) &&
	    m.c.has_certs == add_in.c.has_certs &&
	    m.c.certs_only == add_in.c.certs_only &&
	    slice_eq(m.c.certs, add_in.c.certs)) ? 0 : -2;
}

static int
d_bind(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_bind m;

	rd_init(&r, p, n);
	if (msg_bind_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (slice_eq(m.hostkey, bind_in.hostkey) &&
	    slice_eq(m.session_id, bind_in.session_id) &&
	    slice_eq(m.signature, bind_in.signature) &&
	    m.forwarding == bind_in.forwarding) ? 0 : -2;
}

static int
d_blob(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct slice m;

	rd_init(&r, p, n);
	if (msg_string_read(&r, &m) != 0)
		return -1;
	return arg == NULL || slice_eq(m, blob_in) ? 0 : -2;
}

static int
d_list_cache(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_list_cache m;

	rd_init(&r, p, n);
	if (msg_list_cache_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (m.gen == lc_in.gen && m.until_ms == lc_in.until_ms &&
	    m.tell == lc_in.tell && m.ids.n == lc_in.ids.n &&
	    slice_eq(m.ids.entries, lc_in.ids.entries)) ? 0 : -2;
}

static int
d_listed(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_listed m;

	rd_init(&r, p, n);
	if (msg_listed_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (m.gen == listed_in.gen && m.n == listed_in.n) ?
	    0 : -2;
}

static int
d_ids(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_identities m;

	rd_init(&r, p, n);
	if (msg_identities_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (m.n == ids_in.n && slice_eq(m.entries, ids_in.entries)) ?
	    0 : -2;
}

static int
d_khadd(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_kh_add m;

	rd_init(&r, p, n);
	if (msg_kh_add_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (m.key_id == khadd_in.key_id &&
	    slice_eq(m.priv, khadd_in.priv)) ? 0 : -2;
}

static int
d_khsign(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_kh_sign m;

	rd_init(&r, p, n);
	if (msg_kh_sign_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (m.key_id == khsign_in.key_id && m.alg == khsign_in.alg &&
	    slice_eq(m.data, khsign_in.data)) ? 0 : -2;
}

static int
d_khdel(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_kh_delete m;

	rd_init(&r, p, n);
	if (msg_kh_delete_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || m.key_id == khdel_in.key_id ? 0 : -2;
}

static int
d_khskm(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_kh_sk_material m;

	rd_init(&r, p, n);
	if (msg_kh_sk_material_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || m.key_id == khskm_in.key_id ? 0 : -2;
}

static int
d_skm(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_sk_material m;

	rd_init(&r, p, n);
	if (msg_sk_material_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || (m.alg == skm_in.alg &&
	    slice_eq(m.application, skm_in.application) && m.flags == skm_in.flags &&
	    slice_eq(m.key_handle, skm_in.key_handle)) ? 0 : -2;
}

static int
d_status(const uint8_t *p, size_t n, void *arg)
{
	struct rd r;
	struct msg_status m;

	rd_init(&r, p, n);
	if (msg_status_decode(&r, &m) != 0)
		return -1;
	return arg == NULL || m.status == *(const uint8_t *)arg ? 0 : -2;
}

/* Encode with the real encoder into t, recording the string positions the
 * encoder writes (mirrored here field by field). */
static void
enc_open(struct tb *t)
{
	msg_open_encode(&t->w, &open_in);
}

static void
enc_sign(struct tb *t)
{
	tb_note(t);
	tb_note(t);
	t->pos[t->n - 1] = 4 + sign_in.key.len;
	msg_sign_encode(&t->w, &sign_in);
}

static void
enc_add(struct tb *t)
{
	size_t pub = 4 + add_in.pub.len, key = pub + 4 + add_in.key.len;

	tb_note(t);
	tb_note(t);
	t->pos[t->n - 1] = pub;
	tb_note(t);
	t->pos[t->n - 1] = key;
	tb_note(t);
	t->pos[t->n - 1] = key + 4 + add_in.comment.len + 7;
	msg_add_encode(&t->w, &add_in);
}

static void
enc_bind(struct tb *t)
{
	size_t at = 0;

	tb_note(t);
	t->pos[t->n - 1] = at;
	at += 4 + bind_in.hostkey.len;
	tb_note(t);
	t->pos[t->n - 1] = at;
	at += 4 + bind_in.session_id.len;
	tb_note(t);
	t->pos[t->n - 1] = at;
	msg_bind_encode(&t->w, &bind_in);
}

static void
enc_blob(struct tb *t)
{
	tb_note(t);
	wb_slice(&t->w, blob_in);
}

static void
enc_ids(struct tb *t)
{
	tb_note(t);
	t->pos[t->n - 1] = 4;
	msg_identities_encode(&t->w, &ids_in);
}

static void
enc_list_cache(struct tb *t)
{
	tb_note(t);
	t->pos[t->n - 1] = 8 + 8 + 1 + 4;       /* the entries' length */
	msg_list_cache_encode(&t->w, &lc_in);
}

static void
enc_listed(struct tb *t)
{
	msg_listed_encode(&t->w, &listed_in);
}

static void
enc_khadd(struct tb *t)
{
	tb_note(t);
	t->pos[t->n - 1] = 8;
	msg_kh_add_encode(&t->w, &khadd_in);
}

static void
enc_khsign(struct tb *t)
{
	tb_note(t);
	t->pos[t->n - 1] = 9;
	msg_kh_sign_encode(&t->w, &khsign_in);
}

static void
enc_khdel(struct tb *t)
{
	msg_kh_delete_encode(&t->w, &khdel_in);
}

static void
enc_khskm(struct tb *t)
{
	msg_kh_sk_material_encode(&t->w, &khskm_in);
}

static void
enc_skm(struct tb *t)
{
	tb_note(t);
	t->pos[t->n - 1] = 1;
	tb_note(t);
	t->pos[t->n - 1] = 1 + 4 + skm_in.application.len + 1;
	msg_sk_material_encode(&t->w, &skm_in);
}

static const struct {
	const char *name;
	void (*enc)(struct tb *);
	decode_fn dec;
} rows[] = {
	{ "MSG_OPEN (uid, pid, socket)", enc_open, d_open },
	{ "MSG_SIGN (key, data, flags)", enc_sign, d_sign },
	{ "MSG_ADD (public key, key, comment, lifetime, confirm, destinations)", enc_add, d_add },
	{ "MSG_BIND (host key, session id, signature, forwarding)", enc_bind, d_bind },
	{ "one string, any type (msg_string_read)", enc_blob, d_blob },
	{ "MSG_R_IDENTITIES (count, entries)", enc_ids, d_ids },
	{ "MSG_LIST_CACHE (generation, until, tell, count, entries)", enc_list_cache, d_list_cache },
	{ "MSG_LISTED (generation, count)", enc_listed, d_listed },
	{ "MSG_KH_ADD (key id, private key)", enc_khadd, d_khadd },
	{ "MSG_KH_SIGN (key id, algorithm, data)", enc_khsign, d_khsign },
	{ "MSG_KH_DELETE (key id)", enc_khdel, d_khdel },
	{ "MSG_KH_SK_MATERIAL (key id)", enc_khskm, d_khskm },
	{ "MSG_R_SK_MATERIAL (algorithm, application, flags, key handle)", enc_skm, d_skm },
};

static struct wb entries;

static void
set_inputs(void)
{
	static const char key[] = "\0\0\0\x0bssh-ed25519\0\0\0\x20"
	    "0123456789abcdef0123456789abcdef";
	static const char addkey[] = "\0\0\0\x07ssh-rsa....private fields";
	static const char khpriv[] = "\0\0\0\x0bssh-ed25519 and so on";

	sign_in.key = sl(key, sizeof(key) - 1);
	sign_in.data = sl_str("session id and userauth request");
	sign_in.flags = 0x04;
	add_in.pub = sl_str("\0\0\0\x07ssh-rsa public fields");
	add_in.key = sl(addkey, sizeof(addkey) - 1);
	add_in.comment = sl_str("perseus@argos");
	add_in.c.has_lifetime = 1;
	add_in.c.lifetime = 3600;
	add_in.c.confirm = 1;
	add_in.c.has_dest = 1;
	add_in.c.dest = sl_str("constraint list bytes");
	add_in.c.has_certs = 1;
	add_in.c.certs_only = 1;
	add_in.c.certs = sl_str("certificate blobs");
	bind_in.hostkey = sl_str("host key blob");
	bind_in.session_id = sl_str("0123456789abcdef0123456789abcdef");
	bind_in.signature = sl_str("signature blob");
	bind_in.forwarding = 1;
	blob_in = sl_str("medea");
	wb_init(&entries);
	wb_cstring(&entries, "blob one");
	wb_cstring(&entries, "comment one");
	wb_cstring(&entries, "blob two");
	wb_cstring(&entries, "");
	ids_in.n = 2;
	ids_in.entries = wb_slice_of(&entries);
	lc_in.gen = 0x1122334455667788ULL;
	lc_in.until_ms = 86400000;
	lc_in.tell = 1;
	lc_in.ids = ids_in;
	khadd_in.key_id = 77;
	khadd_in.priv = sl(khpriv, sizeof(khpriv) - 1);
	khsign_in.key_id = UINT64_MAX;
	khsign_in.alg = 6;
	khsign_in.data = sl_str("data to sign");
	skm_in.alg = 0x01;
	skm_in.application = sl_str("ssh:");
	skm_in.flags = 0x05;
	skm_in.key_handle = sl_str("a key handle the token made");
}

static void
test_roundtrips(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tb t;
		int one = 1;

		tb_init(&t);
		rows[i].enc(&t);
		is_int(run_decoder(rows[i].dec, t.w.p, t.w.len, &one), 0,
		    "%s: decodes to what was encoded", rows[i].name);
		wire_check(rows[i].name, &t, rows[i].dec, NULL,
		    WIRE_PREFIXES | WIRE_TRAILING | WIRE_LENGTHS);
		tb_free(&t);
	}
}

/* ------------------------------------------- one number per type */

/* The types are spread over one enum per boundary: no two may share a
 * number, or a receiver would take one for the other; replies are
 * 64..79, requests are not. */
static void
test_unique(void)
{
	static const uint8_t requests[] = {
		MSG_OPEN, MSG_CLOSE, MSG_LIST, MSG_SIGN, MSG_ADD, MSG_REMOVE,
		MSG_REMOVE_ALL, MSG_LOCK, MSG_UNLOCK, MSG_QUERY, MSG_BIND,
		MSG_BIND_BAD, MSG_CONSTRAINTS, MSG_P11_ADD, MSG_P11_REMOVE, MSG_PEER,
		MSG_POLICY_LOAD, MSG_POLICY_SHOW, MSG_CONNS, MSG_SESSION_STATE,
		MSG_LISTED, MSG_LIST_CACHE, MSG_LIST_STALE,
		MSG_KH_ADD, MSG_KH_SIGN, MSG_KH_DELETE, MSG_KH_WIPE, MSG_KH_LOCK,
		MSG_KH_UNLOCK, MSG_KH_SK_MATERIAL,
		MSG_PROMPT, MSG_PROMPT_CANCEL, MSG_PROMPT_SECRET,
		MSG_AUDIT,
		MSG_TK_RESOLVE, MSG_TK_SIGN, MSG_TK_CANCEL, MSG_TK_P11_START,
		MSG_TK_P11_SIGN, MSG_TK_P11_STOP,
		MSG_SESSION, MSG_NOTICE,
	};
	static const uint8_t replies[] = {
		MSG_R_STATUS, MSG_R_SIGNATURE, MSG_R_IDENTITIES, MSG_R_EXTENSIONS,
		MSG_R_CONSTRAINTS, MSG_R_POLICY, MSG_R_CONNS, MSG_R_SESSION,
		MSG_R_SK_MATERIAL,
		MSG_R_PUBKEY, MSG_R_SECRET, MSG_R_PATH, MSG_R_TOKEN,
		MSG_R_TOKEN_FAIL, MSG_R_P11_GONE,
	};
	size_t nq = sizeof(requests), nr = sizeof(replies), dup = 0, bad = 0;
	uint8_t all[sizeof(requests) + sizeof(replies)];

	memcpy(all, requests, nq);
	memcpy(all + nq, replies, nr);
	for (size_t i = 0; i < nq + nr; i++)
		for (size_t j = i + 1; j < nq + nr; j++)
			dup += all[i] == all[j];
	is_int(dup, 0, "%zu message types, no two with one number", nq + nr);
	for (size_t i = 0; i < nq; i++)
		bad += requests[i] == 0 || (requests[i] >= 64 && requests[i] < 80);
	for (size_t i = 0; i < nr; i++)
		bad += replies[i] < 64 || replies[i] >= 80;
	is_int(bad, 0, "replies are numbered 64..79, requests elsewhere and not 0");
}

/* ------------------------------------------------ the list answer */

/* The list answer policy lends the monitor, and the monitor's word of
 * which answer a connection got: the values each decoder refuses. */
static void
test_list_answer(void)
{
	static const struct {
		const char *name;
		uint64_t gen, until;
		uint8_t tell;
		uint32_t n;
		int entries;            /* 1: ids_in's entries, 0: none */
		int want;               /* 0 taken, -1 refused */
	} lc[] = {
		{ "a generation, no limit, told", 1, 0, 1, 2, 1, 0 },
		{ "no identities", 9, 0, 0, 0, 0, 0 },
		{ "generation 0", 0, 0, 1, 2, 1, -1 },
		{ "tell 2", 1, 0, 2, 2, 1, -1 },
		{ "tell 0xff", 1, 0, 0xff, 2, 1, -1 },
		{ "one identity more than the entries hold", 1, 0, 0, 3, 1, -1 },
		{ "one fewer", 1, 0, 0, 1, 1, -1 },
		{ "a count and no entries", 1, 0, 0, 1, 0, -1 },
		{ "the largest generation and limit", UINT64_MAX, UINT64_MAX, 0, 2, 1, 0 },
	};
	static const struct {
		const char *name;
		uint64_t gen;
		uint32_t n;
		int want;
	} ld[] = {
		{ "generation 1, two keys", 1, 2, 0 },
		{ "no keys", 5, 0, 0 },
		{ "generation 0", 0, 2, -1 },
	};

	for (size_t i = 0; i < sizeof(lc) / sizeof(lc[0]); i++) {
		struct wb w;

		wb_init(&w);
		wb_u64(&w, lc[i].gen);
		wb_u64(&w, lc[i].until);
		wb_u8(&w, lc[i].tell);
		wb_u32(&w, lc[i].n);
		wb_slice(&w, lc[i].entries ? ids_in.entries :
		    (struct slice){ NULL, 0 });
		is_int(d_list_cache(w.p, w.len, NULL), lc[i].want,
		    "MSG_LIST_CACHE, %s: %s", lc[i].name,
		    lc[i].want == 0 ? "taken" : "refused");
		wb_free(&w);
	}
	for (size_t i = 0; i < sizeof(ld) / sizeof(ld[0]); i++) {
		struct wb w;

		wb_init(&w);
		wb_u64(&w, ld[i].gen);
		wb_u32(&w, ld[i].n);
		is_int(d_listed(w.p, w.len, NULL), ld[i].want,
		    "MSG_LISTED, %s: %s", ld[i].name,
		    ld[i].want == 0 ? "taken" : "refused");
		wb_free(&w);
	}
}

/* ------------------------------------- the one-string messages, typed */

/* Each writer with a request id and connection its message can carry
 * (0 where its writer has none to give). */
#define W(fn, call) static void fn(struct wb *w, struct slice s) { call; }
W(w_remove, msg_remove_write(w, 7, 9, s))
W(w_lock, msg_lock_write(w, 0, 7, 9, s))
W(w_unlock, msg_lock_write(w, 1, 7, 9, s))
W(w_p11_remove, msg_p11_remove_write(w, 7, 9, s))
W(w_peer, msg_peer_write(w, 9, s))
W(w_policy_load, msg_policy_load_write(w, 7, 9, s))
W(w_signature, msg_signature_write(w, 7, 9, s))
W(w_ext_reply, msg_ext_reply_write(w, MSG_R_CONNS, 7, 9, s))
W(w_kh_lock, msg_kh_lock_write(w, 0, 7, s))
W(w_kh_unlock, msg_kh_lock_write(w, 1, 7, s))
W(w_pubkey, msg_pubkey_write(w, 7, s))
W(w_prompt, msg_prompt_write(w, 0, 7, s))
W(w_prompt_secret, msg_prompt_write(w, 1, 7, s))
W(w_secret, msg_secret_write(w, 7, s))
W(w_audit, msg_audit_write(w, 7, s))
W(w_tk_resolve, msg_tk_resolve_write(w, 7, 9, s))
W(w_tk_p11_stop, msg_tk_p11_stop_write(w, s))
W(w_path, msg_path_write(w, 7, s))
W(w_token, msg_token_write(w, 7, s))
W(w_p11_gone, msg_p11_gone_write(w, s))
#undef W

static const struct {
	const char *name;
	uint8_t type;
	uint32_t req, conn;
	void (*write)(struct wb *, struct slice);
} typed[] = {
	{ "MSG_REMOVE (key blob)", MSG_REMOVE, 7, 9, w_remove },
	{ "MSG_LOCK (passphrase)", MSG_LOCK, 7, 9, w_lock },
	{ "MSG_UNLOCK (passphrase)", MSG_UNLOCK, 7, 9, w_unlock },
	{ "MSG_P11_REMOVE (provider)", MSG_P11_REMOVE, 7, 9, w_p11_remove },
	{ "MSG_PEER (peer reply)", MSG_PEER, 0, 9, w_peer },
	{ "MSG_POLICY_LOAD (rules text)", MSG_POLICY_LOAD, 7, 9, w_policy_load },
	{ "MSG_R_SIGNATURE (signature)", MSG_R_SIGNATURE, 7, 9, w_signature },
	{ "MSG_R_CONNS (an extension's body)", MSG_R_CONNS, 7, 9, w_ext_reply },
	{ "MSG_KH_LOCK (passphrase)", MSG_KH_LOCK, 7, 0, w_kh_lock },
	{ "MSG_KH_UNLOCK (passphrase)", MSG_KH_UNLOCK, 7, 0, w_kh_unlock },
	{ "MSG_R_PUBKEY (public key)", MSG_R_PUBKEY, 7, 0, w_pubkey },
	{ "MSG_PROMPT (question)", MSG_PROMPT, 7, 0, w_prompt },
	{ "MSG_PROMPT_SECRET (question)", MSG_PROMPT_SECRET, 7, 0, w_prompt_secret },
	{ "MSG_R_SECRET (secret)", MSG_R_SECRET, 7, 0, w_secret },
	{ "MSG_AUDIT (JSON line)", MSG_AUDIT, 7, 0, w_audit },
	{ "MSG_TK_RESOLVE (provider)", MSG_TK_RESOLVE, 7, 9, w_tk_resolve },
	{ "MSG_TK_P11_STOP (provider)", MSG_TK_P11_STOP, 0, 0, w_tk_p11_stop },
	{ "MSG_R_PATH (path)", MSG_R_PATH, 7, 0, w_path },
	{ "MSG_R_TOKEN (helper's reply)", MSG_R_TOKEN, 7, 0, w_token },
	{ "MSG_R_P11_GONE (provider)", MSG_R_P11_GONE, 0, 0, w_p11_gone },
};

/* Each writer names its type and writes the string; msg_string_read, the
 * one reader of them all, gives the string back, refuses every cut and a
 * trailing byte. */
static void
test_typed(void)
{
	const struct slice in = sl_str("jason");

	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
		struct msg_hdr h;
		struct slice out;
		struct wb w;
		struct rd r;
		size_t n, payload;

		wb_init(&w);
		wb_cstring(&w, "stale bytes");
		typed[i].write(&w, in);
		rd_init(&r, w.p, w.len);
		ok(!w.err && msg_hdr_decode(&r, &h) == 0 && h.type == typed[i].type &&
		    h.req == typed[i].req && h.conn == typed[i].conn,
		    "%s: the writer's header names its type", typed[i].name);
		payload = r.len;
		ok(msg_string_read(&r, &out) == 0 && slice_eq(out, in),
		    "%s: msg_string_read gives the string back", typed[i].name);
		for (n = 0; n < payload; n++) {
			rd_init(&r, w.p + IPC_HEADER_LEN, n);
			if (msg_string_read(&r, &out) == 0)
				break;
		}
		is_int(n, payload, "%s: every cut refused", typed[i].name);
		wb_u8(&w, 0);
		rd_init(&r, w.p + IPC_HEADER_LEN, w.len - IPC_HEADER_LEN);
		ok(msg_string_read(&r, &out) != 0, "%s: a trailing byte refused",
		    typed[i].name);
		wb_free(&w);
	}
}

/* --------------------------------------------------- specific rules */

#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

static const struct {
	const char *name;
	decode_fn dec;
	const uint8_t *in; size_t len;
	int rc;
} rules[] = {
	/* public key "p", key "k", comment, has_lifetime, lifetime, confirm,
	 * has_dest, dest, has_provider, provider, has_certs, certs_only,
	 * certs */
	{ "add: no lifetime, no confirm, no destinations", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0 },
	{ "add: lifetime 0 (expire now) accepted", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0 },
	{ "add: lifetime 0xffffffff accepted", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0 },
	{ "add: has_lifetime byte 2 refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1 },
	{ "add: confirm byte 2 refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1 },
	{ "add: a lifetime without has_lifetime refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1 },
	{ "add: has_dest byte 2 refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1 },
	{ "add: destinations without has_dest refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'x', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1 },
	{ "add: has_dest with destinations accepted", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 'x', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0 },
	{ "add: comment with NUL inside refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 3, 'c', 0, 'd', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1 },
	{ "add: comment with one trailing NUL tolerated", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 2, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0 },
	{ "add: a provider accepted", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    1, 0, 0, 0, 1, 'p', 0, 0, 0, 0, 0, 0), 0 },
	{ "add: has_provider byte 2 refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    2, 0, 0, 0, 1, 'p', 0, 0, 0, 0, 0, 0), -1 },
	{ "add: a provider without has_provider refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 1, 'p', 0, 0, 0, 0, 0, 0), -1 },
	{ "add: has_provider with an empty provider refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), -1 },
	{ "add: a provider with a NUL inside refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    1, 0, 0, 0, 3, 'p', 0, 'q', 0, 0, 0, 0, 0, 0), -1 },
	{ "add: associated certificates, certs_only, accepted", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 'x'), 0 },
	{ "add: associated certificates, empty list, accepted", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0), 0 },
	{ "add: has_certs byte 2 refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 'x'), -1 },
	{ "add: certs_only byte 2 refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 'x'), -1 },
	{ "add: certificates without has_certs refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'x'), -1 },
	{ "add: certs_only without has_certs refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0), -1 },
	{ "add: certificates cut short refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 'x'), -1 },
	{ "add: a byte after the certificates refused", d_add,
	  B(0, 0, 0, 1, 'p', 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 'x', 0), -1 },
	{ "bind: forwarding byte 2 refused", d_bind,
	  B(0, 0, 0, 1, 'h', 0, 0, 0, 1, 's', 0, 0, 0, 1, 'g', 2), -1 },
	{ "bind: not forwarding", d_bind,
	  B(0, 0, 0, 1, 'h', 0, 0, 0, 1, 's', 0, 0, 0, 1, 'g', 0), 0 },
	{ "status: ok (0)", d_status, B(0), 0 },
	{ "status: failure (1)", d_status, B(1), 0 },
	{ "status: extension failure (2)", d_status, B(2), 0 },
	{ "status: 3 refused", d_status, B(3), -1 },
	{ "status: 0xff refused", d_status, B(0xff), -1 },
	{ "status: empty refused", d_status, (const uint8_t *)"", 0, -1 },
	{ "status: trailing byte refused", d_status, B(0, 0), -1 },
	{ "identities: none", d_ids, B(0, 0, 0, 0, 0, 0, 0, 0), 0 },
	{ "identities: one entry", d_ids,
	  B(0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 1, 'b', 0, 0, 0, 1, 'c'), 0 },
	{ "identities: count 2, one entry refused", d_ids,
	  B(0, 0, 0, 2, 0, 0, 0, 10, 0, 0, 0, 1, 'b', 0, 0, 0, 1, 'c'), -1 },
	{ "identities: count 0, one entry refused", d_ids,
	  B(0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 1, 'b', 0, 0, 0, 1, 'c'), -1 },
	{ "identities: count 0xffffffff refused", d_ids,
	  B(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 10, 0, 0, 0, 1, 'b', 0, 0, 0, 1, 'c'), -1 },
	{ "identities: entry without comment refused", d_ids,
	  B(0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 'b'), -1 },
	{ "identities: half an entry left over refused", d_ids,
	  B(0, 0, 0, 1, 0, 0, 0, 15, 0, 0, 0, 1, 'b', 0, 0, 0, 1, 'c', 0, 0, 0, 0, 'x'), -1 },
	{ "kh_sign: algorithm byte kept", d_khsign,
	  B(0, 0, 0, 0, 0, 0, 0, 1, 7, 0, 0, 0, 0), 0 },
	{ "kh_delete: 7 bytes refused", d_khdel, B(0, 0, 0, 0, 0, 0, 1), -1 },
	{ "open: 9 bytes refused", d_open, B(0, 0, 0, 0, 0, 0, 0, 0, 1), -1 },
	{ "kh_sk_material: 9 bytes refused", d_khskm, B(0, 0, 0, 0, 0, 0, 0, 0, 1), -1 },
	/* alg, string application, flags, string key handle */
	{ "sk_material: ECDSA (0x00), empty application and key handle", d_skm,
	  B(0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0), 0 },
	{ "sk_material: Ed25519 (0x01)", d_skm,
	  B(1, 0, 0, 0, 4, 's', 's', 'h', ':', 0x21, 0, 0, 0, 1, 'k'), 0 },
	{ "sk_material: algorithm 0x02 refused", d_skm,
	  B(2, 0, 0, 0, 4, 's', 's', 'h', ':', 0x01, 0, 0, 0, 1, 'k'), -1 },
	{ "sk_material: application with a trailing NUL refused", d_skm,
	  B(1, 0, 0, 0, 5, 's', 's', 'h', ':', 0, 0x01, 0, 0, 0, 1, 'k'), -1 },
	{ "sk_material: application with a NUL inside refused", d_skm,
	  B(1, 0, 0, 0, 4, 's', 0, 'h', ':', 0x01, 0, 0, 0, 1, 'k'), -1 },
	{ "sk_material: key handle missing refused", d_skm,
	  B(1, 0, 0, 0, 4, 's', 's', 'h', ':', 0x01), -1 },
};

static void
test_rules(void)
{
	struct rd r;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		int rc = run_decoder(rules[i].dec, rules[i].in, rules[i].len, NULL);
		is_int(rc == 0 ? 0 : -1, rules[i].rc, "%s", rules[i].name);
	}
	rd_init(&r, "", 0);
	is_int(msg_empty_decode(&r), 0, "empty payload: nothing left");
	rd_init(&r, "x", 1);
	ok(msg_empty_decode(&r) != 0, "empty payload: one byte refused");

	/* the constraint flags are normalised by the encoder */
	struct msg_add a = { .pub = sl("p", 1), .key = sl("k", 1), .comment = sl("c", 1),
	    .c = { .has_lifetime = 7, .lifetime = 60, .confirm = 9 } };
	struct msg_add out;
	struct wb w;

	wb_init(&w);
	msg_add_encode(&w, &a);
	rd_init(&r, w.p, w.len);
	ok(msg_add_decode(&r, &out) == 0 && out.c.has_lifetime == 1 &&
	    out.c.lifetime == 60 && out.c.confirm == 1,
	    "add: any true has_lifetime / confirm is encoded as 1");
	wb_free(&w);

	/* the keyholder never holds more; policy refuses more */
	static uint8_t big[AGENT_MAX_SK_KEY_HANDLE + 1];
	for (int over = 0; over < 2; over++) {
		struct msg_sk_material m = { 0x00, sl_str("ssh:"), 0x01,
		    sl(big, AGENT_MAX_SK_KEY_HANDLE + (size_t)over) }, mo;
		wb_init(&w);
		msg_sk_material_encode(&w, &m);
		rd_init(&r, w.p, w.len);
		is_int(msg_sk_material_decode(&r, &mo) == 0 ? 0 : -1, over ? -1 : 0,
		    "sk_material: key handle of %d bytes %s", AGENT_MAX_SK_KEY_HANDLE + over,
		    over ? "refused" : "accepted");
		wb_free(&w);
		m = (struct msg_sk_material){ 0x00, sl(big + 1,
		    AGENT_MAX_SK_APPLICATION + (size_t)over), 0x01, sl_str("k") };
		memset(big, 'a', sizeof(big));
		wb_init(&w);
		msg_sk_material_encode(&w, &m);
		rd_init(&r, w.p, w.len);
		is_int(msg_sk_material_decode(&r, &mo) == 0 ? 0 : -1, over ? -1 : 0,
		    "sk_material: application of %d bytes %s",
		    AGENT_MAX_SK_APPLICATION + over, over ? "refused" : "accepted");
		wb_free(&w);
		memset(big, 0, sizeof(big));
	}
}

/* MSG_SESSION (session watcher -> policy): what the decoder takes and
 * refuses, byte for byte. */
static void
test_session(void)
{
	const struct {
		const char *name;
		const uint8_t *p;
		size_t n;
		int ok;
	} cases[] = {
#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })
		{ "follow c1", B(SESSION_EV_FOLLOW, 0, 0, 0, 2, 'c', '1'), 1 },
		{ "lock, empty id", B(SESSION_EV_LOCK, 0, 0, 0, 0), 1 },
		{ "end", B(SESSION_EV_GONE, 0, 0, 0, 1, '7'), 1 },
		{ "idle", B(SESSION_EV_IDLE, 0, 0, 0, 2, 'c', '1'), 1 },
		{ "active (the last event)", B(SESSION_EV_ACTIVE, 0, 0, 0, 1, '7'), 1 },
		{ "event past the last", B(SESSION_EV_ACTIVE + 1, 0, 0, 0, 0), 0 },
		{ "event 255", B(255, 0, 0, 0, 0), 0 },
		{ "no string", B(SESSION_EV_LOCK), 0 },
		{ "string cut short", B(SESSION_EV_LOCK, 0, 0, 0, 3, 'a'), 0 },
		{ "trailing byte", B(SESSION_EV_LOCK, 0, 0, 0, 1, 'a', 0), 0 },
		{ "control byte in the id", B(SESSION_EV_LOCK, 0, 0, 0, 2, 'a', 0x1b), 0 },
		{ "NUL in the id", B(SESSION_EV_LOCK, 0, 0, 0, 2, 'a', 0), 0 },
		{ "8-bit byte in the id", B(SESSION_EV_FOLLOW, 0, 0, 0, 1, 0xc3), 0 },
		{ "empty", NULL, 0, 0 },
#undef B
	};
	uint8_t big[5 + SESSION_REASON_MAX + 1];
	struct msg_session m;
	struct rd r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rd_init(&r, cases[i].p, cases[i].n);
		ok((msg_session_decode(&r, &m) == 0) == cases[i].ok,
		    "MSG_SESSION %s: %s", cases[i].name,
		    cases[i].ok ? "taken" : "refused");
	}
	/* the id's cap and the reason's */
	for (int ev = SESSION_EV_NONE; ev <= SESSION_EV_FOLLOW; ev++) {
		size_t cap = ev == SESSION_EV_NONE ? SESSION_REASON_MAX :
		    SESSION_ID_MAX;
		for (size_t len = cap; len <= cap + 1; len++) {
			big[0] = (uint8_t)ev;
			big[1] = big[2] = 0;
			big[3] = (uint8_t)(len >> 8);
			big[4] = (uint8_t)len;
			memset(big + 5, 'x', len);
			rd_init(&r, big, 5 + len);
			ok((msg_session_decode(&r, &m) == 0) == (len == cap),
			    "MSG_SESSION %s with %zu bytes: %s",
			    session_event_name((uint8_t)ev), len,
			    len == cap ? "taken" : "refused");
		}
	}
	/* MSG_NOTICE: two strings, each at most PROMPT_MAX_TEXT, no NUL */
	{
		static uint8_t nb[8 + 2 * (PROMPT_MAX_TEXT + 1)];
		struct msg_notice nm;
		const struct { size_t s, b; int nul, trail, ok; } nc[] = {
			{ 3, 5, 0, 0, 1 }, { 0, 0, 0, 0, 1 },
			{ PROMPT_MAX_TEXT, PROMPT_MAX_TEXT, 0, 0, 1 },
			{ PROMPT_MAX_TEXT + 1, 1, 0, 0, 0 },
			{ 1, PROMPT_MAX_TEXT + 1, 0, 0, 0 },
			{ 4, 4, 1, 0, 0 }, { 4, 4, 0, 1, 0 },
		};
		for (size_t i = 0; i < sizeof(nc) / sizeof(nc[0]); i++) {
			size_t o = 0;
			for (int k = 0; k < 2; k++) {
				size_t len = k == 0 ? nc[i].s : nc[i].b;
				nb[o++] = 0; nb[o++] = 0;
				nb[o++] = (uint8_t)(len >> 8); nb[o++] = (uint8_t)len;
				memset(nb + o, 'n', len);
				if (k == 1 && nc[i].nul && len > 0)
					nb[o + len / 2] = 0;
				o += len;
			}
			if (nc[i].trail)
				nb[o++] = 'x';
			rd_init(&r, nb, o);
			ok((msg_notice_decode(&r, &nm) == 0) == nc[i].ok,
			    "MSG_NOTICE %zu and %zu bytes%s%s: %s", nc[i].s, nc[i].b,
			    nc[i].nul ? ", a NUL" : "", nc[i].trail ? ", a byte more" : "",
			    nc[i].ok ? "taken" : "refused");
		}
	}
	/* SESSION_EXTENSION's body (struct session_view): what keyward-ctl
	 * session decodes from whatever answers on the socket */
	{
		const struct {
			const char *name;
			const uint8_t *p;
			size_t n;
			int ok;
		} vc[] = {
#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })
#define Z8 0, 0, 0, 0, 0, 0, 0, 0
			{ "followed c1, unlocked", B(1, 0, 0, 0, 2, 'c', '1', 0, Z8, 0, 0, 0, 0), 1 },
			{ "followed, every flag, idle 90 s, a suspend",
			  B(1, 0, 0, 0, 1, '7', 0x1f, 0, 0, 0, 0, 0x69, 0x53, 0x5b, 0x00,
			    0, 0, 0, 90), 1 },
			{ "not followed, a reason", B(0, 0, 0, 0, 9, 'n', 'o', ' ', 's', 'y', 's', 't',
			  'e', 'm', 0, Z8, 0, 0, 0, 0), 1 },
			{ "not followed, empty reason", B(0, 0, 0, 0, 0, 0, Z8, 0, 0, 0, 0), 1 },
			{ "followed byte 2", B(2, 0, 0, 0, 0, 0, Z8, 0, 0, 0, 0), 0 },
			{ "unknown flag", B(1, 0, 0, 0, 1, 'c', 0x20, Z8, 0, 0, 0, 0), 0 },
			{ "flag 0x80", B(1, 0, 0, 0, 1, 'c', 0x80, Z8, 0, 0, 0, 0), 0 },
			{ "not followed with a flag", B(0, 0, 0, 0, 1, 'x', SESSION_VIEW_LOCKED, Z8,
			  0, 0, 0, 0), 0 },
			{ "not followed with a suspend", B(0, 0, 0, 0, 1, 'x', 0, 0, 0, 0, 0, 0, 0,
			  0, 1, 0, 0, 0, 0), 0 },
			{ "not followed, idle seconds", B(0, 0, 0, 0, 1, 'x', 0, Z8, 0, 0, 0, 5), 0 },
			{ "idle seconds without the idle flag", B(1, 0, 0, 0, 1, 'c', 0, Z8,
			  0, 0, 0, 5), 0 },
			{ "control byte in the id", B(1, 0, 0, 0, 2, 'c', 0x1b, 0, Z8, 0, 0, 0, 0), 0 },
			{ "8-bit byte in the reason", B(0, 0, 0, 0, 1, 0xff, 0, Z8, 0, 0, 0, 0), 0 },
			{ "NUL in the id", B(1, 0, 0, 0, 2, 'c', 0, 0, Z8, 0, 0, 0, 0), 0 },
			{ "idle_s cut short", B(1, 0, 0, 0, 1, 'c', 0, Z8, 0, 0, 0), 0 },
			{ "last_suspend cut short", B(1, 0, 0, 0, 1, 'c', 0, 0, 0, 0), 0 },
			{ "a byte more", B(1, 0, 0, 0, 1, 'c', 0, Z8, 0, 0, 0, 0, 0), 0 },
			{ "string longer than the rest", B(1, 0, 0, 0, 200, 'c', 0, Z8, 0, 0, 0, 0), 0 },
			{ "empty", NULL, 0, 0 },
#undef Z8
#undef B
		};
		static uint8_t vb[5 + SESSION_REASON_MAX + 1 + 13];
		struct session_view v;

		for (size_t i = 0; i < sizeof(vc) / sizeof(vc[0]); i++) {
			rd_init(&r, vc[i].p, vc[i].n);
			ok((session_view_decode(&r, &v) == 0) == vc[i].ok,
			    "session view %s: %s", vc[i].name,
			    vc[i].ok ? "taken" : "refused");
		}
		rd_init(&r, vc[1].p, vc[1].n);
		ok(session_view_decode(&r, &v) == 0 && v.followed == 1 &&
		    v.detail.len == 1 && v.detail.p[0] == '7' && v.flags == 0x1f &&
		    v.last_suspend == 0x69535b00 && v.idle_s == 90,
		    "session view: every field read back");
		/* the id's cap when followed, the reason's when not */
		for (int f = 0; f <= 1; f++) {
			size_t cap = f ? SESSION_ID_MAX : SESSION_REASON_MAX;
			for (size_t len = cap; len <= cap + 1; len++) {
				struct wb w;
				wb_init(&w);
				memset(vb, 'x', len);
				session_view_encode(&w, &(struct session_view){ f,
				    { vb, len }, 0, 0, 0 });
				rd_init(&r, w.p, w.len);
				ok((session_view_decode(&r, &v) == 0) == (len == cap),
				    "session view %s of %zu bytes: %s",
				    f ? "id" : "reason", len,
				    len == cap ? "taken" : "refused");
				wb_free(&w);
			}
		}
	}
	ok(session_event_name(SESSION_EV_ACTIVE + 1) == NULL &&
	    strcmp(session_event_name(SESSION_EV_SLEEP), "suspend") == 0 &&
	    strcmp(session_event_name(SESSION_EV_IDLE), "idle") == 0 &&
	    strcmp(session_event_name(SESSION_EV_ACTIVE), "active") == 0,
	    "session_event_name: names, and none past the last");
}

int
main(void)
{
	set_inputs();
	test_session();
	test_header();
	test_roundtrips();
	test_typed();
	test_unique();
	test_list_answer();
	test_rules();
	wb_free(&entries);
	return done_testing();
}
