/*
 * lex.c - the words of a rules file's line (rules/parser.h): split at
 * blanks, "double quoted" with \" and \\ as the only escapes, '#' a
 * comment outside quotes; the cursor over them; an error with its file,
 * line and column; and the values words spell (durations, fingerprints,
 * pattern lists). Every bound is a RULES_* limit; nothing is trusted.
 */
#include "rules/parser.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A token's text as an error shows it: printable ASCII only, cut. */
void
lex_shown(char *dst, size_t dlen, const char *s)
{
	size_t i, n = 0;

	for (i = 0; s[i] != '\0' && n + 4 < dlen; i++) {
		unsigned char c = (unsigned char)s[i];
		dst[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (s[i] != '\0') {
		memcpy(dst + n, "...", 3);
		n += 3;
	}
	dst[n] = '\0';
}

int
lex_fail(struct parser *P, size_t col, const char *fmt, ...)
{
	char what[192];
	char name[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	lex_shown(name, sizeof(name), P->name);
	P->err->line = P->line;
	P->err->col = col;
	snprintf(P->err->msg, sizeof(P->err->msg), "%s:%zu:%zu: %s", name,
	    P->line, col, what);
	return -1;
}

/* ------------------------------------------------------------ lexing */

/* Split one line (no newline) into words. */
int
lex_line(struct parser *P, const char *line, size_t len)
{
	size_t i = 0, o = 0;

	P->ntok = P->at = 0;
	P->eol_col = len + 1;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == '\0')
			return lex_fail(P, i + 1, "NUL byte");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return lex_fail(P, i + 1, "control character 0x%02x", c);
	}
	i = 0;
	for (;;) {
		struct tok *t;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len || line[i] == '#')
			break;
		/* a line of RULES_MAX_LINE bytes has at most MAX_TOKENS words */
		t = &P->tok[P->ntok++];
		t->col = i + 1;
		t->s = P->buf + o;
		t->quoted = line[i] == '"';
		if (!t->quoted) {
			while (i < len && line[i] != ' ' && line[i] != '\t') {
				if (line[i] == '"')
					return lex_fail(P, i + 1,
					    "a quote inside a word (quote the whole word)");
				if (line[i] == '#')
					return lex_fail(P, i + 1,
					    "'#' inside a word (quote the word, or put a blank before a comment)");
				P->buf[o++] = line[i++];
			}
		} else {
			for (i++;; i++) {
				if (i == len)
					return lex_fail(P, t->col, "unterminated quoted word");
				if (line[i] == '"')
					break;
				if (line[i] == '\\') {
					if (i + 1 < len && (line[i + 1] == '"' ||
					    line[i + 1] == '\\'))
						i++;
					else
						return lex_fail(P, i + 1,
						    "unknown escape (only \\\" and \\\\)");
				}
				P->buf[o++] = line[i];
			}
			i++;
			if (i < len && line[i] != ' ' && line[i] != '\t')
				return lex_fail(P, i + 1, "a quoted word must end at a blank");
		}
		P->buf[o++] = '\0';
	}
	return 0;
}

const struct tok *
lex_next(struct parser *P)
{
	return P->at < P->ntok ? &P->tok[P->at++] : NULL;
}

const struct tok *
lex_peek(struct parser *P)
{
	return P->at < P->ntok ? &P->tok[P->at] : NULL;
}

int
lex_is(const struct tok *t, const char *kw)
{
	return t != NULL && !t->quoted && strcmp(t->s, kw) == 0;
}

/* ------------------------------------------------------------ values */

/* ssh-add -t: one or more NUMBER[UNIT], a bare number is seconds. */
int
lex_duration(const char *s, uint32_t *out)
{
	uint64_t total = 0, n;

	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		uint64_t mult;
		if (!isdigit((unsigned char)*s))
			return -1;
		for (n = 0; isdigit((unsigned char)*s); s++) {
			n = n * 10 + (uint64_t)(*s - '0');
			if (n > RULES_MAX_REMEMBER)
				return -1;
		}
		switch (*s) {
		case '\0':
			mult = 1;
			break;
		case 's': case 'S':
			mult = 1;
			s++;
			break;
		case 'm': case 'M':
			mult = 60;
			s++;
			break;
		case 'h': case 'H':
			mult = 3600;
			s++;
			break;
		case 'd': case 'D':
			mult = 86400;
			s++;
			break;
		case 'w': case 'W':
			mult = 604800;
			s++;
			break;
		default:
			return -1;
		}
		total += n * mult;
		if (total > RULES_MAX_REMEMBER)
			return -1;
	}
	if (total == 0)
		return -1;
	*out = (uint32_t)total;
	return 0;
}

/* "SHA256:" and 43 characters of unpadded base64 (ssh-keygen -l). */
int
lex_fingerprint_ok(const char *s)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	if (strncmp(s, "SHA256:", 7) != 0)
		return 0;
	s += 7;
	for (i = 0; s[i] != '\0'; i++)
		if (strchr(b64, s[i]) == NULL)
			return 0;
	return i == 43;
}

/* The pattern list after keyword kw, split at its commas. */
int
lex_list(struct parser *P, const char *kw, struct rule_list *l)
{
	const struct tok *t = lex_next(P);
	const char *p, *end;
	size_t n, i;

	if (t == NULL)
		return lex_fail(P, P->eol_col, "\"%s\" needs a pattern list", kw);
	for (n = 1, p = t->s; *p != '\0'; p++)
		n += *p == ',';
	if (P->npat + n > RULES_MAX_PATTERNS)
		return lex_fail(P, t->col, "more than %d patterns in one rule",
		    RULES_MAX_PATTERNS);
	P->npat += n;
	if ((l->pat = calloc(n, sizeof(*l->pat))) == NULL ||
	    (l->neg = calloc(n, 1)) == NULL)
		return lex_fail(P, t->col, "out of memory");
	for (i = 0, p = t->s; i < n; i++, p = end + 1) {
		/* a bare word's patterns have columns; a quoted one's, its own */
		size_t col = t->quoted ? t->col : t->col + (size_t)(p - t->s);
		size_t len;
		end = p + strcspn(p, ",");
		len = (size_t)(end - p);
		if (len > 0 && *p == '!') {
			l->neg[i] = 1;
			p++;
			len--;
			if (len == 0)
				return lex_fail(P, col, "nothing after '!' in \"%s\"", kw);
		}
		if (len == 0)
			return lex_fail(P, col, "empty pattern in \"%s\"", kw);
		if (len > RULES_MAX_PATTERN)
			return lex_fail(P, col, "pattern longer than %d bytes",
			    RULES_MAX_PATTERN);
		if ((l->pat[i] = strndup(p, len)) == NULL)
			return lex_fail(P, col, "out of memory");
		l->n = i + 1;
	}
	return 0;
}
