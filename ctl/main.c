/*
 * main.c - keyward-ctl: ask the agent on SSH_AUTH_SOCK (or -a) for its
 * identities with their constraints (INSPECT_EXTENSION, ipc/inspect.h) and
 * print them like ssh-add -l, or as JSON. It trusts the agent for nothing
 * but the answer's content: one frame, at most AGENT_MAX_FRAME bytes,
 * decoded whole before anything is printed (ctl/inspect.c, ipc/inspect.c).
 */
#include "ctl/inspect.h"
#include "ctl/print.h"
#include "ipc/agent.h"
#include "ipc/limits.h"
#include "ipc/text.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Exit statuses, as ssh-add -l has them, plus one for what it calls fatal. */
enum {
	EX_LISTED = 0,
	EX_NONE_OR_REFUSED = 1,     /* empty agent, or the agent said no */
	EX_NO_AGENT = 2,            /* nothing to connect to */
	EX_BAD = 255,               /* usage, or an answer we cannot trust */
};

static void
usage(FILE *f)
{
	fputs("usage: keyward-ctl [--json] [-a socket]\n", f);
}

static int
agent_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char shown[TEXT_TERM_MAX];
	int fd;

	/* The path is the environment's, not a client's, but it may come
	 * from a forwarded session: shown terminal-safe all the same. */
	text_term_str(shown, sizeof(shown), path);
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "keyward-ctl: socket path too long: %s\n", shown);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		fprintf(stderr, "keyward-ctl: socket: %s\n", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		fprintf(stderr, "keyward-ctl: cannot connect to the agent at %s: %s\n",
		    shown, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int
write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* 0, or -1 with errno (0 for an end of file before n bytes). */
static int
read_all(int fd, uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t r = read(fd, p, n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One request, one reply frame into *reply (malloc'd). Returns EX_LISTED,
 * EX_NONE_OR_REFUSED when the agent hung up without a byte of answer (as
 * keyward does to a peer it will not serve), or EX_BAD. */
static int
exchange(int fd, uint8_t **reply, size_t *len)
{
	uint8_t hdr[4];
	struct wb w;
	struct rd r;
	uint32_t n = 0;
	size_t mark;
	int rc;

	wb_init(&w);
	mark = wb_begin_string(&w);
	inspect_request(&w);
	wb_end_string(&w, mark);
	rc = w.err ? -1 : write_all(fd, w.p, w.len);
	wb_free(&w);
	if (rc != 0 || read_all(fd, hdr, 1) != 0) {
		fprintf(stderr, "keyward-ctl: the agent closed the connection "
		    "without answering%s%s\n", errno != 0 ? ": " : "",
		    errno != 0 ? strerror(errno) : "");
		return EX_NONE_OR_REFUSED;
	}
	if (read_all(fd, hdr + 1, sizeof(hdr) - 1) != 0)
		goto short_read;
	rd_init(&r, hdr, sizeof(hdr));
	if (rd_u32(&r, &n) != 0 || n == 0 || n > AGENT_MAX_FRAME) {
		fprintf(stderr, "keyward-ctl: malformed reply: a frame of %u bytes "
		    "(at most %u)\n", n, AGENT_MAX_FRAME);
		return EX_BAD;
	}
	if ((*reply = malloc(n)) == NULL) {
		fprintf(stderr, "keyward-ctl: out of memory\n");
		return EX_BAD;
	}
	if (read_all(fd, *reply, n) != 0) {
		free(*reply);
		goto short_read;
	}
	*len = n;
	return EX_LISTED;
short_read:
	fprintf(stderr, "keyward-ctl: malformed reply: %s\n", errno != 0 ?
	    strerror(errno) : "the frame ends early");
	return EX_BAD;
}

static int
list(const char *sock, int json)
{
	struct inspect_list l;
	const char *why;
	uint8_t *reply;
	size_t len;
	int fd, rc;

	if ((fd = agent_connect(sock)) == -1)
		return EX_NO_AGENT;
	rc = exchange(fd, &reply, &len);
	close(fd);
	if (rc != EX_LISTED)
		return rc;
	switch (inspect_reply_decode((struct slice){ reply, len }, &l, &why)) {
	case INSPECT_LISTED:
		break;
	case INSPECT_REFUSED:
		free(reply);
		fputs("keyward-ctl: the agent refused: constraints are not shown "
		    "through a forwarded agent\n", stderr);
		return EX_NONE_OR_REFUSED;
	case INSPECT_UNSUPPORTED:
		free(reply);
		fputs("keyward-ctl: the agent does not support " INSPECT_EXTENSION
		    " (is it keyward?)\n", stderr);
		return EX_NONE_OR_REFUSED;
	case INSPECT_MALFORMED:
		free(reply);
		fprintf(stderr, "keyward-ctl: malformed reply: %s\n", why);
		return EX_BAD;
	}
	if (json)
		print_json(stdout, &l);
	else
		print_text(stdout, &l);
	rc = l.n > 0 ? EX_LISTED : EX_NONE_OR_REFUSED;
	inspect_free(&l);
	free(reply);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "keyward-ctl: writing the listing: %s\n", strerror(errno));
		return EX_BAD;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL;
	int json = 0, ch;

	while ((ch = getopt_long(argc, argv, "+a:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			sock = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return EX_LISTED;
		default:
			usage(stderr);
			return EX_BAD;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EX_BAD;
	}
	if (sock == NULL && ((sock = getenv("SSH_AUTH_SOCK")) == NULL || *sock == '\0')) {
		fputs("keyward-ctl: SSH_AUTH_SOCK is not set: no agent to ask\n", stderr);
		return EX_NO_AGENT;
	}
	return list(sock, json);
}
