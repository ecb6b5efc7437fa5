/*
 * tb.h - a writer of SSH wire encodings that remembers where every string
 * length field is and which string encloses it: the test inputs of the
 * decoder checks (tests/unit/wire.h) and the test keys' encodings
 * (tests/unit/testkeys.h). No TAP here, so the hostile client and the
 * bench, which print their own, can include it too.
 */
#ifndef KEYWARD_TEST_TB_H
#define KEYWARD_TEST_TB_H

#include "ipc/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TB_MAX_STRINGS 1024

/* A wb plus the offset of each string's length field and of the string
 * that encloses it (-1: the message itself). */
struct tb {
	struct wb w;
	size_t pos[TB_MAX_STRINGS];
	int parent[TB_MAX_STRINGS];
	int n;
	int open[32];           /* strings begun and not yet ended */
	int depth;
};

static inline void
tb_init(struct tb *t)
{
	wb_init(&t->w);
	t->n = 0;
	t->depth = 0;
}

static inline void
tb_free(struct tb *t)
{
	wb_free(&t->w);
}

static inline int
tb_note(struct tb *t)
{
	int i = t->n;

	if (t->n >= TB_MAX_STRINGS)
		abort();
	t->pos[i] = t->w.len;
	t->parent[i] = t->depth > 0 ? t->open[t->depth - 1] : -1;
	t->n++;
	return i;
}

static inline void
tb_u8(struct tb *t, uint8_t v)
{
	wb_u8(&t->w, v);
}

static inline void
tb_u32(struct tb *t, uint32_t v)
{
	wb_u32(&t->w, v);
}

static inline void
tb_u64(struct tb *t, uint64_t v)
{
	wb_u64(&t->w, v);
}

static inline void
tb_raw(struct tb *t, const void *p, size_t n)
{
	wb_bytes(&t->w, p, n);
}

static inline void
tb_string(struct tb *t, const void *p, size_t n)
{
	tb_note(t);
	wb_string(&t->w, p, n);
}

static inline void
tb_cstring(struct tb *t, const char *s)
{
	tb_string(t, s, strlen(s));
}

static inline void
tb_mpint(struct tb *t, const uint8_t *p, size_t n)
{
	tb_note(t);
	wb_mpint(&t->w, p, n);
}

/* Open a string whose length is patched by tb_end. */
static inline void
tb_begin(struct tb *t)
{
	int i = tb_note(t);

	wb_u32(&t->w, 0);
	if (t->depth >= 32)
		abort();
	t->open[t->depth++] = i;
}

static inline void
tb_end(struct tb *t)
{
	wb_end_string(&t->w, t->pos[t->open[--t->depth]]);
}

/* Copy another builder's bytes in, with its strings (as children of the
 * string currently open). */
static inline void
tb_append(struct tb *t, const struct tb *o)
{
	size_t base = t->w.len;
	int first = t->n;

	for (int i = 0; i < o->n; i++) {
		int j = tb_note(t);
		t->pos[j] = base + o->pos[i];
		if (o->parent[i] >= 0)
			t->parent[j] = first + o->parent[i];
	}
	wb_bytes(&t->w, o->w.p, o->w.len);
}

/* Append raw bytes that carry the strings of o, inside a string. */
static inline void
tb_string_of(struct tb *t, const struct tb *o)
{
	tb_begin(t);
	tb_append(t, o);
	tb_end(t);
}

static inline struct slice
sl(const void *p, size_t n)
{
	struct slice s = { p, n };

	return s;
}

static inline struct slice
sl_str(const char *s)
{
	return sl(s, strlen(s));
}

static inline struct slice
tb_slice(const struct tb *t)
{
	return sl(t->w.p, t->w.len);
}

#endif
