/*
 * rules.c - the matcher and the printer of keyward(5) rules (the parser
 * is parse.c, with lex.c and declare.c). Pure functions of a parsed ruleset and a query; the
 * query's strings come from the peer and are only ever matched, never
 * interpreted.
 */
#include "rules/rules.h"
#include "rules/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
known(const char *s)
{
	return s != NULL ? s : "";
}

/* OpenSSH's pattern-list rule (match.h). An absent list matches
 * everything. */
static int
list_match(const struct rule_list *l, const char *s)
{
	if (l->n == 0)
		return 1;
	return match_split(known(s), l->pat, l->neg, l->n);
}

static enum rule_tri
tri(int yes)
{
	return yes ? RULE_YES : RULE_NO;
}

/* Both a and b: no beats cannot-tell beats yes. */
static enum rule_tri
tri_and(enum rule_tri a, enum rule_tri b)
{
	if (a == RULE_NO || b == RULE_NO)
		return RULE_NO;
	return a == RULE_UNKNOWN || b == RULE_UNKNOWN ? RULE_UNKNOWN : RULE_YES;
}

/* A list about a value keyward may not know: absent, it holds. */
static enum rule_tri
list_tri(const struct rule_list *l, const char *s, int known_value)
{
	if (l->n == 0)
		return RULE_YES;
	return known_value ? tri(list_match(l, s)) : RULE_UNKNOWN;
}

static enum rule_tri
m_key(const struct rule *r, const struct rules_query *q)
{
	if (r->fingerprint != NULL && (q->fingerprint == NULL ||
	    strcmp(r->fingerprint, q->fingerprint) != 0))
		return RULE_NO;
	return tri(list_match(&r->comment, q->comment));
}

/* The program on the socket of a forwarded request is the user's ssh,
 * relaying for whoever asked on the server: it names nobody, so it never
 * lets a request through. A deny may still rest on it ("deny ... ancestor
 * /usr/bin/git" refuses what git's ssh relays too): its match cannot
 * tell, its mismatch is a no. */
static enum rule_tri
relayed(int match, const struct rules_query *q)
{
	if (!match)
		return RULE_NO;
	return q->forwarded ? RULE_UNKNOWN : RULE_YES;
}

static enum rule_tri
m_caller(const struct rule *r, const struct rules_query *q)
{
	if (r->caller.n == 0)
		return RULE_YES;
	return relayed(list_match(&r->caller, q->exe), q);
}

static enum rule_tri
m_ancestor(const struct rule *r, const struct rules_query *q)
{
	size_t i;
	int got = 0;

	if (r->ancestor.n == 0)
		return RULE_YES;
	for (i = 0; i < q->nancestors && !got; i++)
		got = list_match(&r->ancestor, q->ancestors[i]);
	return relayed(got, q);
}

/* "via": yes on the first binding, which the user's ssh made before the
 * server's first byte; a later hop the server may claim, so its match
 * cannot tell; a forwarded request whose first hop is not known cannot
 * tell either. */
static enum rule_tri
m_via(const struct rule *r, const struct rules_query *q)
{
	size_t i;

	if (r->via.n == 0)
		return RULE_YES;
	if (q->first_hop && q->nhops > 0 && list_match(&r->via, q->hops[0]))
		return RULE_YES;
	for (i = q->first_hop ? 1 : 0; i < q->nhops; i++)
		if (list_match(&r->via, q->hops[i]))
			return RULE_UNKNOWN;
	return q->first_hop && q->nhops > 0 ? RULE_NO : RULE_UNKNOWN;
}

/* After a refused session-bind the connection's origin is unknown for
 * good (policy/origin.h): "local", "forwarded" and "via" cannot tell. */
static enum rule_tri
m_origin(const struct rule *r, const struct rules_query *q)
{
	if (r->origin != RULE_ORIGIN_ANY && q->origin_unknown)
		return RULE_UNKNOWN;
	switch (r->origin) {
	case RULE_ORIGIN_ANY:
		return RULE_YES;
	case RULE_ORIGIN_LOCAL:
		return tri(!q->forwarded);
	case RULE_ORIGIN_FORWARDED:
		if (!q->forwarded)
			return RULE_NO;
		return m_via(r, q);
	}
	return RULE_NO;
}

/* The socket the request came in on: the user chose it (ForwardAgent
 * names it), the server cannot. */
static enum rule_tri
m_socket(const struct rule *r, const struct rules_query *q)
{
	return tri(list_match(&r->socket, q->socket));
}

/* A login's user and host are known when policy verified the login
 * against the bindings; else the data only claims them. */
static enum rule_tri
m_purpose(const struct rule *r, const struct rules_query *q)
{
	switch (r->purpose) {
	case RULE_PURPOSE_ANY:
		return RULE_YES;
	case RULE_PURPOSE_LOGIN:
		if (q->purpose != RULE_PURPOSE_LOGIN)
			return RULE_NO;
		return tri_and(list_tri(&r->user, q->user, q->verified),
		    list_tri(&r->host, q->host, q->verified));
	case RULE_PURPOSE_SSHSIG:
		if (q->purpose != RULE_PURPOSE_SSHSIG)
			return RULE_NO;
		return tri(list_match(&r->ns, q->ns));
	case RULE_PURPOSE_OTHER:
		return tri(q->purpose == RULE_PURPOSE_OTHER);
	}
	return RULE_NO;
}

/* The screen of the session policy follows: logind's word, not the
 * server's; no session followed matches neither state. */
static enum rule_tri
m_session(const struct rule *r, const struct rules_query *q)
{
	return r->session == RULE_SESSION_ANY ? RULE_YES :
	    tri(q->session == r->session);
}

/* Every clause of the language, in the order of rules.h's grammar. */
static enum rule_tri (*const clauses[])(const struct rule *,
    const struct rules_query *) = {
	m_key, m_socket, m_caller, m_ancestor, m_origin, m_purpose, m_session,
};

enum rule_tri
rules_match(const struct rule *r, const struct rules_query *q)
{
	enum rule_tri all = RULE_YES;
	size_t i;

	for (i = 0; i < sizeof(clauses) / sizeof(clauses[0]); i++)
		if ((all = tri_and(all, clauses[i](r, q))) == RULE_NO)
			break;
	return all;
}

/* How strict an answer is: deny, then confirm asking every time, then
 * confirm with remember= (a remembered yes lets the next request through
 * unasked: the shorter it is kept, the stricter), then allow. */
static int
stricter(enum rule_action a, uint32_t arem, enum rule_action b, uint32_t brem)
{
	if (a != b)
		return a > b;           /* the enum's order */
	if (a != RULE_CONFIRM || arem == brem)
		return 0;
	return arem == 0 || (brem != 0 && arem < brem);
}

/* The first rule that matches decides. A rule that may match or not, as
 * the server chose, decides only where it is stricter than what the
 * rules after it say: a deny then refuses, a confirm asks where the rest
 * would allow, an allow never lets anything through. */
enum rule_action
rules_decide(const struct ruleset *rs, const struct rules_query *q,
    const struct rule **which)
{
	enum rule_action got = q->fallback != 0 ? q->fallback : RULE_ALLOW;
	enum rule_action maybe = RULE_ALLOW;
	uint32_t got_rem = 0, maybe_rem = 0;
	const struct rule *by = NULL, *maybe_by = NULL;
	size_t i;

	for (i = 0; rs != NULL && i < rs->n; i++) {
		enum rule_tri t = rules_match(&rs->r[i], q);

		if (t == RULE_YES) {
			got = rs->r[i].action;
			got_rem = rs->r[i].remember;
			by = &rs->r[i];
			break;
		}
		/* of equally strict rules that cannot tell, the first counts */
		if (t == RULE_UNKNOWN && (maybe_by == NULL ||
		    stricter(rs->r[i].action, rs->r[i].remember, maybe,
		    maybe_rem))) {
			maybe = rs->r[i].action;
			maybe_rem = rs->r[i].remember;
			maybe_by = &rs->r[i];
		}
	}
	if (maybe_by != NULL && stricter(maybe, maybe_rem, got, got_rem)) {
		got = maybe;
		by = maybe_by;
	}
	if (which != NULL)
		*which = by;
	return got;
}

const char *
rules_action_name(enum rule_action a)
{
	switch (a) {
	case RULE_ALLOW:
		return "allow";
	case RULE_CONFIRM:
		return "confirm";
	case RULE_DENY:
		return "deny";
	}
	return "?";
}

/* ------------------------------------------------------------ printing */

static void
put(struct wb *w, const char *s)
{
	wb_bytes(w, s, strlen(s));
}

/* A word as rules_parse reads it back: bare when it can be, else quoted. */
static void
put_word(struct wb *w, const char *s)
{
	int bare = *s != '\0' && strpbrk(s, " \t\"\\#") == NULL;

	if (bare) {
		put(w, s);
		return;
	}
	put(w, "\"");
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			wb_u8(w, '\\');
		wb_u8(w, (uint8_t)*s);
	}
	put(w, "\"");
}

static void
put_list(struct wb *w, const char *kw, const struct rule_list *l)
{
	struct wb word;
	size_t i;

	if (l->n == 0)
		return;
	wb_init(&word);
	for (i = 0; i < l->n; i++) {
		if (i > 0)
			wb_u8(&word, ',');
		if (l->neg[i])
			wb_u8(&word, '!');
		put(&word, l->pat[i]);
	}
	wb_u8(&word, '\0');
	put(w, " ");
	put(w, kw);
	put(w, " ");
	if (word.err == 0)
		put_word(w, (const char *)word.p);
	else
		w->err = word.err;
	wb_free(&word);
}

/* Seconds in the largest units that add up exactly: 5400 is "1h30m". */
static void
put_duration(struct wb *w, uint32_t secs)
{
	static const struct { char unit; uint32_t secs; } u[] = {
		{ 'w', 604800 }, { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 },
		{ 's', 1 },
	};
	char num[16];
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (secs < u[i].secs)
			continue;
		snprintf(num, sizeof(num), "%u%c", secs / u[i].secs, u[i].unit);
		put(w, num);
		secs %= u[i].secs;
	}
}

void
rules_format_rule(const struct rule *r, struct wb *w)
{
	put(w, rules_action_name(r->action));
	if (r->action == RULE_CONFIRM && r->remember > 0) {
		put(w, " remember=");
		put_duration(w, r->remember);
	}
	if (r->fingerprint != NULL) {
		put(w, " key ");
		put(w, r->fingerprint);
	}
	put_list(w, "key comment", &r->comment);
	put_list(w, "socket", &r->socket);
	put_list(w, "caller", &r->caller);
	put_list(w, "ancestor", &r->ancestor);
	if (r->origin == RULE_ORIGIN_LOCAL)
		put(w, " origin local");
	else if (r->origin == RULE_ORIGIN_FORWARDED) {
		put(w, " origin forwarded");
		put_list(w, "via", &r->via);
	}
	switch (r->purpose) {
	case RULE_PURPOSE_ANY:
		break;
	case RULE_PURPOSE_LOGIN:
		put(w, " purpose login");
		put_list(w, "user", &r->user);
		put_list(w, "host", &r->host);
		break;
	case RULE_PURPOSE_SSHSIG:
		put(w, " purpose sshsig");
		put_list(w, "namespace", &r->ns);
		break;
	case RULE_PURPOSE_OTHER:
		put(w, " purpose other");
		break;
	}
	if (r->session != RULE_SESSION_ANY)
		put(w, r->session == RULE_SESSION_LOCKED ? " session locked" :
		    " session unlocked");
}

int
rules_format(const struct ruleset *rs, struct wb *w)
{
	size_t i;

	for (i = 0; rs != NULL && i < rs->nsock; i++) {
		const struct rule_socket *d = &rs->sock[i];
		put(w, "socket ");
		put(w, d->name);
		if (d->path != NULL) {
			put(w, " ");
			put_word(w, d->path);
		}
		if (d->manage)
			put(w, " manage");
		put(w, "\n");
	}
	for (i = 0; rs != NULL && i < rs->n; i++) {
		rules_format_rule(&rs->r[i], w);
		put(w, "\n");
	}
	return w->err == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ equality */

static int
str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static int
list_eq(const struct rule_list *a, const struct rule_list *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->neg[i] != b->neg[i] || strcmp(a->pat[i], b->pat[i]) != 0)
			return 0;
	return 1;
}

static int
rule_eq(const struct rule *a, const struct rule *b)
{
	return a->action == b->action && a->remember == b->remember &&
	    str_eq(a->fingerprint, b->fingerprint) &&
	    list_eq(&a->comment, &b->comment) &&
	    list_eq(&a->caller, &b->caller) &&
	    list_eq(&a->ancestor, &b->ancestor) &&
	    a->origin == b->origin && list_eq(&a->via, &b->via) &&
	    a->purpose == b->purpose && list_eq(&a->user, &b->user) &&
	    list_eq(&a->host, &b->host) && list_eq(&a->ns, &b->ns) &&
	    list_eq(&a->socket, &b->socket) && a->session == b->session;
}

int
rules_same_sockets(const struct ruleset *a, const struct ruleset *b)
{
	size_t na = a != NULL ? a->nsock : 0, nb = b != NULL ? b->nsock : 0;

	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a->sock[i].name, b->sock[i].name) != 0 ||
		    !str_eq(a->sock[i].path, b->sock[i].path) ||
		    a->sock[i].manage != b->sock[i].manage)
			return 0;
	return 1;
}

int
rules_equal(const struct ruleset *a, const struct ruleset *b)
{
	size_t i;

	if (a->n != b->n || !rules_same_sockets(a, b))
		return 0;
	for (i = 0; i < a->n; i++)
		if (!rule_eq(&a->r[i], &b->r[i]))
			return 0;
	return 1;
}
