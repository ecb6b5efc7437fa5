/*
 * buf.h - the one reader and the one writer for SSH wire types.
 * Every byte that crosses a process boundary or comes from a client is read
 * through struct rd: each getter checks bounds and returns a named error
 * on a short or malformed read, never a default value. struct wb grows and
 * remembers the first error, so encoders can write a whole message and
 * check once.
 */
#ifndef KEYWARD_BUF_H
#define KEYWARD_BUF_H

#include <stddef.h>
#include <stdint.h>

struct rd {
	const uint8_t *p;
	size_t len;
};

/* A slice of bytes owned by someone else (usually a received message). */
struct slice {
	const uint8_t *p;
	size_t len;
};

/*
 * What a getter returns: BUF_OK, or what was wrong, always negative, so
 * a caller may test != 0 or < 0. Every getter clears its outputs first
 * (0, an empty slice) and, when it fails, leaves the reader where it was:
 * a failed read yields nothing and consumes nothing.
 */
enum buf_err {
	BUF_OK = 0,
	BUF_ERR_SHORT = -1,     /* the input ends before the field does */
	BUF_ERR_TOO_LONG = -2,  /* an mpint longer than AGENT_MAX_MPINT_BYTES */
	BUF_ERR_FORMAT = -3,    /* a NUL inside text; a negative mpint */
	BUF_ERR_TRAILING = -4,  /* rd_done: bytes left after the last field */
};

void rd_init(struct rd *r, const void *p, size_t len);
int rd_u8(struct rd *r, uint8_t *v);
int rd_bool(struct rd *r, int *v);           /* any non-zero is true (doc/protocol.md §2) */
int rd_flag(struct rd *r, int *v);           /* our own bools: 0 or 1 only */
/* A count of elements that each take at least min_bytes (> 0) of what
 * follows: BUF_ERR_TOO_LONG over max, BUF_ERR_FORMAT over what the rest of
 * the input could hold, so a hostile count never sizes an allocation. */
int rd_count(struct rd *r, uint32_t max, size_t min_bytes, uint32_t *n);
/* rd_count, then a zeroed array of that many elements of size bytes: 0
 * with *p (NULL for none) and *n, or -1 with *why (truncated: what a short
 * read is called by the caller). */
int rd_array(struct rd *r, uint32_t max, size_t min_bytes, size_t size,
    void **p, size_t *n, const char *truncated, const char **why);
int rd_u32(struct rd *r, uint32_t *v);
int rd_u64(struct rd *r, uint64_t *v);
int rd_bytes(struct rd *r, size_t n, struct slice *s);  /* s may be NULL */
int rd_string(struct rd *r, struct slice *s);
int rd_sub(struct rd *r, struct rd *sub);    /* a string, to be parsed alone */
int rd_text(struct rd *r, struct slice *s);  /* no NUL but a trailing one */
/* Text as keyward's own encoders write it: no NUL at all, at most max. */
int rd_text_max(struct rd *r, struct slice *s, size_t max);
int rd_mpint(struct rd *r, struct slice *magnitude); /* >= 0, leading 0s cut */
int rd_done(const struct rd *r);             /* BUF_OK iff nothing is left */

int slice_eq(struct slice a, struct slice b);
int slice_eq_str(struct slice a, const char *s);
/* Does s hold a NUL anywhere (text that must have none)? */
int slice_has_nul(struct slice s);
/* NUL-terminated malloc'd copy of a text slice; NULL on failure. */
char *slice_strdup(struct slice s);

struct wb {
	uint8_t *p;
	size_t len, cap;
	int err;
};

void wb_init(struct wb *w);
void wb_u8(struct wb *w, uint8_t v);
void wb_u32(struct wb *w, uint32_t v);
void wb_u64(struct wb *w, uint64_t v);
void wb_bytes(struct wb *w, const void *p, size_t n);
void wb_string(struct wb *w, const void *p, size_t n);
void wb_cstring(struct wb *w, const char *s);
void wb_slice(struct wb *w, struct slice s);
/* Unsigned big-endian magnitude, written in minimal mpint form. */
void wb_mpint(struct wb *w, const uint8_t *p, size_t n);
/* Start a string whose length is patched by wb_end_string. */
size_t wb_begin_string(struct wb *w);
void wb_end_string(struct wb *w, size_t mark);
struct slice wb_slice_of(const struct wb *w);
void wb_reset(struct wb *w);
void wb_free(struct wb *w);

/*
 * Where a secret ends (doc/style.md §6): one function per kind of buffer, so that
 * grepping for the four names finds every place.
 *   wipe(p, n)            memory the caller keeps or frees itself: arrays
 *                         on the stack, a received frame, the bytes of a
 *                         writer that is reused;
 *   wb_free_secret(w)     a writer that held a secret, wiped and freed;
 *   sealed_free(s)        a sealed private key (keyholder/shield.h);
 *   shield_release(p, n)  memory from libcrypto's secure heap, taken with
 *                         shield_alloc (keyholder/shield.h).
 * libcrypto's own objects end in its clearing destructors: BN_clear_free
 * for a BIGNUM that held a secret, EVP_PKEY_free for a key.
 */
void wipe(void *p, size_t n);
void wb_free_secret(struct wb *w);

#endif
