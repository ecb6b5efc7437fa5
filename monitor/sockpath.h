/*
 * sockpath.h - where the agent socket lives and how it is created, exactly
 * as ssh-agent does it (doc/protocol.md §11.3), and how its path is printed (doc/protocol.md §11.2).
 */
#ifndef KEYWARD_SOCKPATH_H
#define KEYWARD_SOCKPATH_H

#include <stddef.h>
#include <sys/types.h>

#define SOCK_RAND_CHARS 10      /* R in s.H.agent.R */
#define SOCK_HOST_CHARS 10      /* H */
#define TMPDIR_RAND_CHARS 12    /* -T: ssh-XXXXXXXXXXXX */
#define STALE_AGE_SECONDS 3600

/* ~/.ssh/agent, created 0700 (with ~/.ssh) if missing. */
int sock_agent_dir(char *out, size_t n);
/* Default path for host tag H (from keyward-policy --host-tag). */
int sock_default_path(const char *dir, const char *host_tag, char *out, size_t n);
/* -T: a new private directory under $TMPDIR; the socket is agent.PID. */
int sock_tempdir_path(char *dir, size_t dn, char *out, size_t n);
/* Create, bind (umask 0177) and listen. -1 with errno on failure. */
int sock_listen(const char *path);
/* Remove stale sockets in dir (doc/protocol.md §11.3); any_host for -uu. */
int sock_cleanup_stale(const char *dir, const char *host_tag, int any_host);
/* Is something answering on path (a live agent, not a stale file)? A path
 * too long for a socket address is taken as alive: never truncated, and
 * so never the wrong file removed. */
int socket_alive(const char *path);
/* Quote a path for the printed shell commands (10.3+ rules). */
void sock_quote(const char *path, char *out, size_t n);

#endif
