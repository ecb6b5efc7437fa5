/*
 * text.h - the one way client text (comments, user and host names, paths)
 * leaves a process: as a JSON string for the audit trail and --json, or as
 * terminal-safe text for logs, prompts and keyward-ctl. Trusts nothing: any
 * bytes at all, NULs and broken UTF-8 included, give well-formed output.
 *
 * Both forms read UTF-8 strictly (Unicode table 3-7): overlong forms,
 * surrogates (U+D800-DFFF), code points above U+10FFFF and truncated
 * sequences are not characters; each of their bytes is an "invalid byte".
 *
 * JSON (text_json): a string literal, quotes included, that is valid UTF-8
 * and valid RFC 8259. '"' and '\' are escaped; U+0000-001F, U+007F, the C1
 * controls U+0080-009F and the characters that draw a line or nothing
 * (below) become \uXXXX (a surrogate pair above U+FFFF), which a parser
 * reads back as the same character, so a reader who cats the trail meets
 * no control and no invisible character. An invalid byte 0xHH becomes the four characters
 * \xHH (in the JSON source "\\xHH"): it cannot be carried as itself, and
 * U+FFFD would lose which byte it was. The price is that a decoded "\x41"
 * may have been typed that way by the client; the audit trail accepts that
 * ambiguity, the terminal form below does not have it. At most
 * TEXT_JSON_KEEP bytes of the input are kept, cut at a character boundary,
 * and a cut string ends in "..." inside the quotes.
 *
 * Terminal (text_term): no byte below 0x20, no 0x7f, no C1 control, no
 * invalid UTF-8 and no character that draws a line or nothing reach the
 * output. Those are one table in text.c: Unicode's mandatory line breaks
 * (Line_Break BK, CR, LF, NL: U+2028, U+2029 beside the controls) and every
 * Default_Ignorable_Code_Point (the bidi controls U+202A-202E, U+2066-2069
 * and marks U+200E, U+200F, U+061C; zero-width space and joiners; U+2060-
 * 206F; U+FEFF; the Hangul fillers; variation selectors; tags; ...). Newline, tab and carriage
 * return show as \n \t \r, every other such byte as \xHH (lower-case hex,
 * one per byte of the sequence), and '\' as "\\", so the form reads back
 * to exactly one input. The output always ends in a NUL; when it does not
 * fit it is cut before a whole character or escape, never inside one, and
 * ends in TEXT_CUT_MARK ("...").
 */
#ifndef KEYWARD_TEXT_H
#define KEYWARD_TEXT_H

#include "ipc/buf.h"

#include <stddef.h>

#define TEXT_CUT_MARK "..."

/* Append the JSON string literal of n bytes at p to w. */
void text_json(struct wb *w, const void *p, size_t n);
/* The same for a NUL-terminated string; NULL writes the JSON null. */
void text_json_str(struct wb *w, const char *s);

/* The terminal-safe form of n bytes at p in out (outsz > 0 bytes, always
 * NUL-terminated). Returns out, so it can be a printf argument:
 *   char c[TEXT_TERM_MAX], q[PROMPT_MAX_TEXT];
 *   snprintf(q, sizeof(q), "Allow use of key %s?",
 *       text_term_str(c, sizeof(c), id->comment));
 * (the confirm prompt's way; not for log_*, whose sink does it already)
 * outsz 0 writes nothing. */
char *text_term(char *out, size_t outsz, const void *p, size_t n);
/* The same for a NUL-terminated string; NULL gives "". */
char *text_term_str(char *out, size_t outsz, const char *s);
/* 1 if the terminal form of these bytes is the bytes themselves with each
 * '\' doubled, that is, nothing in them needs any other escape; else 0. */
int text_term_clean(const void *p, size_t n);

#endif
