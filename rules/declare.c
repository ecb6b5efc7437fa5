/*
 * declare.c - the sockets of a rules file (rules.h, keyward(5)): a line
 * "socket NAME [PATH] [manage]" declares one, and a rule's "socket"
 * clause may name only declared ones (or main). What they mean at run
 * time: rules/scope.h.
 */
#include "rules/parser.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const struct rule_socket *
socket_find(const struct ruleset *rs, const char *name)
{
	for (size_t i = 0; i < rs->nsock; i++)
		if (strcmp(rs->sock[i].name, name) == 0)
			return &rs->sock[i];
	return NULL;
}

/* A socket clause names declared sockets (or main); a pattern with a
 * wildcard may match none. */
int
decl_clause_socket(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = lex_peek(P);
	char s[SHOWN];

	if (lex_list(P, "socket", &r->socket) == -1)
		return -1;
	for (size_t i = 0; i < r->socket.n; i++) {
		const char *n = r->socket.pat[i];
		if (strpbrk(n, "*?") != NULL || strcmp(n, "main") == 0 ||
		    socket_find(P->rs, n) != NULL)
			continue;
		lex_shown(s, sizeof(s), n);
		return lex_fail(P, t->col, "socket \"%s\" is not declared (a line "
		    "\"socket %s PATH\" above this one declares it)", s, s);
	}
	return 0;
}

static int
name_ok(const char *s)
{
	size_t i;

	if (!islower((unsigned char)s[0]))
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    s[i] != '-' && s[i] != '_')
			return 0;
	return i <= SOCKET_NAME_MAX;
}

/* A declared socket's name: well formed, not "main", not declared
 * before. 0, or lex_fail's -1. */
static int
name_check(struct parser *P, const struct tok *name)
{
	char s[SHOWN];

	lex_shown(s, sizeof(s), name->s);
	if (!name_ok(name->s))
		return lex_fail(P, name->col, "bad socket name \"%s\" (a lower-case "
		    "letter, then letters, digits, '-' or '_'; at most %d)", s,
		    SOCKET_NAME_MAX);
	if (strcmp(name->s, "main") == 0)
		return lex_fail(P, name->col, "\"main\" is the main socket's name; it "
		    "is not declared");
	if (socket_find(P->rs, name->s) != NULL)
		return lex_fail(P, name->col, "socket \"%s\" declared twice", s);
	return 0;
}

/* Its path: absolute, not too long, not another socket's. */
static int
path_check(struct parser *P, const struct tok *path)
{
	struct ruleset *rs = P->rs;
	char s[SHOWN];

	lex_shown(s, sizeof(s), path->s);
	if (path->s[0] != '/')
		return lex_fail(P, path->col, "socket path \"%s\" is not "
		    "absolute", s);
	if (strlen(path->s) > SOCKET_PATH_MAX)
		return lex_fail(P, path->col, "socket path longer than %d "
		    "bytes", SOCKET_PATH_MAX);
	for (size_t i = 0; i < rs->nsock; i++)
		if (rs->sock[i].path != NULL &&
		    strcmp(rs->sock[i].path, path->s) == 0)
			return lex_fail(P, path->col, "socket path \"%s\" "
			    "declared twice (line %zu)", s,
			    rs->sock[i].line);
	return 0;
}

/* socket NAME [PATH] [manage] */
int
decl_socket(struct parser *P)
{
	struct ruleset *rs = P->rs;
	struct rule_socket *d;
	const struct tok *name = lex_next(P), *path = NULL, *t;
	char s[SHOWN];
	int manage = 0;

	if (name == NULL)
		return lex_fail(P, P->eol_col, "\"socket\" needs a name, and a path");
	if (name_check(P, name) != 0)
		return -1;
	t = lex_next(P);
	if (t != NULL && !lex_is(t, "manage")) {
		path = t;
		t = lex_next(P);
	}
	if (lex_is(t, "manage")) {
		manage = 1;
		t = lex_next(P);
	}
	if (t != NULL) {
		lex_shown(s, sizeof(s), t->s);
		return lex_fail(P, t->col, "unexpected \"%s\" after the socket's "
		    "path (only \"manage\")", s);
	}
	if (path != NULL && path_check(P, path) != 0)
		return -1;
	if (rs->nsock == SOCKETS_MAX)
		return lex_fail(P, name->col, "more than %d sockets", SOCKETS_MAX);
	d = &rs->sock[rs->nsock];
	memset(d, 0, sizeof(*d));
	d->line = P->line;
	d->col = path != NULL ? path->col : name->col;
	d->manage = manage;
	if ((d->name = strdup(name->s)) == NULL ||
	    (path != NULL && (d->path = strdup(path->s)) == NULL)) {
		free(d->name);
		d->name = NULL;
		return lex_fail(P, name->col, "out of memory");
	}
	rs->nsock++;
	return 0;
}
