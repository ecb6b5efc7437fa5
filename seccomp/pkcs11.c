/*
 * seccomp/pkcs11.c - keyward-pkcs11, the PKCS#11 token helper: requests
 * from policy on fd 3, one at a time, answered by a module loaded and
 * initialised before this filter. SoftHSM2 keeps its tokens in files
 * (Landlock: its token directory, read-write, and its configuration,
 * read-only; seccomp/landlock.c, sandbox_landlock_pkcs11); a smartcard
 * module talks to pcscd over its UNIX socket. No exec, no fork, no
 * memory made executable.
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>

void
sandbox_pkcs11(int chan_fd, int pcsc)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* pkcs11.c: policy's requests and the replies, on fd 3 */
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	/* SoftHSM2 opening its token's object files, its generation file
	 * and its lock file (token.lock, created: O_CREAT); Landlock keeps
	 * every open beneath its token directory */
	sandbox_allow(ctx, SCMP_SYS(openat), 0);
	sandbox_allow(ctx, SCMP_SYS(read), 0);
	/* SoftHSM2 rewriting an object file (a login updates the token's
	 * own); pcscd's socket. Read and write on any fd: the file's
	 * number is not known in advance */
	sandbox_allow(ctx, SCMP_SYS(write), 0);
	/* SoftHSM2 rewinding and cutting a file it rewrites */
	sandbox_allow(ctx, SCMP_SYS(lseek), 0);
	sandbox_allow(ctx, SCMP_SYS(ftruncate), 0);
	/* SoftHSM2 checks whether an object file changed since it read it
	 * (glibc's fstat is this syscall) */
	sandbox_allow(ctx, SCMP_SYS(newfstatat), 0);
	/* SoftHSM2 asks how a file was opened, then takes its lock while
	 * it reads or writes it, and releases it; no other fcntl */
	sandbox_allow(ctx, SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_EQ, F_GETFL));
	sandbox_allow(ctx, SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_EQ, F_SETLK));
	sandbox_allow(ctx, SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_EQ, F_SETLKW));
	if (pcsc) {
		/* libpcsclite: a stream socket to pcscd (/run/pcscd/pcscd.comm;
		 * Landlock does not cover connecting to a path socket) */
		sandbox_allow(ctx, SCMP_SYS(socket), 2,
		    SCMP_A0(SCMP_CMP_EQ, AF_UNIX),
		    SCMP_A1(SCMP_CMP_MASKED_EQ, ~(SOCK_CLOEXEC | SOCK_NONBLOCK),
		    SOCK_STREAM));
		sandbox_allow(ctx, SCMP_SYS(connect), 0);
	} else if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
	    SCMP_SYS(socket), 0) != 0)
		/* SoftHSM2 logs with syslog(3): refused, not killed */
		fatal("seccomp: cannot add the socket rule");
	sandbox_load(ctx, "pkcs11");
}
