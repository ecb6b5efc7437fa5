/*
 * buf.c - bounds-checked reader and growing writer for SSH wire types.
 * Trusts nothing: every getter fails rather than read past the end.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"

#include <stdlib.h>
#include <string.h>

void
rd_init(struct rd *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
}

static const struct slice empty_slice = { NULL, 0 };

int
rd_bytes(struct rd *r, size_t n, struct slice *s)
{
	if (s != NULL)
		*s = empty_slice;
	if (n > r->len)
		return BUF_ERR_SHORT;
	if (s != NULL) {
		s->p = r->p;
		s->len = n;
	}
	r->p += n;
	r->len -= n;
	return BUF_OK;
}

int
rd_u8(struct rd *r, uint8_t *v)
{
	struct slice s;
	int rc;

	*v = 0;
	if ((rc = rd_bytes(r, 1, &s)) != BUF_OK)
		return rc;
	*v = s.p[0];
	return BUF_OK;
}

int
rd_bool(struct rd *r, int *v)
{
	uint8_t b;
	int rc;

	*v = 0;
	if ((rc = rd_u8(r, &b)) != BUF_OK)
		return rc;
	*v = b != 0;
	return BUF_OK;
}

int
rd_flag(struct rd *r, int *v)
{
	struct rd save = *r;
	uint8_t b;
	int rc;

	*v = 0;
	if ((rc = rd_u8(r, &b)) != BUF_OK)
		return rc;
	if (b > 1) {
		*r = save;
		return BUF_ERR_FORMAT;
	}
	*v = b;
	return BUF_OK;
}

int
rd_count(struct rd *r, uint32_t max, size_t min_bytes, uint32_t *n)
{
	struct rd save = *r;
	int rc;

	if ((rc = rd_u32(r, n)) != BUF_OK)
		return rc;
	if (*n <= max && *n <= r->len / min_bytes)
		return BUF_OK;
	rc = *n > max ? BUF_ERR_TOO_LONG : BUF_ERR_FORMAT;
	*r = save;
	*n = 0;
	return rc;
}

int
rd_array(struct rd *r, uint32_t max, size_t min_bytes, size_t size,
    void **p, size_t *n, const char *truncated, const char **why)
{
	uint32_t count;

	*p = NULL;
	*n = 0;
	switch (rd_count(r, max, min_bytes, &count)) {
	case BUF_OK:
		break;
	case BUF_ERR_TOO_LONG:
		*why = "a count is over its limit";
		return -1;
	case BUF_ERR_FORMAT:
		*why = "a count is larger than the bytes that follow";
		return -1;
	default:
		*why = truncated;
		return -1;
	}
	if (count > 0 && (*p = calloc(count, size)) == NULL) {
		*why = "out of memory";
		return -1;
	}
	*n = count;
	return 0;
}

int
rd_u32(struct rd *r, uint32_t *v)
{
	struct slice s;
	int rc;

	*v = 0;
	if ((rc = rd_bytes(r, 4, &s)) != BUF_OK)
		return rc;
	*v = (uint32_t)s.p[0] << 24 | (uint32_t)s.p[1] << 16 |
	    (uint32_t)s.p[2] << 8 | s.p[3];
	return BUF_OK;
}

int
rd_u64(struct rd *r, uint64_t *v)
{
	struct slice s;
	int rc;

	*v = 0;
	if ((rc = rd_bytes(r, 8, &s)) != BUF_OK)
		return rc;
	for (size_t i = 0; i < 8; i++)
		*v = *v << 8 | s.p[i];
	return BUF_OK;
}

int
rd_string(struct rd *r, struct slice *s)
{
	struct rd save = *r;
	uint32_t n;
	int rc;

	*s = empty_slice;
	if ((rc = rd_u32(r, &n)) != BUF_OK || (rc = rd_bytes(r, n, s)) != BUF_OK) {
		*r = save;
		return rc;
	}
	return BUF_OK;
}

int
rd_sub(struct rd *r, struct rd *sub)
{
	struct slice s;
	int rc;

	rd_init(sub, NULL, 0);
	if ((rc = rd_string(r, &s)) != BUF_OK)
		return rc;
	rd_init(sub, s.p, s.len);
	return BUF_OK;
}

int
rd_text(struct rd *r, struct slice *s)
{
	struct rd save = *r;
	struct slice t;
	int rc;

	*s = empty_slice;
	if ((rc = rd_string(r, &t)) != BUF_OK)
		return rc;
	if (t.len > 0 && t.p[t.len - 1] == '\0')
		t.len--;
	if (memchr(t.p, '\0', t.len) != NULL) {
		*r = save;
		return BUF_ERR_FORMAT;
	}
	*s = t;
	return BUF_OK;
}

/* The magnitude of an mpint string, or the error that refuses it. */
static int
mpint_magnitude(struct slice *s)
{
	if (s->len > AGENT_MAX_MPINT_BYTES)
		return BUF_ERR_TOO_LONG;
	if (s->len > 0 && (s->p[0] & 0x80) != 0)
		return BUF_ERR_FORMAT;          /* negative */
	while (s->len > 0 && s->p[0] == 0) {
		s->p++;
		s->len--;
	}
	if (s->len > AGENT_MAX_MPINT_BYTES - 1)
		return BUF_ERR_TOO_LONG;
	return BUF_OK;
}

int
rd_mpint(struct rd *r, struct slice *m)
{
	struct rd save = *r;
	struct slice s;
	int rc;

	*m = empty_slice;
	if ((rc = rd_string(r, &s)) != BUF_OK)
		return rc;
	if ((rc = mpint_magnitude(&s)) != BUF_OK) {
		*r = save;
		return rc;
	}
	*m = s;
	return BUF_OK;
}

int
rd_done(const struct rd *r)
{
	return r->len == 0 ? BUF_OK : BUF_ERR_TRAILING;
}

int
slice_eq(struct slice a, struct slice b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

int
slice_eq_str(struct slice a, const char *s)
{
	size_t n = strlen(s);

	return a.len == n && memcmp(a.p, s, n) == 0;
}

int
rd_text_max(struct rd *r, struct slice *s, size_t max)
{
	if (rd_string(r, s) != 0 || s->len > max || slice_has_nul(*s))
		return -1;
	return 0;
}

int
slice_has_nul(struct slice s)
{
	return s.len != 0 && memchr(s.p, '\0', s.len) != NULL;
}

char *
slice_strdup(struct slice s)
{
	char *c;

	if (slice_has_nul(s) || (c = malloc(s.len + 1)) == NULL)
		return NULL;
	if (s.len > 0)
		memcpy(c, s.p, s.len);
	c[s.len] = '\0';
	return c;
}

void
wb_init(struct wb *w)
{
	w->p = NULL;
	w->len = w->cap = 0;
	w->err = 0;
}

/* Grow in place. The old block is wiped before it is freed, so a writer
 * holding a secret never leaves a copy behind in the heap. */
static int
wb_reserve(struct wb *w, size_t n)
{
	size_t cap;
	uint8_t *np;

	if (w->err)
		return -1;
	if (n > WB_MAX_LEN || w->len > WB_MAX_LEN - n) {
		w->err = 1;
		return -1;
	}
	if (w->len + n <= w->cap)
		return 0;
	cap = w->cap ? w->cap : 256;
	while (cap < w->len + n)
		cap *= 2;
	if ((np = malloc(cap)) == NULL) {
		w->err = 1;
		return -1;
	}
	if (w->len > 0)
		memcpy(np, w->p, w->len);
	if (w->p != NULL) {
		wipe(w->p, w->cap);
		free(w->p);
	}
	w->p = np;
	w->cap = cap;
	return 0;
}

void
wb_bytes(struct wb *w, const void *p, size_t n)
{
	if (n == 0 || wb_reserve(w, n) != 0)
		return;
	memcpy(w->p + w->len, p, n);
	w->len += n;
}

void
wb_u8(struct wb *w, uint8_t v)
{
	wb_bytes(w, &v, 1);
}

void
wb_u32(struct wb *w, uint32_t v)
{
	uint8_t b[4] = { v >> 24, v >> 16, v >> 8, v };

	wb_bytes(w, b, 4);
}

void
wb_u64(struct wb *w, uint64_t v)
{
	wb_u32(w, (uint32_t)(v >> 32));
	wb_u32(w, (uint32_t)v);
}

void
wb_string(struct wb *w, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		w->err = 1;
		return;
	}
	wb_u32(w, (uint32_t)n);
	wb_bytes(w, p, n);
}

void
wb_cstring(struct wb *w, const char *s)
{
	wb_string(w, s, strlen(s));
}

void
wb_slice(struct wb *w, struct slice s)
{
	wb_string(w, s.p, s.len);
}

void
wb_mpint(struct wb *w, const uint8_t *p, size_t n)
{
	while (n > 0 && p[0] == 0) {
		p++;
		n--;
	}
	if (n > 0 && (p[0] & 0x80) != 0) {
		wb_u32(w, (uint32_t)n + 1);
		wb_u8(w, 0);
		wb_bytes(w, p, n);
	} else {
		wb_string(w, p, n);
	}
}

size_t
wb_begin_string(struct wb *w)
{
	size_t mark = w->len;

	wb_u32(w, 0);
	return mark;
}

void
wb_end_string(struct wb *w, size_t mark)
{
	size_t n;

	if (w->err || mark + 4 > w->len)
		return;
	n = w->len - mark - 4;
	w->p[mark] = n >> 24;
	w->p[mark + 1] = n >> 16;
	w->p[mark + 2] = n >> 8;
	w->p[mark + 3] = n;
}

struct slice
wb_slice_of(const struct wb *w)
{
	struct slice s = { w->p, w->len };

	return s;
}

void
wb_reset(struct wb *w)
{
	w->len = 0;
	w->err = 0;
}

void
wb_free(struct wb *w)
{
	free(w->p);
	wb_init(w);
}

void
wb_free_secret(struct wb *w)
{
	if (w->p != NULL)
		wipe(w->p, w->cap);
	wb_free(w);
}

void
wipe(void *p, size_t n)
{
	if (p != NULL && n > 0)
		explicit_bzero(p, n);
}
