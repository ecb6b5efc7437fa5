/*
 * seccomp/sk.c - keyward-sk, the FIDO token helper: one request from
 * policy on fd 3, one signature from a middleware, one reply. The
 * middleware (libfido2 for "internal", or a provider library loaded before
 * this filter) must find and talk to a token: open and read device nodes
 * and sysfs, which Landlock confines to exactly those (seccomp/landlock.c,
 * sandbox_landlock_token). No exec, no fork, no socket but a refused one,
 * no memory made executable.
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/hidraw.h>
#include <sys/file.h>

void
sandbox_sk(int chan_fd)
{
	const scmp_datum_t hid_ioctls[] = { HIDIOCGRDESCSIZE, HIDIOCGRDESC };
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* sk.c: the one request from policy and the one reply, on fd 3 */
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	/* libudev and libfido2 finding tokens: sysfs and /run/udev files
	 * (read-only) and /dev/hidraw* (read-write), as Landlock allows; no
	 * file is ever created */
	sandbox_allow(ctx, SCMP_SYS(openat), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, 0));
	sandbox_allow(ctx, SCMP_SYS(read), 0);
	/* libfido2 sends CTAP frames with write on the token's node, whose
	 * fd number is not known in advance */
	sandbox_allow(ctx, SCMP_SYS(write), 0);
	/* libfido2 checks a node is a character device (fstat); libudev
	 * looks at sysfs entries (newfstatat, statx) */
	sandbox_allow(ctx, SCMP_SYS(fstat), 0);
	sandbox_allow(ctx, SCMP_SYS(newfstatat), 0);
	sandbox_allow(ctx, SCMP_SYS(statx), 0);
	/* libudev walking /sys/class/hidraw and following its links */
	sandbox_allow(ctx, SCMP_SYS(getdents64), 0);
	sandbox_allow(ctx, SCMP_SYS(readlinkat), 0);
	/* libfido2 reading a token's report descriptor: its size and its
	 * bytes, the two hidraw ioctls it uses, nothing else */
	for (size_t i = 0; i < sizeof(hid_ioctls) / sizeof(hid_ioctls[0]); i++)
		sandbox_allow(ctx, SCMP_SYS(ioctl), 1,
		    SCMP_A1(SCMP_CMP_EQ, hid_ioctls[i]));
	/* libfido2 takes the token for itself (flock LOCK_EX|LOCK_NB) */
	sandbox_allow(ctx, SCMP_SYS(flock), 0);
	/* libfido2 waiting for the token's answer (with a signal mask) */
	sandbox_allow(ctx, SCMP_SYS(ppoll), 0);
	/* libfido2 retrying a token another process holds; a provider
	 * library waiting (glibc's nanosleep is this syscall) */
	sandbox_allow(ctx, SCMP_SYS(clock_nanosleep), 0);
	/* libfido2 looks for NFC readers over netlink: refused, not killed,
	 * so USB tokens still work (no socket is ever made) */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0) != 0)
		fatal("seccomp: cannot add the socket rule");
	sandbox_load(ctx, "sk");
}
