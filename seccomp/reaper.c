/*
 * seccomp/reaper.c - the reaper waits for the monitor to go, then removes
 * the socket (and the -T directory). That is all it can do.
 */
#include "seccomp/sandbox.h"

void
sandbox_reaper(void)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* monitor/reaper.c:reap(): wait for the monitor's end of the pipe to close */
	sandbox_allow(ctx, SCMP_SYS(read), 0);
	/* monitor/reaper.c:reap(): is the socket still the one the monitor made?
	 * (glibc's lstat is fstatat(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW)) */
	sandbox_allow(ctx, SCMP_SYS(newfstatat), 0);
	/* monitor/reaper.c:reap(): remove it, and the directory -T made */
	sandbox_allow(ctx, SCMP_SYS(unlink), 0);
	sandbox_allow(ctx, SCMP_SYS(rmdir), 0);
	sandbox_load(ctx, "reaper");
}
