/*
 * trail.h - the audit trail's fd and key, from the monitor's options to
 * policy's arguments (trail.c).
 */
#ifndef KEYWARD_MONITOR_TRAIL_H
#define KEYWARD_MONITOR_TRAIL_H

#include "monitor/options.h"
#include "wire/args.h"

/* Fill a's audit fields from o; *fd: the trail (AUDIT_FD), else -1. 0,
 * or -1 with the reason on stderr (an invalid -O). */
int trail_open(const struct options *o, struct policy_args *a, int *fd);

#endif
