/*
 * parser.h - inside the reader of rules files (rules/, not for other
 * folders): the words of a line and the parser's state, shared by
 * lex.c (words, errors, the values words spell), declare.c (socket
 * declarations and the socket clause) and parse.c (the grammar of a rule
 * and the file).
 */
#ifndef KEYWARD_RULES_PARSER_H
#define KEYWARD_RULES_PARSER_H

#include "rules/rules.h"

#include <stddef.h>
#include <stdint.h>

#define MAX_TOKENS      (RULES_MAX_LINE / 2 + 1)
#define SHOWN           64      /* a word in an error: 60 bytes and "..." */

struct tok {
	const char *s;          /* unquoted, NUL-terminated, in lex.buf */
	size_t col;             /* 1-based byte column of its first byte */
	int quoted;
};

struct parser {
	const char *name;
	struct rules_err *err;
	size_t line;
	size_t eol_col;         /* column one past the line's last byte */
	struct tok tok[MAX_TOKENS];
	size_t ntok, at;
	char buf[2 * RULES_MAX_LINE + 2];
	size_t npat;            /* patterns of the rule being read */
	struct ruleset *rs;     /* what is parsed so far: its sockets */
};

/* lex.c */
/* A token's text as an error shows it: printable ASCII only, cut. */
void lex_shown(char *dst, size_t dlen, const char *s);
/* Set the error (file:line:col: what) and return -1. */
int lex_fail(struct parser *P, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Split one line (no newline) into words: P->tok[0..ntok), at 0. */
int lex_line(struct parser *P, const char *line, size_t len);
/* The next word (consumed), or NULL at the end of the line. */
const struct tok *lex_next(struct parser *P);
/* The next word, not consumed, or NULL. */
const struct tok *lex_peek(struct parser *P);
/* t is the bare (unquoted) keyword kw; t may be NULL. */
int lex_is(const struct tok *t, const char *kw);
/* ssh-add -t: one or more NUMBER[UNIT], a bare number is seconds. */
int lex_duration(const char *s, uint32_t *out);
/* "SHA256:" and 43 characters of unpadded base64 (ssh-keygen -l). */
int lex_fingerprint_ok(const char *s);
/* The pattern list after keyword kw, split at its commas, into l. */
int lex_list(struct parser *P, const char *kw, struct rule_list *l);

/* declare.c */
/* After "socket" at the start of a line: NAME [PATH] [manage]. */
int decl_socket(struct parser *P);
/* The socket clause of a rule: declared names (or main), or patterns. */
int decl_clause_socket(struct parser *P, const struct tok *kw,
    struct rule *r);

#endif
