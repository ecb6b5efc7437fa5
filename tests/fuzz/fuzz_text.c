/*
 * fuzz_text.c - libFuzzer harness for ipc/text.c, checked against a
 * reference written here from the rules of ipc/text.h (a UTF-8 reader that
 * decodes and then range-checks, unlike text.c's table of second bytes).
 * Input: byte 0 (bit 7: repeat the text past TEXT_JSON_KEEP, to reach the
 * JSON cut), bytes 1-2 the terminal buffer's size (little-endian, taken
 * modulo four times the text plus 8, so both cut and whole forms occur),
 * then the text. On every input:
 *
 *  JSON: one string literal that a strict RFC 8259 checker accepts, valid
 *  UTF-8, with no raw DEL, C1, line break or default-ignorable character
 *  (a surrogate-pair escape only for one above U+FFFF); decoded, it is the input
 *  with each invalid byte as the text \xHH, cut (with "...") before the
 *  character that would pass TEXT_JSON_KEEP input bytes;
 *  terminal: NUL-terminated inside a buffer of exactly its size (ASan
 *  sees any overflow), no byte < 0x20, no DEL, no C1, no line break or
 *  default-ignorable character,
 *  valid UTF-8, every backslash the start of \\ \n \t \r or \xHH; decoded,
 *  the input itself when it fits, else a prefix of it at a character
 *  boundary followed by the mark, and the next character's form would
 *  not have fitted; text_term_clean is 1 exactly when the form is the
 *  input with backslashes doubled;
 *  round trip: well-formed UTF-8 without controls, line breaks,
 *  default-ignorables, '"' or '\' is
 *  its own JSON body and its own terminal form.
 */
#include "tests/fuzz/fuzz.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "ipc/text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ reference */

/* The character at p: its length and code point, or 0 when the byte there
 * does not start a well-formed UTF-8 sequence. */
static size_t
ref_char(const uint8_t *p, size_t n, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len;
	uint32_t v;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		v = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		v = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		v = p[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min[len] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return len;
}

static int
ref_utf8_valid(const uint8_t *p, size_t n)
{
	uint32_t cp;

	for (size_t i = 0, k; i < n; i += k)
		if ((k = ref_char(p + i, n - i, &cp)) == 0)
			return 0;
	return 1;
}

/* Controls, Unicode 15's mandatory line breaks (LineBreak.txt BK CR LF
 * NL) and Default_Ignorable_Code_Point, written out here as a list of
 * single points and ranges, not as text.c's table. */
static int
ref_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	    cp == 0x2028 || cp == 0x2029 ||
	    cp == 0xad || cp == 0x34f || cp == 0x61c ||
	    cp == 0x115f || cp == 0x1160 || cp == 0x17b4 || cp == 0x17b5 ||
	    (cp >= 0x180b && cp <= 0x180f) || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
	    cp == 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0f) || cp == 0xfeff ||
	    cp == 0xffa0 || (cp >= 0xfff0 && cp <= 0xfff8) ||
	    (cp >= 0x1bca0 && cp <= 0x1bca3) || (cp >= 0x1d173 && cp <= 0x1d17a) ||
	    (cp >= 0xe0000 && cp <= 0xe0fff);
}

/* Length of the terminal form of the character (len bytes, 0: invalid). */
static size_t
ref_term_len(uint32_t cp, size_t len)
{
	if (len == 0)
		return 4;
	if (cp == '\\' || cp == '\n' || cp == '\t' || cp == '\r')
		return 2;
	return ref_unsafe(cp) ? 4 * len : len;
}

/* Does no character of p need any escape but a doubled backslash? */
static int
ref_plain(const uint8_t *p, size_t n, int allow_quote_backslash)
{
	uint32_t cp;

	for (size_t i = 0, k; i < n; i += k) {
		if ((k = ref_char(p + i, n - i, &cp)) == 0 || ref_unsafe(cp))
			return 0;
		if (!allow_quote_backslash && (cp == '"' || cp == '\\'))
			return 0;
	}
	return 1;
}

static int
hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static size_t
put_utf8(uint8_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (uint8_t)(0xc0 | cp >> 6);
		o[1] = (uint8_t)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (uint8_t)(0xe0 | cp >> 12);
		o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (uint8_t)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (uint8_t)(0xf0 | cp >> 18);
	o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (uint8_t)(0x80 | (cp & 0x3f));
	return 4;
}

/* ------------------------------------------------------------ JSON */

/* Four hex digits at p, or aborts. */
static uint32_t
hex4(const uint8_t *p)
{
	uint32_t v = 0;

	for (size_t h = 0; h < 4; h++) {
		int d = hexval(p[h]);
		CHECK(d >= 0);
		v = v << 4 | (uint32_t)d;
	}
	return v;
}

/* A strict RFC 8259 string checker and decoder: the whole of j is one
 * string literal; returns the decoded length in out, or aborts. A
 * surrogate escape must be a high one followed by a low one (a character
 * above U+FFFF); a lone one is refused. */
static size_t
json_decode(const uint8_t *j, size_t n, uint8_t *out)
{
	size_t k = 0;
	uint32_t cp;

	CHECK(ref_utf8_valid(j, n));
	CHECK(n >= 2 && j[0] == '"' && j[n - 1] == '"');
	for (size_t i = 1; i < n - 1;) {
		size_t len = ref_char(j + i, n - 1 - i, &cp);
		CHECK(len > 0);
		CHECK(!ref_unsafe(cp));       /* no raw control at all */
		CHECK(cp != '"');
		if (cp != '\\') {
			memcpy(out + k, j + i, len);
			k += len;
			i += len;
			continue;
		}
		CHECK(i + 1 < n - 1);
		switch (j[i + 1]) {
		case '"': case '\\': case '/':
			out[k++] = j[i + 1];
			i += 2;
			break;
		case 'b': out[k++] = '\b'; i += 2; break;
		case 'f': out[k++] = '\f'; i += 2; break;
		case 'n': out[k++] = '\n'; i += 2; break;
		case 'r': out[k++] = '\r'; i += 2; break;
		case 't': out[k++] = '\t'; i += 2; break;
		case 'u':
			CHECK(i + 6 <= n - 1);
			cp = hex4(j + i + 2);
			i += 6;
			CHECK(cp < 0xdc00 || cp > 0xdfff);
			if (cp >= 0xd800 && cp <= 0xdbff) {
				uint32_t lo;
				CHECK(i + 6 <= n - 1 && j[i] == '\\' && j[i + 1] == 'u');
				lo = hex4(j + i + 2);
				CHECK(lo >= 0xdc00 && lo <= 0xdfff);
				cp = 0x10000 + ((cp - 0xd800) << 10 | (lo - 0xdc00));
				i += 6;
			}
			CHECK(ref_unsafe(cp));        /* escaped only when it must be */
			k += put_utf8(out + k, cp);
			break;
		default:
			CHECK(0);
		}
	}
	return k;
}

static void
check_json(const uint8_t *in, size_t n)
{
	uint8_t *want = malloc(5 * n + 8), *got = malloc(6 * n + 16);
	size_t wlen = 0, used = 0, glen;
	struct wb w;
	uint32_t cp;

	CHECK(want != NULL && got != NULL);
	for (size_t i = 0, k; i < n; i += k) {
		k = ref_char(in + i, n - i, &cp);
		if (used + (k ? k : 1) > TEXT_JSON_KEEP) {
			memcpy(want + wlen, "...", 3);
			wlen += 3;
			break;
		}
		used += k ? k : 1;
		if (k == 0) {
			wlen += (size_t)sprintf((char *)want + wlen, "\\x%02x", in[i]);
			k = 1;
		} else {
			memcpy(want + wlen, in + i, k);
			wlen += k;
		}
	}
	wb_init(&w);
	text_json(&w, in, n);
	CHECK(!w.err);
	glen = json_decode(w.p, w.len, got);
	CHECK(glen == wlen && memcmp(got, want, wlen) == 0);
	if (n <= TEXT_JSON_KEEP && ref_plain(in, n, 0))
		CHECK(w.len == n + 2 && memcmp(w.p + 1, in, n) == 0);
	wb_free(&w);
	free(want);
	free(got);
}

/* ------------------------------------------------------------ terminal */

/* Decode a terminal form (no mark in it) into out; aborts on any byte the
 * form may not hold. Returns the decoded length. */
static size_t
term_decode(const uint8_t *t, size_t n, uint8_t *out)
{
	size_t k = 0;
	uint32_t cp;

	CHECK(ref_utf8_valid(t, n));
	for (size_t i = 0; i < n;) {
		size_t len = ref_char(t + i, n - i, &cp);
		CHECK(!ref_unsafe(cp));
		if (cp != '\\') {
			memcpy(out + k, t + i, len);
			k += len;
			i += len;
			continue;
		}
		CHECK(i + 1 < n);
		switch (t[i + 1]) {
		case '\\': out[k++] = '\\'; i += 2; break;
		case 'n': out[k++] = '\n'; i += 2; break;
		case 't': out[k++] = '\t'; i += 2; break;
		case 'r': out[k++] = '\r'; i += 2; break;
		case 'x': {
			int hi, lo;
			CHECK(i + 4 <= n);
			hi = hexval(t[i + 2]);
			lo = hexval(t[i + 3]);
			CHECK(hi >= 0 && lo >= 0);
			out[k++] = (uint8_t)(hi << 4 | lo);
			i += 4;
			break;
		}
		default:
			CHECK(0);
		}
	}
	return k;
}

/* Is k a character boundary of in? */
static int
at_boundary(const uint8_t *in, size_t n, size_t k)
{
	uint32_t cp;
	size_t i = 0, len;

	while (i < k) {
		len = ref_char(in + i, n - i, &cp);
		i += len ? len : 1;
	}
	return i == k;
}

static void
check_term(const uint8_t *in, size_t n, size_t outsz)
{
	const size_t mark = strlen(TEXT_CUT_MARK);
	char *out = malloc(outsz > 0 ? outsz : 1);
	uint8_t *dec = malloc(n + 1);
	size_t olen, dlen, full = 0, body;
	uint32_t cp;

	CHECK(out != NULL && dec != NULL);
	for (size_t i = 0, k; i < n; i += k ? k : 1) {
		k = ref_char(in + i, n - i, &cp);
		full += ref_term_len(cp, k);
	}
	if (outsz == 0) {
		CHECK(text_term(out, 0, in, n) == out);
		goto done;
	}
	CHECK(text_term(out, outsz, in, n) == out);
	olen = strnlen(out, outsz);
	CHECK(olen < outsz);
	if (full < outsz) {
		CHECK(olen == full);
		dlen = term_decode((const uint8_t *)out, olen, dec);
		CHECK(dlen == n && memcmp(dec, in, n) == 0);
		CHECK(text_term_clean(in, n) == ref_plain(in, n, 1));
		if (ref_plain(in, n, 1)) {
			size_t bs = 0;
			for (size_t i = 0; i < n; i++)
				bs += in[i] == '\\';
			CHECK(olen == n + bs);
		}
		if (ref_plain(in, n, 0))
			CHECK(olen == n && memcmp(out, in, n) == 0);
		goto done;
	}
	/* Cut: the mark (or as much of it as fits) ends the form. */
	if (outsz <= mark) {
		CHECK(olen == outsz - 1 && memcmp(out, TEXT_CUT_MARK, olen) == 0);
		goto done;
	}
	CHECK(olen >= mark && memcmp(out + olen - mark, TEXT_CUT_MARK, mark) == 0);
	body = olen - mark;
	dlen = term_decode((const uint8_t *)out, body, dec);
	CHECK(dlen < n && memcmp(dec, in, dlen) == 0);
	CHECK(at_boundary(in, n, dlen));
	{
		size_t k = ref_char(in + dlen, n - dlen, &cp);
		CHECK(body + ref_term_len(cp, k) + mark >= outsz);
	}
done:
	free(out);
	free(dec);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *text;
	uint8_t *big = NULL;
	size_t n, outsz;

	if (size < 3)
		return 0;
	text = data + 3;
	n = size - 3;
	if ((data[0] & 0x80) && n > 0) {
		size_t want = TEXT_JSON_KEEP + 1 + data[0 + 1] % 16;
		big = malloc(want);
		CHECK(big != NULL);
		for (size_t i = 0; i < want; i++)
			big[i] = text[i % n];
		text = big;
		n = want;
	}
	outsz = ((size_t)data[1] | (size_t)data[2] << 8) % (4 * n + 8);
	check_json(text, n);
	check_term(text, n, outsz);
	check_term(text, n, 4 * n + 1);         /* always the whole form */
	free(big);
	return 0;
}
