/*
 * test_text.c - the two forms of client text (ipc/text.c): each row is the
 * bytes a client sent, the JSON literal we write and the terminal form we
 * show. Then the cuts: every buffer size, and the JSON keep limit.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "ipc/text.h"
#include "tests/unit/tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A literal with its length, NULs inside included. */
#define S(lit) lit, sizeof(lit) - 1

static const struct textcase {
	const char *name;
	const char *in; size_t inlen;
	const char *json;               /* JSON source, quotes included */
	const char *term;               /* terminal form */
} cases[] = {
	{ "empty", S(""), "\"\"", "" },
	{ "ASCII", S("perseus@scylla"), "\"perseus@scylla\"", "perseus@scylla" },
	{ "quote", S("say \"hi\""), "\"say \\\"hi\\\"\"", "say \"hi\"" },
	{ "backslash", S("a\\b"), "\"a\\\\b\"", "a\\\\b" },
	{ "a typed \\x41 is not an escape on the terminal", S("\\x41"),
	  "\"\\\\x41\"", "\\\\x41" },
	{ "2-byte UTF-8 (U+00E9)", S("m\xc3\xa9" "dea"), "\"m\xc3\xa9" "dea\"", "m\xc3\xa9" "dea" },
	{ "2-byte UTF-8, lowest (U+0080 is C1, so U+00A0)", S("\xc2\xa0"), "\"\xc2\xa0\"", "\xc2\xa0" },
	{ "3-byte UTF-8 (U+20AC)", S("\xe2\x82\xac"), "\"\xe2\x82\xac\"", "\xe2\x82\xac" },
	{ "3-byte UTF-8, lowest (U+0800)", S("\xe0\xa0\x80"), "\"\xe0\xa0\x80\"", "\xe0\xa0\x80" },
	{ "3-byte UTF-8 beside the surrogates (U+D7FF)", S("\xed\x9f\xbf"),
	  "\"\xed\x9f\xbf\"", "\xed\x9f\xbf" },
	{ "3-byte UTF-8 after the surrogates (U+E000)", S("\xee\x80\x80"),
	  "\"\xee\x80\x80\"", "\xee\x80\x80" },
	{ "3-byte UTF-8, U+FFFF", S("\xef\xbf\xbf"), "\"\xef\xbf\xbf\"", "\xef\xbf\xbf" },
	{ "4-byte UTF-8 (U+1F511)", S("\xf0\x9f\x94\x91"), "\"\xf0\x9f\x94\x91\"", "\xf0\x9f\x94\x91" },
	{ "4-byte UTF-8, lowest (U+10000)", S("\xf0\x90\x80\x80"),
	  "\"\xf0\x90\x80\x80\"", "\xf0\x90\x80\x80" },
	{ "4-byte UTF-8, highest (U+10FFFF)", S("\xf4\x8f\xbf\xbf"),
	  "\"\xf4\x8f\xbf\xbf\"", "\xf4\x8f\xbf\xbf" },
	{ "invalid: lone continuation byte", S("a\x80z"), "\"a\\\\x80z\"", "a\\x80z" },
	{ "invalid: 0xff", S("\xff"), "\"\\\\xff\"", "\\xff" },
	{ "invalid: 0xfe", S("\xfe"), "\"\\\\xfe\"", "\\xfe" },
	{ "invalid: overlong 2-byte '/' (C0 AF)", S("\xc0\xaf"), "\"\\\\xc0\\\\xaf\"", "\\xc0\\xaf" },
	{ "invalid: overlong 2-byte (C1 BF)", S("\xc1\xbf"), "\"\\\\xc1\\\\xbf\"", "\\xc1\\xbf" },
	{ "invalid: overlong 3-byte (E0 80 AF)", S("\xe0\x80\xaf"),
	  "\"\\\\xe0\\\\x80\\\\xaf\"", "\\xe0\\x80\\xaf" },
	{ "invalid: overlong 4-byte (F0 80 80 AF)", S("\xf0\x80\x80\xaf"),
	  "\"\\\\xf0\\\\x80\\\\x80\\\\xaf\"", "\\xf0\\x80\\x80\\xaf" },
	{ "invalid: surrogate U+D800", S("\xed\xa0\x80"),
	  "\"\\\\xed\\\\xa0\\\\x80\"", "\\xed\\xa0\\x80" },
	{ "invalid: surrogate U+DFFF", S("\xed\xbf\xbf"),
	  "\"\\\\xed\\\\xbf\\\\xbf\"", "\\xed\\xbf\\xbf" },
	{ "invalid: above U+10FFFF (F4 90 80 80)", S("\xf4\x90\x80\x80"),
	  "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"", "\\xf4\\x90\\x80\\x80" },
	{ "invalid: lead F5", S("\xf5\x80\x80\x80"),
	  "\"\\\\xf5\\\\x80\\\\x80\\\\x80\"", "\\xf5\\x80\\x80\\x80" },
	{ "invalid: 2-byte cut at the end", S("a\xc3"), "\"a\\\\xc3\"", "a\\xc3" },
	{ "invalid: 3-byte cut at the end", S("\xe2\x82"), "\"\\\\xe2\\\\x82\"", "\\xe2\\x82" },
	{ "invalid: 4-byte cut at the end", S("\xf0\x9f\x94"),
	  "\"\\\\xf0\\\\x9f\\\\x94\"", "\\xf0\\x9f\\x94" },
	{ "invalid: 3-byte cut by ASCII, the ASCII kept", S("\xe2\x82z"),
	  "\"\\\\xe2\\\\x82z\"", "\\xe2\\x82z" },
	{ "invalid: a cut sequence before a whole one", S("\xc3\xc3\xa9"),
	  "\"\\\\xc3\xc3\xa9\"", "\\xc3\xc3\xa9" },
	{ "control: newline, tab, carriage return", S("a\nb\tc\rd"),
	  "\"a\\u000ab\\u0009c\\u000dd\"", "a\\nb\\tc\\rd" },
	{ "control: ESC [ 31m", S("\x1b[31mred"), "\"\\u001b[31mred\"", "\\x1b[31mred" },
	{ "control: BEL and 0x1f", S("\x07\x1f"), "\"\\u0007\\u001f\"", "\\x07\\x1f" },
	{ "control: DEL", S("\x7f"), "\"\\u007f\"", "\\x7f" },
	{ "control: NUL inside", S("a\0b"), "\"a\\u0000b\"", "a\\x00b" },
	{ "C1: U+0080", S("\xc2\x80"), "\"\\u0080\"", "\\xc2\\x80" },
	{ "C1: CSI U+009B", S("\xc2\x9b" "31m"), "\"\\u009b31m\"", "\\xc2\\x9b31m" },
	{ "C1: U+009F", S("\xc2\x9f"), "\"\\u009f\"", "\\xc2\\x9f" },
	{ "C1 byte alone is not UTF-8", S("\x9b"), "\"\\\\x9b\"", "\\x9b" },
	{ "bidi: RLO U+202E", S("a\xe2\x80\xae" "b"), "\"a\\u202eb\"", "a\\xe2\\x80\\xaeb" },
	{ "bidi: LRE U+202A", S("\xe2\x80\xaa"), "\"\\u202a\"", "\\xe2\\x80\\xaa" },
	{ "bidi: LRI U+2066", S("\xe2\x81\xa6"), "\"\\u2066\"", "\\xe2\\x81\\xa6" },
	{ "bidi: PDI U+2069", S("\xe2\x81\xa9"), "\"\\u2069\"", "\\xe2\\x81\\xa9" },
	{ "bidi: RLM U+200F", S("\xe2\x80\x8f"), "\"\\u200f\"", "\\xe2\\x80\\x8f" },
	{ "bidi: ALM U+061C", S("\xd8\x9c"), "\"\\u061c\"", "\\xd8\\x9c" },
	{ "not invisible: U+202F and U+205F pass", S("\xe2\x80\xaf\xe2\x81\x9f"),
	  "\"\xe2\x80\xaf\xe2\x81\x9f\"", "\xe2\x80\xaf\xe2\x81\x9f" },
	{ "line separator U+2028", S("a\xe2\x80\xa8" "b"), "\"a\\u2028b\"", "a\\xe2\\x80\\xa8b" },
	{ "paragraph separator U+2029", S("\xe2\x80\xa9"), "\"\\u2029\"", "\\xe2\\x80\\xa9" },
	{ "NEL U+0085", S("\xc2\x85"), "\"\\u0085\"", "\\xc2\\x85" },
	{ "zero width space U+200B", S("\xe2\x80\x8b"), "\"\\u200b\"", "\\xe2\\x80\\x8b" },
	{ "word joiner U+2060", S("\xe2\x81\xa0"), "\"\\u2060\"", "\\xe2\\x81\\xa0" },
	{ "unassigned default-ignorable U+2065", S("\xe2\x81\xa5"), "\"\\u2065\"", "\\xe2\\x81\\xa5" },
	{ "BOM U+FEFF", S("\xef\xbb\xbf"), "\"\\ufeff\"", "\\xef\\xbb\\xbf" },
	{ "soft hyphen U+00AD", S("\xc2\xad"), "\"\\u00ad\"", "\\xc2\\xad" },
	{ "Hangul filler U+3164", S("\xe3\x85\xa4"), "\"\\u3164\"", "\\xe3\\x85\\xa4" },
	{ "Hangul choseong filler U+115F", S("\xe1\x85\x9f"), "\"\\u115f\"", "\\xe1\\x85\\x9f" },
	{ "halfwidth Hangul filler U+FFA0", S("\xef\xbe\xa0"), "\"\\uffa0\"", "\\xef\\xbe\\xa0" },
	{ "variation selector 16 U+FE0F", S("\xef\xb8\x8f"), "\"\\ufe0f\"", "\\xef\\xb8\\x8f" },
	{ "tag latin a U+E0061: a surrogate pair in JSON", S("\xf3\xa0\x81\xa1"),
	  "\"\\udb40\\udc61\"", "\\xf3\\xa0\\x81\\xa1" },
	{ "variation selector 256 U+E01EF", S("\xf3\xa0\x87\xaf"),
	  "\"\\udb40\\uddef\"", "\\xf3\\xa0\\x87\\xaf" },
	{ "last default-ignorable U+E0FFF, and U+E1000 after it passes",
	  S("\xf3\xa0\xbf\xbf\xf3\xa1\x80\x80"),
	  "\"\\udb43\\udfff\xf3\xa1\x80\x80\"", "\\xf3\\xa0\\xbf\\xbf\xf3\xa1\x80\x80" },
	{ "a line drawn into a prompt", S("git\xe2\x80\xa8Requested by git commit -S (pid 4242)"),
	  "\"git\\u2028Requested by git commit -S (pid 4242)\"",
	  "git\\xe2\\x80\\xa8Requested by git commit -S (pid 4242)" },
	{ "everything at once", S("k\x1b]0;x\x07\xc2\x9b\xe2\x80\xae\xff\\\""),
	  "\"k\\u001b]0;x\\u0007\\u009b\\u202e\\\\xff\\\\\\\"\"",
	  "k\\x1b]0;x\\x07\\xc2\\x9b\\xe2\\x80\\xae\\xff\\\\\"" },
};

/* Is term the input with each backslash doubled and nothing else changed? */
static int
only_doubled(const char *in, size_t n, const char *term)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (term[k] != in[i] || (in[i] == '\\' && term[++k] != '\\'))
			return 0;
		k++;
	}
	return term[k] == '\0';
}

static void
test_cases(void)
{
	char term[256];
	struct wb w;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct textcase *c = &cases[i];
		char *json;

		wb_init(&w);
		text_json(&w, c->in, c->inlen);
		wb_u8(&w, '\0');
		json = w.err ? NULL : (char *)w.p;
		is_str(json, c->json, "json: %s", c->name);
		wb_free(&w);
		is_str(text_term(term, sizeof(term), c->in, c->inlen), c->term,
		    "term: %s", c->name);
		ok(text_term_clean(c->in, c->inlen) == only_doubled(c->in, c->inlen, c->term),
		    "clean iff nothing but backslashes escaped: %s", c->name);
	}
}

/* A cut at each buffer size (the mark is "..."): whole characters and whole
 * escapes only, the mark when anything is left out, a NUL always. */
static const struct cutcase {
	const char *name;
	const char *in; size_t inlen;
	size_t outsz;
	const char *term;
} cuts[] = {
	{ "size 1: only the NUL", S("scylla"), 1, "" },
	{ "size 2: as much of the mark as fits", S("scylla"), 2, "." },
	{ "size 4: the mark alone", S("scylla"), 4, "..." },
	{ "size 5: one character and the mark", S("scylla"), 5, "s..." },
	{ "size 6: two and the mark", S("scylla"), 6, "sc..." },
	{ "size 7: the whole string fits, no mark", S("scylla"), 7, "scylla" },
	{ "2-byte character not cut in half", S("ab\xc3\xa9zz"), 6, "ab..." },
	{ "2-byte character whole", S("ab\xc3\xa9zzzz"), 8, "ab\xc3\xa9..." },
	{ "3-byte character not cut", S("a\xe2\x82\xac" "bc"), 6, "a..." },
	{ "3-byte character whole", S("a\xe2\x82\xac" "bcde"), 8, "a\xe2\x82\xac..." },
	{ "4-byte character not cut", S("a\xf0\x9f\x94\x91" "bc"), 7, "a..." },
	{ "4-byte character whole", S("a\xf0\x9f\x94\x91" "bcde"), 9, "a\xf0\x9f\x94\x91..." },
	{ "\\xHH escape not cut", S("a\x1b" "bc"), 7, "a..." },
	{ "\\xHH escape whole", S("a\x1b" "bcdef"), 9, "a\\x1b..." },
	{ "bidi escape (12 bytes) not cut", S("a\xe2\x80\xae" "bc"), 15, "a..." },
	{ "bidi escape whole", S("a\xe2\x80\xae" "bcdef"), 17, "a\\xe2\\x80\\xae..." },
	{ "doubled backslash not cut", S("a\\bc"), 5, "a..." },
	{ "doubled backslash whole", S("a\\bcde"), 7, "a\\\\..." },
	{ "empty input, size 1", S(""), 1, "" },
};

/* Does the terminal form of a character-aligned prefix of in, plus the
 * mark, give got? */
static int
is_aligned_cut(const char *in, size_t inlen, const char *got)
{
	char full[1024];
	size_t glen = strlen(got);

	if (glen >= strlen(TEXT_CUT_MARK) &&
	    strcmp(got + glen - strlen(TEXT_CUT_MARK), TEXT_CUT_MARK) == 0)
		glen -= strlen(TEXT_CUT_MARK);
	for (size_t k = 0; k <= inlen; k++) {
		text_term(full, sizeof(full), in, k);
		if (strlen(full) == glen && memcmp(full, got, glen) == 0)
			return 1;
	}
	return 0;
}

static void
test_cuts(void)
{
	static const char mixed[] = "p\xc3\xa9r\\s\x1b\xe2\x82\xac\xf0\x9f\x94\x91"
	    "\xe2\x80\xae\xff\n";
	char full[256], out[256];
	size_t flen, bad = 0, overflow = 0;

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		const struct cutcase *c = &cuts[i];
		memset(out, 'Z', sizeof(out));
		text_term(out, c->outsz, c->in, c->inlen);
		is_str(out, c->term, "cut: %s", c->name);
		ok(out[c->outsz] == 'Z', "cut: %s: nothing written past the buffer", c->name);
	}

	text_term(full, sizeof(full), mixed, sizeof(mixed) - 1);
	flen = strlen(full);
	for (size_t sz = 1; sz <= flen + 2; sz++) {
		memset(out, 'Z', sizeof(out));
		text_term(out, sz, mixed, sizeof(mixed) - 1);
		if (out[sz] != 'Z' || strlen(out) >= sz)
			overflow++;
		else if (sz > flen)
			bad += strcmp(out, full) != 0;
		else if (sz <= strlen(TEXT_CUT_MARK))
			bad += strncmp(out, TEXT_CUT_MARK, sz - 1) != 0 || strlen(out) != sz - 1;
		else
			bad += !is_aligned_cut(mixed, sizeof(mixed) - 1, out) ||
			    strcmp(out + strlen(out) - strlen(TEXT_CUT_MARK), TEXT_CUT_MARK) != 0;
	}
	is_int(overflow, 0, "every size 1..%zu: NUL-terminated inside the buffer", flen + 2);
	is_int(bad, 0, "every size: a cut falls between characters and escapes, "
	    "with the mark; a buffer big enough holds the whole form");
	is_str(text_term(out, 0, "x", 1), out, "size 0: nothing written, out returned");
	is_str(text_term_str(out, sizeof(out), NULL), "", "NULL string: empty");
	is_str(text_term_str(out, sizeof(out), "medea\x1b"), "medea\\x1b", "a C string");
}

/* The JSON form as a C string in w (reset first). */
static const char *
json_of(struct wb *w, const char *in, size_t n)
{
	wb_reset(w);
	text_json(w, in, n);
	wb_u8(w, '\0');
	return w->err ? NULL : (const char *)w->p;
}

static void
test_json_keep(void)
{
	char *in = malloc(TEXT_JSON_KEEP + 8), *want = malloc(TEXT_JSON_KEEP + 16);
	struct wb w;

	if (in == NULL || want == NULL)
		abort();
	wb_init(&w);
	memset(in, 'a', TEXT_JSON_KEEP + 8);
	want[0] = '"';
	memset(want + 1, 'a', TEXT_JSON_KEEP);
	strcpy(want + 1 + TEXT_JSON_KEEP, "\"");
	is_str(json_of(&w, in, TEXT_JSON_KEEP), want, "json: exactly TEXT_JSON_KEEP bytes kept whole");
	strcpy(want + 1 + TEXT_JSON_KEEP, "...\"");
	is_str(json_of(&w, in, TEXT_JSON_KEEP + 1), want, "json: one byte more is cut, with the mark");
	memcpy(in + TEXT_JSON_KEEP - 1, "\xc3\xa9", 2);
	strcpy(want + TEXT_JSON_KEEP, "...\"");
	is_str(json_of(&w, in, TEXT_JSON_KEEP + 1), want,
	    "json: a 2-byte character across the limit is left out whole");
	memcpy(in + TEXT_JSON_KEEP - 1, "\xff", 1);
	strcpy(want + TEXT_JSON_KEEP, "\\\\xff...\"");
	is_str(json_of(&w, in, TEXT_JSON_KEEP + 1), want,
	    "json: an invalid byte at the limit is kept (one byte)");
	wb_reset(&w);
	text_json_str(&w, NULL);
	text_json_str(&w, "x");
	wb_u8(&w, '\0');
	is_str((char *)w.p, "null\"x\"", "json: NULL is null, a C string is a string");
	wb_free(&w);
	free(in);
	free(want);
}

/* ------------------------------------------------------------ every code point */

#define UCD_DIR "/usr/share/unicode"    /* Debian's unicode-data */
#define CP_END 0x110000

/*
 * Mark in set[] every code point that file (a UCD file: "XXXX..YYYY ;
 * Value # comment") gives the value want, or one of want's '|'-separated
 * values. Returns the number of lines that matched, -1 when there is no
 * such file.
 */
static int
ucd_mark(const char *file, const char *want, uint8_t *set)
{
	char path[256], line[512];
	int lines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s",
	    getenv("KEYWARD_UCD") != NULL ? getenv("KEYWARD_UCD") : UCD_DIR, file);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *semi, *v, *end, *alt;
		unsigned long lo, hi;
		size_t vlen;

		if (line[0] == '#' || (semi = strchr(line, ';')) == NULL)
			continue;
		lo = strtoul(line, &end, 16);
		hi = strncmp(end, "..", 2) == 0 ? strtoul(end + 2, NULL, 16) : lo;
		for (v = semi + 1; *v == ' '; v++)
			;
		vlen = strcspn(v, " #\n");
		for (alt = (char *)want; *alt != '\0';) {
			size_t alen = strcspn(alt, "|");
			if (alen == vlen && strncmp(alt, v, vlen) == 0) {
				for (unsigned long cp = lo; cp <= hi && cp < CP_END; cp++)
					set[cp] = 1;
				lines++;
			}
			alt += alen + (alt[alen] == '|');
		}
	}
	fclose(f);
	return lines;
}

/*
 * Every Unicode scalar value, one at a time: its terminal form is escaped
 * (and its JSON form is a \u escape) exactly when it is a control or
 * Unicode names it a mandatory line break or default-ignorable. This is
 * what checks ipc/text.c's table against its two sources.
 */
static void
test_every_code_point(void)
{
	uint8_t *want = calloc(CP_END, 1);
	size_t bad_term = 0, bad_json = 0;
	int32_t first_bad = -1;
	int lb, di;
	struct wb w;

	if (want == NULL)
		abort();
	lb = ucd_mark("LineBreak.txt", "BK|CR|LF|NL", want);
	di = ucd_mark("DerivedCoreProperties.txt", "Default_Ignorable_Code_Point", want);
	ok(lb > 0 && di > 0, "Unicode's LineBreak.txt (%d BK/CR/LF/NL lines) and "
	    "DerivedCoreProperties.txt (%d default-ignorable lines) read from "
	    UCD_DIR " (apt-get install unicode-data)", lb, di);
	for (int32_t cp = 0; cp < 0x20; cp++)
		want[cp] = 1;
	for (int32_t cp = 0x7f; cp <= 0x9f; cp++)
		want[cp] = 1;
	ok(want[0x2028] && want[0x2029] && want[0x200b] && want[0xfeff] &&
	    want[0x3164] && want[0xe0061] && !want['a'] && !want[0x20ac],
	    "the sources give what a reader expects of them");
	wb_init(&w);
	for (int32_t cp = 0; cp < CP_END; cp++) {
		uint8_t u[4];
		char term[32];
		size_t n;
		int escaped, jescaped;

		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		if (cp < 0x80) {
			u[0] = (uint8_t)cp;
			n = 1;
		} else if (cp < 0x800) {
			u[0] = (uint8_t)(0xc0 | cp >> 6);
			u[1] = (uint8_t)(0x80 | (cp & 0x3f));
			n = 2;
		} else if (cp < 0x10000) {
			u[0] = (uint8_t)(0xe0 | cp >> 12);
			u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
			u[2] = (uint8_t)(0x80 | (cp & 0x3f));
			n = 3;
		} else {
			u[0] = (uint8_t)(0xf0 | cp >> 18);
			u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
			u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
			u[3] = (uint8_t)(0x80 | (cp & 0x3f));
			n = 4;
		}
		text_term(term, sizeof(term), u, n);
		escaped = strlen(term) != n || memcmp(term, u, n) != 0;
		if (cp == '\\')
			escaped = 0;    /* doubled, not hidden */
		wb_reset(&w);
		text_json(&w, u, n);
		jescaped = !w.err && w.len >= 3 && w.p[1] == '\\' && w.p[2] == 'u';
		if (escaped != want[cp]) {
			bad_term++;
			if (first_bad < 0)
				first_bad = cp;
		}
		if (jescaped != want[cp] && cp != '"' && cp != '\\')
			bad_json++;
	}
	wb_free(&w);
	ok(bad_term == 0, "terminal: escaped exactly the controls, line breaks "
	    "and default-ignorables (%zu wrong, first U+%04X)", bad_term,
	    (unsigned)first_bad);
	ok(bad_json == 0, "json: \\u-escaped exactly those (%zu wrong)", bad_json);
	free(want);
}

int
main(void)
{
	test_cases();
	test_cuts();
	test_json_keep();
	test_every_code_point();
	return done_testing();
}
