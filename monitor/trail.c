/*
 * trail.c - the audit trail (keyward(1) -O audit=, audit-key=), opened
 * and checked by the monitor before its sandbox closes and before the
 * daemon changes to /: the trail's fd goes to policy's auditor, which
 * alone holds it; the key is checked here so that a wrong one stops
 * keyward before it starts, and the auditor opens it again.
 */
#include "crypto/auditchain.h"
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
trail_open(const struct options *o, struct policy_args *a, int *fd)
{
	static char key[PATH_MAX];

	a->audit = AUDIT_NONE;
	*fd = -1;
	a->audit_facility = o->audit_facility;
	a->audit_tag = o->audit_tag;
	a->audit_socket = o->audit_socket;
	a->audit_key = NULL;
	if (o->audit == NULL) {
		if (o->audit_key == NULL)
			return 0;
		fprintf(stderr, "keyward: -O audit-key needs -O audit=\n");
		return -1;
	}
	if (o->audit_key != NULL) {
		if (check_audit_key(o->audit_key, key) != 0)
			return -1;
		a->audit_key = key;
	}
	if (strcmp(o->audit, "syslog") == 0) {
		a->audit = AUDIT_SYSLOG;
		return 0;
	}
	a->audit = AUDIT_FD;
	if (strcmp(o->audit, "-") == 0)
		*fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		*fd = open(o->audit, O_WRONLY | O_APPEND | O_CREAT |
		    O_CLOEXEC | O_NOCTTY, 0600);
	if (*fd < 0) {
		fprintf(stderr, "keyward: cannot open the audit trail %s: %s\n",
		    o->audit, strerror(errno));
		return -1;
	}
	return 0;
}
