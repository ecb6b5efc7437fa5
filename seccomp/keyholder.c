/*
 * seccomp/keyholder.c - the keyholder computes signatures and talks to
 * policy over one channel. Its worker threads exist before the filter, so
 * it needs no clone; no file, no socket, no exec, ever.
 */
#include "seccomp/sandbox.h"

#include <linux/futex.h>

void
sandbox_keyholder(int chan_fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* ipc/chan.c:chan_recv(), ipc/chan.c:chan_send(),
	 * keyholder/main.c:worker_reply(): datagrams from and to policy, on
	 * fd 3 only (workers send their answers themselves) */
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	/* keyholder/main.c:worker(): pthread_cond_wait on the job queue */
	sandbox_allow_futex(ctx, FUTEX_WAIT_BITSET);
	sandbox_load(ctx, "keyholder");
}
