/*
 * seccomp/keyholder.c - the keyholder computes signatures and talks to
 * policy over one channel. Its worker threads exist before the filter, so
 * it needs no clone; no file, no socket, no exec, ever.
 */
#include "seccomp/sandbox.h"

void
sandbox_keyholder(int chan_fd, int done_fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* ipc/chan.c: datagrams from and to policy, on fd 3 only */
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	/* main.c worker/finished: the eventfd a worker rings when done */
	sandbox_allow_fd(ctx, SCMP_SYS(write), done_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(read), done_fd);
	sandbox_load(ctx, "keyholder");
}
