/*
 * test_rules.c - the rules language of keyward(5) (rules/rules.h): every
 * syntax element read and printed back canonically, every malformed input
 * refused with its exact file:line:column, the decisions of the worked
 * examples of keyward(5), first match wins, the default, and the round
 * trip format -> parse -> the same rules.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "rules/rules.h"
#include "tests/unit/tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Key X (perseus) and key Y (scylla). */
#define FPX "SHA256:5tMhpU5r5oppAvvffFidD8vI+HzXjbQ/cvHMEYjeiYk"
#define FPY "SHA256:raNVEYAEFHcZaFGCYiJalafZKpE9IcRi6s1A5bKTVsw"

/* ------------------------------------------------------------ syntax */

struct good_row {
	const char *name;
	const char *in;
	const char *canon;      /* rules_format of it */
};

static const struct good_row good[] = {
	{ "empty file", "", "" },
	{ "comments, blank lines, blanks", "# a comment\n\n \t \n   # another\n", "" },
	{ "allow alone", "allow\n", "allow\n" },
	{ "deny alone", "deny\n", "deny\n" },
	{ "confirm alone", "confirm\n", "confirm\n" },
	{ "no final newline", "deny", "deny\n" },
	{ "CRLF lines", "allow\r\ndeny\r\n", "allow\ndeny\n" },
	{ "key by fingerprint and by comment (two clauses)", "allow key comment x key " FPX "\n", "allow key " FPX " key comment x\n" },
	{ "remember in minutes", "confirm remember=10m\n", "confirm remember=10m\n" },
	{ "remember in bare seconds", "confirm remember=600\n", "confirm remember=10m\n" },
	{ "remember in two units", "confirm remember=1h30m\n", "confirm remember=1h30m\n" },
	{ "remember 90s", "confirm remember=90s\n", "confirm remember=1m30s\n" },
	{ "remember upper-case unit", "confirm remember=2H\n", "confirm remember=2h\n" },
	{ "remember a day, the most", "confirm remember=1d\n", "confirm remember=1d\n" },
	{ "remember 1s", "confirm remember=1S\n", "confirm remember=1s\n" },
	{ "remember units summed", "confirm remember=30m30m\n", "confirm remember=1h\n" },
	{ "key by fingerprint", "allow key " FPX "\n", "allow key " FPX "\n" },
	{ "key by comment", "deny key comment prod*,!prod-old\n", "deny key comment prod*,!prod-old\n" },
	{ "caller list", "allow caller /usr/bin/ssh,/usr/bin/scp\n", "allow caller /usr/bin/ssh,/usr/bin/scp\n" },
	{ "caller with ? and negation", "deny caller *,!/usr/bin/ss?\n", "deny caller *,!/usr/bin/ss?\n" },
	{ "ancestor", "allow ancestor /usr/bin/git\n", "allow ancestor /usr/bin/git\n" },
	{ "origin local", "allow origin local\n", "allow origin local\n" },
	{ "origin forwarded", "deny origin forwarded\n", "deny origin forwarded\n" },
	{ "origin forwarded via", "allow origin forwarded via bastion.example.com,jump?\n", "allow origin forwarded via bastion.example.com,jump?\n" },
	{ "purpose any is no clause", "allow purpose any\n", "allow\n" },
	{ "purpose other", "allow purpose other\n", "allow purpose other\n" },
	{ "purpose login", "allow purpose login\n", "allow purpose login\n" },
	{ "purpose login user host", "allow purpose login user git,root host *.example.com\n", "allow purpose login user git,root host *.example.com\n" },
	{ "purpose login host before user", "allow purpose login host perseus user root\n", "allow purpose login user root host perseus\n" },
	{ "purpose sshsig", "allow purpose sshsig\n", "allow purpose sshsig\n" },
	{ "purpose sshsig namespace", "allow purpose sshsig namespace git,file\n", "allow purpose sshsig namespace git,file\n" },
	{ "quoted word with a blank", "allow caller \"/opt/My App/bin/ssh\"\n", "allow caller \"/opt/My App/bin/ssh\"\n" },
	{ "quoted word with escapes", "allow caller \"/opt/a\\\"b\\\\c\"\n", "allow caller \"/opt/a\\\"b\\\\c\"\n" },
	{ "needless quotes dropped", "allow caller \"/usr/bin/ssh\"\n", "allow caller /usr/bin/ssh\n" },
	{ "quoted '#' kept quoted", "allow caller \"a#b\"\n", "allow caller \"a#b\"\n" },
	{ "quoted list keeps its commas", "allow caller \"/a b,!/c\"\n", "allow caller \"/a b,!/c\"\n" },
	{ "tabs, blanks and a trailing comment", "  allow\tkey   " FPX "   # X\n", "allow key " FPX "\n" },
	{ "comment right after a word's blank", "deny #allow\n", "deny\n" },
	{ "every clause, canonical order",
	  "confirm remember=5m purpose login user u host h origin forwarded via b ancestor /bin/bash caller /usr/bin/ssh key " FPX "\n",
	  "confirm remember=5m key " FPX " caller /usr/bin/ssh ancestor /bin/bash origin forwarded via b purpose login user u host h\n" },
	{ "session locked", "deny session locked\n", "deny session locked\n" },
	{ "session unlocked", "allow session unlocked\n", "allow session unlocked\n" },
	{ "session first, canonical last",
	  "deny session locked origin forwarded purpose sshsig\n",
	  "deny origin forwarded purpose sshsig session locked\n" },
	{ "session with every clause",
	  "confirm remember=5m session unlocked purpose login user u host h origin forwarded via b ancestor /bin/bash caller /usr/bin/ssh key " FPX " socket main\n",
	  "confirm remember=5m key " FPX " socket main caller /usr/bin/ssh ancestor /bin/bash origin forwarded via b purpose login user u host h session unlocked\n" },
	{ "session words as patterns", "allow caller session,locked\n", "allow caller session,locked\n" },
	{ "keywords as patterns", "allow caller host ancestor key purpose login user user host host\n", "allow caller host ancestor key purpose login user user host host\n" },
	{ "non-ASCII path", "allow caller /opt/caf\xc3\xa9\n", "allow caller /opt/caf\xc3\xa9\n" },
	{ "a pattern of RULES_MAX_PATTERN bytes", NULL, NULL },   /* built below */
	{ "several rules in order", "deny caller /usr/bin/python3\nallow key " FPX "\n\ndeny\n",
	  "deny caller /usr/bin/python3\nallow key " FPX "\ndeny\n" },
};

/* ------------------------------------------------------------ errors */

struct bad_row {
	const char *name;
	const char *in;
	size_t len;             /* 0: strlen(in) */
	const char *err;
};

#define A10 "aaaaaaaaaa"

static const struct bad_row bad[] = {
	{ "unknown action", "permit\n", 0, "t.rules:1:1: expected allow, confirm or deny, found \"permit\"" },
	{ "quoted action", "\"allow\"\n", 0, "t.rules:1:1: expected allow, confirm or deny, found \"allow\"" },
	{ "action upper case", "ALLOW\n", 0, "t.rules:1:1: expected allow, confirm or deny, found \"ALLOW\"" },
	{ "remember on allow", "allow remember=10m\n", 0, "t.rules:1:7: remember= is only for confirm" },
	{ "remember on deny", "deny remember=1m\n", 0, "t.rules:1:6: remember= is only for confirm" },
	{ "empty duration", "confirm remember=\n", 0, "t.rules:1:18: bad duration \"\" (ssh-add -t syntax: 600, 10m, 1h30m; 1s to 86400s)" },
	{ "unknown unit", "confirm remember=10x\n", 0, "t.rules:1:18: bad duration \"10x\" (ssh-add -t syntax: 600, 10m, 1h30m; 1s to 86400s)" },
	{ "zero duration", "confirm remember=0\n", 0, "t.rules:1:18: bad duration \"0\" (ssh-add -t syntax: 600, 10m, 1h30m; 1s to 86400s)" },
	{ "duration over the limit", "confirm remember=1d1s\n", 0, "t.rules:1:18: bad duration \"1d1s\" (ssh-add -t syntax: 600, 10m, 1h30m; 1s to 86400s)" },
	{ "huge duration", "confirm remember=99999999999999999999999\n", 0, "t.rules:1:18: bad duration \"99999999999999999999999\" (ssh-add -t syntax: 600, 10m, 1h30m; 1s to 86400s)" },
	{ "unit without number", "confirm remember=m\n", 0, "t.rules:1:18: bad duration \"m\" (ssh-add -t syntax: 600, 10m, 1h30m; 1s to 86400s)" },
	{ "remember twice", "confirm remember=10m remember=5m\n", 0, "t.rules:1:22: unknown clause \"remember=5m\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "key without value", "allow key\n", 0, "t.rules:1:10: \"key\" needs a SHA256: fingerprint or \"comment\"" },
	{ "short fingerprint", "allow key SHA256:abc\n", 0, "t.rules:1:11: \"SHA256:abc\" is not a SHA256: fingerprint (SHA256: and 43 base64 characters) or \"comment\"" },
	{ "MD5 fingerprint", "allow key MD5:aa:bb\n", 0, "t.rules:1:11: \"MD5:aa:bb\" is not a SHA256: fingerprint (SHA256: and 43 base64 characters) or \"comment\"" },
	{ "fingerprint with padding", "allow key " FPX "=\n", 0, "t.rules:1:11: \"" FPX "=\" is not a SHA256: fingerprint (SHA256: and 43 base64 characters) or \"comment\"" },
	{ "key comment without list", "allow key comment\n", 0, "t.rules:1:18: \"comment\" needs a pattern list" },
	{ "key fingerprint twice", "allow key " FPX " key " FPX "\n", 0, "t.rules:1:62: \"key\" fingerprint given twice" },
	{ "key comment twice", "allow key comment x key comment y\n", 0, "t.rules:1:21: \"key comment\" given twice" },
	{ "caller without list", "allow caller\n", 0, "t.rules:1:13: \"caller\" needs a pattern list" },
	{ "empty pattern in the middle", "allow caller a,,b\n", 0, "t.rules:1:16: empty pattern in \"caller\"" },
	{ "trailing comma", "allow caller a,\n", 0, "t.rules:1:16: empty pattern in \"caller\"" },
	{ "leading comma", "allow ancestor ,a\n", 0, "t.rules:1:16: empty pattern in \"ancestor\"" },
	{ "bare negation", "allow caller !\n", 0, "t.rules:1:14: nothing after '!' in \"caller\"" },
	{ "negation without pattern in list", "allow caller a,!\n", 0, "t.rules:1:16: nothing after '!' in \"caller\"" },
	{ "empty quoted list", "allow caller \"\"\n", 0, "t.rules:1:14: empty pattern in \"caller\"" },
	{ "caller twice", "allow caller /usr/bin/ssh caller /bin/sh\n", 0, "t.rules:1:27: \"caller\" given twice" },
	{ "session without a state", "deny session\n", 0, "t.rules:1:13: \"session\" needs \"locked\" or \"unlocked\"" },
	{ "session state unknown", "deny session away\n", 0, "t.rules:1:14: unknown session state \"away\" (locked or unlocked)" },
	{ "session state upper case", "deny session LOCKED\n", 0, "t.rules:1:14: unknown session state \"LOCKED\" (locked or unlocked)" },
	{ "session state quoted", "deny session \"locked\"\n", 0, "t.rules:1:14: unknown session state \"locked\" (locked or unlocked)" },
	{ "session twice", "deny session locked session unlocked\n", 0, "t.rules:1:21: \"session\" given twice" },
	{ "session twice, same state", "deny session locked session locked\n", 0, "t.rules:1:21: \"session\" given twice" },
	{ "session with a list", "deny session locked,unlocked\n", 0, "t.rules:1:14: unknown session state \"locked,unlocked\" (locked or unlocked)" },
	{ "session then a stray word", "deny session locked now\n", 0, "t.rules:1:21: unknown clause \"now\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "unknown clause", "allow frobnicate\n", 0, "t.rules:1:7: unknown clause \"frobnicate\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "origin without value", "allow origin\n", 0, "t.rules:1:13: \"origin\" needs \"local\" or \"forwarded\"" },
	{ "unknown origin", "allow origin remote\n", 0, "t.rules:1:14: unknown origin \"remote\" (local or forwarded)" },
	{ "via after local", "allow origin local via x\n", 0, "t.rules:1:20: unknown clause \"via\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "via without list", "allow origin forwarded via\n", 0, "t.rules:1:27: \"via\" needs a pattern list" },
	{ "origin twice", "deny origin local origin forwarded\n", 0, "t.rules:1:19: \"origin\" given twice" },
	{ "purpose without value", "allow purpose\n", 0, "t.rules:1:14: \"purpose\" needs login, sshsig, other or any" },
	{ "unknown purpose", "allow purpose signing\n", 0, "t.rules:1:15: unknown purpose \"signing\" (login, sshsig, other or any)" },
	{ "user twice", "allow purpose login user a user b\n", 0, "t.rules:1:28: \"user\" given twice" },
	{ "host twice", "deny purpose login host a user b host c\n", 0, "t.rules:1:34: \"host\" given twice" },
	{ "namespace without list", "allow purpose sshsig namespace\n", 0, "t.rules:1:31: \"namespace\" needs a pattern list" },
	{ "namespace with purpose other", "allow purpose other namespace git\n", 0, "t.rules:1:21: unknown clause \"namespace\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "user with sshsig", "allow purpose sshsig user root\n", 0, "t.rules:1:22: unknown clause \"user\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "purpose twice", "allow purpose other purpose any\n", 0, "t.rules:1:21: \"purpose\" given twice" },
	{ "unterminated quote", "allow caller \"/usr/bin/ssh\n", 0, "t.rules:1:14: unterminated quoted word" },
	{ "unknown escape", "allow caller \"a\\nb\"\n", 0, "t.rules:1:16: unknown escape (only \\\" and \\\\)" },
	{ "backslash at the end of a quote", "allow caller \"a\\\n", 0, "t.rules:1:16: unknown escape (only \\\" and \\\\)" },
	{ "text after a closing quote", "allow caller \"a\"b\n", 0, "t.rules:1:17: a quoted word must end at a blank" },
	{ "quote inside a word", "allow caller a\"b\"\n", 0, "t.rules:1:15: a quote inside a word (quote the whole word)" },
	{ "'#' inside a word", "allow caller a#b\n", 0, "t.rules:1:15: '#' inside a word (quote the word, or put a blank before a comment)" },
	{ "control character", "allow\x01\n", 0, "t.rules:1:6: control character 0x01" },
	{ "DEL", "deny caller a\x7f\n", 0, "t.rules:1:14: control character 0x7f" },
	{ "CR inside a line", "allow\rdeny\n", 0, "t.rules:1:6: control character 0x0d" },
	{ "CR at the end without newline", "allow\r", 0, "t.rules:1:6: control character 0x0d" },
	{ "NUL byte", "allow\0deny\n", 11, "t.rules:1:6: NUL byte" },
	{ "error on line 3 refuses all", "allow\n# fine\nallow bogus\n", 0, "t.rules:3:7: unknown clause \"bogus\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "control character in a comment", "deny\n# \x1b[31m\n", 0, "t.rules:2:3: control character 0x1b" },
	{ "unknown text is cut in the message", "allow caller x " A10 A10 A10 A10 A10 A10 "a\n", 0,
	  "t.rules:1:16: unknown clause \"" A10 A10 A10 A10 A10 A10 "...\" (key, caller, ancestor, origin, purpose, socket or session)" },
	{ "non-ASCII shown as '?'", "\xc3\xa9tat\n", 0, "t.rules:1:1: expected allow, confirm or deny, found \"??tat\"" },
};

static void
test_good(void)
{
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct good_row *g = &good[i];
		struct ruleset *rs = NULL, *again = NULL;
		struct rules_err err;
		struct wb out, out2;
		char in[RULES_MAX_PATTERN + 32], canon[RULES_MAX_PATTERN + 32];
		const char *text = g->in, *want = g->canon;
		int rc;

		if (text == NULL) {
			snprintf(in, sizeof(in), "allow caller %0*d\n",
			    RULES_MAX_PATTERN, 0);
			snprintf(canon, sizeof(canon), "%s", in);
			text = in;
			want = canon;
		}
		wb_init(&out);
		wb_init(&out2);
		rc = rules_parse("t.rules", text, strlen(text), &rs, &err);
		is_int(rc, 0, "accepted: %s", g->name);
		if (rc != 0) {
			printf("#   %s\n", err.msg);
			continue;
		}
		is_int(rules_format(rs, &out), 0, "formats: %s", g->name);
		wb_u8(&out, '\0');
		is_str((const char *)out.p, want, "canonical form: %s", g->name);
		rc = rules_parse("canon", (const char *)out.p, out.len - 1,
		    &again, &err);
		is_int(rc, 0, "canonical form parses: %s", g->name);
		if (rc == 0) {
			ok(rules_equal(rs, again), "round trip, same rules: %s", g->name);
			rules_format(again, &out2);
			wb_u8(&out2, '\0');
			is_str((const char *)out2.p, (const char *)out.p,
			    "canonical form is a fixed point: %s", g->name);
		}
		rules_free(rs);
		rules_free(again);
		wb_free(&out);
		wb_free(&out2);
	}
}

static void
expect_error(const char *name, const char *text, size_t len, const char *want,
    size_t wline, size_t wcol)
{
	struct ruleset *rs = (struct ruleset *)&rs;     /* must stay untouched */
	struct rules_err err;
	int rc;

	rc = rules_parse("t.rules", text, len, &rs, &err);
	is_int(rc, -1, "refused: %s", name);
	ok(rs == (struct ruleset *)&rs, "nothing returned: %s", name);
	is_str(err.msg, want, "error message: %s", name);
	if (wline > 0) {
		is_int(err.line, wline, "error line: %s", name);
		is_int(err.col, wcol, "error column: %s", name);
	}
}

static void
test_bad(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad_row *b = &bad[i];
		size_t line, col;
		/* the message's line and column are the struct's */
		if (sscanf(b->err, "t.rules:%zu:%zu:", &line, &col) != 2)
			line = col = 0;
		expect_error(b->name, b->in, b->len ? b->len : strlen(b->in),
		    b->err, line, col);
	}
}

/* The RULES_* limits, each at its bound (accepted) and one past it. */
static void
test_limits(void)
{
	struct ruleset *rs = NULL;
	struct rules_err err;
	char *big;
	size_t i, n;
	char want[RULES_ERR_MAX];

	if ((big = malloc(RULES_MAX_FILE + 2)) == NULL)
		abort();

	/* file size: a file of comment lines, at the limit and one over */
	memset(big, '#', RULES_MAX_FILE + 1);
	for (i = 1000; i < RULES_MAX_FILE + 1; i += 1000)
		big[i] = '\n';
	ok(rules_parse("t.rules", big, RULES_MAX_FILE, &rs, &err) == 0,
	    "a file of RULES_MAX_FILE bytes is read");
	rules_free(rs);
	rs = NULL;
	snprintf(want, sizeof(want), "t.rules:1:1: file larger than %d bytes",
	    RULES_MAX_FILE);
	expect_error("a file one byte too large", big, RULES_MAX_FILE + 1,
	    want, 1, 1);

	/* line length */
	memset(big, ' ', RULES_MAX_LINE + 1);
	memcpy(big, "deny", 4);
	big[RULES_MAX_LINE] = '\n';
	ok(rules_parse("t.rules", big, RULES_MAX_LINE + 1, &rs, &err) == 0,
	    "a line of RULES_MAX_LINE bytes is read");
	rules_free(rs);
	rs = NULL;
	big[RULES_MAX_LINE] = '\r';
	big[RULES_MAX_LINE + 1] = '\n';
	ok(rules_parse("t.rules", big, RULES_MAX_LINE + 2, &rs, &err) == 0,
	    "... and with a CRLF ending");
	rules_free(rs);
	rs = NULL;
	memcpy(big, "deny\n", 5);
	memset(big + 5, ' ', RULES_MAX_LINE + 1);
	big[5 + RULES_MAX_LINE + 1] = '\n';
	snprintf(want, sizeof(want), "t.rules:2:%d: line longer than %d bytes",
	    RULES_MAX_LINE + 1, RULES_MAX_LINE);
	expect_error("a line one byte too long", big, 5 + RULES_MAX_LINE + 2,
	    want, 2, RULES_MAX_LINE + 1);

	/* the most words a line can hold */
	for (n = 0; n + 2 <= RULES_MAX_LINE; n += 2)
		memcpy(big + n, "x ", 2);
	expect_error("a line of single-byte words", big, n,
	    "t.rules:1:1: expected allow, confirm or deny, found \"x\"", 1, 1);

	/* rules */
	for (n = 0, i = 0; i < RULES_MAX_RULES; i++, n += 5)
		memcpy(big + n, "deny\n", 5);
	ok(rules_parse("t.rules", big, n, &rs, &err) == 0 &&
	    rs->n == RULES_MAX_RULES, "RULES_MAX_RULES rules are read");
	rules_free(rs);
	rs = NULL;
	memcpy(big + n, "deny\n", 5);
	snprintf(want, sizeof(want), "t.rules:%d:1: more than %d rules",
	    RULES_MAX_RULES + 1, RULES_MAX_RULES);
	expect_error("one rule too many", big, n + 5, want,
	    RULES_MAX_RULES + 1, 1);

	/* patterns in one rule, over all its lists */
	n = (size_t)snprintf(big, 64, "allow caller a");
	for (i = 1; i < RULES_MAX_PATTERNS - 1; i++)
		n += (size_t)snprintf(big + n, 8, ",a");
	n += (size_t)snprintf(big + n, 64, " ancestor b");
	ok(rules_parse("t.rules", big, n, &rs, &err) == 0,
	    "RULES_MAX_PATTERNS patterns in one rule are read");
	rules_free(rs);
	rs = NULL;
	n += (size_t)snprintf(big + n, 64, " origin forwarded via c");
	snprintf(want, sizeof(want), "t.rules:1:%zu: more than %d patterns "
	    "in one rule", n, RULES_MAX_PATTERNS);
	expect_error("one pattern too many", big, n, want, 1, n);

	/* one pattern's length */
	n = (size_t)snprintf(big, 64, "deny caller ");
	memset(big + n, 'a', RULES_MAX_PATTERN + 1);
	n += RULES_MAX_PATTERN + 1;
	snprintf(want, sizeof(want), "t.rules:1:13: pattern longer than %d bytes",
	    RULES_MAX_PATTERN);
	expect_error("a pattern one byte too long", big, n, want, 1, 13);

	/* the longest duration, and one second more */
	snprintf(big, 64, "confirm remember=%d", RULES_MAX_REMEMBER);
	ok(rules_parse("t.rules", big, strlen(big), &rs, &err) == 0 &&
	    rs->r[0].remember == RULES_MAX_REMEMBER,
	    "remember=RULES_MAX_REMEMBER is read");
	rules_free(rs);
	rs = NULL;
	free(big);
}

/* ------------------------------------------------------------ decisions */

struct dec_row {
	const char *name;
	const char *rules;
	const char *fp, *comment, *exe;
	const char *ancestor;           /* one ancestor, or NULL for none */
	int forwarded;
	const char *hop1, *hop2;        /* up to two hops */
	enum rule_purpose purpose;
	const char *user, *host, *ns;
	enum rule_action want;
	size_t line;                    /* of the rule that decides, 0: none */
	uint32_t remember;
};

/* keyward(5), EXAMPLES: the three worked examples, word for word
 * (tests/integration/95-manpage.t checks that each line is here). */
#define EX_GIT \
	"allow key SHA256:5tMhpU5r5oppAvvffFidD8vI+HzXjbQ/cvHMEYjeiYk ancestor /usr/bin/git origin local purpose sshsig namespace git\n" \
	"deny  key SHA256:5tMhpU5r5oppAvvffFidD8vI+HzXjbQ/cvHMEYjeiYk\n"
#define EX_PROD \
	"confirm remember=10m key comment prod* caller /usr/bin/ssh\n" \
	"deny    key comment prod*\n"
#define EX_FWD \
	"deny key SHA256:raNVEYAEFHcZaFGCYiJalafZKpE9IcRi6s1A5bKTVsw origin forwarded\n"
#define FIRST \
	"deny caller /usr/bin/python3\n" \
	"allow key " FPX "\n" \
	"deny\n"
#define VIA \
	"deny origin forwarded via *,!bastion,!jump?\n"
#define VIA_ALLOW \
	"allow origin forwarded via bastion\n" \
	"deny\n"

#define LOGIN   RULE_PURPOSE_LOGIN
#define SSHSIG  RULE_PURPOSE_SSHSIG
#define OTHER   RULE_PURPOSE_OTHER
#define SSH     "/usr/bin/ssh"
#define KEYGEN  "/usr/bin/ssh-keygen"
#define GIT     "/usr/bin/git"
#define PY      "/usr/bin/python3"

static const struct dec_row dec[] = {
	/* git may sign only namespace git with key X */
	{ "git: commit signature with X", EX_GIT, FPX, "perseus", KEYGEN, GIT, 0, NULL, NULL, SSHSIG, NULL, NULL, "git", RULE_ALLOW, 1, 0 },
	{ "git: -n file with X, under git", EX_GIT, FPX, "perseus", KEYGEN, GIT, 0, NULL, NULL, SSHSIG, NULL, NULL, "file", RULE_DENY, 2, 0 },
	{ "git: ssh-keygen -n git from a shell", EX_GIT, FPX, "perseus", KEYGEN, "/bin/bash", 0, NULL, NULL, SSHSIG, NULL, NULL, "git", RULE_DENY, 2, 0 },
	{ "git: a login with X", EX_GIT, FPX, "perseus", SSH, "/bin/bash", 0, NULL, NULL, LOGIN, "root", "scylla", NULL, RULE_DENY, 2, 0 },
	{ "git: other data under git", EX_GIT, FPX, "perseus", KEYGEN, GIT, 0, NULL, NULL, OTHER, NULL, NULL, NULL, RULE_DENY, 2, 0 },
	{ "git: key Y is not concerned", EX_GIT, FPY, "scylla", KEYGEN, "/bin/bash", 0, NULL, NULL, SSHSIG, NULL, NULL, "file", RULE_ALLOW, 0, 0 },
	{ "git: a forwarded server through git's ssh", EX_GIT, FPX, "perseus", SSH, GIT, 1, "githost", NULL, SSHSIG, NULL, NULL, "git", RULE_DENY, 2, 0 },
	{ "git: the same without origin local", "allow key " FPX " ancestor /usr/bin/git purpose sshsig namespace git\ndeny key " FPX "\n", FPX, "perseus", SSH, GIT, 1, "githost", NULL, SSHSIG, NULL, NULL, "git", RULE_DENY, 2, 0 },
	{ "git: no ancestors known", EX_GIT, FPX, "perseus", KEYGEN, NULL, 0, NULL, NULL, SSHSIG, NULL, NULL, "git", RULE_DENY, 2, 0 },
	/* only /usr/bin/ssh may use the prod key, confirmed, remembered 10 min */
	{ "prod: ssh logs in", EX_PROD, FPX, "prod-2026", SSH, "/bin/bash", 0, NULL, NULL, LOGIN, "deploy", "charybdis", NULL, RULE_CONFIRM, 1, 600 },
	{ "prod: ssh relaying for a forwarded server", EX_PROD, FPX, "prod-2026", SSH, "/bin/bash", 1, "perseus", NULL, LOGIN, "deploy", "charybdis", NULL, RULE_DENY, 2, 0 },
	{ "prod: python3 (paramiko)", EX_PROD, FPX, "prod-2026", PY, "/bin/bash", 0, NULL, NULL, LOGIN, "deploy", "charybdis", NULL, RULE_DENY, 2, 0 },
	{ "prod: an unreadable caller", EX_PROD, FPX, "prod-2026", NULL, NULL, 0, NULL, NULL, LOGIN, "deploy", "charybdis", NULL, RULE_DENY, 2, 0 },
	{ "prod: ssh under another name", EX_PROD, FPX, "prod-2026", "/tmp/ssh", "/bin/bash", 0, NULL, NULL, LOGIN, "deploy", "charybdis", NULL, RULE_DENY, 2, 0 },
	{ "prod: another key", EX_PROD, FPY, "scylla", PY, NULL, 0, NULL, NULL, LOGIN, "deploy", "charybdis", NULL, RULE_ALLOW, 0, 0 },
	{ "prod: a key without comment", EX_PROD, FPY, NULL, PY, NULL, 0, NULL, NULL, LOGIN, "deploy", "charybdis", NULL, RULE_ALLOW, 0, 0 },
	{ "prod: a forwarded unverified login", EX_PROD, FPX, "prod-2026", SSH, "/bin/bash", 1, "perseus", NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 2, 0 },
	/* key Y is never used through a forwarded agent */
	{ "fwd: Y forwarded", EX_FWD, FPY, "scylla", SSH, NULL, 1, "perseus", NULL, LOGIN, "root", "charybdis", NULL, RULE_DENY, 1, 0 },
	{ "fwd: Y forwarded, no hop name", EX_FWD, FPY, "scylla", SSH, NULL, 1, NULL, NULL, LOGIN, "root", "charybdis", NULL, RULE_DENY, 1, 0 },
	{ "fwd: Y local", EX_FWD, FPY, "scylla", SSH, "/bin/bash", 0, NULL, NULL, LOGIN, "root", "charybdis", NULL, RULE_ALLOW, 0, 0 },
	{ "fwd: X forwarded", EX_FWD, FPX, "perseus", SSH, NULL, 1, "perseus", NULL, LOGIN, "root", "charybdis", NULL, RULE_ALLOW, 0, 0 },
	/* first match wins; the default */
	{ "first: python3 with X", FIRST, FPX, NULL, PY, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "first: ssh with X", FIRST, FPX, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 2, 0 },
	{ "first: ssh with Y, the final deny", FIRST, FPY, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 3, 0 },
	{ "default: no rules", "", FPX, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "default: only comments", "# nothing\n", FPX, NULL, SSH, NULL, 1, NULL, NULL, OTHER, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	/* patterns */
	{ "negation excludes", "deny caller *,!/usr/bin/ssh\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "negation: others match", "deny caller *,!/usr/bin/ssh\n", NULL, NULL, PY, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "negation: unknown caller is \"\"", "deny caller *,!/usr/bin/ssh\n", NULL, NULL, NULL, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "negation alone never matches", "deny caller !/usr/bin/ssh\n", NULL, NULL, PY, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "? is one byte", "deny caller /usr/bin/ss?\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "? is not two", "deny caller /usr/bin/ss?\n", NULL, NULL, KEYGEN, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "patterns are whole-string", "deny caller ssh\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "case matters", "deny caller /USR/BIN/SSH\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "a key rule, query without fingerprint", "deny key " FPX "\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "comment * matches no comment", "deny key comment *\n", FPX, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	/* origin and hops */
	{ "local: not forwarded", "deny origin local\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "local: forwarded is not", "deny origin local\n", NULL, NULL, SSH, NULL, 1, "a", NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "via: one allowed hop", VIA, NULL, NULL, SSH, NULL, 1, "bastion", NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "via: two allowed hops", VIA, NULL, NULL, SSH, NULL, 1, "bastion", "jump1", LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "via: one other hop is enough", VIA, NULL, NULL, SSH, NULL, 1, "bastion", "evil", LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "via: an unnamed hop is \"\"", VIA, NULL, NULL, SSH, NULL, 1, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "via: local is not forwarded", VIA, NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "via allow: the first hop matches", VIA_ALLOW, NULL, NULL, SSH, NULL, 1, "bastion", "evil", LOGIN, NULL, NULL, NULL, RULE_ALLOW, 1, 0 },
	{ "via allow: a later hop (the server's claim) is not enough", VIA_ALLOW, NULL, NULL, SSH, NULL, 1, "evil", "bastion", LOGIN, NULL, NULL, NULL, RULE_DENY, 2, 0 },
	{ "via allow: no hop matches", VIA_ALLOW, NULL, NULL, SSH, NULL, 1, "evil", NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 2, 0 },
	{ "via allow: local", VIA_ALLOW, NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 2, 0 },
	/* purposes */
	{ "login user", "deny purpose login user root\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, "root", "h", NULL, RULE_DENY, 1, 0 },
	{ "login other user", "deny purpose login user root\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, "git", "h", NULL, RULE_ALLOW, 0, 0 },
	{ "login unknown user", "deny purpose login user root\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, NULL, "h", NULL, RULE_ALLOW, 0, 0 },
	{ "login host", "confirm purpose login host *.prod.example.com\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, "u", "db1.prod.example.com", NULL, RULE_CONFIRM, 1, 0 },
	{ "login other host", "confirm purpose login host *.prod.example.com\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, "u", "db1.dev.example.com", NULL, RULE_ALLOW, 0, 0 },
	{ "login is not sshsig", "deny purpose login\n", NULL, NULL, KEYGEN, NULL, 0, NULL, NULL, SSHSIG, NULL, NULL, "git", RULE_ALLOW, 0, 0 },
	{ "sshsig any namespace", "deny purpose sshsig\n", NULL, NULL, KEYGEN, NULL, 0, NULL, NULL, SSHSIG, NULL, NULL, "file", RULE_DENY, 1, 0 },
	{ "sshsig is not other", "deny purpose sshsig\n", NULL, NULL, KEYGEN, NULL, 0, NULL, NULL, OTHER, NULL, NULL, NULL, RULE_ALLOW, 0, 0 },
	{ "other", "deny purpose other\n", NULL, NULL, KEYGEN, NULL, 0, NULL, NULL, OTHER, NULL, NULL, NULL, RULE_DENY, 1, 0 },
	{ "other is not login", "deny purpose other\n", NULL, NULL, SSH, NULL, 0, NULL, NULL, LOGIN, "u", "h", NULL, RULE_ALLOW, 0, 0 },
	{ "ancestor: any of them", "deny ancestor /usr/bin/tmux\n", NULL, NULL, SSH, "/usr/bin/tmux", 0, NULL, NULL, LOGIN, NULL, NULL, NULL, RULE_DENY, 1, 0 },
};

static void
test_decide(void)
{
	size_t i;

	for (i = 0; i < sizeof(dec) / sizeof(dec[0]); i++) {
		const struct dec_row *d = &dec[i];
		struct ruleset *rs = NULL;
		struct rules_err err;
		const struct rule *which = (const struct rule *)&which;
		const char *anc[2] = { "/bin/bash", d->ancestor };
		const char *hops[2] = { d->hop1, d->hop2 };
		struct rules_query q = {
			.fingerprint = d->fp, .comment = d->comment,
			.exe = d->exe, .ancestors = anc,
			.nancestors = d->ancestor != NULL ? 2 : 0,
			.forwarded = d->forwarded, .hops = hops,
			.nhops = d->hop2 != NULL ? 2 :
			    d->forwarded ? 1 : 0,
			.first_hop = d->hop1 != NULL,
			.purpose = d->purpose, .user = d->user,
			.host = d->host, .ns = d->ns,
			.verified = d->user != NULL || d->host != NULL,
		};
		enum rule_action got;

		if (rules_parse("t.rules", d->rules, strlen(d->rules), &rs,
		    &err) != 0) {
			ok(0, "rules of \"%s\" parse", d->name);
			printf("#   %s\n", err.msg);
			continue;
		}
		got = rules_decide(rs, &q, &which);
		is_str(rules_action_name(got), rules_action_name(d->want),
		    "%s: %s", d->name, rules_action_name(d->want));
		is_int(which != NULL ? which->line : 0, d->line,
		    "%s: decided by line %zu", d->name, d->line);
		if (which != NULL)
			is_int(which->remember, d->remember,
			    "%s: remember %u s", d->name, d->remember);
		rules_free(rs);
	}
}

/* A forwarded request whose path the caller could not name at all may
 * have come through any host: a deny on a host holds, a confirm on one
 * asks where the rest would allow, an allow does not let it through. */
static void
test_no_hops(void)
{
	struct ruleset *rs = NULL;
	struct rules_err err;
	struct rules_query q = { .purpose = RULE_PURPOSE_OTHER,
	    .forwarded = 1, .nhops = 0 };
	const char *text = "deny origin forwarded via *,!bastion\n"
	    "confirm origin forwarded via bastion\n";

	if (rules_parse("t.rules", text, strlen(text), &rs, &err) != 0)
		abort();
	is_int(rules_decide(rs, &q, NULL), RULE_DENY,
	    "forwarded without hops: a deny via hosts holds");
	rules_free(rs);
	text = "confirm origin forwarded via bastion\n";
	if (rules_parse("t.rules", text, strlen(text), &rs, &err) != 0)
		abort();
	is_int(rules_decide(rs, &q, NULL), RULE_CONFIRM,
	    "forwarded without hops: a confirm via bastion asks (else: allowed)");
	rules_free(rs);
	text = "allow origin forwarded via bastion\ndeny\n";
	if (rules_parse("t.rules", text, strlen(text), &rs, &err) != 0)
		abort();
	is_int(rules_decide(rs, &q, NULL), RULE_DENY,
	    "forwarded without hops: an allow via bastion does not let it through");
	rules_free(rs);
}

/* "session locked|unlocked": logind's word, which no server chooses, so
 * it decides as a plain yes or no, an allow as well as a deny; with no
 * session followed neither state matches. */
static void
test_session(void)
{
	static const struct {
		const char *name, *rules;
		enum rule_session state;
		int forwarded;
		enum rule_action want;
		size_t line;
	} rows[] = {
		{ "locked, forwarded: the deny", "deny origin forwarded session locked\nallow\n",
		  RULE_SESSION_LOCKED, 1, RULE_DENY, 1 },
		{ "unlocked, forwarded: past the deny", "deny origin forwarded session locked\nallow\n",
		  RULE_SESSION_UNLOCKED, 1, RULE_ALLOW, 2 },
		{ "no session, forwarded: past the deny", "deny origin forwarded session locked\nallow\n",
		  RULE_SESSION_ANY, 1, RULE_ALLOW, 2 },
		{ "locked, local: past the deny", "deny origin forwarded session locked\nallow\n",
		  RULE_SESSION_LOCKED, 0, RULE_ALLOW, 2 },
		{ "unlocked, forwarded: the allow holds (a fact, not a claim)",
		  "allow origin forwarded session unlocked\ndeny\n",
		  RULE_SESSION_UNLOCKED, 1, RULE_ALLOW, 1 },
		{ "locked, forwarded: the allow does not match",
		  "allow origin forwarded session unlocked\ndeny\n",
		  RULE_SESSION_LOCKED, 1, RULE_DENY, 2 },
		{ "no session: session unlocked does not match",
		  "allow session unlocked\ndeny\n",
		  RULE_SESSION_ANY, 0, RULE_DENY, 2 },
		{ "no session: session locked does not match",
		  "deny session locked\n", RULE_SESSION_ANY, 0, RULE_ALLOW, 0 },
		{ "locked: confirm", "confirm session locked\n",
		  RULE_SESSION_LOCKED, 0, RULE_CONFIRM, 1 },
		{ "no clause: any state", "deny\n", RULE_SESSION_LOCKED, 1, RULE_DENY, 1 },
		/* the lines of keyward(5)'s examples, each alone */
		{ "example: the allow, unlocked", "allow origin forwarded session unlocked\n",
		  RULE_SESSION_UNLOCKED, 1, RULE_ALLOW, 1 },
		{ "example: the allow, locked: no rule", "allow origin forwarded session unlocked\n",
		  RULE_SESSION_LOCKED, 1, RULE_ALLOW, 0 },
		{ "example: the deny", "deny  origin forwarded\n",
		  RULE_SESSION_LOCKED, 1, RULE_DENY, 1 },
		{ "example: prod keys, locked, local", "deny key comment prod* session locked\n",
		  RULE_SESSION_LOCKED, 0, RULE_DENY, 1 },
		{ "example: prod keys, unlocked", "deny key comment prod* session locked\n",
		  RULE_SESSION_UNLOCKED, 0, RULE_ALLOW, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ruleset *rs = NULL;
		struct rules_err err;
		const struct rule *which = NULL;
		const char *hops[1] = { "h" };
		struct rules_query q = { .purpose = RULE_PURPOSE_OTHER,
		    .forwarded = rows[i].forwarded, .hops = hops,
		    .nhops = rows[i].forwarded ? 1 : 0,
		    .first_hop = rows[i].forwarded, .socket = "main",
		    .comment = "prod-db", .session = rows[i].state };

		if (rules_parse("t.rules", rows[i].rules, strlen(rows[i].rules),
		    &rs, &err) != 0)
			abort();
		is_str(rules_action_name(rules_decide(rs, &q, &which)),
		    rules_action_name(rows[i].want), "session: %s: %s",
		    rows[i].name, rules_action_name(rows[i].want));
		is_int(which != NULL ? which->line : 0, rows[i].line,
		    "session: %s: line %zu", rows[i].name, rows[i].line);
		rules_free(rs);
	}
}

static void
test_no_ruleset(void)
{
	struct rules_query q = { .purpose = RULE_PURPOSE_LOGIN };
	const struct rule *which = (const struct rule *)&which;

	is_int(rules_decide(NULL, &q, &which), RULE_ALLOW,
	    "no ruleset at all: allow");
	ok(which == NULL, "no ruleset at all: no rule named");
}

/* rules_read_file, the one read of a rules file (keyward -O policy=,
 * keyward-ctl policy load): whole up to RULES_MAX_FILE bytes, refused
 * past it, with why and the path shown for a terminal. */
static void
write_file(const char *path, size_t n)
{
	char block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	memset(block, '#', sizeof(block));
	while (fd >= 0 && n > 0) {
		size_t k = n < sizeof(block) ? n : sizeof(block);
		if (write(fd, block, k) != (ssize_t)k)
			break;
		n -= k;
	}
	if (fd >= 0)
		close(fd);
}

static void
test_read_file(void)
{
	char dir[] = "/tmp/test_rules.XXXXXX", path[128], msg[RULES_READ_MSG_MAX];
	char *text = NULL;
	size_t len = 0;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/full", dir);
	write_file(path, RULES_MAX_FILE);
	ok(rules_read_file(path, &text, &len, msg, sizeof(msg)) == 0 &&
	    len == RULES_MAX_FILE && text[0] == '#' &&
	    text[RULES_MAX_FILE - 1] == '#', "a file of RULES_MAX_FILE bytes is read whole");
	free(text);
	text = NULL;
	write_file(path, RULES_MAX_FILE + 1);
	is_int(rules_read_file(path, &text, &len, msg, sizeof(msg)), -1,
	    "one byte more is refused");
	ok(text == NULL && strstr(msg, "larger than 65536 bytes") != NULL,
	    "... saying it is too large (%.200s)", msg);
	unlink(path);
	write_file(path, 0);
	ok(rules_read_file(path, &text, &len, msg, sizeof(msg)) == 0 && len == 0,
	    "an empty file is read (no rules)");
	free(text);
	text = NULL;
	unlink(path);
	is_int(rules_read_file(path, &text, &len, msg, sizeof(msg)), -1,
	    "a missing file is refused");
	ok(strncmp(msg, "cannot open the policy ", 23) == 0 &&
	    strstr(msg, "/full: ") != NULL, "... saying it cannot open it (%.200s)", msg);
	is_int(rules_read_file(dir, &text, &len, msg, sizeof(msg)), -1,
	    "a directory is refused");
	ok(strncmp(msg, "cannot read the policy ", 23) == 0,
	    "... saying it cannot read it (%.200s)", msg);
	snprintf(path, sizeof(path), "%s/esc\033]0;x\a", dir);
	write_file(path, RULES_MAX_FILE + 1);
	is_int(rules_read_file(path, &text, &len, msg, sizeof(msg)), -1,
	    "a too large file with control bytes in its name is refused");
	ok(strchr(msg, '\033') == NULL && strchr(msg, '\a') == NULL,
	    "... and the message carries none of them");
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	test_read_file();
	test_good();
	test_bad();
	test_limits();
	test_decide();
	test_no_hops();
	test_no_ruleset();
	test_session();
	return done_testing();
}
