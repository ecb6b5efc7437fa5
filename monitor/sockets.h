/*
 * sockets.h - the named sockets a keyward(5) rules file declares
 * ("socket NAME [PATH] [manage]"): made (or taken from systemd) before
 * any child starts, all of them or none, with the main socket's mode and
 * peer-uid check; printed for the shell. Index 0 is the main socket, i
 * the i-th declared one, as policy counts them (rules/scope.h).
 */
#ifndef KEYWARD_SOCKETS_H
#define KEYWARD_SOCKETS_H

#include "ipc/limits.h"
#include "monitor/options.h"

#include <stddef.h>

struct ruleset;

struct named_socket {
	char name[SOCKET_NAME_MAX + 1];
	char path[SOCKET_PATH_MAX + 1];         /* "" until resolved */
	int given;              /* the declaration named its path */
	size_t line, col;       /* the declaration's place, for errors */
	int fd;                 /* listening, -1 until made */
	int made;               /* we bound it (not systemd): reapers remove it */
};

struct named_sockets {
	struct named_socket s[SOCKETS_MAX];
	size_t n;
	const char *file;       /* the rules file, for errors */
};

/* Keep what rs declares (-O policy=FILE, file its name). */
void sockets_declare(struct named_sockets *ns, const struct ruleset *rs,
    const char *file);
/*
 * Make every declared socket beside main_path (the main socket's path,
 * NULL when systemd passed it), or take it from systemd (activated: the
 * LISTEN_FDNAMES of fds 3 and up, nfds of them). 0 when all are
 * listening; -1 with a "FILE:LINE:COLUMN: ..." message printed and none
 * left behind.
 */
int sockets_make(struct named_sockets *ns, const char *main_path,
    int activated, int *main_fd);
/* Remove what sockets_make bound (an error later in the start-up). */
void sockets_unmake(struct named_sockets *ns);
/* "KEYWARD_SOCK_NAME=PATH; export KEYWARD_SOCK_NAME;" (csh: setenv) for
 * each, as keyward -s / -c print SSH_AUTH_SOCK; or set them (a command). */
void sockets_print(const struct named_sockets *ns, enum shell_kind sh);
void sockets_setenv(const struct named_sockets *ns);

#endif
