/*
 * spawn.c - starting a child process (spawn.h).
 */
#include "ipc/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef KEYWARD_LIBEXECDIR
#define KEYWARD_LIBEXECDIR "/usr/local/libexec/keyward"
#endif

int
helper_path(const char *name, char *out, size_t n)
{
	char self[PATH_MAX];
	ssize_t len;
	char *slash;

	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[len] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(out, n, "%s/%s", self, name) < n &&
			    access(out, X_OK) == 0)
				return 0;
		}
	}
	if ((size_t)snprintf(out, n, "%s/%s", KEYWARD_LIBEXECDIR, name) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return access(out, X_OK);
}

/* In the child: the given fds at 3, 4, ..., nothing else above stderr.
 * Each is first copied above every target number, so placing one can
 * never overwrite another that is still to be placed. */
static void
place_fds(const struct spawn *s, int keep)
{
	int tmp[SPAWN_MAX_FDS];

	for (int i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0 &&
		    (tmp[i] = fcntl(s->fds[i], F_DUPFD_CLOEXEC, 3 + SPAWN_MAX_FDS)) < 0)
			_exit(127);
	for (int i = 0; i < s->nfds; i++) {
		if (s->fds[i] < 0)
			close(3 + i);
		else if (dup2(tmp[i], 3 + i) != 3 + i)
			_exit(127);
	}
	/* keep (the exec status pipe, or -1) lies above every target */
	if (keep < 0)
		close_range(3 + (unsigned)s->nfds, ~0U, 0);
	else {
		close_range(3 + (unsigned)s->nfds, (unsigned)keep - 1, 0);
		close_range((unsigned)keep + 1, ~0U, 0);
	}
}

/* In the child: tell the parent why, through the status pipe, and end. */
static void
child_fail(int st)
{
	int e = errno;

	if (st >= 0)
		(void)!write(st, &e, sizeof(e));
	_exit(127);
}

/* In the parent of an exec: the status pipe brings the errno of what
 * failed in the child, or closes at its exec. pid, or -1 with errno. */
static pid_t
exec_status(pid_t pid, int st[2])
{
	int e = errno;          /* fork's, when pid < 0 */
	ssize_t r;

	close(st[1]);
	if (pid > 0) {
		do {
			r = read(st[0], &e, sizeof(e));
		} while (r < 0 && errno == EINTR);
		if (r == (ssize_t)sizeof(e)) {
			(void)waitpid(pid, NULL, 0);
			pid = -1;
		}
	}
	close(st[0]);
	errno = e;
	return pid;
}

/* In the child: it dies with its parent (unless it must outlive it),
 * its stdio and fds in place; w is the status pipe, or -1. */
static void
child_setup(const struct spawn *s, pid_t parent, int w)
{
	if (!s->outlives_parent &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent))
		_exit(127);
	if (s->own_group)
		setpgid(0, 0);
	if (s->stdin_fd > 0 && dup2(s->stdin_fd, STDIN_FILENO) != STDIN_FILENO)
		child_fail(w);
	if (s->stdout_fd >= 0 && s->stdout_fd != STDOUT_FILENO &&
	    dup2(s->stdout_fd, STDOUT_FILENO) != STDOUT_FILENO)
		child_fail(w);
	if (s->stderr_fd >= 0 && s->stderr_fd != STDERR_FILENO &&
	    dup2(s->stderr_fd, STDERR_FILENO) != STDERR_FILENO)
		child_fail(w);
	place_fds(s, w);
}

pid_t
spawn(const struct spawn *s)
{
	char path[PATH_MAX];
	pid_t parent = getpid(), pid;
	int st[2], w = -1;

	if (s->nfds < 0 || s->nfds > SPAWN_MAX_FDS ||
	    (s->exec == NULL) == (s->run == NULL)) {
		errno = EINVAL;
		return -1;
	}
	/* errno says why the helper cannot be run (ENOENT, EACCES, ...) */
	if (s->exec != NULL && helper_path(s->exec, path, sizeof(path)) != 0)
		return -1;
	/* A helper that cannot be run is known here, with its errno, not
	 * later as a child that exited 127: the child writes the errno of
	 * what failed to this pipe, whose end an exec closes. */
	if (s->exec != NULL && pipe2(st, O_CLOEXEC) != 0)
		return -1;
	if ((pid = fork()) != 0)
		return s->exec == NULL ? pid : exec_status(pid, st);
	/* The child. */
	if (s->exec != NULL) {
		close(st[0]);
		if ((w = fcntl(st[1], F_DUPFD_CLOEXEC, 3 + SPAWN_MAX_FDS)) < 0)
			_exit(127);
		close(st[1]);
	}
	child_setup(s, parent, w);
	if (s->exec != NULL) {
		execv(path, s->argv);
		child_fail(w);
	}
	s->run(s->arg);
	_exit(0);
}
