/*
 * seccomp/policy.c - policy reads and writes datagrams on the fds it was
 * given and computes. No file, no socket, no exec, no fork after set-up.
 */
#include "seccomp/sandbox.h"

void
sandbox_policy(void)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	sandbox_load(ctx, "policy");
}
