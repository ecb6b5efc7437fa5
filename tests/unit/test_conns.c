/*
 * test_conns.c - the CONNS_EXTENSION answer's body (wire/conns.c), which
 * keyward-ctl reads from whatever listens on SSH_AUTH_SOCK: the encoder
 * writes the layout of wire/conns.h field for field, decode and encode are
 * inverses, and every malformed body is refused with its reason:
 * truncations, lengths and counts past the bytes left or past their
 * limits, trailing bytes, NULs in text, bools other than 0 and 1, an
 * unknown caller status, hops without a session-bind, more listed than
 * open. Names from doc/protocol.md's examples: perseus reaches scylla and
 * charybdis.
 */
#include "wire/conns.h"
#include "ipc/limits.h"
#include "wire/peer.h"
#include "tests/unit/tap.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define S(x) { (const uint8_t *)(x), sizeof(x) - 1 }

/* ------------------------------------------------ the wire, by hand */

/* Bytes to write instead of the encoder's bools (-1: the real one). */
struct raw { int bind, fwd; };

static void
tb_slice_str(struct tb *t, struct slice s)
{
	tb_string(t, s.p, s.len);
}

static void
tb_conn(struct tb *t, const struct conns_conn *c, struct raw raw)
{
	tb_u32(t, c->id);
	tb_u32(t, c->uid);
	tb_u32(t, c->pid);
	tb_u32(t, c->status);
	tb_slice_str(t, c->exe);
	tb_slice_str(t, c->cmdline);
	tb_u32(t, (uint32_t)c->nanc);
	for (size_t i = 0; i < c->nanc; i++) {
		tb_u32(t, c->anc[i].pid);
		tb_slice_str(t, c->anc[i].exe);
		tb_slice_str(t, c->anc[i].argv0);
	}
	tb_u8(t, raw.bind >= 0 ? (uint8_t)raw.bind : (uint8_t)c->bind_attempted);
	tb_u32(t, (uint32_t)c->nhops);
	for (size_t i = 0; i < c->nhops; i++) {
		tb_slice_str(t, c->hops[i].fp);
		tb_slice_str(t, c->hops[i].host);
		tb_u8(t, raw.fwd >= 0 ? (uint8_t)raw.fwd : (uint8_t)c->hops[i].forwarding);
	}
	tb_slice_str(t, c->socket);
}

static void
tb_list(struct tb *t, const struct conns_list *l, struct raw raw)
{
	tb_u32(t, l->total);
	tb_u32(t, (uint32_t)l->n);
	for (size_t i = 0; i < l->n; i++)
		tb_conn(t, &l->c[i], raw);
}

/* ------------------------------------------------ the cases */

static struct conns_anc perseus_anc[] = {
	{ 4100, S("/usr/bin/bash"), S("-bash") },
	{ 3900, S("/usr/bin/tmux"), S("tmux: server") },
};
static struct conns_hop scylla_hops[] = {
	{ S("SHA256:scyllaHostKeyFingerprint"), S("scylla"), 0 },
	{ S("SHA256:charybdisHostKeyFingerprint"), S(""), 1 },
};
static struct conns_conn c_perseus = {
	7, 1000, 4242, PEER_OK, S("/usr/bin/ssh"), S("ssh -A perseus"),
	perseus_anc, 2, 0, NULL, 0, S("main"),
};
static struct conns_conn c_hops = {
	8, 1000, 4343, PEER_UNAVAILABLE, S(""), S(""), NULL, 0, 1, scylla_hops, 2,
	S("deploy"),
};
static struct conns_conn c_bad_bind = {
	9, 0, 1, PEER_GONE, S(""), S(""), NULL, 0, 1, NULL, 0, S("main"),
};
/* A caller that names itself with escapes, bidi controls, invalid
 * UTF-8: all of it text to carry as it came (only a NUL is refused). */
static struct conns_conn c_hostile = {
	10, 1000, 5000, PEER_NOPIDFD, S("/tmp/\x1b]0;pwned\x07\xff"),
	S("evil \xe2\x80\xae--help \"\\"), NULL, 0, 0, NULL, 0, S("main"),
};

static struct conns_conn one_perseus[] = { { 0 } };
static struct conns_conn two[2];
static struct conns_conn all4[4];

/* The largest connection the agent could list: every limit reached. */
static uint8_t big_exe[PEER_MAX_EXE], big_cmd[PEER_MAX_CMDLINE],
    big_argv0[PEER_MAX_ARGV0], big_fp[FP_TEXT_MAX], big_host[AGENT_MAX_HOSTNAME],
    big_sock[SOCKET_NAME_MAX];
static struct conns_anc big_anc[PEER_MAX_ANCESTORS];
static struct conns_hop big_hops[AGENT_MAX_BINDINGS];
static struct conns_conn c_big;

static void
setup(void)
{
	memset(big_exe, 'e', sizeof(big_exe));
	memset(big_cmd, 'c', sizeof(big_cmd));
	memset(big_argv0, 'a', sizeof(big_argv0));
	memset(big_fp, 'f', sizeof(big_fp));
	memset(big_host, 'h', sizeof(big_host));
	memset(big_sock, 's', sizeof(big_sock));
	for (size_t i = 0; i < PEER_MAX_ANCESTORS; i++)
		big_anc[i] = (struct conns_anc){ (uint32_t)(i + 2),
		    { big_exe, sizeof(big_exe) }, { big_argv0, sizeof(big_argv0) } };
	for (size_t i = 0; i < AGENT_MAX_BINDINGS; i++)
		big_hops[i] = (struct conns_hop){ { big_fp, sizeof(big_fp) },
		    { big_host, sizeof(big_host) }, (int)(i & 1) };
	c_big = (struct conns_conn){ 0xffffffffU, 0xffffffffU, PEER_MAX_PID,
	    PEER_STATUS_MAX, { big_exe, sizeof(big_exe) },
	    { big_cmd, sizeof(big_cmd) }, big_anc, PEER_MAX_ANCESTORS, 1,
	    big_hops, AGENT_MAX_BINDINGS,
	    { big_sock, sizeof(big_sock) } };
	one_perseus[0] = c_perseus;
	two[0] = c_perseus;
	two[1] = c_hops;
	all4[0] = c_perseus;
	all4[1] = c_hops;
	all4[2] = c_bad_bind;
	all4[3] = c_hostile;
}

/* Filled by setup(): the lists need its arrays. */
static struct {
	const char *name;
	struct conns_list list;
} good[7];

static void
setup_good(void)
{
	static struct conns_conn big1[1], hostile1[1];

	big1[0] = c_big;
	hostile1[0] = c_hostile;
	good[0].name = "no connection";
	good[0].list = (struct conns_list){ 0, NULL, 0 };
	good[1].name = "perseus: ssh -A, from bash <- tmux, no session-bind";
	good[1].list = (struct conns_list){ 1, one_perseus, 1 };
	good[2].name = "perseus and a client bound through scylla to charybdis";
	good[2].list = (struct conns_list){ 2, two, 2 };
	good[3].name = "four: ok, unavailable with hops, a session-bind that "
	    "failed, a hostile caller";
	good[3].list = (struct conns_list){ 4, all4, 4 };
	good[4].name = "cut: 40 open, 1 listed";
	good[4].list = (struct conns_list){ 40, one_perseus, 1 };
	good[5].name = "every limit reached (exe, cmdline, ancestors, hops)";
	good[5].list = (struct conns_list){ 1, big1, 1 };
	good[6].name = "a caller whose text is escapes and broken UTF-8";
	good[6].list = (struct conns_list){ 1, hostile1, 1 };
}

static int
conn_eq(const struct conns_conn *x, const struct conns_conn *y)
{
	if (x->id != y->id || x->uid != y->uid || x->pid != y->pid ||
	    x->status != y->status || !slice_eq(x->exe, y->exe) ||
	    !slice_eq(x->cmdline, y->cmdline) || x->nanc != y->nanc ||
	    x->bind_attempted != y->bind_attempted || x->nhops != y->nhops ||
	    !slice_eq(x->socket, y->socket))
		return 0;
	for (size_t i = 0; i < x->nanc; i++)
		if (x->anc[i].pid != y->anc[i].pid ||
		    !slice_eq(x->anc[i].exe, y->anc[i].exe) ||
		    !slice_eq(x->anc[i].argv0, y->anc[i].argv0))
			return 0;
	for (size_t i = 0; i < x->nhops; i++)
		if (!slice_eq(x->hops[i].fp, y->hops[i].fp) ||
		    !slice_eq(x->hops[i].host, y->hops[i].host) ||
		    x->hops[i].forwarding != y->hops[i].forwarding)
			return 0;
	return 1;
}

static int
list_eq(const struct conns_list *x, const struct conns_list *y)
{
	if (x->total != y->total || x->n != y->n)
		return 0;
	for (size_t i = 0; i < x->n; i++)
		if (!conn_eq(&x->c[i], &y->c[i]))
			return 0;
	return 1;
}

static const char *last_why;

static int
d_body(const uint8_t *p, size_t n, void *arg)
{
	struct conns_list l;
	struct rd r;
	const char *why;
	int rc;

	rd_init(&r, p, n);
	if (conns_decode(&r, &l, &why) != 0) {
		last_why = why;
		return why != NULL && l.n == 0 && l.c == NULL ? -1 : -3;
	}
	rc = arg == NULL || list_eq(&l, arg) ? 0 : -2;
	conns_free(&l);
	return rc;
}

static void
encode(struct wb *w, const struct conns_list *l)
{
	conns_encode_head(w, l->total, (uint32_t)l->n);
	for (size_t i = 0; i < l->n; i++)
		conns_encode_one(w, &l->c[i]);
}

static void
test_good(void)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *name = good[i].name, *why = "";
		struct conns_list l;
		struct tb t;
		struct wb w;
		struct rd r;

		tb_init(&t);
		tb_list(&t, &good[i].list, (struct raw){ -1, -1 });
		wb_init(&w);
		encode(&w, &good[i].list);
		ok(!w.err && slice_eq(wb_slice_of(&w), tb_slice(&t)),
		    "%s: encoded as the layout says", name);
		/* the largest case has too many strings for the length sweep */
		wire_check(name, &t, d_body, (void *)&good[i].list,
		    t.n < TB_MAX_STRINGS ? WIRE_ALL : WIRE_VALID | WIRE_TRAILING);
		rd_init(&r, t.w.p, t.w.len);
		if (conns_decode(&r, &l, &why) == 0) {
			wb_reset(&w);
			encode(&w, &l);
			ok(!w.err && slice_eq(wb_slice_of(&w), tb_slice(&t)),
			    "%s: decoded and encoded again: the same bytes", name);
			conns_free(&l);
		} else
			ok(0, "%s: decoded: %s", name, why);
		wb_free(&w);
		tb_free(&t);
	}
}

/* ------------------------------------------------ malformed bodies */

enum bad_how {
	B_N_OVER_TOTAL, B_COUNT_OVER, B_COUNT_MAX, B_TRAILING, B_STATUS,
	B_EXE_NUL, B_EXE_LAST_NUL, B_EXE_LONG, B_CMD_LONG, B_ANC_MANY,
	B_ARGV0_LONG, B_ANC_EXE_NUL, B_BIND_2, B_FWD_2, B_HOPS_MANY,
	B_HOPS_NO_BIND, B_FP_LONG, B_HOST_LONG, B_HOST_NUL, B_ANC_COUNT_MAX,
	B_HOPS_COUNT_OVER, B_EMPTY, B_SOCK_EMPTY, B_SOCK_LONG, B_SOCK_NUL,
};

static const struct {
	const char *name;
	enum bad_how how;
	const char *why;                /* the decoder's reason */
} bad_rows[] = {
	{ "n 2 of total 1", B_N_OVER_TOTAL, "more connections listed than open" },
	{ "two announced, one sent", B_COUNT_OVER, "truncated connection" },
	{ "n 0xffffffff", B_COUNT_MAX, "a count is larger than the bytes that follow" },
	{ "a byte after the last connection", B_TRAILING,
	  "bytes after the last connection" },
	{ "caller status PEER_STATUS_MAX + 1", B_STATUS, "unknown caller status" },
	{ "exe with a NUL inside", B_EXE_NUL, "bad caller executable or command line" },
	{ "exe ending in a NUL", B_EXE_LAST_NUL, "bad caller executable or command line" },
	{ "exe of PEER_MAX_EXE + 1 bytes", B_EXE_LONG,
	  "bad caller executable or command line" },
	{ "cmdline of PEER_MAX_CMDLINE + 1 bytes", B_CMD_LONG,
	  "bad caller executable or command line" },
	{ "PEER_MAX_ANCESTORS + 1 ancestors", B_ANC_MANY, "a count is over its limit" },
	{ "ancestor count 0xffffffff", B_ANC_COUNT_MAX, "a count is over its limit" },
	{ "ancestor argv0 of PEER_MAX_ARGV0 + 1 bytes", B_ARGV0_LONG, "bad ancestor" },
	{ "ancestor exe with a NUL", B_ANC_EXE_NUL, "bad ancestor" },
	{ "session-bind flag 2", B_BIND_2, "bad session-bind flag" },
	{ "forwarding flag 2", B_FWD_2, "bad session-bind hop" },
	{ "AGENT_MAX_BINDINGS + 1 hops", B_HOPS_MANY, "a count is over its limit" },
	{ "hop count larger than the bytes left", B_HOPS_COUNT_OVER,
	  "a count is larger than the bytes that follow" },
	{ "hops without a session-bind", B_HOPS_NO_BIND, "hops without a session-bind" },
	{ "fingerprint of FP_TEXT_MAX + 1 bytes", B_FP_LONG, "bad session-bind hop" },
	{ "host of AGENT_MAX_HOSTNAME + 1 bytes", B_HOST_LONG, "bad session-bind hop" },
	{ "host with a NUL", B_HOST_NUL, "bad session-bind hop" },
	{ "socket name empty", B_SOCK_EMPTY, "bad socket name" },
	{ "socket name of SOCKET_NAME_MAX + 1 bytes", B_SOCK_LONG, "bad socket name" },
	{ "socket name with a NUL", B_SOCK_NUL, "bad socket name" },
	{ "no bytes at all", B_EMPTY, "truncated reply" },
};

static void
build_bad(struct tb *t, enum bad_how how)
{
	static uint8_t longer[PEER_MAX_EXE + 2];
	struct conns_anc anc[PEER_MAX_ANCESTORS + 1];
	struct conns_hop hops[AGENT_MAX_BINDINGS + 1];
	struct conns_conn c = c_perseus;
	struct conns_list l = { 1, &c, 1 };
	struct raw raw = { -1, -1 };

	memset(longer, 'x', sizeof(longer));
	for (size_t i = 0; i <= PEER_MAX_ANCESTORS; i++)
		anc[i] = perseus_anc[0];
	for (size_t i = 0; i <= AGENT_MAX_BINDINGS; i++)
		hops[i] = scylla_hops[0];
	switch (how) {
	case B_N_OVER_TOTAL:
		l.total = 1;
		tb_u32(t, 1);
		tb_u32(t, 2);
		tb_conn(t, &c, raw);
		tb_conn(t, &c, raw);
		return;
	case B_COUNT_OVER:
		l.total = 2;
		tb_u32(t, 2);
		tb_u32(t, 2);
		tb_conn(t, &c, raw);
		return;
	case B_COUNT_MAX:
		tb_u32(t, 0xffffffffU);
		tb_u32(t, 0xffffffffU);
		tb_conn(t, &c, raw);
		return;
	case B_TRAILING:
		tb_list(t, &l, raw);
		tb_u8(t, 0);
		return;
	case B_EMPTY:
		return;
	case B_STATUS: c.status = PEER_STATUS_MAX + 1; break;
	case B_EXE_NUL: c.exe = (struct slice)S("/usr/\0bin/ssh"); break;
	case B_EXE_LAST_NUL: c.exe = (struct slice)S("/usr/bin/ssh\0"); break;
	case B_EXE_LONG: c.exe = (struct slice){ longer, PEER_MAX_EXE + 1 }; break;
	case B_CMD_LONG: c.cmdline = (struct slice){ longer, PEER_MAX_CMDLINE + 1 }; break;
	case B_ANC_MANY: c.anc = anc; c.nanc = PEER_MAX_ANCESTORS + 1; break;
	case B_ARGV0_LONG:
		anc[0].argv0 = (struct slice){ longer, PEER_MAX_ARGV0 + 1 };
		c.anc = anc;
		c.nanc = 1;
		break;
	case B_ANC_EXE_NUL:
		anc[1].exe = (struct slice)S("/usr/bin\0/tmux");
		c.anc = anc;
		break;
	case B_BIND_2: raw.bind = 2; break;
	case B_FWD_2: c.bind_attempted = 1; c.hops = hops; c.nhops = 1; raw.fwd = 2; break;
	case B_HOPS_MANY:
		c.bind_attempted = 1;
		c.hops = hops;
		c.nhops = AGENT_MAX_BINDINGS + 1;
		break;
	case B_HOPS_NO_BIND: c.hops = hops; c.nhops = 1; break;
	case B_FP_LONG:
		hops[0].fp = (struct slice){ longer, FP_TEXT_MAX + 1 };
		c.bind_attempted = 1; c.hops = hops; c.nhops = 1;
		break;
	case B_HOST_LONG:
		hops[0].host = (struct slice){ longer, AGENT_MAX_HOSTNAME + 1 };
		c.bind_attempted = 1; c.hops = hops; c.nhops = 1;
		break;
	case B_HOST_NUL:
		hops[0].host = (struct slice)S("scy\0lla");
		c.bind_attempted = 1; c.hops = hops; c.nhops = 1;
		break;
	case B_SOCK_EMPTY: c.socket = (struct slice)S(""); break;
	case B_SOCK_LONG: c.socket = (struct slice){ longer, SOCKET_NAME_MAX + 1 }; break;
	case B_SOCK_NUL: c.socket = (struct slice)S("dep\0loy"); break;
	case B_ANC_COUNT_MAX:
	case B_HOPS_COUNT_OVER:
		break;
	}
	tb_list(t, &l, raw);
	if (how == B_ANC_COUNT_MAX) {
		/* the ancestor count sits after id, uid, pid, status, exe, cmdline */
		size_t at = 8 + 16 + 4 + c.exe.len + 4 + c.cmdline.len;
		memset(t->w.p + at, 0xff, 4);
	}
	if (how == B_HOPS_COUNT_OVER) {
		/* the last bytes: the hop count of a connection without hops,
		 * then its socket's name (perseus: "main", 4 + 4 bytes), which
		 * goes: the count is then larger than what follows */
		t->w.len -= 8;
		t->w.p[t->w.len - 1] = 3;
		t->w.p[t->w.len - 5] = 1;       /* and its session-bind flag */
	}
}

static void
test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		struct tb t;
		int rc;

		tb_init(&t);
		build_bad(&t, bad_rows[i].how);
		last_why = NULL;
		rc = run_decoder(d_body, t.w.p, t.w.len, NULL);
		ok(rc == -1 && last_why != NULL && strcmp(last_why, bad_rows[i].why) == 0,
		    "%s: refused (%s)", bad_rows[i].name, bad_rows[i].why);
		if (rc != -1 || last_why == NULL || strcmp(last_why, bad_rows[i].why) != 0)
			printf("#   rc %d, why \"%s\"\n", rc, last_why ? last_why : "(none)");
		tb_free(&t);
	}
}

/* The encoder never writes what the decoder refuses: past a limit, or a
 * NUL in text, it sets the writer's error instead. */
static void
test_encoder_limits(void)
{
	static uint8_t longer[PEER_MAX_EXE + 1];
	static const struct {
		const char *name;
		int field;
	} rows[] = {
		{ "status past PEER_STATUS_MAX", 0 },
		{ "exe past PEER_MAX_EXE", 1 },
		{ "exe with a NUL", 2 },
		{ "more than PEER_MAX_ANCESTORS", 3 },
		{ "more than AGENT_MAX_BINDINGS hops", 4 },
		{ "a host past AGENT_MAX_HOSTNAME", 5 },
	};
	struct conns_hop hops[AGENT_MAX_BINDINGS + 1];

	memset(longer, 'x', sizeof(longer));
	for (size_t i = 0; i <= AGENT_MAX_BINDINGS; i++)
		hops[i] = scylla_hops[0];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct conns_conn c = c_perseus;
		struct wb w;

		switch (rows[i].field) {
		case 0: c.status = PEER_STATUS_MAX + 1; break;
		case 1: c.exe = (struct slice){ longer, sizeof(longer) }; break;
		case 2: c.exe = (struct slice)S("a\0b"); break;
		case 3: c.nanc = PEER_MAX_ANCESTORS + 1; break;
		case 4: c.bind_attempted = 1; c.hops = hops; c.nhops = AGENT_MAX_BINDINGS + 1; break;
		case 5:
			hops[0].host = (struct slice){ longer, AGENT_MAX_HOSTNAME + 1 };
			c.bind_attempted = 1; c.hops = hops; c.nhops = 1;
			break;
		}
		wb_init(&w);
		conns_encode_one(&w, &c);
		ok(w.err, "encoder: %s: refused (writer error)", rows[i].name);
		wb_free(&w);
	}
}

int
main(void)
{
	setup();
	setup_good();
	test_good();
	test_bad();
	test_encoder_limits();
	return done_testing();
}
