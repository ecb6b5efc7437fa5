/*
 * proc.c - reading a process in /proc for keyward-peer (proc.h). Every
 * read goes into a fixed buffer of PEER_MAX_PROCFILE or the reply's own
 * bounds, so one request costs at most (1 + PEER_MAX_ANCESTORS) times a
 * handful of small reads, whatever the peer made of its /proc.
 */
#include "peer/proc.h"
#include "ipc/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int proc_test_pause_ms;
proc_exe_fn proc_read_exe_hook;

/* A decimal number, maybe negative, at *p (before end); *p moves past it. */
static int
dec(const char **p, const char *end, int64_t *v)
{
	const char *s = *p;
	int neg = 0;
	uint64_t x = 0;

	if (s < end && *s == '-') {
		neg = 1;
		s++;
	}
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX / 10) - 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)x : (int64_t)x;
	*p = s;
	return 0;
}

static int
udec(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	*p = s;
	return 0;
}

int
proc_stat_parse(const char *s, size_t n, struct proc_stat *st)
{
	const char *end = s + n, *p, *open, *close = NULL;
	uint64_t skip;
	int64_t v;
	int field;

	memset(st, 0, sizeof(*st));
	if ((open = memchr(s, '(', n)) == NULL)
		return -1;
	for (p = open; p < end; p++)
		if (*p == ')')
			close = p;
	if (close == NULL)
		return -1;
	p = s;
	if (dec(&p, open, &st->pid) != 0 || p + 1 != open || *p != ' ' ||
	    st->pid <= 0)
		return -1;
	/* ") S ppid pgrp session ..." */
	p = close + 1;
	if (end - p < 3 || p[0] != ' ' || p[2] != ' ')
		return -1;
	st->state = p[1];
	p += 3;
	for (field = 4; field <= 22; field++) {
		if (field == 4 || field == 6) {
			if (dec(&p, end, &v) != 0)
				return -1;
			if (field == 4)
				st->ppid = v;
			else
				st->session = v;
		} else if (field == 22) {
			if (udec(&p, end, &st->start) != 0)
				return -1;
		} else if (dec(&p, end, &v) != 0 &&
		    udec(&p, end, &skip) != 0)
			return -1;
		if (field < 22) {
			if (p >= end || *p != ' ')
				return -1;
			p++;
		}
	}
	/* field 22 is followed by more fields or the end of the line */
	if (p < end && *p != ' ' && *p != '\n')
		return -1;
	return st->ppid >= 0 ? 0 : -1;
}

/* The value of the line "NAME:\t..." of a status file (NAME at a line's
 * start), and where its line ends. */
static const char *
status_line(const char *s, size_t n, const char *name, const char **eol)
{
	const char *end = s + n, *p = s, *nl;
	size_t k = strlen(name);

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) > k && memcmp(p, name, k) == 0 &&
		    p[k] == ':') {
			p += k + 1;
			while (p < nl && (*p == '\t' || *p == ' '))
				p++;
			*eol = nl;
			return p;
		}
		p = nl + 1;
	}
	return NULL;
}

int
proc_status_ppid(const char *s, size_t n, int64_t *ppid)
{
	const char *p, *eol;

	*ppid = 0;
	if ((p = status_line(s, n, "PPid", &eol)) == NULL ||
	    dec(&p, eol, ppid) != 0 || p != eol || *ppid < 0) {
		*ppid = 0;
		return -1;
	}
	return 0;
}

int
proc_status_euid(const char *s, size_t n, uint32_t *euid)
{
	const char *p, *eol;
	uint64_t ruid, e;

	*euid = 0;
	if ((p = status_line(s, n, "Uid", &eol)) == NULL ||
	    udec(&p, eol, &ruid) != 0 || p >= eol || (*p != '\t' && *p != ' '))
		return -1;
	p++;
	if (udec(&p, eol, &e) != 0 || e > UINT32_MAX ||
	    (p < eol && *p != '\t' && *p != ' '))
		return -1;
	*euid = (uint32_t)e;
	return 0;
}

int
proc_fdinfo_pid(const char *s, size_t n, int64_t *pid)
{
	const char *p, *eol;

	*pid = 0;
	if ((p = status_line(s, n, "Pid", &eol)) == NULL ||
	    dec(&p, eol, pid) != 0 || p != eol) {
		*pid = 0;
		return -1;
	}
	return 0;
}

size_t
proc_cmdline_join(const uint8_t *raw, size_t n, char *out, size_t cap)
{
	size_t i;

	while (n > 0 && raw[n - 1] == '\0')
		n--;
	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++)
		out[i] = raw[i] == '\0' ? ' ' : (char)raw[i];
	out[n] = '\0';
	return n;
}

size_t
proc_argv0(const uint8_t *raw, size_t n, char *out, size_t cap)
{
	const uint8_t *nul = memchr(raw, '\0', n);

	if (nul != NULL)
		n = (size_t)(nul - raw);
	if (n > cap)
		n = cap;
	memcpy(out, raw, n);
	out[n] = '\0';
	return n;
}

/* ------------------------------------------------------------ reading */

/* Up to cap bytes of file name beneath dirfd; the count, or -errno. */
static ssize_t
read_at(int dirfd, const char *name, void *buf, size_t cap)
{
	size_t got = 0;
	ssize_t r;
	int fd, e;

	if ((fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return -errno;
	while (got < cap) {
		r = read(fd, (char *)buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return (ssize_t)got;
}

/* The executable's path, or -errno (EACCES: another uid's). */
static ssize_t
read_exe(int dirfd, char *out, size_t cap)
{
	ssize_t r;

	if (proc_read_exe_hook != NULL)
		r = proc_read_exe_hook(dirfd, out, cap);
	else if ((r = readlinkat(dirfd, "exe", out, cap)) < 0)
		r = -errno;
	if (r < 0)
		return r;
	if ((size_t)r >= cap)           /* a path too long to keep whole */
		r = (ssize_t)cap - 1;
	out[r] = '\0';
	return r;
}

static int
read_stat(int dirfd, struct proc_stat *st)
{
	char b[PEER_MAX_PROCFILE];
	ssize_t n;

	if ((n = read_at(dirfd, "stat", b, sizeof(b))) < 0)
		return (int)n;
	return proc_stat_parse(b, (size_t)n, st) == 0 ? 0 : -EINVAL;
}

static int
read_status(int dirfd, int64_t *ppid, uint32_t *euid)
{
	char b[PEER_MAX_PROCFILE];
	ssize_t n;

	if ((n = read_at(dirfd, "status", b, sizeof(b))) < 0)
		return (int)n;
	if (proc_status_ppid(b, (size_t)n, ppid) != 0 ||
	    proc_status_euid(b, (size_t)n, euid) != 0)
		return -EINVAL;
	return 0;
}

static int
open_pid(uint32_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%u", pid);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* 1 when the pidfd's process has exited (poll: readable). */
static int
pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/* The pid pidfd refers to (its fdinfo), or <= 0. */
static int64_t
pidfd_pid(int pidfd)
{
	char path[48], b[PEER_MAX_PROCFILE];
	int64_t pid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if ((n = read_at(AT_FDCWD, path, b, sizeof(b))) < 0 ||
	    proc_fdinfo_pid(b, (size_t)n, &pid) != 0)
		return -1;
	return pid;
}

static uint32_t
status_of(int err)
{
	return err == -ENOENT || err == -ESRCH ? PEER_GONE : PEER_UNREADABLE;
}

/* The chain of ancestors of the peer (stat st), best-effort: the first
 * that cannot be read, or is not provably the process whose pid the child
 * named, ends the chain. */
static void
ancestors(uint32_t pid, const struct proc_stat *st, int64_t ppid,
    struct proc_report *r)
{
	uint8_t raw[PEER_MAX_ARGV0 + 1];
	struct proc_stat a1, a2;
	uint64_t child_start = st->start;
	struct proc_anc *a;
	int64_t next;
	uint32_t euid;
	ssize_t n;
	int fd;

	if (pid == 1 || (int64_t)pid == st->session)
		return;
	while (r->nanc < PEER_MAX_ANCESTORS && ppid > 0 && ppid <= PEER_MAX_PID) {
		a = &r->anc[r->nanc];
		memset(a, 0, sizeof(*a));
		if ((fd = open_pid((uint32_t)ppid)) < 0)
			return;
		if (read_stat(fd, &a1) != 0 || read_status(fd, &next, &euid) != 0 ||
		    (n = read_exe(fd, a->exe, sizeof(a->exe))) == -ENOENT) {
			close(fd);
			return;
		}
		a->exe_len = n > 0 ? (size_t)n : 0;
		if (n < 0)
			a->exe[0] = '\0';       /* another uid's: no exe */
		if ((n = read_at(fd, "cmdline", raw, sizeof(raw))) < 0 ||
		    read_stat(fd, &a2) != 0) {
			close(fd);
			return;
		}
		close(fd);
		/* A parent starts before its child; a pid recycled since the
		 * child named it starts later, or changes under the reads. */
		if (a1.pid != ppid || a1.start != a2.start || a1.start > child_start) {
			log_debug("ancestor %lld of %u changed while read: chain "
			    "ends", (long long)ppid, pid);
			memset(a, 0, sizeof(*a));
			return;
		}
		a->pid = (uint32_t)ppid;
		a->argv0_len = proc_argv0(raw, (size_t)n, a->argv0, PEER_MAX_ARGV0);
		r->nanc++;
		if (ppid == 1 || ppid == a1.session)
			return;
		child_start = a1.start;
		ppid = next;
	}
}

/* A pidfd given must be of pid, and pid still running: 1, or 0. */
static int
pidfd_of(uint32_t pid, int pidfd)
{
	int64_t p;

	if (pidfd < 0)
		return 1;
	if ((p = pidfd_pid(pidfd)) != (int64_t)pid) {
		if (p > 0)
			log_error("request for pid %u with a pidfd of pid "
			    "%lld: not answered", pid, (long long)p);
		return 0;
	}
	return !pidfd_exited(pidfd);
}

/* pid's stat, parent, exe and cmdline through its /proc fd, if it is
 * uid's: 0, or -1 with r->status set (PEER_GONE for another's). */
static int
read_image(int fd, uint32_t pid, uint32_t uid, struct proc_stat *st,
    int64_t *ppid, struct proc_report *r)
{
	static uint8_t raw[PEER_MAX_CMDLINE + 1];
	uint32_t euid;
	ssize_t n;
	int e;

	if ((e = read_stat(fd, st)) != 0 || (e = read_status(fd, ppid, &euid)) != 0) {
		r->status = status_of(e);
		return -1;
	}
	if (st->pid != (int64_t)pid || euid != uid) {
		log_debug("pid %u: uid %u, not %u: another process", pid, euid, uid);
		return -1;
	}
	if ((n = read_exe(fd, r->exe, sizeof(r->exe))) < 0) {
		r->status = status_of((int)n);
		return -1;
	}
	r->exe_len = (size_t)n;
	if ((n = read_at(fd, "cmdline", raw, sizeof(raw))) < 0) {
		r->status = status_of((int)n);
		return -1;
	}
	r->cmdline_len = proc_cmdline_join(raw, (size_t)n, r->cmdline,
	    PEER_MAX_CMDLINE);
	return 0;
}

void
proc_inspect(uint32_t pid, uint32_t uid, int pidfd, struct proc_report *r)
{
	static char exe2[PEER_MAX_EXE + 1];
	struct proc_stat st1, st2;
	int64_t ppid;
	ssize_t n2;
	int fd;

	memset(r, 0, sizeof(*r));
	r->status = PEER_GONE;
	if (!pidfd_of(pid, pidfd))
		return;
	if ((fd = open_pid(pid)) < 0) {
		r->status = status_of(-errno);
		return;
	}
	if (read_image(fd, pid, uid, &st1, &ppid, r) != 0)
		goto out;
#ifdef KEYWARD_TESTING
	if (proc_test_pause_ms > 0)
		poll(NULL, 0, proc_test_pause_ms);
#endif
	/* The race rule: still alive, still the same start time and image;
	 * else nothing read is attributed to pid. */
	n2 = read_exe(fd, exe2, sizeof(exe2));
	if (read_stat(fd, &st2) != 0 || st2.start != st1.start ||
	    n2 != (ssize_t)r->exe_len || memcmp(exe2, r->exe, r->exe_len) != 0 ||
	    (pidfd >= 0 && pidfd_exited(pidfd))) {
		log_debug("pid %u changed while read: gone", pid);
		goto out;
	}
	r->status = pidfd >= 0 ? PEER_OK : PEER_NOPIDFD;
	ancestors(pid, &st1, ppid, r);
 out:
	close(fd);
	if (r->status != PEER_OK && r->status != PEER_NOPIDFD) {
		r->exe[0] = r->cmdline[0] = '\0';
		r->exe_len = r->cmdline_len = r->nanc = 0;
	}
}
