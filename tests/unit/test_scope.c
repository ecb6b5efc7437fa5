/*
 * test_scope.c - the named sockets of keyward(5): "socket NAME [PATH]
 * [manage]" declarations and the "socket LIST" clause read and printed
 * back, every malformed declaration refused with its file:line:column,
 * the clause matched, and what rules/scope.h makes of them: which keys
 * a socket lists, what no rule decides there, which sockets manage.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "rules/rules.h"
#include "rules/scope.h"
#include "tests/unit/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FPX "SHA256:5tMhpU5r5oppAvvffFidD8vI+HzXjbQ/cvHMEYjeiYk"
#define FPY "SHA256:raNVEYAEFHcZaFGCYiJalafZKpE9IcRi6s1A5bKTVsw"
#define A10 "aaaaaaaaaa"

/* ------------------------------------------------------------ syntax */

static const struct {
	const char *name, *in, *canon;
} good[] = {
	{ "a path", "socket deploy /run/u/deploy.sock\n",
	  "socket deploy /run/u/deploy.sock\n" },
	{ "no path: beside the main socket", "socket deploy\n", "socket deploy\n" },
	{ "manage, with a path", "socket ci /run/u/ci.sock manage\n",
	  "socket ci /run/u/ci.sock manage\n" },
	{ "manage, no path", "socket ci manage\n", "socket ci manage\n" },
	{ "a quoted path with a blank", "socket web \"/run/u/my web.sock\"\n",
	  "socket web \"/run/u/my web.sock\"\n" },
	{ "name with digits, '-', '_'", "socket a-1_b\n", "socket a-1_b\n" },
	{ "declarations first, whatever the order",
	  "socket a\nallow socket a\nsocket b /x/b\ndeny socket b,main\n",
	  "socket a\nsocket b /x/b\nallow socket a\ndeny socket b,main\n" },
	{ "clause after key", "socket d\nallow key comment deploy-* socket d\n",
	  "socket d\nallow key comment deploy-* socket d\n" },
	{ "clause first, printed after key",
	  "socket d\nallow socket d key " FPX " origin forwarded\n",
	  "socket d\nallow key " FPX " socket d origin forwarded\n" },
	{ "main needs no declaration", "deny socket main purpose other\n",
	  "deny socket main purpose other\n" },
	{ "a wildcard may match none", "deny socket dep*,!main\n",
	  "deny socket dep*,!main\n" },
	{ "socket as a comment word", "allow key comment socket\n",
	  "allow key comment socket\n" },
};

static void
test_good(void)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct ruleset *rs = NULL, *again = NULL;
		struct rules_err err;
		struct wb out;
		int rc;

		wb_init(&out);
		rc = rules_parse("t.rules", good[i].in, strlen(good[i].in), &rs,
		    &err);
		is_int(rc, 0, "accepted: %s", good[i].name);
		if (rc != 0) {
			printf("#   %s\n", err.msg);
			continue;
		}
		rules_format(rs, &out);
		wb_u8(&out, '\0');
		is_str((const char *)out.p, good[i].canon, "canonical form: %s",
		    good[i].name);
		rc = rules_parse("canon", (const char *)out.p, out.len - 1, &again,
		    &err);
		ok(rc == 0 && rules_equal(rs, again) &&
		    rules_same_sockets(rs, again), "round trip: %s", good[i].name);
		rules_free(rs);
		rules_free(again);
		wb_free(&out);
	}
}

static const struct {
	const char *name, *in, *err;
	size_t line, col;
} bad[] = {
	{ "no name", "socket\n", "t.rules:1:7: \"socket\" needs a name, and a path", 1, 7 },
	{ "upper-case name", "socket Deploy\n",
	  "t.rules:1:8: bad socket name \"Deploy\" (a lower-case letter, then letters, digits, '-' or '_'; at most 32)", 1, 8 },
	{ "name starting with a digit", "socket 1st\n",
	  "t.rules:1:8: bad socket name \"1st\" (a lower-case letter, then letters, digits, '-' or '_'; at most 32)", 1, 8 },
	{ "name with a slash", "socket a/b /x\n",
	  "t.rules:1:8: bad socket name \"a/b\" (a lower-case letter, then letters, digits, '-' or '_'; at most 32)", 1, 8 },
	{ "name of 33 bytes", "socket aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "t.rules:1:8: bad socket name \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" (a lower-case letter, then letters, digits, '-' or '_'; at most 32)", 1, 8 },
	{ "main declared", "socket main /x/m\n",
	  "t.rules:1:8: \"main\" is the main socket's name; it is not declared", 1, 8 },
	{ "name twice", "socket a /x/a\n# b\n  socket a /x/b\n",
	  "t.rules:3:10: socket \"a\" declared twice", 3, 10 },
	{ "path twice", "socket a /x/s\nsocket b /x/s\n",
	  "t.rules:2:10: socket path \"/x/s\" declared twice (line 1)", 2, 10 },
	{ "relative path", "socket a deploy.sock\n",
	  "t.rules:1:10: socket path \"deploy.sock\" is not absolute", 1, 10 },
	{ "path too long",
	  "socket a /" A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 "aaaaaaa\n",
	  "t.rules:1:10: socket path longer than 107 bytes", 1, 10 },
	{ "something after manage", "socket a /x manage now\n",
	  "t.rules:1:20: unexpected \"now\" after the socket's path (only \"manage\")", 1, 20 },
	{ "two paths", "socket a /x /y\n",
	  "t.rules:1:13: unexpected \"/y\" after the socket's path (only \"manage\")", 1, 13 },
	{ "undeclared in a clause", "allow socket deploy\n",
	  "t.rules:1:14: socket \"deploy\" is not declared (a line \"socket deploy PATH\" above this one declares it)", 1, 14 },
	{ "declared below its use", "allow socket d\nsocket d\n",
	  "t.rules:1:14: socket \"d\" is not declared (a line \"socket d PATH\" above this one declares it)", 1, 14 },
	{ "clause twice", "socket d\nallow socket d socket main\n",
	  "t.rules:2:16: \"socket\" given twice", 2, 16 },
	{ "clause without names", "allow socket\n",
	  "t.rules:1:13: \"socket\" needs a pattern list", 1, 13 },
	{ "nine sockets",
	  "socket a\nsocket b\nsocket c\nsocket d\nsocket e\nsocket f\nsocket g\nsocket h\nsocket i\n",
	  "t.rules:9:8: more than 8 sockets", 9, 8 },
};

static void
test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ruleset *rs = (struct ruleset *)&rs;
		struct rules_err err;
		int rc;

		rc = rules_parse("t.rules", bad[i].in, strlen(bad[i].in), &rs, &err);
		is_int(rc, -1, "refused: %s", bad[i].name);
		ok(rs == (struct ruleset *)&rs, "nothing returned: %s", bad[i].name);
		is_str(err.msg, bad[i].err, "error message: %s", bad[i].name);
		is_int(err.line, bad[i].line, "error line: %s", bad[i].name);
		is_int(err.col, bad[i].col, "error column: %s", bad[i].name);
	}
}

/* ------------------------------------------------------------ meaning */

#define DEPLOY \
	"socket deploy /run/u/deploy.sock\n" \
	"socket ci /run/u/ci.sock manage\n" \
	"deny key comment personal\n" \
	"allow socket deploy key comment deploy-*\n" \
	"confirm socket deploy,ci key " FPY " origin forwarded\n"

/* Socket indices as the monitor numbers them: 0 main, 1 deploy, 2 ci. */
static const struct {
	const char *name;
	uint32_t sock;
	const char *fp, *comment;
	uint32_t added_on;
	int listed;
} lists[] = {
	{ "main lists every key", 0, FPX, "anything", 0, 1 },
	{ "main lists even a denied one (signing refuses it)", 0, FPX, "personal", 0, 1 },
	{ "deploy: a deploy-* key", 1, FPX, "deploy-web", 0, 1 },
	{ "deploy: a key no rule allows there", 1, FPX, "laptop", 0, 0 },
	{ "deploy: a key a rule surely denies", 1, FPX, "personal", 0, 0 },
	{ "deploy: Y, whose rule may allow (origin judged at signing)", 1, FPY, "y", 0, 1 },
	{ "ci: Y, by the same rule", 2, FPY, "y", 0, 1 },
	{ "ci: a deploy-* key is not ci's", 2, FPX, "deploy-web", 0, 0 },
	{ "ci: a key added through ci is in its scope", 2, FPX, "laptop", 2, 1 },
	{ "ci: ... unless a rule denies it", 2, FPX, "personal", 2, 0 },
	{ "deploy: a key added through ci is not deploy's", 1, FPX, "laptop", 2, 0 },
	{ "a socket the rules do not declare lists nothing", 7, FPX, "deploy-web", 0, 0 },
};

static void
test_scope(void)
{
	struct ruleset *rs = NULL;
	struct rules_err err;
	struct rules_query q = { .purpose = RULE_PURPOSE_OTHER };
	const struct rule *which;
	char who[64];

	if (rules_parse("t.rules", DEPLOY, strlen(DEPLOY), &rs, &err) != 0) {
		printf("#   %s\n", err.msg);
		abort();
	}
	is_str(scope_name(rs, 0), "main", "socket 0 is main");
	is_str(scope_name(rs, 1), "deploy", "socket 1 is deploy");
	is_str(scope_name(rs, 2), "ci", "socket 2 is ci");
	is_str(scope_name(rs, 3), "?", "socket 3 is not declared");
	is_str(scope_name(NULL, 1), "?", "no rules: no socket 1");
	ok(scope_may_manage(rs, 0), "main manages");
	ok(!scope_may_manage(rs, 1), "deploy lists and signs only");
	ok(scope_may_manage(rs, 2), "ci was declared manage");
	ok(!scope_may_manage(rs, 3) && !scope_may_manage(NULL, 1),
	    "an undeclared socket does not manage");
	ok(scope_may_manage(NULL, 0), "no rules: main manages");
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		is_int(scope_may_list(rs, lists[i].sock, lists[i].fp,
		    lists[i].comment, lists[i].added_on), lists[i].listed, "%s",
		    lists[i].name);
	is_int(scope_default(0, 0), RULE_ALLOW, "no rule on main: allow");
	is_int(scope_default(1, 0), RULE_DENY, "no rule on deploy: deny");
	is_int(scope_default(2, 2), RULE_ALLOW,
	    "no rule on ci for a key added through it: allow");
	is_int(scope_default(0, 2), RULE_ALLOW,
	    "no rule on main for a key added through ci: allow");

	/* the clause in rules_decide */
	q.fingerprint = FPX;
	q.comment = "deploy-web";
	q.socket = "deploy";
	is_int(rules_decide(rs, &q, &which), RULE_ALLOW,
	    "decide: deploy-web on deploy is allowed");
	is_int(which != NULL ? which->line : 0, 4, "decide: by line 4");
	q.socket = "main";
	is_int(rules_decide(rs, &q, &which), RULE_ALLOW,
	    "decide: deploy-web on main, no rule");
	ok(which == NULL, "decide: no rule named on main");
	q.fingerprint = FPY;
	q.comment = "y";
	q.socket = "ci";
	q.forwarded = 1;
	is_int(rules_decide(rs, &q, &which), RULE_CONFIRM,
	    "decide: Y forwarded on ci is confirmed");
	q.forwarded = 0;
	is_int(rules_decide(rs, &q, &which), RULE_ALLOW,
	    "decide: Y local on ci, no rule (policy then denies: scope_default)");
	ok(which == NULL, "decide: no rule named");
	q.socket = NULL;
	q.forwarded = 1;
	is_int(rules_decide(rs, &q, &which), RULE_ALLOW,
	    "decide: an unknown socket (\"\") matches no named list");

	snprintf(who, sizeof(who), "/usr/bin/ssh");
	scope_append(rs, 1, who, sizeof(who));
	is_str(who, "/usr/bin/ssh through the deploy socket",
	    "a caller on deploy is described with its socket");
	snprintf(who, sizeof(who), "/usr/bin/ssh");
	scope_append(rs, 0, who, sizeof(who));
	is_str(who, "/usr/bin/ssh", "on main, nothing is added");
	snprintf(who, sizeof(who), "0123456789");
	scope_append(rs, 1, who, 12);
	is_int(strlen(who), 11, "a short buffer is cut, never overrun");
	rules_free(rs);
}

/* Sockets are fixed at start: a reload compares the declarations. */
static void
test_same(void)
{
	static const struct {
		const char *name, *a, *b;
		int same;
	} rows[] = {
		{ "rules change, sockets do not", "socket d /x\nallow\n",
		  "socket d /x\ndeny\n", 1 },
		{ "no sockets either side", "allow\n", "deny\n", 1 },
		{ "a socket added", "allow\n", "socket d\n", 0 },
		{ "a socket removed", "socket d\n", "", 0 },
		{ "a path changed", "socket d /x\n", "socket d /y\n", 0 },
		{ "a path given", "socket d\n", "socket d /x\n", 0 },
		{ "manage added", "socket d /x\n", "socket d /x manage\n", 0 },
		{ "order changed", "socket a\nsocket b\n", "socket b\nsocket a\n", 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ruleset *a = NULL, *b = NULL;
		struct rules_err err;

		if (rules_parse("a", rows[i].a, strlen(rows[i].a), &a, &err) != 0 ||
		    rules_parse("b", rows[i].b, strlen(rows[i].b), &b, &err) != 0)
			abort();
		is_int(rules_same_sockets(a, b), rows[i].same, "same sockets: %s",
		    rows[i].name);
		if (!rows[i].same)
			ok(!rules_equal(a, b), "and not equal rules: %s",
			    rows[i].name);
		rules_free(a);
		rules_free(b);
	}
	ok(rules_same_sockets(NULL, NULL), "no rules either side");
}

int
main(void)
{
	test_good();
	test_bad();
	test_scope();
	test_same();
	return done_testing();
}
