/*
 * loop.c - the monitor's poll loop: clients in (clients.c), typed
 * requests to policy, replies out in request order; children's log
 * lines and signals. Nothing a client sends ends the monitor; a dead
 * child does (fail closed).
 */
#include "ipc/clock.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "wire/monitor.h"
#include "monitor/whois.h"
#include "monitor/monitor.h"
#include "monitor/proto.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct monitor M;

void
monitor_send(struct wb *w)
{
	if (chan_send(&M.policy, w) != 0)
		peer_broke("keyward-policy", "its channel closed while the agent "
		    "runs");
	wipe(w->p, w->len);     /* an ADD carried a private key */
	wb_reset(w);
}

/* ------------------------------------------------ policy */

static void
policy_input(void)
{
	size_t n;
	int r;

	while ((r = chan_recv(&M.policy, M.rbuf, sizeof(M.rbuf), &n)) > 0)
		clients_reply(M.rbuf, n);
	if (r < 0 && !M.quit) {
		/* Policy is gone; monitor_shutdown reaps it and says why. */
		M.quit = 1;
		M.exit_status = 255;
	}
}

/* ------------------------------------------------ children, signals */

/* Children's log lines arrive on a pipe when we are a daemon. */
static void
log_input(void)
{
	char buf[4096];
	ssize_t r = read(M.kids.log_fd, buf, sizeof(buf));

	if (r <= 0)
		return;                 /* EOF: a child died; SIGCHLD handles it */
	for (ssize_t i = 0; i < r; i++) {
		if (buf[i] == '\n' || M.log_len == sizeof(M.log_line) - 1) {
			M.log_line[M.log_len] = '\0';
			log_relay(M.log_line);
			M.log_len = 0;
		}
		if (buf[i] != '\n')
			M.log_line[M.log_len++] = buf[i];
	}
}

/* A child is gone: the agent fails closed. Say which and how. */
static void
child_died(pid_t pid, int status)
{
	const char *who;

	if (pid == M.kids.peer) {
		/* The inspector reads what hostile processes write: its end
		 * is no reason to stop serving (callers unavailable). */
		M.kids.peer = 0;
		if (WIFSIGNALED(status))
			log_error("keyward-peer was killed by signal %d (%s)",
			    WTERMSIG(status), strsignal(WTERMSIG(status)));
		whois_gone("has ended");
		return;
	}
	who = children_reaped(&M.kids, pid);

	if (who == NULL) {
		/* An orphan we adopted as subreaper (an askpass program's
		 * child, say): reaped, and none of our business. */
		log_debug("reaped adopted process %d", (int)pid);
		return;
	}
	if (WIFSIGNALED(status))
		log_error("%s was killed by signal %d (%s); shutting down", who,
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!M.quit)
		log_error("%s exited with status %d; shutting down", who,
		    WEXITSTATUS(status));
	if (!M.quit)
		M.exit_status = 255;
	M.quit = 1;
}

static void
signal_input(void)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	if (read(M.sig_fd, &si, sizeof(si)) != sizeof(si))
		return;
	switch (si.ssi_signo) {
	case SIGUSR1:
		log_info("SIGUSR1: removing all keys");
		msg_begin(&M.ipc, MSG_REMOVE_ALL, 0, 0);
		monitor_send(&M.ipc);
		break;
	case SIGCHLD:
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			child_died(pid, status);
		break;
	default:
		log_debug("signal %u: exiting", si.ssi_signo);
		M.quit = 1;
		M.exit_status = M.activated && si.ssi_signo == SIGTERM ? 0 : 2;
		break;
	}
}

/* Closing the channel ends policy, which ends the keyholder (which wipes
 * its keys) and the helpers; wait for them a bounded time. Then the
 * reapers remove the socket, and we wait until they have. */
void
monitor_shutdown(void)
{
	pid_t pid = 0;
	int status;

	chan_close(&M.policy);
	if (M.peer_fd >= 0) {
		close(M.peer_fd);       /* ends the inspector */
		M.peer_fd = -1;
	}
	for (int i = 0; i < 200 && (M.kids.policy || M.kids.keyholder); i++) {
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			child_died(pid, status);
		if (pid < 0)
			break;                  /* ECHILD: nobody left */
		if (M.kids.policy || M.kids.keyholder)
			poll(NULL, 0, 10);
	}
	for (int i = 0; i < CHILDREN_REAPERS; i++)
		if (M.kids.reaper_fd[i] >= 0)
			close(M.kids.reaper_fd[i]);
	while (children_reapers_left(&M.kids) && (pid = waitpid(-1, &status, 0)) != -1)
		child_died(pid, status);
}

/* ------------------------------------------------ the loop */

/* Writing replies frees slots for frames already buffered (a pipeline
 * longer than AGENT_MAX_INFLIGHT): take them now, as no new byte may
 * arrive to wake us for them. */
static void
serve_buffered(uint64_t now)
{
	size_t taken;

	do {
		for (size_t i = 0; i < M.nclients; i++)
			clients_flush(M.clients[i], now);
		taken = clients_dispatch();
		clients_sweep();        /* broken frames, write errors */
	} while (taken > 0);
}

/* The fixed fds first, in the order PFD_* names them, then the named
 * sockets, then the clients from *fixed on. Returns how many. */
enum { PFD_SIG, PFD_POLICY, PFD_LOG, PFD_LISTEN, PFD_PEER, PFD_NAMED };

static size_t
fill_pollfds(struct pollfd *pfd, size_t *fixed, int full)
{
	size_t n = 0;

	pfd[n++] = (struct pollfd){ M.sig_fd, POLLIN, 0 };
	pfd[n++] = (struct pollfd){ M.policy.fd, chan_events(&M.policy), 0 };
	pfd[n++] = (struct pollfd){ M.kids.log_fd, POLLIN, 0 };
	pfd[n++] = (struct pollfd){ !full ? M.listen_fd : -1, POLLIN, 0 };
	pfd[n++] = (struct pollfd){ M.peer_fd, whois_events(), 0 };
	/* the named sockets (keyward(5)), as the main one */
	for (size_t i = 0; i < M.named.n; i++)
		pfd[n++] = (struct pollfd){ !full ? M.named.s[i].fd : -1,
		    POLLIN, 0 };
	*fixed = n;
	for (size_t i = 0; i < M.nclients; i++) {
		struct client *c = M.clients[i];
		clients_grant_input(c);
		pfd[n++] = (struct pollfd){ c->fd, client_events(c), 0 };
	}
	return n;
}

/* How long poll may wait: the watch, the inspector's deadline, the
 * command's parent. */
static int
poll_timeout(uint64_t now, int full)
{
	int timeout = M.watch || full ? 1000 : -1, t;

	if ((t = whois_timeout(now)) >= 0 && (timeout < 0 || t < timeout))
		timeout = t;
	if (M.command_parent > 0)
		timeout = timeout < 0 || timeout > MONITOR_PARENT_CHECK_MS ?
		    MONITOR_PARENT_CHECK_MS : timeout;
	return timeout;
}

/* With a command, its end is ours: 1 once the parent changed. */
static int
command_ended(uint64_t now)
{
	static uint64_t last_check;

	if (M.command_parent <= 0 || now - last_check < MONITOR_PARENT_CHECK_MS)
		return 0;
	last_check = now;
	if (getppid() == M.command_parent)
		return 0;
	/* a normal end: the children's that follows is no error
	 * (child_died) */
	log_info("command has exited; shutting down");
	M.exit_status = 2;
	M.quit = 1;
	return 1;
}

/* The clients' fds of this turn, from pfd[fixed] on: none was dropped
 * since, as drops wait for clients_sweep(). */
static void
clients_input(const struct pollfd *pfd, size_t fixed, size_t n, uint64_t now)
{
	for (size_t i = fixed; i < n; i++) {
		struct client *c = M.clients[i - fixed];
		short ev = pfd[i].revents;
		if (ev == 0)
			continue;
		if (ev & POLLIN) {
			if (!client_read(c)) {
				c->dead = 1;
				continue;
			}
			if (c->inlen > 0 && c->frame_ms == 0)
				c->frame_ms = now;
			c->last_ms = now;
			if (clients_waiting(c))
				M.watch = 1;
		}
		if ((ev & (POLLERR | POLLNVAL)) ||
		    ((ev & POLLHUP) && !(ev & POLLIN)))
			c->dead = 1;
	}
}

void
monitor_loop(void)
{
	struct pollfd *pfd;
	size_t fixed, n;
	uint64_t now;
	int full;

	if ((pfd = calloc(M.maxclients + PFD_NAMED + SOCKETS_MAX,
	    sizeof(*pfd))) == NULL)
		fatal("out of memory");
	while (!M.quit) {
		now = clock_mono_ms();
		whois_expire(now);
		clients_scan(now);
		serve_buffered(now);
		/* At the connection limit, accept only if someone idle can
		 * make room; the others wait in the backlog. */
		full = clients_full() && !M.evictable && !clients_sheddable();
		n = fill_pollfds(pfd, &fixed, full);
		if (poll(pfd, n, poll_timeout(now, full)) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		now = clock_mono_ms();
		if (command_ended(now))
			break;
		if (pfd[PFD_SIG].revents)
			signal_input();
		if (pfd[PFD_POLICY].revents & POLLOUT && chan_flush(&M.policy) != 0)
			peer_broke("keyward-policy", "its channel closed while the "
			    "agent runs");
		if (pfd[PFD_POLICY].revents & (POLLIN | POLLHUP | POLLERR))
			policy_input();
		if (M.quit)
			break;
		if (pfd[PFD_LOG].revents)
			log_input();
		if (pfd[PFD_PEER].revents & (POLLIN | POLLHUP | POLLERR))
			whois_input();
		else if (pfd[PFD_PEER].revents & POLLOUT)
			whois_pump();
		clients_input(pfd, fixed, n, now);
		clients_sweep();
		if (pfd[PFD_LISTEN].revents & POLLIN)
			clients_accept(now, M.listen_fd, 0);
		for (size_t i = 0; i < M.named.n; i++)
			if (pfd[PFD_NAMED + i].revents & POLLIN)
				clients_accept(now, M.named.s[i].fd, (uint32_t)i + 1);
	}
	free(pfd);
}
