/*
 * wire.h - test helpers shared by the decoder tests: one check that feeds a
 * decoder its valid input (written with tests/unit/tb.h, which remembers
 * where every string length field is), every truncation, trailing garbage
 * and every length field made too long (doc/protocol.md §2: a string must fit in what
 * is left of the enclosing buffer).
 */
#ifndef KEYWARD_TEST_WIRE_H
#define KEYWARD_TEST_WIRE_H

#include "ipc/buf.h"
#include "tests/unit/tap.h"
#include "tests/unit/tb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Where the buffer enclosing string i ends. */
static inline size_t
tb_limit(const struct tb *t, const uint8_t *p, size_t len, int i)
{
	int par = t->parent[i];

	if (par < 0)
		return len;
	return t->pos[par] + 4 + get_be32(p + t->pos[par]);
}

/* A decoder under test: 0 if it accepts p[0..n). */
typedef int (*decode_fn)(const uint8_t *p, size_t n, void *arg);

/* Run the decoder on a copy in a buffer of exactly n bytes, so that ASan
 * sees any read past the end. */
static inline int
run_decoder(decode_fn fn, const uint8_t *p, size_t n, void *arg)
{
	uint8_t *c = malloc(n ? n : 1);
	int r;

	if (c == NULL)
		abort();
	if (n > 0)
		memcpy(c, p, n);
	r = fn(c, n, arg);
	free(c);
	return r;
}

#define WIRE_VALID      0x01    /* the whole input is accepted */
#define WIRE_PREFIXES   0x02    /* every proper prefix is refused */
#define WIRE_TRAILING   0x04    /* one byte of garbage after it is refused */
#define WIRE_LENGTHS    0x08    /* each length too long / 0xffffffff refused */
#define WIRE_ALL        0x0f

/* The checks named in flags, one test point each. */
static inline void
wire_check(const char *name, const struct tb *t, decode_fn fn, void *arg,
    int flags)
{
	const uint8_t *p = t->w.p;
	size_t len = t->w.len;
	uint8_t *m;

	if (t->w.err) {
		ok(0, "%s: test input could not be built", name);
		return;
	}
	if (flags & WIRE_VALID)
		is_int(run_decoder(fn, p, len, arg) == 0, 1, "%s: accepted", name);
	if (flags & WIRE_PREFIXES) {
		size_t bad = (size_t)-1;
		for (size_t n = 0; n < len && bad == (size_t)-1; n++)
			if (run_decoder(fn, p, n, arg) == 0)
				bad = n;
		ok(bad == (size_t)-1, "%s: truncated at each of %zu lengths: refused",
		    name, len);
		if (bad != (size_t)-1)
			printf("#   prefix of %zu bytes was accepted\n", bad);
	}
	if ((m = malloc(len + 1)) == NULL)
		abort();
	if (len > 0)
		memcpy(m, p, len);
	if (flags & WIRE_TRAILING) {
		m[len] = 0x00;
		is_int(run_decoder(fn, m, len + 1, arg) != 0, 1,
		    "%s: trailing garbage byte: refused", name);
	}
	if ((flags & WIRE_LENGTHS) && t->n > 0) {
		int bad_big = -1, bad_over = -1;
		for (int i = 0; i < t->n; i++) {
			size_t at = t->pos[i];
			uint32_t orig = get_be32(p + at);
			size_t lim = tb_limit(t, p, len, i);
			put_be32(m + at, 0xffffffffU);
			if (bad_big < 0 && run_decoder(fn, m, len, arg) == 0)
				bad_big = i;
			/* one byte more than is left of the enclosing buffer */
			put_be32(m + at, (uint32_t)(lim - (at + 4) + 1));
			if (bad_over < 0 && run_decoder(fn, m, len, arg) == 0)
				bad_over = i;
			put_be32(m + at, orig);
		}
		ok(bad_big < 0, "%s: each of %d string lengths set to 0xffffffff: "
		    "refused", name, t->n);
		if (bad_big >= 0)
			printf("#   length at offset %zu accepted\n", t->pos[bad_big]);
		ok(bad_over < 0, "%s: each of %d string lengths longer than what is "
		    "left: refused", name, t->n);
		if (bad_over >= 0)
			printf("#   length at offset %zu accepted\n", t->pos[bad_over]);
	}
	free(m);
}

static inline int
bytes_eq(struct slice a, const void *p, size_t n)
{
	return a.len == n && (n == 0 || memcmp(a.p, p, n) == 0);
}

#endif
