/*
 * scope.c - the sockets' scopes (scope.h): which keys a named socket
 * shows, and whether it serves management requests.
 */
#include "rules/scope.h"

#include <stdio.h>
#include <string.h>

const char *
scope_name(const struct ruleset *rs, uint32_t sock)
{
	if (sock == 0)
		return "main";
	if (rs == NULL || sock > rs->nsock)
		return "?";
	return rs->sock[sock - 1].name;
}

int
scope_may_manage(const struct ruleset *rs, uint32_t sock)
{
	if (sock == 0)
		return 1;
	return rs != NULL && sock <= rs->nsock && rs->sock[sock - 1].manage;
}

/* Does the rule need facts a listing does not have (the caller, the
 * path, the purpose)? Such a rule may or may not match at signing. */
static int
needs_request(const struct rule *r)
{
	return r->caller.n > 0 || r->ancestor.n > 0 ||
	    r->origin != RULE_ORIGIN_ANY || r->purpose != RULE_PURPOSE_ANY;
}

int
scope_may_list(const struct ruleset *rs, uint32_t sock,
    const char *fingerprint, const char *comment, uint32_t added_on)
{
	struct rules_query q = { 0 };

	if (sock == 0)
		return 1;
	q.fingerprint = fingerprint;
	q.comment = comment;
	q.socket = scope_name(rs, sock);
	for (size_t i = 0; rs != NULL && i < rs->n; i++) {
		const struct rule *r = &rs->r[i];
		struct rule only = { 0 };
		/* the key and socket clauses alone, judged now */
		only.fingerprint = r->fingerprint;
		only.comment = r->comment;
		only.socket = r->socket;
		if (rules_match(&only, &q) != RULE_YES)
			continue;
		if (!needs_request(r))
			return r->action != RULE_DENY;
		if (r->action != RULE_DENY)
			return 1;       /* it may allow: listed */
	}
	return scope_default(sock, added_on) != RULE_DENY;
}

enum rule_action
scope_default(uint32_t sock, uint32_t added_on)
{
	return sock == 0 || added_on == sock ? RULE_ALLOW : RULE_DENY;
}

void
scope_append(const struct ruleset *rs, uint32_t sock, char *out, size_t n)
{
	size_t len = strlen(out);

	if (sock != 0 && len < n)
		snprintf(out + len, n - len, " through the %s socket",
		    scope_name(rs, sock));
}
