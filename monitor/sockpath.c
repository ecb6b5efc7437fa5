/*
 * sockpath.c - socket naming, creation and stale clean-up, before any
 * client byte is read. Nothing here runs inside the sandbox.
 */
#include "monitor/sockpath.h"
#include "ipc/limits.h"

#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char alpha[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

static void
random_chars(char *out, size_t n)
{
	uint8_t b;

	/* Rejection sampling keeps the 62 characters uniform. */
	for (size_t i = 0; i < n; i++) {
		do {
			if (getrandom(&b, 1, 0) != 1)
				abort();
		} while (b >= 248);
		out[i] = alpha[b % 62];
	}
	out[n] = '\0';
}

static int
mkdir_private(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return -1;
}

int
sock_agent_dir(char *out, size_t n)
{
	const char *home = getenv("HOME");
	struct passwd *pw;
	char ssh[4096];

	if (home == NULL || *home == '\0') {
		if ((pw = getpwuid(getuid())) == NULL)
			return -1;
		home = pw->pw_dir;
	}
	if ((size_t)snprintf(ssh, sizeof(ssh), "%s/.ssh", home) >= sizeof(ssh) ||
	    (size_t)snprintf(out, n, "%s/.ssh/agent", home) >= n)
		return -1;
	if (mkdir_private(ssh) != 0 || mkdir_private(out) != 0)
		return -1;
	return 0;
}

int
sock_default_path(const char *dir, const char *host_tag, char *out, size_t n)
{
	char r[SOCK_RAND_CHARS + 1];
	struct stat st;

	for (int tries = 0; tries < 100; tries++) {
		random_chars(r, SOCK_RAND_CHARS);
		if ((size_t)snprintf(out, n, "%s/s.%s.agent.%s", dir, host_tag, r) >= n)
			return -1;
		if (lstat(out, &st) != 0 && errno == ENOENT)
			return 0;
	}
	return -1;
}

int
sock_tempdir_path(char *dir, size_t dn, char *out, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	char r[TMPDIR_RAND_CHARS + 1];

	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	for (int tries = 0; tries < 100; tries++) {
		random_chars(r, TMPDIR_RAND_CHARS);
		if ((size_t)snprintf(dir, dn, "%s/ssh-%s", tmp, r) >= dn)
			return -1;
		if (mkdir(dir, 0700) == 0) {
			if ((size_t)snprintf(out, n, "%s/agent.%ld", dir,
			    (long)getpid()) >= n)
				return -1;
			return 0;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

int
sock_listen(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, saved;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		saved = errno;
		umask(old);
		close(fd);
		errno = saved;
		return -1;
	}
	umask(old);
	if (listen(fd, MONITOR_LISTEN_BACKLOG) != 0) {
		saved = errno;
		unlink(path);
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int
socket_alive(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, r;

	if (strlen(path) >= sizeof(sun.sun_path))
		return 1;
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return 1;
	r = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	return r == 0 || errno == EAGAIN || errno == EINPROGRESS;
}

int
sock_cleanup_stale(const char *dir, const char *host_tag, int any_host)
{
	char prefix[64], path[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	time_t now = time(NULL);

	snprintf(prefix, sizeof(prefix), "s.%s.", host_tag);
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, any_host ? "s." : prefix,
		    any_host ? 2 : strlen(prefix)) != 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    de->d_name) >= sizeof(path))
			continue;
		if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) ||
		    now - st.st_mtime < STALE_AGE_SECONDS)
			continue;
		if (!socket_alive(path))
			unlink(path);
	}
	closedir(d);
	return 0;
}

void
sock_quote(const char *path, char *out, size_t n)
{
	int wrap = strpbrk(path, " \t") != NULL;
	size_t o = 0;

	if (n == 0)
		return;
	if (wrap && o + 1 < n)
		out[o++] = '"';
	for (const char *p = path; *p != '\0' && o + 2 < n; p++) {
		if (*p == '\\' || *p == '\'' || *p == '"')
			out[o++] = '\\';
		out[o++] = *p;
	}
	if (wrap && o + 1 < n)
		out[o++] = '"';
	out[o] = '\0';
}
