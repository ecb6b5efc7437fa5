/*
 * seccomp/session.c - keyward-session, the session watcher: it reads and
 * writes D-Bus messages on the one system bus connection sd-bus opened
 * before the filter, and sends facts to policy on fd 3. No file (Landlock
 * allows none either: seccomp/landlock.c), no new socket, no exec, no
 * fork, no memory made executable.
 */
#include "seccomp/sandbox.h"

#include <sys/ioctl.h>

void
sandbox_session(int chan_fd, int bus_fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* session/main.c:tell(): one fact out; session/main.c:main(): EOF
	 * when policy goes; on fd 3 only */
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	if (bus_fd >= 0) {
		/* sd_bus_process, sd_bus_flush: D-Bus messages in and out on
		 * the bus connection (with any fds they carry, which the
		 * watcher closes unread) */
		sandbox_allow_fd(ctx, SCMP_SYS(sendmsg), bus_fd);
		sandbox_allow_fd(ctx, SCMP_SYS(recvmsg), bus_fd);
		sandbox_allow_fd(ctx, SCMP_SYS(writev), bus_fd);
		sandbox_allow_fd(ctx, SCMP_SYS(readv), bus_fd);
		/* sd_bus_flush_close_unref: the connection shut down when the
		 * session ends or the bus goes */
		sandbox_allow_fd(ctx, SCMP_SYS(shutdown), bus_fd);
		/* sd_bus_flush: waits for the socket with ppoll */
		sandbox_allow(ctx, SCMP_SYS(ppoll), 0);
	}
	sandbox_load(ctx, "session");
}
