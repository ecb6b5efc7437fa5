/*
 * seccomp/peer.c - keyward-peer, the caller-identity inspector: requests
 * on fd 3 (each with maybe one pidfd), reads of /proc (which Landlock
 * confines it to, read-only: seccomp/landlock.c), one reply each; and its
 * exe reader, which answers readlinkat of /proc/PID/exe and opens nothing.
 * No exec, no fork, no socket, no write but to stderr, no memory made
 * executable.
 */
#include "seccomp/sandbox.h"

#include <fcntl.h>

void
sandbox_peer(int chan_fd, int exe_fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* peer/main.c:serve(): a request and the pidfd with it;
	 * peer/main.c:send_reply(): the reply; on fd 3 */
	sandbox_allow_fd(ctx, SCMP_SYS(recvmsg), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	/* peer/proc.c:open_pid(), peer/proc.c:read_at(): /proc/PID, its
	 * stat, status, cmdline; peer/proc.c:pidfd_pid(): /proc/self/fdinfo
	 * of a pidfd; opened read-only (Landlock allows nothing but reading beneath /proc
	 * anyway) */
	sandbox_allow(ctx, SCMP_SYS(openat), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY));
	sandbox_allow(ctx, SCMP_SYS(read), 0);
	/* peer/main.c:exe_via_reader(): /proc/PID's directory fd to the exe
	 * reader, and its answer, on fd 4 */
	sandbox_allow_fd(ctx, SCMP_SYS(sendmsg), exe_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), exe_fd);
	sandbox_load(ctx, "peer");
}

/* The exe reader: a directory fd of /proc/PID in, readlinkat(fd, "exe")
 * out. Not under Landlock (see peer/main.c), so it may open nothing. */
void
sandbox_peer_exe(int fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* peer/main.c:reader_run(): a directory fd in, the link out */
	sandbox_allow_fd(ctx, SCMP_SYS(recvmsg), fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), fd);
	/* peer/main.c:reader_run(): /proc/PID/exe, the one thing it does */
	sandbox_allow(ctx, SCMP_SYS(readlinkat), 0);
	sandbox_load(ctx, "peer-exe");
}
