/*
 * whois.c - who is at the other end of a connection: the monitor takes a
 * pidfd of each client's process at accept and asks keyward-peer, the
 * caller-identity inspector (wire/peer.h), then passes the answer to policy
 * (MSG_PEER) before the connection's first request is dispatched.
 *
 * Design. The pidfd is taken at once (SO_PEERPIDFD, else pidfd_open of the
 * SO_PEERCRED pid), so a pid recycled later cannot be mistaken for the
 * caller. Until its answer comes, a client is gated: it may send, its bytes
 * are buffered under the usual limits, but nothing of it is dispatched
 * (clients.c may_dispatch). At most PEER_MAX_QUEUE requests are at the
 * inspector; the others wait in a FIFO (whoisq.c) holding their pidfd, which
 * counts against the connection limit like a client's own fd. Whatever
 * happens, a client waits at most PEER_TIMEOUT_MS: then it is served with
 * its caller unavailable (policy's default since MSG_OPEN). The inspector
 * reads what hostile processes put in /proc, so the monitor trusts none of
 * its bytes: a malformed answer, an id never asked, a closed channel or its
 * death mark it gone (logged once) and every connection from then on is
 * served at once as unavailable. Nothing here ends the monitor.
 */
#include "ipc/log.h"
#include "wire/monitor.h"
#include "wire/peer.h"
#include "monitor/whois.h"
#include "monitor/monitor.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77         /* Linux 6.5; older headers lack it */
#endif

_Static_assert(PEER_MAX_REPLY + 1 <= sizeof(M.rbuf),
    "an answer and one byte more (to see it is too long) fit the buffer");

void
whois_init(int fd)
{
	whoisq_init(&M.whoisq);
	M.peer_fd = fd;
	M.peer_blocked = 0;
#ifdef KEYWARD_TESTING
	/* Test builds only: take the pidfd_open path, as on a kernel before
	 * SO_PEERPIDFD (151-peer-flood.t runs it under the filter). */
	M.test_no_peerpidfd = getenv("KEYWARD_TEST_NO_PEERPIDFD") != NULL;
#endif
}

static void
close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void
tell_policy(uint32_t conn, const uint8_t *p, size_t n)
{
	msg_peer_write(&M.ipc, conn, (struct slice){ p, n });
	monitor_send(&M.ipc);
}

static void
release(struct whois_item *it, int pidfd, void *arg)
{
	(void)arg;
	(void)it;               /* WHOIS_DONE already: policy keeps unavailable */
	close_fd(pidfd);
}

void
whois_gone(const char *why)
{
	if (M.peer_fd < 0)
		return;
	log_error("keyward-peer %s; callers are unavailable from now on", why);
	close(M.peer_fd);
	M.peer_fd = -1;
	M.peer_blocked = 0;
	whoisq_flush(&M.whoisq, release, NULL);
}

int
whois_pidfd(int sock, pid_t pid, int *gone)
{
	socklen_t len = sizeof(int);
	int fd = -1;
	long r;

	*gone = 0;
	if (M.peer_fd < 0 || pid <= 0)
		return -1;              /* nobody to ask, or nothing to ask about */
	if (!M.test_no_peerpidfd &&
	    getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == 0 && fd >= 0)
		return fd;
	if ((r = syscall(SYS_pidfd_open, pid, 0)) >= 0)
		return (int)r;
	if (errno == ESRCH) {
		*gone = 1;
		return -1;
	}
	if (!M.nopidfd_warned) {
		log_error("warning: no pidfd of a client (%m): callers are read "
		    "without one, and a recycled pid is caught only by its start "
		    "time");
		M.nopidfd_warned = 1;
	}
	return -1;
}

void
whois_start(struct client *c, int pidfd, int gone, uint64_t now)
{
	struct wb w;

	if (gone) {
		/* Exited before we could hold it: nothing is attributed. */
		close_fd(pidfd);
		wb_init(&w);
		peer_reply_encode(&w, &(struct peer_reply){ .status = PEER_GONE });
		if (!w.err)
			tell_policy(c->id, w.p, w.len);
		wb_free(&w);
		log_debug("connection %u: its process %d has already exited",
		    c->id, (int)c->pid);
		return;
	}
	if (M.peer_fd < 0 || c->pid <= 0 || (uint32_t)c->pid > PEER_MAX_PID) {
		/* No inspector, or a pid of another pid namespace (0): served
		 * at once, its caller unavailable. */
		close_fd(pidfd);
		return;
	}
	whoisq_push(&M.whoisq, &c->whois, c->id, (uint32_t)c->pid, (uint32_t)c->uid,
	    pidfd, now + PEER_TIMEOUT_MS);
	whois_pump();
}

void
whois_forget(struct client *c)
{
	close_fd(whoisq_forget(&M.whoisq, &c->whois));
}

void
whois_pump(void)
{
	struct whois_item *it;
	struct peer_req req;
	int pidfd;

	while (M.peer_fd >= 0 && (it = whoisq_next(&M.whoisq)) != NULL) {
		req = (struct peer_req){ .id = whoisq_next_id(&M.whoisq), .pid = it->pid,
		    .uid = it->uid, .flags = it->pidfd >= 0 ? PEER_REQ_PIDFD : 0 };
		if (peer_req_send(M.peer_fd, &req, it->pidfd) != 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				M.peer_blocked = 1;     /* poll for room */
				return;
			}
			whois_gone("cannot be asked");
			return;
		}
		M.peer_blocked = 0;
		whoisq_sent(&M.whoisq, &pidfd);
		close_fd(pidfd);        /* the inspector has its own now */
	}
}

void
whois_input(void)
{
	struct peer_reply rep;
	struct whois_item *it;
	struct rd r;
	ssize_t n;

	while (M.peer_fd >= 0) {
		n = recv(M.peer_fd, M.rbuf, PEER_MAX_REPLY + 1, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			whois_gone(n == 0 ? "closed its channel" : "cannot be read");
			return;
		}
		rd_init(&r, M.rbuf, (size_t)n);
		if ((size_t)n > PEER_MAX_REPLY || peer_reply_decode(&r, &rep) != 0) {
			whois_gone("sent a malformed answer");
			return;
		}
		if (!whoisq_answer(&M.whoisq, rep.id, &it)) {
			whois_gone("answered a request it was not asked");
			return;
		}
		if (it == NULL)
			continue;       /* its client went, or its time was up */
		tell_policy(it->conn, M.rbuf, (size_t)n);
		/* named as the peer read it (the log escapes it) */
		log_debug("connection %u: caller %s%s%.*s", it->conn,
		    peer_status_name(rep.status), rep.exe.len > 0 ? ": " : "",
		    (int)(rep.exe.len < 512 ? rep.exe.len : 512),
		    (const char *)rep.exe.p);
	}
	whois_pump();
}

void
whois_expire(uint64_t now)
{
	struct whois_item *it;

	while ((it = whoisq_expired(&M.whoisq, now)) != NULL) {
		log_debug("connection %u: no answer from keyward-peer in %d ms; "
		    "its caller is unavailable", it->conn, PEER_TIMEOUT_MS);
		close_fd(whoisq_forget(&M.whoisq, it));
	}
	whois_pump();
}

int
whois_timeout(uint64_t now)
{
	uint64_t d = whoisq_deadline(&M.whoisq);

	if (d == UINT64_MAX)
		return -1;
	return d <= now ? 0 : d - now > 60000 ? 60000 : (int)(d - now);
}

short
whois_events(void)
{
	return M.peer_fd < 0 ? 0 : POLLIN | (M.peer_blocked ? POLLOUT : 0);
}
