/*
 * spawn.h - the one way keyward starts a process. Every child, whether it
 * executes a helper binary (policy, keyholder, peer, broker, prompter,
 * auditor, the token helpers) or runs a function in the fork (reapers,
 * launcher, and the prompter's askpass, whose function executes it),
 * starts the same way:
 *
 *   - it dies with its parent (PR_SET_PDEATHSIG), and exits at once if
 *     the parent had already gone before that was set -- except a reaper,
 *     whose whole job begins when its parent is gone;
 *   - it gets exactly the fds it is given, at 3, 4, ... in order, and
 *     0-2; every other fd is closed before it runs a line of its own;
 *   - a helper binary is found beside the running program or in
 *     LIBEXECDIR, and checks its own argument list (wire/args.h) whole.
 */
#ifndef KEYWARD_SPAWN_H
#define KEYWARD_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#define SPAWN_MAX_FDS 4

struct spawn {
	int fds[SPAWN_MAX_FDS]; /* placed at 3.. in order; -1: that one closed */
	int nfds;
	int stdin_fd;           /* onto fd 0, or 0 to keep the parent's */
	int stdout_fd;          /* onto fd 1, or -1 to keep the parent's */
	int stderr_fd;          /* onto fd 2, or -1 to keep the parent's */
	int own_group;          /* setpgid(0, 0) in the child */
	int outlives_parent;    /* the reapers: no PR_SET_PDEATHSIG */
	const char *exec;       /* helper binary name (helper_path), or NULL */
	char *const *argv;      /* its argument list (args_*_encode) */
	void (*run)(void *);    /* no exec: this runs in the fork; must not return */
	void *arg;
};

/* Start one child as above. Returns its pid, or -1 (errno set) if it
 * could not be started; the parent's fds are left as they were. */
pid_t spawn(const struct spawn *s);

/* Full path of a helper binary: beside this program, else LIBEXECDIR. */
int helper_path(const char *name, char *out, size_t n);

#endif
