/*
 * main.c - keyward-ctl: ask the agent on SSH_AUTH_SOCK (or -a) for its
 * identities with their constraints (CONSTRAINTS_EXTENSION, wire/listing.h) and
 * print them like ssh-add -l, or as JSON; load or show its rules
 * (POLICY_EXTENSION); list its connections (CONNS_EXTENSION,
 * wire/conns.h); keygen, verify and tail the audit trail (ctl/audit.c,
 * no agent needed). It trusts the agent for nothing but the answer's content:
 * one frame, at most AGENT_MAX_FRAME bytes, within CTL_REPLY_TIMEOUT_MS,
 * decoded whole before anything is printed.
 */
#include "ctl/audit.h"
#include "ctl/client.h"
#include "ctl/conns.h"
#include "ctl/listing.h"
#include "ctl/print.h"
#include "ctl/session.h"
#include "wire/agent.h"
#include "wire/args.h"
#include "ipc/limits.h"
#include "ipc/text.h"
#include "rules/rules.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void
usage(FILE *f)
{
	fputs("usage: keyward-ctl [--json] [-a socket]\n"
	    "       keyward-ctl [-a socket] policy load FILE\n"
	    "       keyward-ctl [-a socket] policy show\n"
	    "       keyward-ctl [--json] [-a socket] connections\n"
	    "       keyward-ctl [--json] [-a socket] session\n"
	    "       keyward-ctl audit keygen KEYFILE\n"
	    "       keyward-ctl audit verify [--state KEYFILE] [--tag TAG] TRAIL [VERIFYKEY]\n"
	    "       keyward-ctl audit tail [-f] [--json] TRAIL\n", f);
}

static int
flushed(const char *what)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "keyward-ctl: writing the %s: %s\n", what,
		    strerror(errno));
		return EX_BAD;
	}
	return EX_LISTED;
}

static void
list_request(struct wb *w)
{
	wb_u8(w, SSH2_AGENTC_REQUEST_IDENTITIES);
}

/* FAILURE (5) to one of keyward's extensions: a locked keyward answers
 * every extension so (doc/protocol.md §5.11), and so does an agent that is not
 * keyward. The agent's process name (/proc/PID/comm, readable even for a
 * process that is not dumpable) tells them apart where the socket is the
 * agent's own; a list with a key in it proves the agent is not locked. */
static void
unsupported(const char *sock, const char *ext)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	char path[64], comm[32] = "";
	uint8_t *reply = NULL;
	size_t len = 0;
	struct wb req;
	uint32_t nkeys = 0;
	int fd, f, listed = 0;
	ssize_t r;

	if ((fd = agent_connect(sock)) >= 0) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 &&
		    cr.pid > 0) {
			snprintf(path, sizeof(path), "/proc/%ld/comm", (long)cr.pid);
			if ((f = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
				if ((r = read(f, comm, sizeof(comm) - 1)) > 0)
					comm[r] = '\0';
				comm[strcspn(comm, "\n")] = '\0';
				close(f);
			}
		}
		wb_init(&req);
		list_request(&req);
		if (exchange(fd, &req, &reply, &len) == EX_LISTED &&
		    agent_identities_count((struct slice){ reply, len }, &nkeys) == 0)
			listed = 1;
		free(reply);
		wb_free(&req);
		close(fd);
	}
	if (strcmp(comm, "keyward") == 0 && (!listed || nkeys == 0))
		fputs("keyward-ctl: the agent is locked (ssh-add -X unlocks it)\n",
		    stderr);
	else if (listed && nkeys > 0)
		fprintf(stderr, "keyward-ctl: the agent does not support %s: it "
		    "is not keyward\n", ext);
	else
		fprintf(stderr, "keyward-ctl: the agent does not support %s: it "
		    "is not keyward, or it is locked\n", ext);
}

/* What keyward-ctl says of an answer that is not the one asked for. */
static int
not_answered(const char *sock, enum ext_answer a, const char *what,
    const char *ext, const char *why)
{
	switch (a) {
	case EXT_REFUSED:
		/* The refusal carries no reason: name each the agent has,
		 * and where it says which. */
		fprintf(stderr, "keyward-ctl: the agent refused %s: the "
		    "connection is forwarded, or the socket is a named one "
		    "not declared \"manage\" (keyward(5)), or %s; the agent's "
		    "log says which\n", what,
		    strcmp(ext, POLICY_EXTENSION) == 0 ?
		    "the rules do not parse" : "it is out of memory");
		return EX_NONE_OR_REFUSED;
	case EXT_UNSUPPORTED:
		unsupported(sock, ext);
		return EX_NONE_OR_REFUSED;
	default:
		fprintf(stderr, "keyward-ctl: malformed reply: %s\n",
		    why != NULL ? why : "?");
		return EX_BAD;
	}
}

static int
list(const char *sock, int json)
{
	struct listing l;
	const char *why;
	uint8_t *reply;
	size_t len;
	int rc;

	rc = agent_request_built(sock, listing_request, &reply, &len);
	if (rc != EX_LISTED)
		return rc;
	switch (listing_reply_decode((struct slice){ reply, len }, &l, &why)) {
	case EXT_ANSWERED:
		break;
	case EXT_REFUSED:
		free(reply);
		fputs("keyward-ctl: the agent refused to show constraints: "
		    "the connection is forwarded, or the socket is a named "
		    "one not declared \"manage\" (keyward(5)); the agent's "
		    "log says which\n", stderr);
		return EX_NONE_OR_REFUSED;
	case EXT_UNSUPPORTED:
		free(reply);
		unsupported(sock, CONSTRAINTS_EXTENSION);
		return EX_NONE_OR_REFUSED;
	case EXT_MALFORMED:
		free(reply);
		fprintf(stderr, "keyward-ctl: malformed reply: %s\n", why);
		return EX_BAD;
	}
	if (json)
		print_json(stdout, &l);
	else
		print_text(stdout, &l);
	rc = l.n > 0 ? EX_LISTED : EX_NONE_OR_REFUSED;
	listing_free(&l);
	free(reply);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "keyward-ctl: writing the listing: %s\n", strerror(errno));
		return EX_BAD;
	}
	return rc;
}

/* ------------------------------------------------------------ policy */

/* The sockets are made when keyward starts (keyward(5)): a file that
 * declares others than the rules in force is refused here, with why,
 * before the agent refuses it without a word. 0 same (or the agent
 * would not show its rules: it judges alone), -1 with a message. */
static int
same_sockets(const char *sock, const char *path, const struct ruleset *rs)
{
	char shown[TEXT_TERM_MAX];
	struct ruleset *now = NULL;
	struct rules_err err;
	struct slice text;
	const char *why;
	uint8_t *reply;
	size_t len, i;
	struct rd r;
	int same;

	if (agent_request_built(sock, agent_policy_show_request, &reply, &len) != EX_LISTED)
		return 0;
	if (agent_ext_answer_open((struct slice){ reply, len }, POLICY_EXTENSION, 0, &r,
	    &why) != EXT_ANSWERED || agent_policy_show_body_decode(&r, &text) != 0 ||
	    rules_parse("the agent's rules",
	    (const char *)text.p, text.len, &now, &err) != 0) {
		free(reply);
		return 0;
	}
	free(reply);
	same = now->nsock == rs->nsock;
	for (i = 0; same && i < rs->nsock; i++) {
		const struct rule_socket *a = &now->sock[i], *b = &rs->sock[i];
		same = strcmp(a->name, b->name) == 0 && a->manage == b->manage &&
		    (a->path == NULL ? b->path == NULL :
		    b->path != NULL && strcmp(a->path, b->path) == 0);
	}
	rules_free(now);
	if (same)
		return 0;
	text_term_str(shown, sizeof(shown), path);
	fprintf(stderr, "keyward-ctl: %s declares other sockets than the agent "
	    "listens on: sockets are made when keyward starts, so a policy "
	    "load cannot add, remove or change one (restart keyward with "
	    "-O policy= to do that)\n", shown);
	return -1;
}

/* The agent gives no reason for a refusal on the wire, so the file is
 * parsed here first, with keyward's own parser: a mistake is reported
 * with its file, line and column before anything is sent. */
static int
policy_load(const char *sock, const char *path)
{
	struct ruleset *rs;
	char why_read[RULES_READ_MSG_MAX];
	struct rules_err err;
	enum ext_answer a;
	const char *why;
	struct wb req;
	struct rd r;
	uint8_t *reply;
	size_t len, nrules;
	char *text;
	int rc;

	if (rules_read_file(path, &text, &len, why_read, sizeof(why_read)) != 0) {
		fprintf(stderr, "keyward-ctl: %s\n", why_read);
		return EX_BAD;
	}
	if (rules_parse(path, text, len, &rs, &err) != 0) {
		char shown[TEXT_TERM_MAX];

		fprintf(stderr, "keyward-ctl: %s\n",
		    text_term_str(shown, sizeof(shown), err.msg));
		free(text);
		return EX_BAD;
	}
	nrules = rs->n;
	if (same_sockets(sock, path, rs) != 0) {
		rules_free(rs);
		free(text);
		return EX_BAD;
	}
	rules_free(rs);
	wb_init(&req);
	agent_policy_load_request(&req, (struct slice){ (const uint8_t *)text, len });
	free(text);
	rc = agent_request(sock, &req, &reply, &len);
	wb_free(&req);
	if (rc != EX_LISTED)
		return rc;
	a = agent_ext_answer_open((struct slice){ reply, len }, POLICY_EXTENSION, 1, &r,
	    &why);
	free(reply);
	if (a != EXT_ANSWERED)
		return not_answered(sock, a, "the rules", POLICY_EXTENSION, why);
	printf("keyward-ctl: %zu rule%s in force\n", nrules,
	    nrules == 1 ? "" : "s");
	return flushed("answer");
}

static int
policy_show(const char *sock)
{
	enum ext_answer a;
	struct slice text;
	const char *why = NULL;
	struct rd r;
	uint8_t *reply;
	size_t len;
	int rc;

	if ((rc = agent_request_built(sock, agent_policy_show_request, &reply, &len)) != EX_LISTED)
		return rc;
	a = agent_ext_answer_open((struct slice){ reply, len }, POLICY_EXTENSION, 0, &r,
	    &why);
	if (a == EXT_ANSWERED && agent_policy_show_body_decode(&r, &text) != 0) {
		a = EXT_MALFORMED;
		why = "not one string of rules";
	}
	if (a != EXT_ANSWERED) {
		free(reply);
		return not_answered(sock, a, "to show its rules", POLICY_EXTENSION, why);
	}
	/* The agent's canonical text, but any bytes may come from whatever
	 * listens on the socket: line by line, terminal-safe. */
	for (size_t i = 0, start = 0; i <= text.len; i++) {
		char t[TEXT_TERM_MAX];

		if (i < text.len && text.p[i] != '\n')
			continue;
		if (i > start || i < text.len)
			printf("%s\n", text_term(t, sizeof(t), text.p + start,
			    i - start));
		start = i + 1;
	}
	if (text.len == 0)
		fputs("keyward-ctl: no rules in force (every request the keys' "
		    "own constraints allow is allowed)\n", stderr);
	free(reply);
	return flushed("rules");
}

/* ------------------------------------------------------------ connections */

static int
connections(const char *sock, int json)
{
	struct conns_list l;
	enum ext_answer a;
	const char *why = NULL;
	uint8_t *reply;
	size_t len;
	int rc;

	if ((rc = agent_request_built(sock, conns_request, &reply, &len)) != EX_LISTED)
		return rc;
	if ((a = conns_reply_decode((struct slice){ reply, len }, &l, &why)) !=
	    EXT_ANSWERED) {
		free(reply);
		return not_answered(sock, a, "to list its connections", CONNS_EXTENSION,
		    why);
	}
	if (json)
		conns_print_json(stdout, &l);
	else
		conns_print_text(stdout, &l);
	if (l.total > l.n)
		fprintf(stderr, "keyward-ctl: %zu of %u connections listed: the "
		    "answer would be too long\n", l.n, (unsigned)l.total);
	conns_free(&l);
	free(reply);
	return flushed("listing");
}

/* ------------------------------------------------------------ session */

static int
session(const char *sock, int json)
{
	struct session_view v;
	enum ext_answer a;
	const char *why = NULL;
	uint8_t *reply;
	size_t len;
	int rc;

	if ((rc = agent_request_built(sock, session_request, &reply, &len)) !=
	    EX_LISTED)
		return rc;
	if ((a = session_reply_decode((struct slice){ reply, len }, &v, &why)) !=
	    EXT_ANSWERED) {
		free(reply);
		return not_answered(sock, a, "for the session it follows",
		    SESSION_EXTENSION, why);
	}
	if (json)
		session_print_json(stdout, &v);
	else
		session_print_text(stdout, &v);
	free(reply);
	return flushed("session state");
}

struct ctl_opts {
	const char *sock, *state, *tag;
	int json, follow;
};

/* The options, anywhere ("connections --json"), up to a "--": -1 to go
 * on, else the exit status (--help, a bad option). */
static int
parse_opts(int argc, char **argv, struct ctl_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "follow", no_argument, NULL, 'f' },
		{ "state", required_argument, NULL, 's' },
		{ "tag", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "a:fh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			o->follow = 1;
			break;
		case 's':
			o->state = optarg;
			break;
		case 'g':
			if (audit_tag_ok(optarg) != 0) {
				fputs("keyward-ctl: --tag: letters, digits, dot, "
				    "dash, underscore, at most 32\n", stderr);
				return EX_BAD;
			}
			o->tag = optarg;
			break;
		case 'a':
			o->sock = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			usage(stdout);
			return EX_LISTED;
		default:
			usage(stderr);
			return EX_BAD;
		}
	}
	return -1;
}

enum ctl_cmd { CMD_LIST, CMD_CONNS, CMD_SHOW, CMD_LOAD, CMD_SESSION };

/* The command the words name (none: the list of keys), or -1. */
static int
command_of(int nargs, char **args, int json)
{
	if (nargs == 0)
		return CMD_LIST;
	if (nargs == 1 && strcmp(args[0], "connections") == 0)
		return CMD_CONNS;
	if (nargs == 1 && strcmp(args[0], "session") == 0)
		return CMD_SESSION;
	if (nargs == 2 && strcmp(args[0], "policy") == 0 &&
	    strcmp(args[1], "show") == 0 && !json)
		return CMD_SHOW;
	if (nargs == 3 && strcmp(args[0], "policy") == 0 &&
	    strcmp(args[1], "load") == 0 && !json)
		return CMD_LOAD;
	return -1;
}

int
main(int argc, char **argv)
{
	struct ctl_opts o = { NULL, NULL, NULL, 0, 0 };
	char **args;
	int nargs, cmd, rc;

	if ((rc = parse_opts(argc, argv, &o)) >= 0)
		return rc;
	args = argv + optind;
	nargs = argc - optind;
	if (nargs >= 1 && strcmp(args[0], "audit") == 0) {
		rc = audit_cmd(nargs - 1, args + 1, o.json, o.follow, o.state,
		    o.tag);
		if (rc < 0)
			usage(stderr);
		return rc < 0 ? EX_BAD : rc;
	}
	if (o.follow || o.state != NULL || o.tag != NULL ||
	    (cmd = command_of(nargs, args, o.json)) < 0) {
		usage(stderr);
		return EX_BAD;
	}
	if (o.sock == NULL && ((o.sock = getenv("SSH_AUTH_SOCK")) == NULL ||
	    *o.sock == '\0')) {
		fputs("keyward-ctl: SSH_AUTH_SOCK is not set: no agent to ask\n", stderr);
		return EX_NO_AGENT;
	}
	switch (cmd) {
	case CMD_CONNS:
		return connections(o.sock, o.json);
	case CMD_SESSION:
		return session(o.sock, o.json);
	case CMD_SHOW:
		return policy_show(o.sock);
	case CMD_LOAD:
		return policy_load(o.sock, args[2]);
	default:
		return list(o.sock, o.json);
	}
}
