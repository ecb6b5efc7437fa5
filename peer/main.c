/*
 * main.c - keyward-peer, the caller-identity inspector: the only keyward
 * process that reads /proc. keyward starts it as "keyward-peer LOGLEVEL"
 * with fd 3 a SOCK_SEQPACKET socket to its requester. It sandboxes itself
 * (Landlock: read beneath /proc, nothing else; its own seccomp filter; no
 * capabilities; no_new_privs), then answers requests one at a time in the
 * order they came (wire/peer.h): who is this pid, read through the pidfd
 * that came with the request. The requester closing the channel ends it.
 * Trusts: nothing it reads in /proc (a peer names itself); the requester's
 * pid and uid only as far as the pidfd and /proc agree with them.
 *
 * Two processes. A Landlock domain may not ptrace-read any process outside
 * it, and /proc/PID/exe is a ptrace-read: under Landlock every peer's exe
 * is EACCES, same uid or not. So the exe is read by a second process,
 * forked before Landlock: the exe reader. It opens nothing (its filter has
 * no open); it gets a directory fd of /proc/PID from the inspector, answers
 * readlinkat(fd, "exe") and nothing else, and parses nothing. Everything
 * that reads text a peer chose (stat, status, cmdline) stays in the
 * inspector, under Landlock.
 */
#include "wire/args.h"
#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "wire/peer.h"
#include "ipc/spawn.h"
#include "peer/proc.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHAN_FD         3
#define EXE_FD          4       /* the inspector's end, to the exe reader */
#define READER_FD       3       /* the exe reader's end, in the reader */

static struct proc_report report;

/* ------------------------------------------------------------ exe reader */

/* A request: one byte and the directory fd. A reply: int32 errno (0: the
 * path follows), then the path's bytes. */
static void
reader_run(void *arg)
{
	uint8_t rep[4 + PEER_MAX_EXE + 1];
	uint8_t x[2];           /* a request is one byte */
	int32_t e;
	ssize_t n;
	size_t got;
	int fd, r;

	(void)arg;
	sandbox_harden();
	log_debug("peer-exe: no Landlock (a Landlock domain cannot read "
	    "another process's exe); it opens no file");
	sandbox_peer_exe(READER_FD);
	for (;;) {
		r = chan_recv_fd(READER_FD, x, sizeof(x), &got, &fd);
		if (r == 0)
			peer_gone("keyward-peer");
		if (r < 0 || fd < 0)
			peer_broke("keyward-peer", "a request without a directory");
		n = readlinkat(fd, "exe", (char *)rep + 4, PEER_MAX_EXE + 1);
		e = n < 0 ? errno : 0;
		close(fd);
		memcpy(rep, &e, 4);
		if (send(READER_FD, rep, 4 + (n > 0 ? (size_t)n : 0),
		    MSG_NOSIGNAL) < 0)
			peer_gone("keyward-peer");
	}
}

static pid_t
start_reader(void)
{
	struct spawn s;
	pid_t pid;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		fatal("socketpair: %m");
	if (sv[0] != EXE_FD)
		fatal("the exe reader's socket is fd %d, not %d", sv[0], EXE_FD);
	chan_setup_fd(sv[0]);
	chan_setup_fd(sv[1]);
	memset(&s, 0, sizeof(s));
	s.fds[0] = sv[1];
	s.nfds = 1;
	s.stdout_fd = s.stderr_fd = -1;
	s.run = reader_run;
	if ((pid = spawn(&s)) < 0)
		fatal("cannot start the exe reader: %m");
	close(sv[1]);
	return pid;
}

/* proc_read_exe_hook: the link, read by the exe reader. */
static ssize_t
exe_via_reader(int dirfd, char *out, size_t cap)
{
	static uint8_t rep[4 + PEER_MAX_EXE + 2];
	int32_t e;
	ssize_t r;
	size_t n;

	r = chan_send_fd(EXE_FD, "x", 1, dirfd);
	if (r != 1)
		peer_broke("the exe reader", "it cannot be asked");
	do {
		r = recv(EXE_FD, rep, sizeof(rep), 0);
	} while (r < 0 && errno == EINTR);
	if (r < 4 || (size_t)r > 4 + PEER_MAX_EXE + 1)
		peer_broke("the exe reader", "it has gone or answered %zd bytes", r);
	memcpy(&e, rep, 4);
	if (e != 0)
		return e > 0 ? -e : -EIO;
	n = (size_t)r - 4;
	if (n > cap)
		n = cap;
	memcpy(out, rep + 4, n);
	return (ssize_t)n;
}

/* ------------------------------------------------------------ inspector */

static void
confine(void)
{
	static const char *const ro[] = { "/proc", NULL };

	sandbox_harden();
	if (sandbox_landlock_token("peer", ro, NULL) != 0)
		fatal("Landlock is not available: the inspector's filter allows "
		    "open, so it does not run without Landlock");
	sandbox_peer(CHAN_FD, EXE_FD);
}

#ifdef KEYWARD_TESTING
/* Test builds only: KEYWARD_TEST_PEER_LIE makes every answer a lie of one
 * kind, as an inspector a hostile peer had taken over could send them
 * (155-peer-lies.t): "garbage" bytes, an answer to a "wrong-id", an
 * "oversize" one, or a well-formed "forge" naming /usr/bin/ssh. */
static const char *test_lie;

static void
lie(struct wb *w, struct peer_reply *rep)
{
	static const char forged[] = "/usr/bin/ssh";

	if (strcmp(test_lie, "garbage") == 0) {
		wb_bytes(w, "\xff\xff\xff\xff\xff\xff\xff", 7);
		return;
	}
	if (strcmp(test_lie, "wrong-id") == 0) {
		rep->id += 1000;
	} else if (strcmp(test_lie, "forge") == 0) {
		rep->status = PEER_OK;
		rep->exe = rep->cmdline = (struct slice){
		    (const uint8_t *)forged, sizeof(forged) - 1 };
		rep->nanc = 0;
	} else if (strcmp(test_lie, "oversize") != 0) {
		fatal("KEYWARD_TEST_PEER_LIE: no lie named %s", test_lie);
	}
	peer_reply_encode(w, rep);
	if (strcmp(test_lie, "oversize") == 0)
		while (w->len <= PEER_MAX_REPLY && !w->err)
			wb_u8(w, 0);
}
#endif

static void
send_reply(uint32_t id, const struct proc_report *r)
{
	struct peer_reply rep;
	struct wb w;
	ssize_t n;

	memset(&rep, 0, sizeof(rep));
	rep.id = id;
	rep.status = r->status;
	rep.exe = (struct slice){ (const uint8_t *)r->exe, r->exe_len };
	rep.cmdline = (struct slice){ (const uint8_t *)r->cmdline, r->cmdline_len };
	rep.nanc = r->nanc;
	for (uint32_t i = 0; i < r->nanc; i++) {
		rep.anc[i].pid = r->anc[i].pid;
		rep.anc[i].exe = (struct slice){ (const uint8_t *)r->anc[i].exe,
		    r->anc[i].exe_len };
		rep.anc[i].argv0 = (struct slice){
		    (const uint8_t *)r->anc[i].argv0, r->anc[i].argv0_len };
	}
	wb_init(&w);
#ifdef KEYWARD_TESTING
	if (test_lie != NULL)
		lie(&w, &rep);
	else
#endif
	peer_reply_encode(&w, &rep);
	if (w.err)
		fatal("cannot encode the reply");
	do {
		n = send(CHAN_FD, w.p, w.len, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != w.len)
		peer_gone("keyward");
	wb_free(&w);
}

/* Requests one at a time, until the requester closes the channel; one
 * that is no request ends the inspector (ipc/sibling.h). */
static void __attribute__((noreturn))
serve(void)
{
	uint8_t buf[PEER_MAX_REQUEST + 1];
	struct peer_req req;
	struct rd rd;
	size_t n;
	int r, pidfd, warned = 0;

	for (;;) {
		if ((r = peer_req_recv(CHAN_FD, buf, sizeof(buf), &n, &pidfd)) == 0)
			peer_gone("keyward");
		if (r < 0)
			peer_broke("keyward", "a request that cannot be received: %m");
		rd_init(&rd, buf, n);
		if (peer_req_decode(&rd, &req) != 0 ||
		    ((req.flags & PEER_REQ_PIDFD) != 0) != (pidfd >= 0))
			peer_broke("keyward", "a malformed request (%zu bytes%s)", n,
			    pidfd >= 0 ? ", with an fd" : "");
		if (pidfd < 0 && !warned) {
			log_error("warning: requests without a pidfd: a recycled "
			    "pid is caught only while it is read (start time)");
			warned = 1;
		}
		proc_inspect(req.pid, req.uid, pidfd, &report);
		if (pidfd >= 0)
			close(pidfd);
		log_debug("request %u: pid %u: %s", req.id, req.pid,
		    peer_status_name(report.status));
		send_reply(req.id, &report);
	}
}

int
main(int argc, char **argv)
{
	struct peer_args args;
#ifdef KEYWARD_TESTING
	const char *pause;
#endif

	if (args_peer_decode(argc, argv, &args) != 0)
		start_refused("keyward-peer");
	start_helper("keyward-peer", args.debug, 0);
	start_only_channel(CHAN_FD);
	start_reader();
	proc_read_exe_hook = exe_via_reader;
#ifdef KEYWARD_TESTING
	/* Test builds only: widen the window between reading a peer and
	 * checking it is still the same process (150-peer.t's race). */
	if ((pause = getenv("KEYWARD_TEST_PEER_PAUSE_MS")) != NULL)
		proc_test_pause_ms = atoi(pause);
	test_lie = getenv("KEYWARD_TEST_PEER_LIE");
#endif
	confine();
	serve();
}
