/*
 * auditor/trail.c - the auditor's one trail: a line appended to a file
 * (or stderr) in one write, or sent to syslog as one datagram.
 *
 * Syslog is spoken here, not by glibc: glibc's syslog() opens files
 * (the time zone) the filter does not allow, and dies for it. A message is
 * "<PRI>Mmm dd hh:mm:ss TAG[PID]: RECORD", the local form journald and
 * rsyslog both read from /dev/log; the socket is connected before the
 * filter, and connected again (socket + connect, all the filter allows
 * beyond send) when the daemon restarted. A message that cannot be sent
 * is a record not written: signing is refused until one can be.
 */
#include "auditor/auditor.h"
#include "ipc/clock.h"
#include "ipc/limits.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

void
log_connect(struct auditor *a)
{
	if (a->log_fd >= 0)
		close(a->log_fd);
	a->log_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (a->log_fd < 0)
		return;
	if (connect(a->log_fd, (struct sockaddr *)&a->sa, sizeof(a->sa)) != 0) {
		close(a->log_fd);
		a->log_fd = -1;
	}
}

/* The syslog header of a record sent now: "<PRI>Mmm dd hh:mm:ss
 * TAG[PID]: ", local time. Its length. */
static int
syslog_head(const struct auditor *a, char *head, size_t size)
{
	static const char mon[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
	    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	return snprintf(head, size, "<%d>%s %2d %02d:%02d:%02d %s[%ld]: ",
	    a->facility | 6 /* LOG_INFO */, mon[tm.tm_mon % 12], tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec, a->tag, a->pid);
}

/* One send of w on the connection, as send(2) answers (errno set). The
 * daemon's queue full: waited for a little, and not again while it stays
 * full (each record would hold the next back as long); if it is still
 * full, *full and a->stalled are set and the record is not written. */
static ssize_t
send_record(struct auditor *a, const struct wb *w, int *full)
{
	ssize_t r;

	*full = 0;
	do
		r = send(a->log_fd, w->p, w->len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN) {
		struct pollfd p = { a->log_fd, POLLOUT, 0 };
		if (poll(&p, 1, a->stalled ? 0 : AUDIT_SYSLOG_WAIT_MS) == 1)
			do
				r = send(a->log_fd, w->p, w->len,
				    MSG_DONTWAIT | MSG_NOSIGNAL);
			while (r < 0 && errno == EINTR);
		if (r < 0) {
			a->stalled = 1;
			*full = 1;
		}
	}
	return r;
}

/* One datagram to syslog; once more on a new connection if the daemon
 * went away (it restarted, or its socket is gone: then that fails too). */
static int
syslog_send(struct auditor *a, struct slice line)
{
	char head[96];
	struct wb w;
	int n, full, rc = -1;

	n = syslog_head(a, head, sizeof(head));
	wb_init(&w);
	wb_bytes(&w, head, (size_t)n);
	wb_bytes(&w, line.p, line.len);
	if (w.err)
		goto out;
	for (int tries = 0; tries < 2; tries++) {
		ssize_t r;
		if (a->log_fd < 0)
			log_connect(a);
		if (a->log_fd < 0)
			continue;
		if ((r = send_record(a, &w, &full)) < 0 && full)
			break;  /* still full: this record is not written */
		if (r == (ssize_t)w.len) {
			a->stalled = 0;
			rc = 0;
			break;
		}
		if (r >= 0) {
			errno = EMSGSIZE;
			break;
		}
		if (errno != ECONNREFUSED && errno != ENOTCONN &&
		    errno != ECONNRESET && errno != EPIPE && errno != ENOENT)
			break;
		close(a->log_fd);       /* the daemon is gone: connect anew */
		a->log_fd = -1;
	}
out:
	wb_free(&w);
	return rc;
}

int
write_line(struct auditor *a, struct slice line)
{
	struct wb w;
	size_t off = 0;
	ssize_t r;
	int rc = 0;

	if (a->use_syslog)
		return syslog_send(a, line);
	wb_init(&w);
	wb_bytes(&w, line.p, line.len);
	wb_u8(&w, '\n');
	if (w.err)
		return -1;
	/* O_APPEND: one write is one whole line at the end of the file. */
	while (off < w.len) {
		r = write(a->fd, w.p + off, w.len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)r;
	}
	if (rc == 0 && a->sync && fdatasync(a->fd) != 0 && errno != EINVAL)
		rc = -1;        /* EINVAL: a pipe or terminal, nothing to sync */
	wb_free(&w);
	return rc;
}

void
utc_now(char *ts, size_t n)
{
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(ts, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, now.tv_nsec / 1000000);
}
