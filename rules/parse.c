/*
 * parse.c - the reader of keyward(5) rules files (grammar in
 * rules.h): the grammar of a rule, line by line through the file, and
 * freeing what was read. The file is the user's, but it is read as
 * untrusted bytes: every bound is a RULES_* limit, the first error ends
 * the parse with its line and column, and nothing parsed before it is
 * kept. The words of a line and the values they spell are lex.c's; the
 * socket declarations declare.c's.
 */
#include "rules/parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ clauses */

enum seen {
	SEEN_CALLER = 1 << 1,
	SEEN_ANCESTOR = 1 << 2,
	SEEN_ORIGIN = 1 << 3,
	SEEN_PURPOSE = 1 << 4,
	SEEN_SOCKET = 1 << 5,
	SEEN_SESSION = 1 << 6,
};

static int
clause_key(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = lex_next(P);
	char s[SHOWN];

	if (t == NULL)
		return lex_fail(P, P->eol_col,
		    "\"key\" needs a SHA256: fingerprint or \"comment\"");
	/* "key FP" and "key comment L" are two clauses of keyward(5): a rule
	 * may have both (the key must then meet both), each at most once. */
	if (lex_is(t, "comment")) {
		if (r->comment.n > 0)
			return lex_fail(P, kw->col, "\"key comment\" given twice");
		return lex_list(P, "comment", &r->comment);
	}
	if (r->fingerprint != NULL)
		return lex_fail(P, kw->col, "\"key\" fingerprint given twice");
	if (!lex_fingerprint_ok(t->s)) {
		lex_shown(s, sizeof(s), t->s);
		return lex_fail(P, t->col, "\"%s\" is not a SHA256: fingerprint "
		    "(SHA256: and 43 base64 characters) or \"comment\"", s);
	}
	if ((r->fingerprint = strdup(t->s)) == NULL)
		return lex_fail(P, t->col, "out of memory");
	return 0;
}

static int
clause_origin(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = lex_next(P);
	char s[SHOWN];

	if (t == NULL)
		return lex_fail(P, P->eol_col,
		    "\"origin\" needs \"local\" or \"forwarded\"");
	if (lex_is(t, "local")) {
		r->origin = RULE_ORIGIN_LOCAL;
		return 0;
	}
	if (!lex_is(t, "forwarded")) {
		lex_shown(s, sizeof(s), t->s);
		return lex_fail(P, t->col, "unknown origin \"%s\" "
		    "(local or forwarded)", s);
	}
	r->origin = RULE_ORIGIN_FORWARDED;
	if (lex_is(lex_peek(P), "via")) {
		lex_next(P);
		return lex_list(P, "via", &r->via);
	}
	return 0;
}

static int
clause_purpose(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = lex_next(P), *u;
	char s[SHOWN];

	if (t == NULL)
		return lex_fail(P, P->eol_col, "\"purpose\" needs login, sshsig, "
		    "other or any");
	if (lex_is(t, "any"))
		r->purpose = RULE_PURPOSE_ANY;
	else if (lex_is(t, "other"))
		r->purpose = RULE_PURPOSE_OTHER;
	else if (lex_is(t, "sshsig")) {
		r->purpose = RULE_PURPOSE_SSHSIG;
		if (lex_is(lex_peek(P), "namespace")) {
			lex_next(P);
			return lex_list(P, "namespace", &r->ns);
		}
	} else if (lex_is(t, "login")) {
		r->purpose = RULE_PURPOSE_LOGIN;
		while (lex_is(lex_peek(P), "user") || lex_is(lex_peek(P), "host")) {
			struct rule_list *l;
			u = lex_next(P);
			l = u->s[0] == 'u' ? &r->user : &r->host;
			if (l->n > 0)
				return lex_fail(P, u->col, "\"%s\" given twice",
				    u->s);
			if (lex_list(P, u->s, l) == -1)
				return -1;
		}
	} else {
		lex_shown(s, sizeof(s), t->s);
		return lex_fail(P, t->col, "unknown purpose \"%s\" "
		    "(login, sshsig, other or any)", s);
	}
	return 0;
}

static int
clause_session(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = lex_next(P);
	char s[SHOWN];

	if (t == NULL)
		return lex_fail(P, P->eol_col,
		    "\"session\" needs \"locked\" or \"unlocked\"");
	if (lex_is(t, "locked"))
		r->session = RULE_SESSION_LOCKED;
	else if (lex_is(t, "unlocked"))
		r->session = RULE_SESSION_UNLOCKED;
	else {
		lex_shown(s, sizeof(s), t->s);
		return lex_fail(P, t->col, "unknown session state \"%s\" "
		    "(locked or unlocked)", s);
	}
	return 0;
}

static const struct {
	const char *kw;
	enum seen bit;
	int (*fn)(struct parser *, const struct tok *, struct rule *);
} clauses[] = {
	{ "key", 0, clause_key },       /* its two forms: clause_key */
	{ "caller", SEEN_CALLER, NULL },
	{ "ancestor", SEEN_ANCESTOR, NULL },
	{ "origin", SEEN_ORIGIN, clause_origin },
	{ "purpose", SEEN_PURPOSE, clause_purpose },
	{ "socket", SEEN_SOCKET, decl_clause_socket },
	{ "session", SEEN_SESSION, clause_session },
};

static int
rule(struct parser *P, struct rule *r)
{
	const struct tok *t = lex_next(P);
	unsigned seen = 0;
	size_t i;
	char s[SHOWN];

	P->npat = 0;
	r->line = P->line;
	if (lex_is(t, "allow"))
		r->action = RULE_ALLOW;
	else if (lex_is(t, "deny"))
		r->action = RULE_DENY;
	else if (lex_is(t, "confirm"))
		r->action = RULE_CONFIRM;
	else {
		lex_shown(s, sizeof(s), t->s);
		return lex_fail(P, t->col, "expected allow, confirm or deny, "
		    "found \"%s\"", s);
	}
	t = lex_peek(P);
	if (t != NULL && !t->quoted && strncmp(t->s, "remember=", 9) == 0) {
		lex_next(P);
		if (r->action != RULE_CONFIRM)
			return lex_fail(P, t->col, "remember= is only for confirm");
		if (lex_duration(t->s + 9, &r->remember) == -1) {
			lex_shown(s, sizeof(s), t->s + 9);
			return lex_fail(P, t->col + 9, "bad duration \"%s\" "
			    "(ssh-add -t syntax: 600, 10m, 1h30m; 1s to %ds)",
			    s, RULES_MAX_REMEMBER);
		}
	}
	while ((t = lex_next(P)) != NULL) {
		for (i = 0; i < sizeof(clauses) / sizeof(clauses[0]); i++)
			if (lex_is(t, clauses[i].kw))
				break;
		if (i == sizeof(clauses) / sizeof(clauses[0])) {
			lex_shown(s, sizeof(s), t->s);
			return lex_fail(P, t->col, "unknown clause \"%s\" (key, "
			    "caller, ancestor, origin, purpose, socket or "
			    "session)", s);
		}
		if (seen & clauses[i].bit)
			return lex_fail(P, t->col, "\"%s\" given twice",
			    clauses[i].kw);
		seen |= clauses[i].bit;
		if (clauses[i].fn != NULL) {
			if (clauses[i].fn(P, t, r) == -1)
				return -1;
		} else if (lex_list(P, clauses[i].kw,
		    clauses[i].bit == SEEN_CALLER ? &r->caller :
		    &r->ancestor) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ file */

/* A new, zeroed rule at the end of the set: NULL (said) past
 * RULES_MAX_RULES or out of memory. */
static struct rule *
rule_slot(struct parser *P)
{
	struct ruleset *rs = P->rs;

	if (rs->n == RULES_MAX_RULES) {
		lex_fail(P, P->tok[0].col, "more than %d rules",
		    RULES_MAX_RULES);
		return NULL;
	}
	if (rs->n % 16 == 0) {
		struct rule *nr = reallocarray(rs->r, rs->n + 16,
		    sizeof(*rs->r));
		if (nr == NULL) {
			lex_fail(P, 1, "out of memory");
			return NULL;
		}
		rs->r = nr;
	}
	memset(&rs->r[rs->n], 0, sizeof(rs->r[rs->n]));
	return &rs->r[rs->n++];
}

/* One line of body bytes (its end of line cut): nothing, a socket
 * declaration or a rule. 0, or -1 (said). */
static int
one_line(struct parser *P, const char *p, size_t body)
{
	struct rule *r;

	if (body > RULES_MAX_LINE) {
		lex_fail(P, RULES_MAX_LINE + 1, "line longer than %d bytes",
		    RULES_MAX_LINE);
		return -1;
	}
	if (lex_line(P, p, body) == -1)
		return -1;
	if (P->ntok == 0)
		return 0;
	if (lex_is(&P->tok[0], "socket")) {
		P->at = 1;
		return decl_socket(P);
	}
	if ((r = rule_slot(P)) == NULL)
		return -1;
	return rule(P, r);
}

int
rules_parse(const char *name, const char *text, size_t len,
    struct ruleset **out, struct rules_err *err)
{
	struct parser *P;
	struct ruleset *rs;
	size_t pos = 0, llen;
	int ret = -1;

	memset(err, 0, sizeof(*err));
	if ((P = calloc(1, sizeof(*P))) == NULL ||
	    (rs = calloc(1, sizeof(*rs))) == NULL) {
		free(P);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		err->line = err->col = 1;
		return -1;
	}
	P->name = name != NULL ? name : "(rules)";
	P->err = err;
	P->line = 1;
	P->rs = rs;
	if (len > RULES_MAX_FILE) {
		lex_fail(P, 1, "file larger than %d bytes", RULES_MAX_FILE);
		goto out;
	}
	for (; pos < len; pos += llen + 1, P->line++) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t body;

		llen = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;
		/* a CRLF line ends before its CR */
		body = llen;
		if (nl != NULL && body > 0 && text[pos + body - 1] == '\r')
			body--;
		if (one_line(P, text + pos, body) == -1)
			goto out;
	}
	*out = rs;
	rs = NULL;
	ret = 0;
 out:
	rules_free(rs);
	free(P);
	return ret;
}

/* ------------------------------------------------------------ freeing */

static void
list_free(struct rule_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->pat[i]);
	free(l->pat);
	free(l->neg);
	memset(l, 0, sizeof(*l));
}

void
rules_free(struct ruleset *rs)
{
	size_t i;

	if (rs == NULL)
		return;
	for (i = 0; i < rs->n; i++) {
		struct rule *r = &rs->r[i];
		free(r->fingerprint);
		list_free(&r->comment);
		list_free(&r->caller);
		list_free(&r->ancestor);
		list_free(&r->via);
		list_free(&r->user);
		list_free(&r->host);
		list_free(&r->ns);
		list_free(&r->socket);
	}
	for (i = 0; i < rs->nsock; i++) {
		free(rs->sock[i].name);
		free(rs->sock[i].path);
	}
	free(rs->r);
	free(rs);
}
