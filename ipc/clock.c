/*
 * clock.c - milliseconds on a kernel clock (clock.h).
 */
#include "ipc/clock.h"

uint64_t
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
clock_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}
