/*
 * sockets.c - the named sockets of keyward(5) (sockets.h). They are made
 * while the file system is still the monitor's: after its sandbox closes
 * it can make none, so the set is fixed at start. A declaration that
 * cannot be honoured stops keyward with its place in the rules file, and
 * the sockets made before it are removed: never half a set.
 */
#include "ipc/log.h"
#include "monitor/sockets.h"
#include "monitor/sockpath.h"
#include "rules/rules.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void
sockets_declare(struct named_sockets *ns, const struct ruleset *rs,
    const char *file)
{
	memset(ns, 0, sizeof(*ns));
	ns->file = file;
	for (size_t i = 0; i < rs->nsock && i < SOCKETS_MAX; i++) {
		struct named_socket *s = &ns->s[i];
		snprintf(s->name, sizeof(s->name), "%s", rs->sock[i].name);
		if (rs->sock[i].path != NULL) {
			snprintf(s->path, sizeof(s->path), "%s", rs->sock[i].path);
			s->given = 1;
		}
		s->line = rs->sock[i].line;
		s->col = rs->sock[i].col;
		s->fd = -1;
	}
	ns->n = rs->nsock;
}

static int say(const struct named_sockets *ns, const struct named_socket *s,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "keyward: FILE:LINE:COLUMN: socket NAME: ..." on stderr; -1. */
static int
say(const struct named_sockets *ns, const struct named_socket *s,
    const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr, "keyward: %s:%zu:%zu: socket %s: %s\n", ns->file,
	    s->line, s->col, s->name, what);
	return -1;
}

/* Where it goes, and whether it may: the path (its own, or the main
 * socket's and ".NAME"), in a directory the user owns, and nothing there
 * but a stale socket. */
static int
check(const struct named_sockets *ns, struct named_socket *s,
    const char *main_path)
{
	char dir[SOCKET_PATH_MAX + 1], *slash;
	struct stat st;

	if (!s->given) {
		if (main_path == NULL)
			return say(ns, s, "no path, and the main socket's is not "
			    "known (systemd passed it): give one");
		if ((size_t)snprintf(s->path, sizeof(s->path), "%s.%s", main_path,
		    s->name) >= sizeof(s->path))
			return say(ns, s, "beside the main socket its path would "
			    "be longer than %d bytes: give a shorter one",
			    SOCKET_PATH_MAX);
	}
	if (main_path != NULL && strcmp(s->path, main_path) == 0)
		return say(ns, s, "%s is the main socket", s->path);
	for (const struct named_socket *o = ns->s; o < s; o++)
		if (strcmp(o->path, s->path) == 0)
			return say(ns, s, "%s is socket %s's too", s->path, o->name);
	snprintf(dir, sizeof(dir), "%s", s->path);
	/* absolute, as the parser wants, unless beside a relative -a */
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) != 0)
		return say(ns, s, "its directory %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return say(ns, s, "%s is outside a directory you own (%s is "
		    "owned by uid %u)", s->path, dir, (unsigned)st.st_uid);
	if (lstat(s->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return say(ns, s, "%s exists and is not a socket",
			    s->path);
		if (st.st_uid != getuid())
			return say(ns, s, "%s is another user's socket", s->path);
		if (socket_alive(s->path))
			return say(ns, s, "%s is in use (another agent listens "
			    "there)", s->path);
		if (unlink(s->path) != 0)
			return say(ns, s, "cannot remove the stale socket %s: %s",
			    s->path, strerror(errno));
	} else if (errno != ENOENT)
		return say(ns, s, "%s: %s", s->path, strerror(errno));
	return 0;
}

/* fd, named w by LISTEN_FDNAMES, is a declared socket's: 0, or -1 (said)
 * if nothing declares w or it came twice. */
static int
name_passed(struct named_sockets *ns, const char *w, int fd)
{
	char shown[SOCKET_NAME_MAX + 4];
	size_t j, k;

	for (k = 0; k < ns->n && strcmp(ns->s[k].name, w) != 0; k++)
		;
	if (k < ns->n && ns->s[k].fd < 0) {
		ns->s[k].fd = fd;
		return 0;
	}
	for (j = 0; w[j] != '\0' && j < SOCKET_NAME_MAX; j++)
		shown[j] = isgraph((unsigned char)w[j]) ? w[j] : '?';
	shown[j] = '\0';
	fprintf(stderr, "keyward: socket activation: systemd "
	    "passed a socket named \"%s\", which %s %s\n", shown,
	    ns->file != NULL ? ns->file : "(no -O policy=)",
	    k == ns->n ? "does not declare" : "names once");
	return -1;
}

/* Every declared socket was passed: its fd kept from an exec, its path
 * as systemd bound it. 0, or -1 (said). */
static int
adopt_declared(struct named_sockets *ns)
{
	for (size_t k = 0; k < ns->n; k++) {
		struct named_socket *s = &ns->s[k];
		struct sockaddr_un sun;
		socklen_t len = sizeof(sun);
		if (s->fd < 0)
			return say(ns, s, "systemd did not pass it (a socket "
			    "unit line FileDescriptorName=%s)", s->name);
		fcntl(s->fd, F_SETFD, FD_CLOEXEC);
		memset(&sun, 0, sizeof(sun));
		if (getsockname(s->fd, (struct sockaddr *)&sun, &len) == 0 &&
		    sun.sun_family == AF_UNIX && sun.sun_path[0] != '\0')
			snprintf(s->path, sizeof(s->path), "%.*s",
			    (int)sizeof(sun.sun_path), sun.sun_path);
	}
	return 0;
}

/* LISTEN_FDNAMES: which of fds 3.. is which socket. */
static int
from_systemd(struct named_sockets *ns, int nfds, int *main_fd)
{
	const char *env = getenv("LISTEN_FDNAMES");
	char names[(SOCKETS_MAX + 1) * (SOCKET_NAME_MAX + 16)], *save, *w;
	int i, mains = 0;

	*main_fd = -1;
	if (nfds == 1 && ns->n == 0) {
		*main_fd = 3;           /* one socket: the main one, named or not */
		return 0;
	}
	if (env == NULL && nfds == 1) {
		/* one socket, the main one: the declared ones were not passed */
		return say(ns, &ns->s[0], "systemd did not pass it (a socket "
		    "unit with FileDescriptorName=%s, listed in the service's "
		    "Sockets=)", ns->s[0].name);
	}
	if (env == NULL || strlen(env) >= sizeof(names)) {
		fprintf(stderr, "keyward: socket activation: %d sockets, and "
		    "LISTEN_FDNAMES %s (FileDescriptorName=main for the main "
		    "one, the declared name for the others)\n", nfds,
		    env == NULL ? "unset" : "too long");
		return -1;
	}
	snprintf(names, sizeof(names), "%s", env);
	for (i = 0, w = strtok_r(names, ":", &save); w != NULL;
	    i++, w = strtok_r(NULL, ":", &save)) {
		if (i >= nfds)
			break;
		/* main: so named, or a unit that names none (systemd then
		 * names its sockets after the unit: keyward.socket) */
		size_t wl = strlen(w);
		if (strcmp(w, "main") == 0 ||
		    (wl > 7 && strcmp(w + wl - 7, ".socket") == 0)) {
			mains++;
			*main_fd = 3 + i;
		} else if (name_passed(ns, w, 3 + i) != 0)
			return -1;
	}
	if (i != nfds || mains != 1) {
		fprintf(stderr, "keyward: socket activation: LISTEN_FDNAMES "
		    "names %d of %d sockets, %d of them \"main\" (one must be)\n",
		    i, nfds, mains);
		return -1;
	}
	return adopt_declared(ns);
}

int
sockets_make(struct named_sockets *ns, const char *main_path, int activated,
    int *main_fd)
{
	if (activated)
		return from_systemd(ns, activated, main_fd);
	for (size_t i = 0; i < ns->n; i++) {
		struct named_socket *s = &ns->s[i];
		if (check(ns, s, main_path) != 0) {
			sockets_unmake(ns);
			return -1;
		}
		if ((s->fd = sock_listen(s->path)) < 0) {
			say(ns, s, "bind %s: %s", s->path, strerror(errno));
			sockets_unmake(ns);
			return -1;
		}
		s->made = 1;
	}
	return 0;
}

void
sockets_unmake(struct named_sockets *ns)
{
	for (size_t i = 0; i < ns->n; i++) {
		struct named_socket *s = &ns->s[i];
		if (s->made)
			unlink(s->path);
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		s->made = 0;
	}
}

/* KEYWARD_SOCK_ and the name in upper case, '-' as '_'. */
static void
var_name(const struct named_socket *s, char *out, size_t n)
{
	size_t o = (size_t)snprintf(out, n, "KEYWARD_SOCK_");

	for (const char *p = s->name; *p != '\0' && o + 1 < n; p++)
		out[o++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
	out[o] = '\0';
}

void
sockets_print(const struct named_sockets *ns, enum shell_kind sh)
{
	char var[SOCKET_NAME_MAX + 16], q[4 * SOCKET_PATH_MAX + 8];

	for (size_t i = 0; i < ns->n; i++) {
		var_name(&ns->s[i], var, sizeof(var));
		sock_quote(ns->s[i].path, q, sizeof(q));
		if (sh == SHELL_CSH)
			printf("setenv %s %s;\n", var, q);
		else
			printf("%s=%s; export %s;\n", var, q, var);
	}
}

void
sockets_setenv(const struct named_sockets *ns)
{
	char var[SOCKET_NAME_MAX + 16];

	for (size_t i = 0; i < ns->n; i++) {
		var_name(&ns->s[i], var, sizeof(var));
		setenv(var, ns->s[i].path, 1);
	}
}
