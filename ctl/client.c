/*
 * client.c - keyward-ctl's connection to the agent (client.h): connect,
 * send one request, read one reply frame, all within
 * CTL_REPLY_TIMEOUT_MS, trusting the agent for nothing but a frame of at
 * most AGENT_MAX_FRAME bytes.
 */
#include "ctl/client.h"
#include "ipc/clock.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "ipc/text.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int
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

/* When the answer must have come by (CLOCK_MONOTONIC, ms). */
static uint64_t deadline_ms;

/* Wait until fd is ready for events, or the deadline: 0, or -1 with
 * errno (ETIMEDOUT when the agent is too slow). */
static int
wait_fd(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	uint64_t now;
	int rc;

	for (;;) {
		if ((now = clock_mono_ms()) >= deadline_ms) {
			errno = ETIMEDOUT;
			return -1;
		}
		rc = poll(&pfd, 1, (int)(deadline_ms - now));
		if (rc > 0)
			return 0;
		if (rc == -1 && errno != EINTR)
			return -1;
	}
}

static int
write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w;

		if (wait_fd(fd, POLLOUT) != 0)
			return -1;
		w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w == -1 && (errno == EINTR || errno == EAGAIN))
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
		ssize_t r;

		if (wait_fd(fd, POLLIN) != 0)
			return -1;
		r = recv(fd, p, n, MSG_DONTWAIT);
		if (r == -1 && (errno == EINTR || errno == EAGAIN))
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

/* One request (its payload in req), one reply frame into *reply
 * (malloc'd), all within CTL_REPLY_TIMEOUT_MS. Returns EX_LISTED,
 * EX_NONE_OR_REFUSED when the agent hung up without a byte of answer (as
 * keyward does to a peer it will not serve), or EX_BAD (a stalled agent
 * included). */
int
exchange(int fd, const struct wb *req, uint8_t **reply, size_t *len)
{
	uint8_t hdr[4];
	struct wb w;
	struct rd r;
	uint32_t n = 0;
	size_t mark;
	int rc;

	deadline_ms = clock_mono_ms() + CTL_REPLY_TIMEOUT_MS;
	wb_init(&w);
	mark = wb_begin_string(&w);
	wb_bytes(&w, req->p, req->len);
	wb_end_string(&w, mark);
	errno = 0;
	rc = w.err || req->err ? -1 : write_all(fd, w.p, w.len);
	wb_free(&w);
	if (rc == 0)
		rc = read_all(fd, hdr, 1);
	if (rc != 0 && errno == ETIMEDOUT) {
		fprintf(stderr, "keyward-ctl: no answer from the agent in %d ms\n",
		    CTL_REPLY_TIMEOUT_MS);
		return EX_BAD;
	}
	if (rc != 0) {
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
	fprintf(stderr, "keyward-ctl: malformed reply: %s\n", errno == ETIMEDOUT ?
	    "the agent stopped sending" : errno != 0 ? strerror(errno) :
	    "the frame ends early");
	return EX_BAD;
}

/* Connect, send req, read the reply. */
int
agent_request(const char *sock, const struct wb *req, uint8_t **reply, size_t *len)
{
	int fd, rc;

	if ((fd = agent_connect(sock)) == -1)
		return EX_NO_AGENT;
	rc = exchange(fd, req, reply, len);
	close(fd);
	return rc;
}

/* The same with the request build writes. */
int
agent_request_built(const char *sock, void (*build)(struct wb *), uint8_t **reply,
    size_t *len)
{
	struct wb req;
	int rc;

	wb_init(&req);
	build(&req);
	rc = agent_request(sock, &req, reply, len);
	wb_free(&req);
	return rc;
}
