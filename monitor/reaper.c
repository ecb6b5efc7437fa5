/*
 * reaper.c - the reapers remove the socket (the named ones of keyward(5)
 * too, and the -T directory) when the monitor is gone, however it went. There are CHILDREN_REAPERS of them,
 * each watching the monitor alone: if one is killed the monitor shuts
 * down and another still removes the socket, since the monitor itself
 * may not (its Landlock rules name no file).
 */
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/spawn.h"
#include "monitor/children.h"
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
struct reaper_start {
	const char *path[1 + SOCKETS_MAX];      /* main, then the named */
	struct stat made[1 + SOCKETS_MAX];
	size_t n;
	const char *dir;
};

static void
reap(int fd, const struct reaper_start *r)
{
	static char sockdir[1 + SOCKETS_MAX][PATH_MAX];
	const char *dirs[2 + SOCKETS_MAX] = { NULL };
	struct stat now;
	char parent[PATH_MAX];
	char b;

	/* It may remove the sockets, and the -T directory; nothing else. */
	for (size_t i = 0; i < r->n; i++) {
		parent_dir(r->path[i], sockdir[i], sizeof(sockdir[i]));
		dirs[i] = sockdir[i];
	}
	if (r->dir != NULL)
		parent_dir(r->dir, parent, sizeof(parent));
	sandbox_harden();
	sandbox_landlock_rm("reaper", dirs, r->dir != NULL ? parent : NULL);
	sandbox_reaper();
	while (read(fd, &b, 1) != 0 && errno == EINTR)
		;
	for (size_t i = 0; i < r->n; i++)
		if (lstat(r->path[i], &now) == 0 &&
		    now.st_ino == r->made[i].st_ino &&
		    now.st_dev == r->made[i].st_dev)
			unlink(r->path[i]);
	if (r->dir != NULL)
		rmdir(r->dir);
	_exit(0);
}

/* In the fork: its own process group, so a ^C to the monitor's group
 * with -d does not end the reaper before the monitor has gone. */
static void
reaper_run(void *arg)
{
	const struct reaper_start *r = arg;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	reap(3, r);
}

void
children_start_reapers(struct children *c, const char *path, const char *dir,
    const char *const *named, size_t nnamed)
{
	static struct reaper_start r;
	int p[2];

	memset(&r, 0, sizeof(r));
	r.dir = dir;
	r.path[r.n++] = path;
	for (size_t i = 0; i < nnamed && i < SOCKETS_MAX; i++)
		r.path[r.n++] = named[i];
	for (size_t i = 0; i < r.n; i++)
		if (lstat(r.path[i], &r.made[i]) != 0)
			fatal("stat %s: %m", r.path[i]);
	for (int i = 0; i < CHILDREN_REAPERS; i++) {
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
