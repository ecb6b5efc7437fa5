/*
 * auditor.c - the audit writer: forked by policy before its sandbox, it
 * holds only its channel to policy and the audit trail (a file, stderr,
 * or syslog). Each record arrives as one datagram and leaves as one
 * write() of one line, so lines never interleave; with -O audit-sync=yes
 * each is on disk before it is acknowledged. Policy waits for the
 * acknowledgement before it lets a signature be made: no signature goes
 * unrecorded.
 */
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/spawn.h"
#include "ipc/msg.h"
#include "policy/audit.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

static int
write_line(int fd, int use_syslog, int sync, struct slice line)
{
	struct wb w;
	size_t off = 0;
	ssize_t r;
	int rc = 0;

	if (use_syslog) {
		syslog(LOG_INFO, "%.*s", (int)line.len, (const char *)line.p);
		return 0;
	}
	wb_init(&w);
	wb_bytes(&w, line.p, line.len);
	wb_u8(&w, '\n');
	if (w.err)
		return -1;
	/* O_APPEND: one write is one whole line at the end of the file. */
	while (off < w.len) {
		r = write(fd, w.p + off, w.len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)r;
	}
	if (rc == 0 && sync && fdatasync(fd) != 0 && errno != EINVAL)
		rc = -1;        /* EINVAL: a pipe or terminal, nothing to sync */
	wb_free(&w);
	return rc;
}

static void
auditor_main(int chan_fd, int audit_fd, int use_syslog, int sync)
{
	static uint8_t buf[IPC_MAX_MSG + 1];
	struct pollfd pfd;
	struct chan c;
	struct msg_hdr h;
	struct msg_blob m;
	struct wb out;
	struct rd r;
	size_t n;
	int rc, failed = 0;

	log_init("keyward-auditor", log_level(), 0);
	chan_init(&c, chan_fd);
	wb_init(&out);
	if (use_syslog)
		openlog("keyward-audit", LOG_NDELAY, LOG_AUTH);
	sandbox_harden();
	sandbox_landlock("auditor", NULL, NULL);
	sandbox_auditor(chan_fd, audit_fd, use_syslog);
	for (;;) {
		pfd = (struct pollfd){ c.fd, chan_events(&c), 0 };
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			_exit(1);
		if ((pfd.revents & POLLOUT) && chan_flush(&c) != 0)
			_exit(0);
		while ((rc = chan_recv(&c, buf, sizeof(buf), &n)) > 0) {
			rd_init(&r, buf, n);
			if (msg_hdr_decode(&r, &h) != 0 || h.type != MSG_AUDIT ||
			    msg_blob_decode(&r, &m) != 0)
				_exit(1);
			rc = write_line(audit_fd, use_syslog, sync, m.blob);
			if (rc != 0 && !failed)
				log_error("cannot write the audit trail (%m): signing "
				    "is refused until it can be written");
			failed = rc != 0;
			if (h.req == 0)
				continue;       /* no one waits for this one */
			msg_begin(&out, MSG_R_STATUS, h.req, 0);
			msg_status_encode(&out, &(struct msg_status){ rc == 0 ?
			    ST_OK : ST_FAIL });
			if (chan_send(&c, &out) != 0)
				_exit(0);
		}
		if (rc < 0)
			_exit(0);               /* policy is gone */
	}
}

struct auditor_start {
	int has_fd, use_syslog, sync;
};

static void
auditor_run(void *arg)
{
	const struct auditor_start *a = arg;

	auditor_main(3, a->has_fd ? 4 : -1, a->use_syslog, a->sync);
}

int
auditor_spawn(int audit_fd, int use_syslog, int sync)
{
	struct auditor_start a = { audit_fd >= 0, use_syslog, sync };
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0)
		fatal("socketpair: %m");
	chan_setup_fd(sp[0]);
	chan_setup_fd(sp[1]);
	/* Nothing but stderr, the channel and the trail stays open. */
	if (spawn(&(struct spawn){ .fds = { sp[1], audit_fd }, .nfds = 2,
	    .stdout_fd = -1, .stderr_fd = -1, .run = auditor_run, .arg = &a }) < 0)
		fatal("cannot start the auditor: %m");
	close(sp[1]);
	if (audit_fd >= 0)
		close(audit_fd);
	return sp[0];
}
