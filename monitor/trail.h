/*
 * trail.h - -O audit=, audit-key= and the syslog options, made ready for
 * policy's auditor by the monitor before its sandbox closes.
 */
#ifndef KEYWARD_TRAIL_H
#define KEYWARD_TRAIL_H

#include "wire/args.h"

/* Fill a's audit fields from the options; open the trail (-O audit=FILE
 * or -, into *fdp, close-on-exec; -1 for none or syslog) and check the
 * audit key. 0, or -1 with the reason printed to stderr: an invalid -O. */
int trail_open(struct policy_args *a, int *fdp);

#endif
