/*
 * seccomp/keyholder.c - the keyholder computes signatures and talks to
 * policy over fd 3. Its worker threads exist before the filter, so it
 * needs no clone; no file, no socket, no exec, ever.
 */
#include "seccomp/sandbox.h"

void
sandbox_keyholder(void)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	sandbox_load(ctx, "keyholder");
}
