/*
 * drive.h - what the token-helper drivers (sk_drive.c, p11_drive.c)
 * share: the helper started with spawn() (ipc/spawn.h: a SOCK_SEQPACKET
 * socketpair on its fd 3 and nothing else), the -e variables added to its
 * environment alone; and the line that says how it ended (peer_drive.c
 * uses that one too). Header-only:
 * each driver is one program. One thing differs from the agent's own
 * start: the helper does not die with its driver (.outlives_parent), as
 * the tests kill the driver to play a policy that is gone and watch the
 * helper see its socket close and say so by itself (143-p11-helper.t).
 */
#ifndef KEYWARD_TESTS_DRIVE_H
#define KEYWARD_TESTS_DRIVE_H

#include "ipc/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define DRIVE_MAX_ENV   16

/* -e NAME=VALUE: one more variable for the helper; -1 if it is not one or
 * there are DRIVE_MAX_ENV already. */
static inline int
drive_env(const char **env, int *nenv, const char *arg)
{
	if (*nenv == DRIVE_MAX_ENV || strchr(arg, '=') == NULL)
		return -1;
	env[(*nenv)++] = arg;
	return 0;
}

struct drive_exec {
	const char *path;
	char *argv[4];
	const char *const *env;
	int nenv;
};

/* In the child spawn() made: the helper by its full path (spawn's .exec
 * finds a helper beside the running program, and the drivers are given
 * the one to test). */
static inline void
drive_exec(void *arg)
{
	const struct drive_exec *x = arg;

	for (int i = 0; i < x->nenv; i++)
		putenv((char *)x->env[i]);
	execv(x->path, x->argv);
	_exit(127);
}

/* HELPER LEVEL PROVIDER started on a new socketpair; *sock is our end.
 * Prints "pid N" (flushed) once it runs. The pid, or -1. */
static inline pid_t
drive_start(const char *helper, const char *level, const char *provider,
    const char *const *env, int nenv, int *sock)
{
	struct drive_exec x = { helper, { (char *)helper, (char *)level,
	    (char *)provider, NULL }, env, nenv };
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	fflush(stdout);
	pid = spawn(&(struct spawn){ .fds = { sv[1] }, .nfds = 1, .stdout_fd = -1,
	    .stderr_fd = -1, .outlives_parent = 1, .run = drive_exec, .arg = &x });
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	*sock = sv[0];
	printf("pid %ld\n", (long)pid);
	fflush(stdout);
	return pid;
}

/* Wait for the helper and print "exit N" or "signal N": 0, or -1. */
static inline int
drive_end(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFEXITED(st))
		printf("exit %d\n", WEXITSTATUS(st));
	else
		printf("signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	return 0;
}

#endif
