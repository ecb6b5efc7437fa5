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
	if ((size_t)snprintf(out, n, "%s/%s", KEYWARD_LIBEXECDIR, name) >= n)
		return -1;
	return access(out, X_OK);
}

/* In the child: the given fds at 3, 4, ..., nothing else above stderr.
 * Each is first copied above every target number, so placing one can
 * never overwrite another that is still to be placed. */
static void
place_fds(const struct spawn *s)
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
	close_range(3 + (unsigned)s->nfds, ~0U, 0);
}

pid_t
spawn(const struct spawn *s)
{
	char path[PATH_MAX];
	pid_t parent = getpid(), pid;

	if (s->nfds < 0 || s->nfds > SPAWN_MAX_FDS ||
	    (s->exec == NULL) == (s->run == NULL) ||
	    (s->exec != NULL && helper_path(s->exec, path, sizeof(path)) != 0)) {
		errno = EINVAL;
		return -1;
	}
	if ((pid = fork()) != 0)
		return pid;
	/* The child. */
	if (!s->outlives_parent &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent))
		_exit(127);
	if (s->own_group)
		setpgid(0, 0);
	if (s->stdin_fd > 0 && dup2(s->stdin_fd, STDIN_FILENO) != STDIN_FILENO)
		_exit(127);
	if (s->stdout_fd >= 0 && s->stdout_fd != STDOUT_FILENO &&
	    dup2(s->stdout_fd, STDOUT_FILENO) != STDOUT_FILENO)
		_exit(127);
	if (s->stderr_fd >= 0 && s->stderr_fd != STDERR_FILENO &&
	    dup2(s->stderr_fd, STDERR_FILENO) != STDERR_FILENO)
		_exit(127);
	place_fds(s);
	if (s->exec != NULL) {
		execv(path, s->argv);
		_exit(127);
	}
	s->run(s->arg);
	_exit(0);
}
