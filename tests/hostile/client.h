/*
 * client.h - what the two raw clients of an agent, the hostile client
 * (tests/hostile/lib.h) and the bench (tests/bench/bench.c), share: the
 * message numbers, a connection to the agent's socket and the agent's
 * process tree (its
 * processes are what both measure). The SSH encodings of the keys they
 * make come from the tests' one key encoder, tests/unit/testkeys.h.
 * Header-only: each client is one program. Both run against ssh-agent
 * too, so nothing here is keyward's own code.
 */
#ifndef KEYWARD_TESTS_CLIENT_H
#define KEYWARD_TESTS_CLIENT_H

#define AC_MAX_PROCS    16384   /* processes scanned in /proc at most */

/* Message numbers (doc/protocol.md §3). */
#define MSG_FAILURE          5
#define MSG_SUCCESS          6
#define MSG_REQ_IDENTITIES   11
#define MSG_IDENTITIES       12
#define MSG_SIGN             13
#define MSG_SIGN_RESPONSE    14
#define MSG_ADD              17
#define MSG_REMOVE           18
#define MSG_REMOVE_ALL       19
#define MSG_LOCK             22
#define MSG_UNLOCK           23
#define MSG_ADD_CONSTRAINED  25
#define MSG_EXTENSION        27
#define MSG_EXT_FAILURE      28

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

/* A stream socket connected to the agent at path, flags (SOCK_NONBLOCK
 * or 0) given to socket(2): the fd, or -1 with errno set (EAGAIN: the
 * listener's backlog is full; ENAMETOOLONG: path does not fit). */
static inline int
ac_connect(const char *path, int flags)
{
	struct sockaddr_un sa;
	int fd, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | flags, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The parent of pid (from /proc/PID/stat), or -1. */
static inline pid_t
ac_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;
	int pp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %d", &pp) != 1)
		return -1;
	return pp;
}

/* root and all its descendants into tree (n of them, at most max): n, or
 * -1 if /proc cannot be read. */
static inline int
ac_tree_pids(pid_t root, pid_t *tree, int max)
{
	static pid_t pids[AC_MAX_PROCS], par[AC_MAX_PROCS];
	struct dirent *de;
	int np = 0, nt = 0, grew;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL && np < AC_MAX_PROCS) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pids[np] = (pid_t)atoi(de->d_name);
		par[np] = ac_ppid(pids[np]);
		np++;
	}
	closedir(d);
	tree[nt++] = root;
	do {
		grew = 0;
		for (int i = 0; i < np && nt < max; i++) {
			int in = 0, child = 0;

			for (int j = 0; j < nt; j++) {
				in |= tree[j] == pids[i];
				child |= tree[j] == par[i];
			}
			if (!in && child) {
				tree[nt++] = pids[i];
				grew = 1;
			}
		}
	} while (grew);
	return nt;
}

#endif
