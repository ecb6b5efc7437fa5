/*
 * broker.h - the process that starts token helpers for policy and relays
 * their answers (broker.c).
 */
#ifndef KEYWARD_BROKER_H
#define KEYWARD_BROKER_H

#include "wire/args.h"

/* Fork the broker; returns policy's end of its channel. */
int broker_spawn(const struct policy_args *a);

#endif
