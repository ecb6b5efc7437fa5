/*
 * test_caller.c - a connection's caller kept and shown (policy/caller.c):
 * what a prompt and a refusal say, and the audit record's "peer" object,
 * with every byte the peer chose escaped.
 */
#include "policy/caller.h"
#include "tests/unit/tap.h"

#include <string.h>

static struct slice
S(const char *s)
{
	return (struct slice){ (const uint8_t *)s, strlen(s) };
}

static void
json_is(const struct caller *c, uint32_t pid, const char *want, const char *name)
{
	struct wb w;
	char *got;

	wb_init(&w);
	caller_json(&w, c, pid, 1000);
	wb_u8(&w, '\0');
	got = (char *)w.p;
	is_str(got, want, "%s", name);
	wb_free(&w);
}

int
main(void)
{
	struct peer_reply m;
	struct caller c;
	char out[512];

	memset(&c, 0, sizeof(c));
	caller_free(&c);
	is_int(c.status, PEER_UNAVAILABLE, "a fresh caller is unavailable");
	caller_describe(&c, 42, out, sizeof(out));
	is_str(out, "pid 42 (not inspected)", "described: not inspected");
	json_is(&c, 42, "{\"pid\":42,\"uid\":1000,\"status\":\"unavailable\"}",
	    "json: unavailable, no exe");

	memset(&m, 0, sizeof(m));
	m.status = PEER_OK;
	m.exe = S("/usr/bin/ssh");
	m.cmdline = S("ssh -A perseus");
	m.nanc = 2;
	m.anc[0] = (struct peer_anc){ 4100, S("/usr/bin/bash"), S("-bash") };
	m.anc[1] = (struct peer_anc){ 12, S("/usr/bin/tmux"), S("tmux") };
	ok(caller_set(&c, &m) == 0, "caller_set: ok with two ancestors");
	caller_describe(&c, 4242, out, sizeof(out));
	is_str(out, "ssh -A perseus (pid 4242), from bash <- tmux",
	    "described: command line, pid, ancestors by executable name");
	json_is(&c, 4242, "{\"pid\":4242,\"uid\":1000,\"status\":\"ok\","
	    "\"exe\":\"/usr/bin/ssh\",\"cmdline\":\"ssh -A perseus\",\"ancestors\":["
	    "{\"pid\":4100,\"exe\":\"/usr/bin/bash\",\"argv0\":\"-bash\"},"
	    "{\"pid\":12,\"exe\":\"/usr/bin/tmux\",\"argv0\":\"tmux\"}]}",
	    "json: the whole peer");

	/* A peer that names itself with escapes and newlines. */
	m.cmdline = S("evil\n\x1b[2JAllow? yes\"");
	m.anc[0].exe = S("");           /* another uid's parent */
	m.anc[0].argv0 = S("sudo");
	ok(caller_set(&c, &m) == 0, "caller_set: a hostile command line");
	caller_describe(&c, 7, out, sizeof(out));
	ok(strchr(out, '\n') == NULL && strchr(out, '\x1b') == NULL,
	    "described: no newline, no escape byte reaches a prompt");
	ok(strstr(out, "from sudo <- tmux") != NULL,
	    "an ancestor without an exe is named by its argv[0]");
	json_is(&c, 7, "{\"pid\":7,\"uid\":1000,\"status\":\"ok\","
	    "\"exe\":\"/usr/bin/ssh\",\"cmdline\":\"evil\\u000a\\u001b[2JAllow? yes\\\"\","
	    "\"ancestors\":[{\"pid\":4100,\"exe\":\"\",\"argv0\":\"sudo\"},"
	    "{\"pid\":12,\"exe\":\"/usr/bin/tmux\",\"argv0\":\"tmux\"}]}",
	    "json: escaped, valid");

	/* An empty command line (a process that blanked its argv). */
	m.cmdline = S("");
	m.nanc = 0;
	ok(caller_set(&c, &m) == 0, "caller_set: empty command line");
	caller_describe(&c, 9, out, sizeof(out));
	is_str(out, "/usr/bin/ssh (pid 9)", "described by its executable instead");

	/* Statuses without data keep none, whatever was there before. */
	m.status = PEER_GONE;
	ok(caller_set(&c, &m) == 0 && c.exe == NULL && c.nanc == 0,
	    "gone: nothing kept");
	caller_describe(&c, 9, out, sizeof(out));
	is_str(out, "pid 9 (gone before it could be read)", "described: gone");
	m.status = PEER_UNREADABLE;
	c.uid = 1000;           /* the connection's, kept through caller_set */
	caller_set(&c, &m);
	is_int(c.uid, 1000, "caller_set keeps the connection's uid");
	caller_init(1000);
	caller_describe(&c, 1, out, sizeof(out));
	is_str(out, "pid 1 (a process keyward cannot inspect)",
	    "described: unreadable, the agent's own uid");
	c.uid = 1001;
	caller_describe(&c, 1, out, sizeof(out));
	is_str(out, "pid 1 (another user's; not readable)",
	    "described: unreadable, another uid");
	c.uid = 0;
	caller_describe(&c, 1, out, sizeof(out));
	is_str(out, "pid 1 (a root process keyward cannot inspect)",
	    "described: unreadable root process, for a user's agent");
	caller_init(0);
	caller_describe(&c, 1, out, sizeof(out));
	is_str(out, "pid 1 (a root process keyward cannot inspect)",
	    "described: unreadable root process, for root's agent (not another user's)");
	json_is(&c, 1, "{\"pid\":1,\"uid\":1000,\"status\":\"unreadable\"}",
	    "json: unreadable");

	/* Cut, never overrun. */
	m.status = PEER_OK;
	m.cmdline = S("ssh -A perseus");
	caller_set(&c, &m);
	caller_describe(&c, 4242, out, 10);
	is_int(strlen(out), 9, "a short buffer is filled and terminated");
	caller_free(&c);
	return done_testing();
}
