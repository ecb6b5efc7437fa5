/*
 * children.h - the monitor's table of its children (struct children),
 * started before its sandbox closes by the spawn routine (ipc/spawn.h):
 * policy and keyholder (their own binaries, fresh address spaces),
 * keyward-peer (the caller-identity inspector) and the reapers, which
 * remove the socket when the monitor is gone, however it went.
 */
#ifndef KEYWARD_MONITOR_CHILDREN_H
#define KEYWARD_MONITOR_CHILDREN_H

#include "wire/args.h"

#include <stddef.h>
#include <sys/types.h>

#define CHILDREN_REAPERS 2      /* the socket goes even if one is killed */

struct children {
	pid_t policy, keyholder, peer, reaper[CHILDREN_REAPERS];
	int policy_fd;          /* monitor's end of the monitor<->policy pair */
	int peer_fd;            /* monitor's end to keyward-peer, or -1 */
	int log_fd;             /* read end of the children's stderr, or -1 */
	int reaper_fd[CHILDREN_REAPERS];   /* closing them tells the reapers */
};

/* Run "keyward-policy --host-tag" for the default socket name (the
 * monitor has no libcrypto to hash the host name itself). */
int host_tag(char *out, size_t n);

/* Before the fork, before any socket, each 0 or -1 with the reason on
 * stderr (keyward(1) EXIT STATUS: 255): every helper the agent must
 * start (policy's too, and the auditor when with_auditor) can be run;
 * the argument list a gives policy is one policy takes. */
int children_check_helpers(int with_auditor);
int children_check_args(const struct policy_args *a);

/* Start policy, keyholder and keyward-peer (which may fail: the agent
 * then serves every caller as unavailable). relay_log: give them a pipe as stderr.
 * audit_fd (AUDIT_FD: the trail, else -1) becomes policy's fd 5. */
void children_start(struct children *c, int relay_log,
    const struct policy_args *a, int audit_fd);
/* reaper.c: fork the reapers for path (and dir, if the monitor made it,
 * else NULL) and the nnamed named sockets' paths (keyward(5)). */
void children_start_reapers(struct children *c, const char *path, const char *dir,
    const char *const *named, size_t nnamed);
/* Which of ours pid was, now reaped (its pid cleared); NULL if none. */
const char *children_reaped(struct children *c, pid_t pid);
int children_reapers_left(const struct children *c);

#endif
