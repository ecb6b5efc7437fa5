/*
 * test_match.c - the one pattern matcher (rules/match.h): OpenSSH's
 * patterns (doc/protocol.md §8.1, wmatch) row by row, in linear time, and its
 * pattern lists as the rules language (match_split) and policy's option
 * lists (match_list: -P providers, websafe-allow) read them, negation
 * and patterns too long for the stack included. Allocation failure is
 * test_rules_oom's.
 */
#include "ipc/limits.h"
#include "rules/match.h"
#include "tests/unit/tap.h"

#include <stdint.h>

/* ---------------------------------------------------------- doc/protocol.md §8.1 wmatch */

static const struct {
	const char *s, *p;
	int want;
} wmatch_rows[] = {
	/* subject             pattern           match? */
	{ "",                  "",               1 },
	{ "a",                 "",               0 },
	{ "",                  "*",              1 },
	{ "anything at all",   "*",              1 },
	{ "",                  "?",              0 },
	{ "a",                 "?",              1 },
	{ "ab",                "?",              0 },
	{ "medea",             "medea",          1 },
	{ "medea",             "mede",           0 },     /* the whole of s */
	{ "mede",              "medea",          0 },
	{ "Medea",             "medea",          0 },     /* case-sensitive */
	{ "medea",             "MEDEA",          0 },
	{ "medea",             "med*",           1 },
	{ "med",               "med*",           1 },     /* '*' matches none */
	{ "medusa",            "med*",           1 },
	{ "perseus",           "med*",           0 },
	{ "medea",             "?edea",          1 },
	{ "edea",              "?edea",          0 },
	{ "mmedea",            "?edea",          0 },
	{ "a.example.com",     "*.example.com",  1 },
	{ "example.com",       "*.example.com",  0 },
	{ "a.b.example.com",   "*.example.com",  1 },
	{ "a.example.org",     "*.example.com",  0 },
	{ "*.example.com",     "a.example.com",  0 },     /* no reverse match */
	{ "abc",               "a*c",            1 },
	{ "ac",                "a*c",            1 },
	{ "abcd",              "a*c",            0 },
	{ "abc",               "**c",            1 },
	{ "abc",               "a**",            1 },
	{ "abc",               "*?*",            1 },
	{ "",                  "*?*",            0 },
	{ "xyz",               "???",            1 },
	{ "xy",                "???",            0 },
	{ "!medea",            "!medea",         1 },     /* no negation */
	{ "medea",             "!medea",         0 },
	{ "medea",             "medea,perseus",  0 },     /* no comma lists */
	{ "a,b",               "a,b",            1 },
};

static void
test_wmatch(void)
{
	char s[201], p[64];

	for (size_t i = 0; i < sizeof(wmatch_rows) / sizeof(wmatch_rows[0]); i++)
		is_int(wmatch(wmatch_rows[i].s, wmatch_rows[i].p), wmatch_rows[i].want,
		    "wmatch(\"%s\", \"%s\") = %d", wmatch_rows[i].s,
		    wmatch_rows[i].p, wmatch_rows[i].want);

	/* Exponential for a backtracking matcher; must return at once. */
	memset(s, 'a', 200);
	s[200] = '\0';
	snprintf(p, sizeof(p), "*a*a*a*a*a*a*a*a*b");
	is_int(wmatch(s, p), 0, "wmatch(200 x 'a', \"%s\") = 0, in linear time", p);
	snprintf(p, sizeof(p), "*a*a*a*a*a*a*a*a*a");
	is_int(wmatch(s, p), 1, "wmatch(200 x 'a', \"%s\") = 1", p);
}


/* ------------------------------------------------------- pattern lists */

static const struct {
	const char *s, *list;
	int want;
} list_rows[] = {
	/* subject                 list                            match? */
	{ "",                      "",                             0 },  /* no pattern */
	{ "a",                     "",                             0 },
	{ "a",                     "a",                            1 },
	{ "b",                     "a",                            0 },
	{ "b",                     "a,b",                          1 },
	{ "c",                     "a,b",                          0 },
	{ "/usr/lib/x/p11.so",     "/usr/lib/*",                   1 },
	{ "/usr/lib/x/p11.so",     "/usr/lib/*,!/usr/lib/x/*",     0 },  /* negated wins */
	{ "/usr/lib/x/p11.so",     "!/usr/lib/x/*,/usr/lib/*",     0 },  /* in any order */
	{ "/usr/lib/y/p11.so",     "/usr/lib/*,!/usr/lib/x/*",     1 },
	{ "a",                     "!b",                           0 },  /* no positive */
	{ "a",                     "!b,*",                         1 },
	{ "",                      "a,,b",                         1 },  /* an empty pattern */
	{ "x",                     "a,,b",                         0 },
	{ "a",                     "a,",                           1 },  /* trailing comma */
	{ "",                      "a,",                           0 },
	{ "",                      "!",                            0 },
	{ "!a",                    "!a",                           0 },  /* '!' is negation */
	{ "ssh:",                  "ssh:*",                        1 },
	{ "ssh:x",                 "ssh:*,!ssh:x",                 0 },
	{ "Internal",              "internal",                     0 },  /* case-sensitive */
};

static void
test_list(void)
{
	for (size_t i = 0; i < sizeof(list_rows) / sizeof(list_rows[0]); i++)
		is_int(match_list(list_rows[i].s, list_rows[i].list), list_rows[i].want,
		    "match_list(\"%s\", \"%s\") = %d", list_rows[i].s,
		    list_rows[i].list, list_rows[i].want);
}

/* The split form (the rules language) says what the written form says. */
static void
test_split(void)
{
	char *pat[] = { "/usr/lib/*", "/usr/lib/x/*", "*.so" };
	uint8_t neg[] = { 0, 1, 0 };

	is_int(match_split("/usr/lib/y.so", pat, neg, 3), 1,
	    "match_split: a positive pattern matches");
	is_int(match_split("/usr/lib/x/y.so", pat, neg, 3), 0,
	    "match_split: a negated match excludes what the others match");
	is_int(match_split("/opt/y", pat, neg, 3), 0,
	    "match_split: nothing matches");
	is_int(match_split("/opt/y", pat, neg, 0), 0,
	    "match_split: no patterns match nothing");
	is_int(match_split("/usr/lib/x/y.so", pat, neg, 3),
	    match_list("/usr/lib/x/y.so", "/usr/lib/*,!/usr/lib/x/*,*.so"),
	    "match_split and match_list agree");
	is_int(wmatch_n("abc", "abcdef", 3), 1, "wmatch_n reads only plen bytes");
	is_int(wmatch_n("abc", "ab*", 2), 0, "... and not the byte after them");
}

/* Patterns longer than the stack buffer are matched, never skipped: a
 * negated one too long to copy that was ignored would let it through. */
static void
test_long(void)
{
	static char s[WMATCH_MAX_STACK_PATTERN * 3], list[WMATCH_MAX_STACK_PATTERN * 3 + 8];
	size_t n = WMATCH_MAX_STACK_PATTERN * 2;

	memset(s, 'p', n);
	s[n] = '\0';
	is_int(wmatch(s, s), 1, "a pattern of %zu bytes matches itself", n);
	snprintf(list, sizeof(list), "*,!%s", s);
	is_int(match_list(s, list), 0,
	    "a negated pattern of %zu bytes still excludes", n);
	is_int(match_list("p", list), 1, "... and only what it matches");
	snprintf(list, sizeof(list), "%s,x", s);
	is_int(match_list(s, list), 1, "a positive one of %zu bytes matches", n);
}

int
main(void)
{
	test_wmatch();
	test_list();
	test_split();
	test_long();
	return done_testing();
}
