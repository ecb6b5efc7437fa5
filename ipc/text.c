/*
 * text.c - client text made safe to show: a strict UTF-8 reader (through
 * struct rd, like every other untrusted byte) and the JSON and terminal
 * forms of ipc/text.h. Trusts nothing about its input, not even a NUL.
 */
#include "ipc/text.h"
#include "ipc/limits.h"

#include <stdint.h>
#include <string.h>

static const char hex[] = "0123456789abcdef";

#define NOT_UTF8 (-1)

/*
 * Take one character off r: the bytes of the well-formed UTF-8 sequence
 * there in *s and its code point in *cp, or, when there is none, the first
 * byte alone with *cp = NOT_UTF8. The bounds on the second byte are what
 * rule out overlong forms (E0, F0), surrogates (ED) and code points above
 * U+10FFFF (F4); leads C0, C1 and F5-FF never start a character.
 * r must not be empty.
 */
static void
next_char(struct rd *r, struct slice *s, int32_t *cp)
{
	struct rd t = *r;
	uint8_t b, lo = 0x80, hi = 0xbf;
	size_t len;
	int32_t v;

	(void)rd_u8(&t, &b);
	if (b < 0x80) {
		len = 1;
		v = b;
	} else if (b >= 0xc2 && b <= 0xdf) {
		len = 2;
		v = b & 0x1f;
	} else if (b >= 0xe0 && b <= 0xef) {
		len = 3;
		v = b & 0x0f;
		lo = b == 0xe0 ? 0xa0 : 0x80;
		hi = b == 0xed ? 0x9f : 0xbf;
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4;
		v = b & 0x07;
		lo = b == 0xf0 ? 0x90 : 0x80;
		hi = b == 0xf4 ? 0x8f : 0xbf;
	} else {
		len = 0;
		v = NOT_UTF8;
	}
	for (size_t i = 1; i < len; i++) {
		uint8_t c;
		if (rd_u8(&t, &c) != 0 || c < lo || c > hi) {
			len = 0;
			v = NOT_UTF8;
			break;
		}
		v = v << 6 | (c & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	(void)rd_bytes(r, len > 0 ? len : 1, s);
	*cp = v;
}

/* Characters that move or hide text on a terminal: C0, DEL, C1. */
static int
is_control(int32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/*
 * Characters that draw a line or draw nothing: a terminal, GTK (Pango) or
 * Qt may break the line at them or render them as nothing, so a client
 * could add a line to a prompt or hide one word inside another. One table,
 * sorted, from two sources (Unicode 15.0, as Debian's unicode-data ships
 * it; tests/unit/test_text.c compares this table with those files over
 * every code point):
 *   - LineBreak.txt, the classes BK, CR, LF and NL (mandatory breaks):
 *     U+000A-000D and U+0085 are controls already, which leaves U+2028
 *     LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR;
 *   - DerivedCoreProperties.txt, Default_Ignorable_Code_Point: the code
 *     points a renderer shows as nothing when it cannot show them
 *     otherwise -- soft hyphen, zero-width space and joiners, the bidi
 *     embeddings, overrides, isolates and marks ("Trojan Source"), word
 *     joiner and invisible operators, BOM, the Hangul fillers, variation
 *     selectors, tags, and the unassigned code points kept for more.
 */
static const struct { int32_t lo, hi; } unseen[] = {
	{ 0x00ad, 0x00ad },     /* DI: soft hyphen */
	{ 0x034f, 0x034f },     /* DI: combining grapheme joiner */
	{ 0x061c, 0x061c },     /* DI: Arabic letter mark */
	{ 0x115f, 0x1160 },     /* DI: Hangul choseong/jungseong fillers */
	{ 0x17b4, 0x17b5 },     /* DI: Khmer inherent vowels */
	{ 0x180b, 0x180f },     /* DI: Mongolian variation selectors, MVS */
	{ 0x200b, 0x200f },     /* DI: ZWSP, ZWNJ, ZWJ, LRM, RLM */
	{ 0x2028, 0x2029 },     /* LB=BK: line and paragraph separators */
	{ 0x202a, 0x202e },     /* DI: bidi embeddings and overrides */
	{ 0x2060, 0x206f },     /* DI: word joiner, invisible operators,
	                         * bidi isolates, deprecated format chars */
	{ 0x3164, 0x3164 },     /* DI: Hangul filler */
	{ 0xfe00, 0xfe0f },     /* DI: variation selectors 1-16 */
	{ 0xfeff, 0xfeff },     /* DI: zero width no-break space (BOM) */
	{ 0xffa0, 0xffa0 },     /* DI: halfwidth Hangul filler */
	{ 0xfff0, 0xfff8 },     /* DI: unassigned */
	{ 0x1bca0, 0x1bca3 },   /* DI: shorthand format controls */
	{ 0x1d173, 0x1d17a },   /* DI: musical symbol format controls */
	{ 0xe0000, 0xe0fff },   /* DI: tags, variation selectors 17-256 */
};

/* Is cp in unseen[]? A binary search: the table is sorted and disjoint. */
static int
is_unseen(int32_t cp)
{
	size_t lo = 0, hi = sizeof(unseen) / sizeof(unseen[0]);

	if (cp < unseen[0].lo)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < unseen[mid].lo)
			hi = mid;
		else if (cp > unseen[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ JSON */

/* cp as \uXXXX, or above U+FFFF as its UTF-16 surrogate pair (RFC 8259
 * section 7), which a JSON parser reads back as the one character. */
static void
json_u(struct wb *w, int32_t cp)
{
	uint8_t e[6] = { '\\', 'u' };

	if (cp > 0xffff) {
		cp -= 0x10000;
		json_u(w, 0xd800 | (cp >> 10));
		json_u(w, 0xdc00 | (cp & 0x3ff));
		return;
	}
	e[2] = hex[cp >> 12];
	e[3] = hex[(cp >> 8) & 15];
	e[4] = hex[(cp >> 4) & 15];
	e[5] = hex[cp & 15];
	wb_bytes(w, e, sizeof(e));
}

void
text_json(struct wb *w, const void *p, size_t n)
{
	struct rd r;
	struct slice s;
	int32_t cp;
	size_t used = 0;

	rd_init(&r, p, n);
	wb_u8(w, '"');
	while (r.len > 0) {
		next_char(&r, &s, &cp);
		if (used + s.len > TEXT_JSON_KEEP) {
			wb_bytes(w, TEXT_CUT_MARK, strlen(TEXT_CUT_MARK));
			break;
		}
		used += s.len;
		if (cp == NOT_UTF8) {
			uint8_t e[5] = { '\\', '\\', 'x', hex[s.p[0] >> 4], hex[s.p[0] & 15] };
			wb_bytes(w, e, sizeof(e));
		} else if (cp == '"' || cp == '\\') {
			wb_u8(w, '\\');
			wb_u8(w, (uint8_t)cp);
		} else if (is_control(cp) || is_unseen(cp)) {
			json_u(w, cp);
		} else {
			wb_bytes(w, s.p, s.len);
		}
	}
	wb_u8(w, '"');
}

void
text_json_str(struct wb *w, const char *s)
{
	if (s == NULL)
		wb_bytes(w, "null", 4);
	else
		text_json(w, s, strlen(s));
}

/* ------------------------------------------------------------ terminal */

/* The longest form of one character: a 4-byte sequence, \xHH each. */
#define TERM_UNIT_MAX 16

/* The terminal form of the next character of r in u; returns its length. */
static size_t
term_unit(struct rd *r, char u[TERM_UNIT_MAX])
{
	struct slice s;
	int32_t cp;
	size_t k = 0;

	next_char(r, &s, &cp);
	if (cp == '\\' || cp == '\n' || cp == '\t' || cp == '\r') {
		u[k++] = '\\';
		u[k++] = cp == '\n' ? 'n' : cp == '\t' ? 't' : cp == '\r' ? 'r' : '\\';
	} else if (cp == NOT_UTF8 || is_control(cp) || is_unseen(cp)) {
		for (size_t i = 0; i < s.len; i++) {
			u[k++] = '\\';
			u[k++] = 'x';
			u[k++] = hex[s.p[i] >> 4];
			u[k++] = hex[s.p[i] & 15];
		}
	} else {
		memcpy(u, s.p, s.len);
		k = s.len;
	}
	return k;
}

char *
text_term(char *out, size_t outsz, const void *p, size_t n)
{
	const size_t mark = strlen(TEXT_CUT_MARK);
	char u[TERM_UNIT_MAX];
	struct rd r;
	size_t total = 0, pos = 0, k;
	int cut;

	if (outsz == 0)
		return out;
	/* First the length, so that a string that fits needs no mark and
	 * one that does not keeps room for it. */
	rd_init(&r, p, n);
	while (r.len > 0 && total < outsz)
		total += term_unit(&r, u);
	cut = total >= outsz;
	rd_init(&r, p, n);
	while (r.len > 0) {
		k = term_unit(&r, u);
		if (cut && pos + k + mark >= outsz)
			break;
		memcpy(out + pos, u, k);
		pos += k;
	}
	if (cut) {
		k = outsz - 1 - pos < mark ? outsz - 1 - pos : mark;
		memcpy(out + pos, TEXT_CUT_MARK, k);
		pos += k;
	}
	out[pos] = '\0';
	return out;
}

char *
text_term_str(char *out, size_t outsz, const char *s)
{
	return text_term(out, outsz, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

int
text_term_clean(const void *p, size_t n)
{
	char u[TERM_UNIT_MAX];
	struct rd r, before;
	size_t k;

	rd_init(&r, p, n);
	while (r.len > 0) {
		before = r;
		k = term_unit(&r, u);
		if (k != before.len - r.len && !(k == 2 && u[1] == '\\'))
			return 0;
	}
	return 1;
}
