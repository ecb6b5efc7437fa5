/*
 * reaper.c - the reapers remove the socket (and the -T directory) when
 * the monitor is gone, however it went. There are SPAWN_REAPERS of them,
 * each watching the monitor alone: if one is killed the monitor shuts
 * down and another still removes the socket, since the monitor itself
 * may not (its Landlock rules name no file).
 */
#include "ipc/log.h"
#include "ipc/spawn.h"
#include "monitor/spawn.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory a path is in ("/" for a top-level name). */
static void
parent_dir(const char *path, char *out, size_t n)
{
	char *slash;

	snprintf(out, n, "%s", path);
	if ((slash = strrchr(out, '/')) == NULL)
		snprintf(out, n, ".");
	else if (slash == out)
		out[1] = '\0';
	else
		*slash = '\0';
}

/* The reaper holds no secret and reads no client byte: it waits for the
 * monitor's end of a pipe to close, then removes what the monitor made.
 * It checks the inode first so it never removes a socket another agent
 * created at the same path after this one died. */
static void
reap(int fd, const char *path, const char *dir, const struct stat *made)
{
	struct stat now;
	char sockdir[PATH_MAX], parent[PATH_MAX];
	char b;

	/* It may remove the socket, and the -T directory; nothing else. */
	parent_dir(path, sockdir, sizeof(sockdir));
	if (dir != NULL)
		parent_dir(dir, parent, sizeof(parent));
	sandbox_harden();
	sandbox_landlock("reaper", sockdir, dir != NULL ? parent : NULL);
	sandbox_reaper();
	while (read(fd, &b, 1) != 0 && errno == EINTR)
		;
	if (lstat(path, &now) == 0 && now.st_ino == made->st_ino &&
	    now.st_dev == made->st_dev)
		unlink(path);
	if (dir != NULL)
		rmdir(dir);
	_exit(0);
}

struct reaper_start {
	const char *path, *dir;
	struct stat made;
};

/* In the fork: its own process group, so a ^C to the monitor's group
 * with -d does not end the reaper before the monitor has gone. */
static void
reaper_run(void *arg)
{
	const struct reaper_start *r = arg;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	reap(3, r->path, r->dir, &r->made);
}

void
spawn_reapers(struct children *c, const char *path, const char *dir)
{
	struct reaper_start r = { path, dir, { 0 } };
	int p[2];

	if (lstat(path, &r.made) != 0)
		fatal("stat %s: %m", path);
	for (int i = 0; i < SPAWN_REAPERS; i++) {
		if (pipe2(p, O_CLOEXEC) != 0)
			fatal("pipe: %m");
		/* Only the pipe's read end goes along: the other reapers'
		 * write ends must not, or they would never see EOF. */
		if ((c->reaper[i] = spawn(&(struct spawn){ .fds = { p[0] },
		    .nfds = 1, .stdout_fd = -1, .stderr_fd = -1, .own_group = 1,
		    .outlives_parent = 1,
		    .run = reaper_run, .arg = &r })) < 0)
			fatal("cannot start a reaper: %m");
		close(p[0]);
		c->reaper_fd[i] = p[1];
	}
}
