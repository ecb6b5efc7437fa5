/*
 * test_buf.c - the one reader and the one writer (ipc/buf.c) against the
 * wire types of doc/protocol.md §2: each getter on valid, short and oversized input,
 * the text and mpint rules, and the writer's exact bytes. A getter that
 * fails names its error, clears its outputs and consumes nothing.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "tests/unit/tap.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum op { U8, BOOL, FLAG, U32, COUNT, U64, BYTES, STRING, TEXT, MPINT, SUB, DONE };

/* COUNT rows read a count of at most COUNT_MAX elements of COUNT_BYTES. */
#define COUNT_MAX 3
#define COUNT_BYTES 2

#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })
#define NONE (const uint8_t *)"", 0

/* One getter on one input: the result, the value or slice it yields and
 * how many bytes it leaves. A refused row yields 0 or the empty slice and
 * leaves every byte. */
static const struct rdcase {
	const char *name;
	enum op op;
	const uint8_t *in; size_t inlen;
	int rc;                         /* BUF_OK (0) or the error named */
	uint64_t val;                   /* U8, BOOL, FLAG, U32, COUNT, U64; BYTES: how many */
	const char *str; size_t strlen; /* BYTES, STRING, TEXT, MPINT, SUB contents */
	size_t left;                    /* bytes left after a success */
} rdcases[] = {
	{ "byte: one octet", U8, B(0x7f, 0x01), 0, 0x7f, NULL, 0, 1 },
	{ "byte: empty input refused", U8, NONE, BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "bool: 0 is false", BOOL, B(0x00), 0, 0, NULL, 0, 0 },
	{ "bool: 1 is true", BOOL, B(0x01), 0, 1, NULL, 0, 0 },
	{ "bool: any non-zero value (2) is true", BOOL, B(0x02), 0, 1, NULL, 0, 0 },
	{ "bool: any non-zero value (0xff) is true", BOOL, B(0xff), 0, 1, NULL, 0, 0 },
	{ "bool: empty input refused", BOOL, NONE, BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "flag: 0", FLAG, B(0x00, 0x07), 0, 0, NULL, 0, 1 },
	{ "flag: 1", FLAG, B(0x01), 0, 1, NULL, 0, 0 },
	{ "flag: 2 refused, unlike a bool", FLAG, B(0x02), BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "flag: 0xff refused", FLAG, B(0xff), BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "flag: empty input refused", FLAG, NONE, BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "count: 0, nothing after", COUNT, B(0, 0, 0, 0), 0, 0, NULL, 0, 0 },
	{ "count: 2 with 4 bytes after", COUNT, B(0, 0, 0, 2, 1, 2, 3, 4), 0, 2, NULL, 0, 4 },
	{ "count: 1 with 5 bytes after (room is at least)", COUNT, B(0, 0, 0, 1, 1, 2, 3, 4, 5),
	  0, 1, NULL, 0, 5 },
	{ "count: COUNT_MAX with its bytes", COUNT, B(0, 0, 0, 3, 1, 2, 3, 4, 5, 6), 0, 3, NULL, 0, 6 },
	{ "count: COUNT_MAX + 1 refused as too long", COUNT,
	  B(0, 0, 0, 4, 1, 2, 3, 4, 5, 6, 7, 8), BUF_ERR_TOO_LONG, 0, NULL, 0, 0 },
	{ "count: 0xffffffff refused as too long", COUNT, B(0xff, 0xff, 0xff, 0xff, 1, 2),
	  BUF_ERR_TOO_LONG, 0, NULL, 0, 0 },
	{ "count: 2 with 3 bytes after refused: no room", COUNT, B(0, 0, 0, 2, 1, 2, 3),
	  BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "count: 1 with nothing after refused: no room", COUNT, B(0, 0, 0, 1),
	  BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "count: 3 octets refused", COUNT, B(0, 0, 1), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "uint32: big-endian", U32, B(0xde, 0xad, 0xbe, 0xef), 0, 0xdeadbeef, NULL, 0, 0 },
	{ "uint32: 0xffffffff", U32, B(0xff, 0xff, 0xff, 0xff), 0, 0xffffffff, NULL, 0, 0 },
	{ "uint32: 3 octets refused", U32, B(0x00, 0x00, 0x01), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "uint32: empty refused", U32, NONE, BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "uint64: big-endian", U64, B(0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09),
	  0, 0x0102030405060708ULL, NULL, 0, 1 },
	{ "uint64: 0xffffffffffffffff (forever)", U64,
	  B(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 0, UINT64_MAX, NULL, 0, 0 },
	{ "uint64: 7 octets refused", U64, B(1, 2, 3, 4, 5, 6, 7), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "uint64: 4 octets refused", U64, B(1, 2, 3, 4), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "bytes: 3 of 4", BYTES, B(1, 2, 3, 4), 0, 3, "\1\2\3", 3, 1 },
	{ "bytes: none of none", BYTES, NONE, 0, 0, "", 0, 0 },
	{ "bytes: 3 of 2 refused", BYTES, B(1, 2), BUF_ERR_SHORT, 3, NULL, 0, 0 },
	{ "string: \"abc\"", STRING, B(0, 0, 0, 3, 'a', 'b', 'c', 'x'), 0, 0, "abc", 3, 1 },
	{ "string: empty string", STRING, B(0, 0, 0, 0), 0, 0, "", 0, 0 },
	{ "string: binary-safe, NUL inside kept", STRING, B(0, 0, 0, 3, 'a', 0, 'c'),
	  0, 0, "a\0c", 3, 0 },
	{ "string: length one more than what is left refused", STRING,
	  B(0, 0, 0, 4, 'a', 'b', 'c'), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "string: length 0xffffffff refused", STRING,
	  B(0xff, 0xff, 0xff, 0xff, 'a', 'b', 'c'), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "string: length 0x80000000 refused", STRING,
	  B(0x80, 0, 0, 0, 'a'), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "string: length field cut to 3 octets refused", STRING, B(0, 0, 0), BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "string: empty input refused", STRING, NONE, BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "text: \"perseus\"", TEXT, B(0, 0, 0, 7, 'p', 'e', 'r', 's', 'e', 'u', 's'),
	  0, 0, "perseus", 7, 0 },
	{ "text: empty text", TEXT, B(0, 0, 0, 0), 0, 0, "", 0, 0 },
	{ "text: NUL in the middle refused", TEXT, B(0, 0, 0, 6, 's', 'c', 'y', 0, 'l', 'a'),
	  BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "text: NUL first refused", TEXT, B(0, 0, 0, 2, 0, 'a'), BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "text: one trailing NUL tolerated and ignored", TEXT,
	  B(0, 0, 0, 10, 'c', 'h', 'a', 'r', 'y', 'b', 'd', 'i', 's', 0),
	  0, 0, "charybdis", 9, 0 },
	{ "text: a lone NUL is the empty text", TEXT, B(0, 0, 0, 1, 0), 0, 0, "", 0, 0 },
	{ "text: two trailing NULs refused", TEXT, B(0, 0, 0, 3, 'a', 0, 0), BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "text: length longer than what is left refused", TEXT, B(0, 0, 0, 5, 'a'),
	  BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "mpint: zero is the empty string", MPINT, B(0, 0, 0, 0), 0, 0, "", 0, 0 },
	{ "mpint: 0x7f", MPINT, B(0, 0, 0, 1, 0x7f), 0, 0, "\x7f", 1, 0 },
	{ "mpint: 0x80 written 00 80", MPINT, B(0, 0, 0, 2, 0x00, 0x80), 0, 0, "\x80", 1, 0 },
	{ "mpint: negative (first byte 0x80) refused", MPINT, B(0, 0, 0, 1, 0x80),
	  BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "mpint: negative (first byte 0xff) refused", MPINT, B(0, 0, 0, 2, 0xff, 0x01),
	  BUF_ERR_FORMAT, 0, NULL, 0, 0 },
	{ "mpint: redundant leading zeros accepted and ignored", MPINT,
	  B(0, 0, 0, 4, 0, 0, 0, 0x01), 0, 0, "\x01", 1, 0 },
	{ "mpint: zero written as 00 accepted", MPINT, B(0, 0, 0, 1, 0), 0, 0, "", 0, 0 },
	{ "mpint: 00 00 80 accepted", MPINT, B(0, 0, 0, 3, 0, 0, 0x80), 0, 0, "\x80", 1, 0 },
	{ "mpint: length longer than what is left refused", MPINT, B(0, 0, 0, 2, 0x01),
	  BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "mpint: length 0xffffffff refused", MPINT, B(0xff, 0xff, 0xff, 0xff, 0x01),
	  BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "sub: string parsed alone", SUB, B(0, 0, 0, 2, 'h', 'i', 'z'), 0, 0, "hi", 2, 1 },
	{ "sub: length longer than what is left refused", SUB, B(0, 0, 0, 3, 'h', 'i'),
	  BUF_ERR_SHORT, 0, NULL, 0, 0 },
	{ "done: nothing left", DONE, NONE, 0, 0, NULL, 0, 0 },
	{ "done: one byte left is trailing garbage", DONE, B(0), BUF_ERR_TRAILING, 0, NULL, 0, 0 },
};

/* Run the getter of row c with its outputs poisoned first; return what it
 * returned and, even on failure, what it left in its outputs. */
static int
run_op(const struct rdcase *c, struct rd *r, uint64_t *val, struct slice *s)
{
	static const uint8_t poison[] = "poison";
	uint8_t b = 0xa5;
	uint32_t u = 0xa5a5a5a5;
	int v = 0x5a, rc = -99;
	struct rd sub = { poison, sizeof(poison) };

	*val = UINT64_C(0xa5a5a5a5a5a5a5a5);
	s->p = poison;
	s->len = sizeof(poison);
	switch (c->op) {
	case U8:
		rc = rd_u8(r, &b);
		*val = b;
		break;
	case BOOL:
		rc = rd_bool(r, &v);
		*val = (uint64_t)v;
		break;
	case FLAG:
		rc = rd_flag(r, &v);
		*val = (uint64_t)v;
		break;
	case U32:
		rc = rd_u32(r, &u);
		*val = u;
		break;
	case COUNT:
		rc = rd_count(r, COUNT_MAX, COUNT_BYTES, &u);
		*val = u;
		break;
	case U64:
		rc = rd_u64(r, val);
		break;
	case BYTES:
		rc = rd_bytes(r, (size_t)c->val, s);
		break;
	case STRING:
		rc = rd_string(r, s);
		break;
	case TEXT:
		rc = rd_text(r, s);
		break;
	case MPINT:
		rc = rd_mpint(r, s);
		break;
	case SUB:
		rc = rd_sub(r, &sub);
		s->p = sub.p;
		s->len = sub.len;
		break;
	case DONE:
		rc = rd_done(r);
		break;
	}
	return rc;
}

static int
is_number_op(enum op op)
{
	return op == U8 || op == BOOL || op == FLAG || op == U32 || op == COUNT ||
	    op == U64;
}

static void
test_getters(void)
{
	for (size_t i = 0; i < sizeof(rdcases) / sizeof(rdcases[0]); i++) {
		const struct rdcase *c = &rdcases[i];
		uint8_t *copy = malloc(c->inlen ? c->inlen : 1);
		struct rd r;
		struct slice s;
		uint64_t val;
		int rc, good;

		/* an exact-size copy, so a read past the end trips ASan */
		memcpy(copy, c->in, c->inlen);
		rd_init(&r, copy, c->inlen);
		rc = run_op(c, &r, &val, &s);
		good = rc == c->rc;
		if (good && rc == BUF_OK) {
			if (is_number_op(c->op))
				good = val == c->val;
			else if (c->op != DONE)
				good = bytes_eq(s, c->str, c->strlen);
			good = good && r.len == c->left;
		} else if (good && c->op != DONE) {
			/* refused: outputs cleared, nothing consumed */
			good = (is_number_op(c->op) ? val == 0 :
			    s.p == NULL && s.len == 0) &&
			    r.p == copy && r.len == c->inlen;
		}
		ok(good, "%s", c->name);
		if (!good)
			printf("#   rc %d want %d, val %llu, slice len %zu, left %zu\n",
			    rc, c->rc, (unsigned long long)val, s.len, r.len);
		free(copy);
	}
}

/* mpint size limits: at most 2048 bytes of magnitude, one extra 0x00. */
static const struct {
	const char *name;
	size_t zeros, len;              /* leading 0x00 bytes, then len bytes */
	uint8_t top;                    /* first magnitude byte */
	int rc;                         /* BUF_OK or the error named */
} mpcases[] = {
	{ "mpint: 2048-byte magnitude (16384 bits) with its 0x00: accepted", 1, 2048, 0xff,
	  BUF_OK },
	{ "mpint: 2048-byte magnitude, top bit clear: accepted", 0, 2048, 0x7f, BUF_OK },
	{ "mpint: 2049 bytes of magnitude refused as too long", 0, 2049, 0x01,
	  BUF_ERR_TOO_LONG },
	{ "mpint: 2050 bytes (2048 magnitude, two leading zeros) refused as too long",
	  2, 2048, 0x7f, BUF_ERR_TOO_LONG },
	{ "mpint: 2050 zero bytes refused as too long (longer than 2049)", 2050, 0, 0x00,
	  BUF_ERR_TOO_LONG },
	{ "mpint: 2049 bytes, all zero (zero) accepted", 2049, 0, 0x00, BUF_OK },
};

static void
test_mpint_limits(void)
{
	for (size_t i = 0; i < sizeof(mpcases) / sizeof(mpcases[0]); i++) {
		size_t n = mpcases[i].zeros + mpcases[i].len;
		uint8_t *b = calloc(1, 4 + n);
		struct rd r;
		struct slice m = { (const uint8_t *)"poison", 6 };
		int rc;

		put_be32(b, (uint32_t)n);
		if (mpcases[i].len > 0) {
			memset(b + 4 + mpcases[i].zeros, 0x5a, mpcases[i].len);
			b[4 + mpcases[i].zeros] = mpcases[i].top;
		}
		rd_init(&r, b, 4 + n);
		rc = rd_mpint(&r, &m);
		ok(rc == mpcases[i].rc && (rc != BUF_OK ? m.p == NULL && m.len == 0 &&
		    r.len == 4 + n : m.len == mpcases[i].len && r.len == 0),
		    "%s", mpcases[i].name);
		free(b);
	}
}

/* A message read field after field: every truncation fails somewhere. */
static int
decode_sequence(const uint8_t *p, size_t n, void *arg)
{
	struct rd r, sub;
	uint8_t b;
	uint32_t u;
	uint64_t q;
	struct slice s, t, m;
	int v;

	(void)arg;
	rd_init(&r, p, n);
	if (rd_u8(&r, &b) || rd_u32(&r, &u) || rd_u64(&r, &q) ||
	    rd_string(&r, &s) || rd_text(&r, &t) || rd_mpint(&r, &m) ||
	    rd_sub(&r, &sub) || rd_bool(&r, &v) || rd_done(&r))
		return -1;
	if (rd_text(&sub, &t) || rd_u32(&sub, &u) || rd_done(&sub))
		return -1;
	return 0;
}

static void
test_sequence(void)
{
	struct tb t;

	tb_init(&t);
	tb_u8(&t, 17);
	tb_u32(&t, 0x01020304);
	tb_u64(&t, 42);
	tb_string(&t, "perseus", 7);
	tb_cstring(&t, "scylla");
	tb_mpint(&t, (const uint8_t *)"\x80\x01", 2);
	tb_begin(&t);
	tb_cstring(&t, "charybdis");
	tb_u32(&t, 7);
	tb_end(&t);
	tb_u8(&t, 1);
	wire_check("getter sequence (byte, u32, u64, string, text, mpint, sub, bool)",
	    &t, decode_sequence, NULL, WIRE_ALL);
	tb_free(&t);
}

static int
wb_is(const struct wb *w, const void *p, size_t n)
{
	return !w->err && w->len == n && (n == 0 || memcmp(w->p, p, n) == 0);
}

/* wb_mpint: minimal form, a leading 0x00 only when the top bit is set. */
static const struct {
	const char *name;
	const uint8_t *in; size_t inlen;
	const uint8_t *out; size_t outlen;
} mpw[] = {
	{ "write mpint: zero is the empty string", NONE, B(0, 0, 0, 0) },
	{ "write mpint: 0x00 0x00 is zero", B(0, 0), B(0, 0, 0, 0) },
	{ "write mpint: 0x01", B(0x01), B(0, 0, 0, 1, 0x01) },
	{ "write mpint: 0x80 gets a leading 0x00", B(0x80), B(0, 0, 0, 2, 0, 0x80) },
	{ "write mpint: redundant zeros dropped", B(0, 0, 0x7f, 0x01), B(0, 0, 0, 2, 0x7f, 0x01) },
	{ "write mpint: redundant zeros dropped before 0xff", B(0, 0, 0xff),
	  B(0, 0, 0, 2, 0, 0xff) },
};

static void
test_writer(void)
{
	struct wb w;
	size_t m1, m2;
	uint8_t *big;
	struct rd r;
	struct slice s;

	wb_init(&w);
	wb_u8(&w, 0xab);
	wb_u32(&w, 0x01020304);
	wb_u64(&w, 0x05060708090a0b0cULL);
	ok(wb_is(&w, B(0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
	    "write byte, uint32, uint64: big-endian");
	wb_reset(&w);
	wb_cstring(&w, "abc");
	wb_string(&w, "", 0);
	wb_slice(&w, sl("x\0y", 3));
	ok(wb_is(&w, B(0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 0, 0, 0, 0, 3, 'x', 0, 'y')),
	    "write strings: length then bytes, binary-safe");
	for (size_t i = 0; i < sizeof(mpw) / sizeof(mpw[0]); i++) {
		wb_reset(&w);
		wb_mpint(&w, mpw[i].in, mpw[i].inlen);
		ok(wb_is(&w, mpw[i].out, mpw[i].outlen), "%s", mpw[i].name);
	}
	wb_reset(&w);
	m1 = wb_begin_string(&w);
	wb_u8(&w, 9);
	m2 = wb_begin_string(&w);
	wb_cstring(&w, "ab");
	wb_end_string(&w, m2);
	wb_end_string(&w, m1);
	ok(wb_is(&w, B(0, 0, 0, 11, 9, 0, 0, 0, 6, 0, 0, 0, 2, 'a', 'b')),
	    "begin/end string: nested lengths patched");
	wb_reset(&w);
	m1 = wb_begin_string(&w);
	wb_end_string(&w, m1);
	ok(wb_is(&w, B(0, 0, 0, 0)), "begin/end string: empty string");

	/* growing past the first allocation keeps every byte */
	big = malloc(100000);
	for (size_t i = 0; i < 100000; i++)
		big[i] = (uint8_t)(i * 7);
	wb_reset(&w);
	for (size_t i = 0; i < 100000; i += 1000)
		wb_bytes(&w, big + i, 1000);
	ok(wb_is(&w, big, 100000), "writer grows to 100000 bytes, contents kept");
	wb_reset(&w);
	ok(w.len == 0 && !w.err, "reset empties the writer");
	wb_string(&w, big, 5000);
	rd_init(&r, w.p, w.len);
	ok(rd_string(&r, &s) == 0 && bytes_eq(s, big, 5000) && rd_done(&r) == 0,
	    "what the writer wrote, the reader reads back");
	free(big);

	/* errors stick: one check at the end of an encoder is enough */
	wb_reset(&w);
	wb_u8(&w, 1);
	wb_bytes(&w, "", (size_t)WB_MAX_LEN + 1);
	ok(w.err && w.len == 1, "writing more than WB_MAX_LEN sets the error");
	wb_u8(&w, 2);
	wb_cstring(&w, "lost");
	ok(w.err && w.len == 1, "after an error, writes are dropped");
	wb_reset(&w);
	wb_string(&w, "", (size_t)UINT32_MAX + 1);
	ok(w.err && w.len == 0, "a string longer than uint32 sets the error");
	wb_free(&w);
	ok(w.p == NULL && w.len == 0 && w.cap == 0, "free leaves an empty writer");

	wb_init(&w);
	wb_cstring(&w, "secret");
	wb_free_secret(&w);
	ok(w.p == NULL && w.len == 0, "free_secret leaves an empty writer");
}

static void
test_slices(void)
{
	char *c;
	uint8_t w[4] = { 1, 2, 3, 4 };

	ok(slice_eq(sl("abc", 3), sl("abc", 3)), "slice_eq: equal bytes");
	ok(!slice_eq(sl("abc", 3), sl("abd", 3)), "slice_eq: different bytes");
	ok(!slice_eq(sl("abc", 3), sl("ab", 2)), "slice_eq: prefix is not equal");
	ok(slice_eq(sl(NULL, 0), sl("x", 0)), "slice_eq: two empty slices");
	ok(slice_eq_str(sl("ssh-rsa", 7), "ssh-rsa"), "slice_eq_str: equal");
	ok(!slice_eq_str(sl("ssh-rsa", 7), "ssh-rsa-cert-v01@openssh.com"),
	    "slice_eq_str: prefix of the name is not equal");
	ok(!slice_eq_str(sl("ssh-rsa\0", 8), "ssh-rsa"), "slice_eq_str: extra NUL not equal");
	c = slice_strdup(sl("medea", 5));
	is_str(c, "medea", "slice_strdup: NUL-terminated copy");
	free(c);
	c = slice_strdup(sl("", 0));
	is_str(c, "", "slice_strdup: empty");
	free(c);
	ok(slice_strdup(sl("me\0dea", 6)) == NULL, "slice_strdup: NUL inside refused");
	wipe(w, sizeof(w));
	ok(w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0, "wipe zeroes memory");
}

int
main(void)
{
	test_getters();
	test_mpint_limits();
	test_sequence();
	test_writer();
	test_slices();
	return done_testing();
}
