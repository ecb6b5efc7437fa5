/*
 * seccomp/policy.c - policy reads and writes datagrams on the channels it
 * was given, six: monitor, keyholder, prompter, broker, session watcher
 * and auditor (five without an audit trail: policy/main.c:main()), logs to stderr and
 * computes. No file, no socket, no exec, no fork, no other fd.
 */
#include "seccomp/sandbox.h"

void
sandbox_policy(const int *chan_fds, int n)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	for (int i = 0; i < n; i++) {
		/* ipc/chan.c:chan_recv(), ipc/chan.c:chan_send(): one datagram
		 * in, one out, on its own channels only */
		sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fds[i]);
		sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fds[i]);
	}
	sandbox_load(ctx, "policy");
}
