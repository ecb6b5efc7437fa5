/*
 * spawn.h - starting the other processes before the monitor's sandbox
 * closes: policy and keyholder (fork + exec of their own binaries, fresh
 * address spaces) and the reaper, which removes the socket when the monitor
 * is gone, however it went.
 */
#ifndef KEYWARD_SPAWN_H
#define KEYWARD_SPAWN_H

#include <sys/types.h>

#define SPAWN_REAPERS 2      /* the socket goes even if one is killed */

struct children {
	pid_t policy, keyholder, reaper[SPAWN_REAPERS];
	int policy_fd;          /* monitor's end of the monitor<->policy pair */
	int log_fd;             /* read end of the children's stderr, or -1 */
	int reaper_fd[SPAWN_REAPERS];   /* closing them tells the reapers */
};

/* Full path of a helper binary: beside this program, else LIBEXECDIR. */
int helper_path(const char *name, char *out, size_t n);
/* Run "keyward-policy --host-tag" for the default socket name (the
 * monitor has no libcrypto to hash the host name itself). */
int host_tag(char *out, size_t n);
/* What policy is started with (its command line, and the audit fd). */
struct policy_args {
	const char *loglevel, *fp_hash;
	long default_lifetime, confirm_timeout;
	const char *audit;      /* "none", "fd" (audit_fd) or "syslog" */
	int audit_sync, audit_fd;
};

/* Start policy and keyholder. relay_log: give them a pipe as stderr. */
void spawn_children(struct children *c, int relay_log, const struct policy_args *a);
/* reaper.c: fork the reapers for path (and dir, if the monitor made it,
 * else NULL). */
void spawn_reapers(struct children *c, const char *path, const char *dir);
/* Which of ours pid was, now reaped (its pid cleared); NULL if none. */
const char *spawn_reaped(struct children *c, pid_t pid);
int spawn_reapers_left(const struct children *c);

#endif
