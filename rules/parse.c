/*
 * parse.c - the reader of keyward(5) rules files (grammar in
 * rules.h). The file is the user's, but it is read as untrusted bytes:
 * every bound is a RULES_* limit, the first error ends the parse with its
 * line and column, and nothing parsed before it is kept.
 */
#include "rules/rules.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A token's text as an error shows it: printable ASCII only, cut. */
static void
shown(char *dst, size_t dlen, const char *s)
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

static int fail(struct parser *P, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct parser *P, size_t col, const char *fmt, ...)
{
	char what[192];
	char name[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	shown(name, sizeof(name), P->name);
	P->err->line = P->line;
	P->err->col = col;
	snprintf(P->err->msg, sizeof(P->err->msg), "%s:%zu:%zu: %s", name,
	    P->line, col, what);
	return -1;
}

/* ------------------------------------------------------------ lexing */

/* Split one line (no newline) into words. */
static int
lex(struct parser *P, const char *line, size_t len)
{
	size_t i = 0, o = 0;

	P->ntok = P->at = 0;
	P->eol_col = len + 1;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == '\0')
			return fail(P, i + 1, "NUL byte");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(P, i + 1, "control character 0x%02x", c);
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
					return fail(P, i + 1,
					    "a quote inside a word (quote the whole word)");
				if (line[i] == '#')
					return fail(P, i + 1,
					    "'#' inside a word (quote the word, or put a blank before a comment)");
				P->buf[o++] = line[i++];
			}
		} else {
			for (i++;; i++) {
				if (i == len)
					return fail(P, t->col, "unterminated quoted word");
				if (line[i] == '"')
					break;
				if (line[i] == '\\') {
					if (i + 1 < len && (line[i + 1] == '"' ||
					    line[i + 1] == '\\'))
						i++;
					else
						return fail(P, i + 1,
						    "unknown escape (only \\\" and \\\\)");
				}
				P->buf[o++] = line[i];
			}
			i++;
			if (i < len && line[i] != ' ' && line[i] != '\t')
				return fail(P, i + 1, "a quoted word must end at a blank");
		}
		P->buf[o++] = '\0';
	}
	return 0;
}

static const struct tok *
next(struct parser *P)
{
	return P->at < P->ntok ? &P->tok[P->at++] : NULL;
}

static const struct tok *
peek(struct parser *P)
{
	return P->at < P->ntok ? &P->tok[P->at] : NULL;
}

static int
is_kw(const struct tok *t, const char *kw)
{
	return t != NULL && !t->quoted && strcmp(t->s, kw) == 0;
}

/* ------------------------------------------------------------ values */

/* ssh-add -t: one or more NUMBER[UNIT], a bare number is seconds. */
static int
duration(const char *s, uint32_t *out)
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
static int
fingerprint_ok(const char *s)
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
static int
list(struct parser *P, const char *kw, struct rule_list *l)
{
	const struct tok *t = next(P);
	const char *p, *end;
	size_t n, i;

	if (t == NULL)
		return fail(P, P->eol_col, "\"%s\" needs a pattern list", kw);
	for (n = 1, p = t->s; *p != '\0'; p++)
		n += *p == ',';
	if (P->npat + n > RULES_MAX_PATTERNS)
		return fail(P, t->col, "more than %d patterns in one rule",
		    RULES_MAX_PATTERNS);
	P->npat += n;
	if ((l->pat = calloc(n, sizeof(*l->pat))) == NULL ||
	    (l->neg = calloc(n, 1)) == NULL)
		return fail(P, t->col, "out of memory");
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
				return fail(P, col, "nothing after '!' in \"%s\"", kw);
		}
		if (len == 0)
			return fail(P, col, "empty pattern in \"%s\"", kw);
		if (len > RULES_MAX_PATTERN)
			return fail(P, col, "pattern longer than %d bytes",
			    RULES_MAX_PATTERN);
		if ((l->pat[i] = strndup(p, len)) == NULL)
			return fail(P, col, "out of memory");
		l->n = i + 1;
	}
	return 0;
}

/* ------------------------------------------------------------ clauses */

enum seen {
	SEEN_KEY = 1 << 0,
	SEEN_CALLER = 1 << 1,
	SEEN_ANCESTOR = 1 << 2,
	SEEN_ORIGIN = 1 << 3,
	SEEN_PURPOSE = 1 << 4,
	SEEN_SOCKET = 1 << 5,
};

static int
clause_key(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = next(P);
	char s[SHOWN];

	if (t == NULL)
		return fail(P, P->eol_col,
		    "\"key\" needs a SHA256: fingerprint or \"comment\"");
	if (is_kw(t, "comment"))
		return list(P, "comment", &r->comment);
	if (!fingerprint_ok(t->s)) {
		shown(s, sizeof(s), t->s);
		return fail(P, t->col, "\"%s\" is not a SHA256: fingerprint "
		    "(SHA256: and 43 base64 characters) or \"comment\"", s);
	}
	if ((r->fingerprint = strdup(t->s)) == NULL)
		return fail(P, t->col, "out of memory");
	return 0;
}

static int
clause_origin(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = next(P);
	char s[SHOWN];

	if (t == NULL)
		return fail(P, P->eol_col,
		    "\"origin\" needs \"local\" or \"forwarded\"");
	if (is_kw(t, "local")) {
		r->origin = RULE_ORIGIN_LOCAL;
		return 0;
	}
	if (!is_kw(t, "forwarded")) {
		shown(s, sizeof(s), t->s);
		return fail(P, t->col, "unknown origin \"%s\" "
		    "(local or forwarded)", s);
	}
	r->origin = RULE_ORIGIN_FORWARDED;
	if (is_kw(peek(P), "via")) {
		next(P);
		return list(P, "via", &r->via);
	}
	return 0;
}

static int
clause_purpose(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = next(P), *u;
	char s[SHOWN];

	if (t == NULL)
		return fail(P, P->eol_col, "\"purpose\" needs login, sshsig, "
		    "other or any");
	if (is_kw(t, "any"))
		r->purpose = RULE_PURPOSE_ANY;
	else if (is_kw(t, "other"))
		r->purpose = RULE_PURPOSE_OTHER;
	else if (is_kw(t, "sshsig")) {
		r->purpose = RULE_PURPOSE_SSHSIG;
		if (is_kw(peek(P), "namespace")) {
			next(P);
			return list(P, "namespace", &r->ns);
		}
	} else if (is_kw(t, "login")) {
		r->purpose = RULE_PURPOSE_LOGIN;
		while (is_kw(peek(P), "user") || is_kw(peek(P), "host")) {
			struct rule_list *l;
			u = next(P);
			l = u->s[0] == 'u' ? &r->user : &r->host;
			if (l->n > 0)
				return fail(P, u->col, "\"%s\" given twice",
				    u->s);
			if (list(P, u->s, l) == -1)
				return -1;
		}
	} else {
		shown(s, sizeof(s), t->s);
		return fail(P, t->col, "unknown purpose \"%s\" "
		    "(login, sshsig, other or any)", s);
	}
	return 0;
}

/* ------------------------------------------------------------ sockets */

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
static int
clause_socket(struct parser *P, const struct tok *kw, struct rule *r)
{
	const struct tok *t = peek(P);
	char s[SHOWN];

	if (list(P, "socket", &r->socket) == -1)
		return -1;
	for (size_t i = 0; i < r->socket.n; i++) {
		const char *n = r->socket.pat[i];
		if (strpbrk(n, "*?") != NULL || strcmp(n, "main") == 0 ||
		    socket_find(P->rs, n) != NULL)
			continue;
		shown(s, sizeof(s), n);
		return fail(P, t->col, "socket \"%s\" is not declared (a line "
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

/* socket NAME [PATH] [manage] */
static int
declaration(struct parser *P)
{
	struct ruleset *rs = P->rs;
	struct rule_socket *d;
	const struct tok *name = next(P), *path = NULL, *t;
	char s[SHOWN];
	int manage = 0;

	if (name == NULL)
		return fail(P, P->eol_col, "\"socket\" needs a name, and a path");
	shown(s, sizeof(s), name->s);
	if (!name_ok(name->s))
		return fail(P, name->col, "bad socket name \"%s\" (a lower-case "
		    "letter, then letters, digits, '-' or '_'; at most %d)", s,
		    SOCKET_NAME_MAX);
	if (strcmp(name->s, "main") == 0)
		return fail(P, name->col, "\"main\" is the main socket's name; it "
		    "is not declared");
	if (socket_find(rs, name->s) != NULL)
		return fail(P, name->col, "socket \"%s\" declared twice", s);
	t = next(P);
	if (t != NULL && !is_kw(t, "manage")) {
		path = t;
		t = next(P);
	}
	if (is_kw(t, "manage")) {
		manage = 1;
		t = next(P);
	}
	if (t != NULL) {
		shown(s, sizeof(s), t->s);
		return fail(P, t->col, "unexpected \"%s\" after the socket's "
		    "path (only \"manage\")", s);
	}
	if (path != NULL) {
		shown(s, sizeof(s), path->s);
		if (path->s[0] != '/')
			return fail(P, path->col, "socket path \"%s\" is not "
			    "absolute", s);
		if (strlen(path->s) > SOCKET_PATH_MAX)
			return fail(P, path->col, "socket path longer than %d "
			    "bytes", SOCKET_PATH_MAX);
		for (size_t i = 0; i < rs->nsock; i++)
			if (rs->sock[i].path != NULL &&
			    strcmp(rs->sock[i].path, path->s) == 0)
				return fail(P, path->col, "socket path \"%s\" "
				    "declared twice (line %zu)", s,
				    rs->sock[i].line);
	}
	if (rs->nsock == SOCKETS_MAX)
		return fail(P, name->col, "more than %d sockets", SOCKETS_MAX);
	d = &rs->sock[rs->nsock];
	memset(d, 0, sizeof(*d));
	d->line = P->line;
	d->col = path != NULL ? path->col : name->col;
	d->manage = manage;
	if ((d->name = strdup(name->s)) == NULL ||
	    (path != NULL && (d->path = strdup(path->s)) == NULL)) {
		free(d->name);
		d->name = NULL;
		return fail(P, name->col, "out of memory");
	}
	rs->nsock++;
	return 0;
}

static const struct {
	const char *kw;
	enum seen bit;
	int (*fn)(struct parser *, const struct tok *, struct rule *);
} clauses[] = {
	{ "key", SEEN_KEY, clause_key },
	{ "caller", SEEN_CALLER, NULL },
	{ "ancestor", SEEN_ANCESTOR, NULL },
	{ "origin", SEEN_ORIGIN, clause_origin },
	{ "purpose", SEEN_PURPOSE, clause_purpose },
	{ "socket", SEEN_SOCKET, clause_socket },
};

static int
rule(struct parser *P, struct rule *r)
{
	const struct tok *t = next(P);
	unsigned seen = 0;
	size_t i;
	char s[SHOWN];

	P->npat = 0;
	r->line = P->line;
	if (is_kw(t, "allow"))
		r->action = RULE_ALLOW;
	else if (is_kw(t, "deny"))
		r->action = RULE_DENY;
	else if (is_kw(t, "confirm"))
		r->action = RULE_CONFIRM;
	else {
		shown(s, sizeof(s), t->s);
		return fail(P, t->col, "expected allow, confirm or deny, "
		    "found \"%s\"", s);
	}
	t = peek(P);
	if (t != NULL && !t->quoted && strncmp(t->s, "remember=", 9) == 0) {
		next(P);
		if (r->action != RULE_CONFIRM)
			return fail(P, t->col, "remember= is only for confirm");
		if (duration(t->s + 9, &r->remember) == -1) {
			shown(s, sizeof(s), t->s + 9);
			return fail(P, t->col + 9, "bad duration \"%s\" "
			    "(ssh-add -t syntax: 600, 10m, 1h30m; 1s to %ds)",
			    s, RULES_MAX_REMEMBER);
		}
	}
	while ((t = next(P)) != NULL) {
		for (i = 0; i < sizeof(clauses) / sizeof(clauses[0]); i++)
			if (is_kw(t, clauses[i].kw))
				break;
		if (i == sizeof(clauses) / sizeof(clauses[0])) {
			shown(s, sizeof(s), t->s);
			return fail(P, t->col, "unknown clause \"%s\" (key, "
			    "caller, ancestor, origin or purpose)", s);
		}
		if (seen & clauses[i].bit)
			return fail(P, t->col, "\"%s\" given twice",
			    clauses[i].kw);
		seen |= clauses[i].bit;
		if (clauses[i].fn != NULL) {
			if (clauses[i].fn(P, t, r) == -1)
				return -1;
		} else if (list(P, clauses[i].kw,
		    clauses[i].bit == SEEN_CALLER ? &r->caller :
		    &r->ancestor) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ file */

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
		fail(P, 1, "file larger than %d bytes", RULES_MAX_FILE);
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
		if (body > RULES_MAX_LINE) {
			fail(P, RULES_MAX_LINE + 1, "line longer than %d bytes",
			    RULES_MAX_LINE);
			goto out;
		}
		if (lex(P, text + pos, body) == -1)
			goto out;
		if (P->ntok == 0)
			continue;
		if (is_kw(&P->tok[0], "socket")) {
			P->at = 1;
			if (declaration(P) == -1)
				goto out;
			continue;
		}
		if (rs->n == RULES_MAX_RULES) {
			fail(P, P->tok[0].col, "more than %d rules",
			    RULES_MAX_RULES);
			goto out;
		}
		if (rs->n % 16 == 0) {
			struct rule *nr = reallocarray(rs->r, rs->n + 16,
			    sizeof(*rs->r));
			if (nr == NULL) {
				fail(P, 1, "out of memory");
				goto out;
			}
			rs->r = nr;
		}
		memset(&rs->r[rs->n], 0, sizeof(rs->r[rs->n]));
		rs->n++;
		if (rule(P, &rs->r[rs->n - 1]) == -1)
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
