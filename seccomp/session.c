/*
 * seccomp/session.c - keyward-session, the session watcher: it reads and
 * writes D-Bus messages on the system bus and session bus connections
 * sd-bus opened before the filter (logind's signals; desktop notices),
 * and talks with policy on fd 3. No file (Landlock
 * allows none either: seccomp/landlock.c), no new socket, no exec, no
 * fork, no memory made executable.
 */
#include "seccomp/sandbox.h"

#include <sys/ioctl.h>
#include <unistd.h>

void
sandbox_session(int chan_fd, int bus_fd, int user_fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* session/main.c:tell(): one fact out; session/main.c:main(): EOF
	 * when policy goes; on fd 3 only */
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	for (int i = 0; i < 2; i++) {
		int fd = i == 0 ? bus_fd : user_fd;
		if (fd < 0)
			continue;
		/* sd_bus_process, sd_bus_flush: D-Bus messages in and out on
		 * the bus connection (with any fds they carry, which the
		 * watcher closes unread) */
		sandbox_allow_fd(ctx, SCMP_SYS(sendmsg), fd);
		sandbox_allow_fd(ctx, SCMP_SYS(recvmsg), fd);
		sandbox_allow_fd(ctx, SCMP_SYS(writev), fd);
		sandbox_allow_fd(ctx, SCMP_SYS(readv), fd);
		/* sd_bus_flush_close_unref: the connection shut down when the
		 * session ends or the bus goes */
		sandbox_allow_fd(ctx, SCMP_SYS(shutdown), fd);
	}
	/* libsystemd's own log (sd_bus_flush_close_unref when the session
	 * ends or a bus goes) asks whether stderr is a terminal (TCGETS on
	 * fd 2 only) and writes its line there with writev */
	sandbox_allow(ctx, SCMP_SYS(ioctl), 2, SCMP_A0(SCMP_CMP_EQ, STDERR_FILENO),
	    SCMP_A1(SCMP_CMP_EQ, TCGETS));
	sandbox_allow_fd(ctx, SCMP_SYS(writev), STDERR_FILENO);
	/* sd_bus_flush: waits for a bus socket with ppoll */
	sandbox_allow(ctx, SCMP_SYS(ppoll), 0);
	sandbox_load(ctx, "session");
}
