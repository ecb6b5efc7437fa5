/*
 * chan.c - non-blocking datagram channel with a send queue.
 * Queued copies may hold private key material (an ADD on its way to the
 * keyholder), so every queued copy is wiped when it is released.
 */
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct chan_q {
	struct chan_q *next;
	size_t len;
	uint8_t data[];
};

void
chan_init(struct chan *c, int fd)
{
	c->fd = fd;
	c->head = c->tail = NULL;
	c->queued = 0;
}

void
chan_setup_fd(int fd)
{
	int sz = IPC_SOCKBUF, got = 0;
	socklen_t len = sizeof(got);

	/* As root SO_*BUFFORCE ignores wmem_max; otherwise the kernel caps
	 * the request at wmem_max (212992 by default), which still doubles
	 * to more than one IPC_MAX_MSG datagram. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &got, &len) != 0 ||
	    got < IPC_MAX_MSG + 1024)
		fatal("socket buffer of %d bytes cannot carry a %d-byte message "
		    "(raise net.core.wmem_max)", got, IPC_MAX_MSG);
}

static int
try_send(struct chan *c, const uint8_t *p, size_t n)
{
	ssize_t r;

	do {
		r = send(c->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r >= 0)
		return (size_t)r == n ? 1 : -1;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return 0;
	return -1;
}

int
chan_send(struct chan *c, const struct wb *w)
{
	struct chan_q *q;
	int r;

	if (w->err || w->len > IPC_MAX_MSG)
		fatal("internal message of %zu bytes is malformed or too long",
		    w->len);
	if (c->head == NULL && (r = try_send(c, w->p, w->len)) != 0)
		return r > 0 ? 0 : -1;
	/* No size limit here: the senders stop reading their own inputs
	 * once chan_busy() (back-pressure, ipc/limits.h), so what queues is
	 * bounded by what they have already taken in. */
	if ((q = malloc(sizeof(*q) + w->len)) == NULL)
		fatal("out of memory");
	q->next = NULL;
	q->len = w->len;
	memcpy(q->data, w->p, w->len);
	if (c->tail != NULL)
		c->tail->next = q;
	else
		c->head = q;
	c->tail = q;
	c->queued += w->len;
	return 0;
}

static void
q_free(struct chan_q *q)
{
	wipe(q->data, q->len);
	free(q);
}

int
chan_flush(struct chan *c)
{
	struct chan_q *q;
	int r;

	while ((q = c->head) != NULL) {
		if ((r = try_send(c, q->data, q->len)) < 0)
			return -1;
		if (r == 0)
			return 0;
		c->head = q->next;
		if (c->head == NULL)
			c->tail = NULL;
		c->queued -= q->len;
		q_free(q);
	}
	return 0;
}

int
chan_recv(struct chan *c, uint8_t *buf, size_t cap, size_t *n)
{
	ssize_t r;

	do {
		r = recv(c->fd, buf, cap, MSG_DONTWAIT | MSG_TRUNC);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	if (r == 0)
		return -1;              /* EOF: seqpacket never sends empty */
	if ((size_t)r > cap || (size_t)r > IPC_MAX_MSG) {
		log_error("internal message of %zd bytes is too long", r);
		*n = (size_t)r;
		return CHAN_TOO_LONG;
	}
	*n = (size_t)r;
	return 1;
}

int
chan_busy(const struct chan *c)
{
	return c->queued >= IPC_QUEUE_HIGH;
}

short
chan_events(const struct chan *c)
{
	return POLLIN | (c->head != NULL ? POLLOUT : 0);
}

void
chan_close(struct chan *c)
{
	struct chan_q *q;

	while ((q = c->head) != NULL) {
		c->head = q->next;
		q_free(q);
	}
	c->tail = NULL;
	c->queued = 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

ssize_t
chan_send_fd(int sock, const void *p, size_t n, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *c;
	ssize_t r;

	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	iov.iov_base = (void *)(uintptr_t)p;
	iov.iov_len = n;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd >= 0) {
		msg.msg_control = u.b;
		msg.msg_controllen = sizeof(u.b);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do {
		r = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	return r;
}

/* Close every fd a control message carried; the number of them. */
static int
close_fds(struct msghdr *msg, int *first)
{
	struct cmsghdr *c;
	size_t k, nfd;
	int fd, n = 0;

	for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < nfd; k++) {
			memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
			if (n++ == 0 && first != NULL)
				*first = fd;
			else
				close(fd);
		}
	}
	return n;
}

int
chan_recv_fd(int sock, void *buf, size_t cap, size_t *n, int *fdp)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} u;
	struct msghdr msg;
	struct iovec iov;
	ssize_t r;
	int fd = -1, nfd;

	*n = 0;
	*fdp = -1;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = cap;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.b;
	msg.msg_controllen = sizeof(u.b);
	do {
		r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	nfd = close_fds(&msg, &fd);
	if (r == 0 && nfd == 0)
		return 0;
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || nfd > 1 ||
	    (size_t)r >= cap) {
		if (fd >= 0)
			close(fd);
		errno = EMSGSIZE;
		return -1;
	}
	*n = (size_t)r;
	*fdp = fd;
	return 1;
}
