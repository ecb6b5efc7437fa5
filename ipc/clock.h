/*
 * clock.h - milliseconds on a kernel clock: CLOCK_MONOTONIC for
 * timeouts, CLOCK_BOOTTIME for key lifetimes
 * (which, as the reference's, count the time the machine slept).
 */
#ifndef KEYWARD_CLOCK_H
#define KEYWARD_CLOCK_H

#include <stdint.h>
#include <time.h>

uint64_t clock_ms(clockid_t id);
/* clock_ms(CLOCK_MONOTONIC): every timeout and deadline of the agent's
 * processes and of keyward-ctl. */
uint64_t clock_mono_ms(void);

#endif
