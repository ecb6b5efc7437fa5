/*
 * spawn.c - the monitor's children. Each helper gets exactly the fds it
 * needs at fixed numbers (3, 4), dies with its parent (PR_SET_PDEATHSIG)
 * and sandboxes itself before it reads a byte.
 */
#include "monitor/spawn.h"
#include "ipc/chan.h"
#include "ipc/log.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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

int
host_tag(char *out, size_t n)
{
	char path[PATH_MAX];
	int p[2], status;
	ssize_t r;
	pid_t pid;

	if (helper_path("keyward-policy", path, sizeof(path)) != 0 || pipe(p) != 0)
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl(path, "keyward-policy", "--host-tag", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	do {
		r = read(p[0], out, n - 1);
	} while (r < 0 && errno == EINTR);
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || r <= 0)
		return -1;
	out[r] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* In the child: put fds at 3, 4, 5 (-1: none) and close everything else. */
static void
place_fds(int a, int b, int c)
{
	int fds[3] = { a, b, c }, tmp[3], last = 2;

	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && (tmp[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0) {
			if (dup2(tmp[i], 3 + i) != 3 + i)
				_exit(127);
			last = 3 + i;
		}
	close_range((unsigned)last + 1, ~0U, 0);
}

static pid_t
start(const char *name, int fd_a, int fd_b, int fd_c, int log_w, char *const argv[])
{
	char path[PATH_MAX];
	pid_t pid;

	if (helper_path(name, path, sizeof(path)) != 0)
		fatal("cannot find %s beside keyward or in %s", name,
		    KEYWARD_LIBEXECDIR);
	if ((pid = fork()) < 0)
		fatal("fork: %m");
	if (pid > 0)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		_exit(127);
	if (log_w >= 0 && dup2(log_w, STDERR_FILENO) != STDERR_FILENO)
		_exit(127);
	place_fds(fd_a, fd_b, fd_c);
	execv(path, argv);
	_exit(127);
}

void
spawn_children(struct children *c, int relay_log, const struct policy_args *a)
{
	int mp[2], pk[2], lp[2] = { -1, -1 };
	char life[32], confirm[32];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, mp) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pk) != 0)
		fatal("socketpair: %m");
	chan_setup_fd(mp[0]);
	chan_setup_fd(mp[1]);
	chan_setup_fd(pk[0]);
	chan_setup_fd(pk[1]);
	if (relay_log && pipe2(lp, O_CLOEXEC) != 0)
		fatal("pipe: %m");
	snprintf(life, sizeof(life), "%ld", a->default_lifetime);
	snprintf(confirm, sizeof(confirm), "%ld", a->confirm_timeout);

	char *pargv[] = { "keyward-policy", (char *)a->loglevel, (char *)a->fp_hash,
	    life, confirm, (char *)a->audit, a->audit_sync ? "sync" : "nosync", NULL };
	char *kargv[] = { "keyward-keyholder", (char *)a->loglevel, NULL };
	c->keyholder = start("keyward-keyholder", pk[1], -1, -1, lp[1], kargv);
	c->policy = start("keyward-policy", mp[1], pk[0], a->audit_fd, lp[1], pargv);
	close(mp[1]);
	close(pk[0]);
	close(pk[1]);
	if (lp[1] >= 0)
		close(lp[1]);
	c->policy_fd = mp[0];
	c->log_fd = lp[0];
}

/* Which of ours pid was ("keyward-policy", ...), now reaped; NULL if it
 * was none of ours. */
const char *
spawn_reaped(struct children *c, pid_t pid)
{
	if (pid == c->policy) {
		c->policy = 0;
		return "keyward-policy";
	}
	if (pid == c->keyholder) {
		c->keyholder = 0;
		return "keyward-keyholder";
	}
	for (int i = 0; i < SPAWN_REAPERS; i++)
		if (pid == c->reaper[i]) {
			c->reaper[i] = 0;
			return "a reaper";
		}
	return NULL;
}

int
spawn_reapers_left(const struct children *c)
{
	int n = 0;

	for (int i = 0; i < SPAWN_REAPERS; i++)
		n += c->reaper[i] > 0;
	return n;
}
