/*
 * test_sockpath.c - how the socket path is printed in the shell commands
 * (doc/protocol.md §11.2, 10.3+ rules): \, ' and " get a backslash; a path with a
 * space or tab is wrapped in double quotes; nothing else is escaped.
 */
#include "monitor/sockpath.h"
#include "tests/unit/tap.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *in, *want;
} quotes[] = {
	{ "plain default path: unchanged",
	  "/home/u/.ssh/agent/s.hQ3kZr7MbA.agent.Xy3pQ0aBcD",
	  "/home/u/.ssh/agent/s.hQ3kZr7MbA.agent.Xy3pQ0aBcD" },
	{ "space: wrapped in double quotes", "/tmp/with space/agent.1",
	  "\"/tmp/with space/agent.1\"" },
	{ "tab: wrapped in double quotes", "/tmp/a\tb", "\"/tmp/a\tb\"" },
	{ "backslash escaped", "/tmp/a\\b", "/tmp/a\\\\b" },
	{ "single quote escaped", "/tmp/perseus's", "/tmp/perseus\\'s" },
	{ "double quote escaped", "/tmp/a\"b", "/tmp/a\\\"b" },
	{ "space and double quote: escaped inside the quotes", "/tmp/a \"b\"",
	  "\"/tmp/a \\\"b\\\"\"" },
	{ "$, backquote and ; are not escaped", "/tmp/$HOME`x`;y", "/tmp/$HOME`x`;y" },
	{ "newline is not a reason to quote", "/tmp/a\nb", "/tmp/a\nb" },
	{ "empty path", "", "" },
};

static void
test_quote(void)
{
	char out[512];

	for (size_t i = 0; i < sizeof(quotes) / sizeof(quotes[0]); i++) {
		sock_quote(quotes[i].in, out, sizeof(out));
		is_str(out, quotes[i].want, "quote: %s", quotes[i].name);
	}
}

/* A buffer too small: the output is cut, never written past its end, and
 * always NUL-terminated (the buffer is malloc'd to size for ASan). */
static void
test_quote_small(void)
{
	static const char *const paths[] = {
		"/tmp/with space/agent.1", "/tmp/a\\b\\c\\d", "/home/u/.ssh/agent/s.x",
	};
	int good = 1;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		for (size_t n = 1; n < 40; n++) {
			char *out = malloc(n);
			sock_quote(paths[i], out, n);
			good = good && memchr(out, '\0', n) != NULL;
			free(out);
		}
	ok(good, "quote into buffers of 1..39 bytes: cut, NUL-terminated, in bounds");
}

int
main(void)
{
	test_quote();
	test_quote_small();
	return done_testing();
}
