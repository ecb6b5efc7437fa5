/*
 * test_rules_oom.c - every matcher fails closed: with
 * every allocation failing, a deny rule still refuses, a destination
 * pattern still matches, and a pattern too long to match without memory
 * ends the process (fatal) rather than read as "no match", which would
 * let a deny rule allow. Linked with -Wl,--wrap=malloc,--wrap=calloc
 * (mk/tests.mk), so the policy code's allocations fail on demand.
 */
#include "rules/match.h"
#include "rules/rules.h"
#include "tests/unit/tap.h"

#include <sys/wait.h>
#include <unistd.h>

static int fail_alloc;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);

void *
__wrap_malloc(size_t n)
{
	return fail_alloc ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t m)
{
	return fail_alloc ? NULL : __real_calloc(n, m);
}

static const struct {
	const char *rules;
	const char *exe, *user, *host;
	enum rule_action want;
} rows[] = {
	{ "deny caller /usr/bin/python3\n", "/usr/bin/python3", NULL, NULL, RULE_DENY },
	{ "deny caller /usr/bin/py*\n", "/usr/bin/python3", NULL, NULL, RULE_DENY },
	{ "deny purpose login user r?ot\n", "/usr/bin/ssh", "root", "h", RULE_DENY },
	{ "deny purpose login host *.prod\n", "/usr/bin/ssh", "u", "db.prod", RULE_DENY },
	{ "allow caller /usr/bin/ssh\ndeny\n", "/usr/bin/ssh", NULL, NULL, RULE_ALLOW },
	{ "allow caller /usr/bin/ssh\ndeny\n", "/usr/bin/python3", NULL, NULL, RULE_DENY },
};

int
main(void)
{
	char longpat[WMATCH_MAX_STACK_PATTERN + 64];
	int status;
	pid_t pid;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ruleset *rs;
		struct rules_err err;
		struct rules_query q = {
			.exe = rows[i].exe, .purpose = RULE_PURPOSE_LOGIN,
			.verified = 1, .user = rows[i].user, .host = rows[i].host,
		};
		enum rule_action got;

		if (rules_parse("t", rows[i].rules, strlen(rows[i].rules), &rs,
		    &err) != 0) {
			ok(0, "rules parse: %.200s", err.msg);
			continue;
		}
		fail_alloc = 1;
		got = rules_decide(rs, &q, NULL);
		fail_alloc = 0;
		ok(got == rows[i].want, "no memory: \"%.*s\" for %.40s: %s",
		    (int)(strcspn(rows[i].rules, "\n") & 63), rows[i].rules,
		    rows[i].exe, rules_action_name(rows[i].want));
		rules_free(rs);
	}

	fail_alloc = 1;
	is_int(wmatch("perseus.example.com", "*.example.com"), 1,
	    "no memory: wmatch still matches a host pattern");
	is_int(wmatch("perseus", "scylla"), 0, "... and still tells a mismatch");
	is_int(match_list("/usr/lib/x.so", "/usr/lib/*,!/usr/lib/x*"), 0,
	    "no memory: a negated pattern of an option list still excludes");
	is_int(match_list("/usr/lib/y.so", "/usr/lib/*,!/usr/lib/x*"), 1,
	    "... and the list still matches");
	fail_alloc = 0;

	/* Past the stack buffer: matched on the heap when there is memory,
	 * the process ends when there is none. */
	memset(longpat, 'a', sizeof(longpat) - 2);
	longpat[sizeof(longpat) - 2] = '*';
	longpat[sizeof(longpat) - 1] = '\0';
	is_int(wmatch(longpat, longpat), 1, "a long pattern matches itself");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		fail_alloc = 1;
		/* exit 0 would be "no match" read as an answer */
		_exit(wmatch(longpat, longpat) == 1 ? 1 : 0);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 255,
	    "no memory for a long pattern: fatal (exit 255), never an answer");
	/* The same for a negated one in an option list (-P, websafe-allow):
	 * skipped or read as "no match", it would let its subject in. */
	{
		static char list[sizeof(longpat) + 8];
		snprintf(list, sizeof(list), "*,!%s", longpat);
		fflush(stdout);
		if ((pid = fork()) == 0) {
			fail_alloc = 1;
			_exit(match_list(longpat, list) == 0 ? 1 : 0);
		}
		ok(pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 255,
		    "no memory for a long negated pattern: fatal, never an answer");
	}
	return done_testing();
}
