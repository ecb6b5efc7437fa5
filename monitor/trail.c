/*
 * trail.c - the audit trail as the monitor finds it (trail.h): opened,
 * and its key checked, before the daemon changes to / and before any
 * sandbox closes; only policy's auditor will hold them.
 */
#include "crypto/auditchain.h"
#include "monitor/monitor.h"
#include "monitor/trail.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* -O audit-key=FILE: checked now (keyward-ctl audit keygen made it, no
 * other agent holds it), so a wrong one stops keyward before it starts;
 * the auditor opens it again, locks it and keeps it. */
static int
check_audit_key(const char *path, char *abs)
{
	char head[20];
	struct stat st;
	int fd;

	if (realpath(path, abs) == NULL ||
	    (fd = open(abs, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0) {
		fprintf(stderr, "keyward: cannot open the audit key %s: %s\n",
		    path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != AUDIT_STATE_LEN || read(fd, head, sizeof(head)) !=
	    (ssize_t)sizeof(head) || memcmp(head, "keyward-audit-key 1 ", 20) != 0) {
		fprintf(stderr, "keyward: %s is not an audit key (keyward-ctl "
		    "audit keygen makes one)\n", path);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		fprintf(stderr, "keyward: the audit key %s is in use by another "
		    "agent\n", path);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int
trail_open(struct policy_args *a, int *fdp)
{
	static char key[PATH_MAX];

	a->audit = AUDIT_NONE;
	*fdp = -1;
	a->audit_facility = M.opt.audit_facility;
	a->audit_tag = M.opt.audit_tag;
	a->audit_socket = M.opt.audit_socket;
	a->audit_key = NULL;
	if (M.opt.audit == NULL) {
		if (M.opt.audit_key == NULL)
			return 0;
		fprintf(stderr, "keyward: -O audit-key needs -O audit=\n");
		return -1;
	}
	if (M.opt.audit_key != NULL) {
		if (check_audit_key(M.opt.audit_key, key) != 0)
			return -1;
		a->audit_key = key;
	}
	if (strcmp(M.opt.audit, "syslog") == 0) {
		a->audit = AUDIT_SYSLOG;
		return 0;
	}
	a->audit = AUDIT_FD;
	/* Standard error is the agent's own only in the foreground: a
	 * daemon's is /dev/null, and a dup taken before the fork would
	 * write records into the starting terminal after its prompt. */
	if (strcmp(M.opt.audit, "-") == 0 && M.opt.fg == FG_NONE) {
		fprintf(stderr, "keyward: -O audit=- needs -d or -D (in the "
		    "background standard error is /dev/null): give a file or "
		    "syslog\n");
		return -1;
	}
	if (strcmp(M.opt.audit, "-") == 0)
		*fdp = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		*fdp = open(M.opt.audit, O_WRONLY | O_APPEND | O_CREAT |
		    O_CLOEXEC | O_NOCTTY, 0600);
	if (*fdp < 0) {
		fprintf(stderr, "keyward: cannot open the audit trail %s: %s\n",
		    M.opt.audit, strerror(errno));
		return -1;
	}
	return 0;
}
