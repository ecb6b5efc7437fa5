/*
 * seccomp/sk.c - keyward-sk, the FIDO token helper: one request from
 * policy on fd 3, one signature from a middleware, one reply. Two shapes:
 *  - "internal" (libfido2): the tokens were found (libudev) and opened
 *    before this filter (token/sk/fido.c:internal_open_tokens()); all that is
 *    left is reading and writing those descriptors, so no open at all.
 *  - a provider library, loaded before this filter, finds and talks to
 *    its tokens itself: open and read device nodes and sysfs, which
 *    Landlock confines to exactly those
 *    (seccomp/landlock.c:sandbox_landlock_token()).
 * No exec, no fork, no socket but a refused one, no memory made executable.
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/hidraw.h>
#include <sys/file.h>

/* What a provider library needs to find tokens as libudev and libfido2
 * do (strace of fido2-token -L with a hidraw device present). */
static void
allow_provider(scmp_filter_ctx ctx)
{
	const scmp_datum_t hid_ioctls[] = { HIDIOCGRDESCSIZE, HIDIOCGRDESC };

	/* sysfs and /run/udev files (read-only) and /dev/hidraw*
	 * (read-write), as Landlock allows; no file is ever created */
	sandbox_allow(ctx, SCMP_SYS(openat), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, 0));
	sandbox_allow(ctx, SCMP_SYS(read), 0);
	/* CTAP frames written to the token's node, whose fd number is not
	 * known in advance */
	sandbox_allow(ctx, SCMP_SYS(write), 0);
	/* a node is a character device (fstat); libudev looks at sysfs
	 * entries (newfstatat, statx) */
	sandbox_allow(ctx, SCMP_SYS(fstat), 0);
	sandbox_allow(ctx, SCMP_SYS(newfstatat), 0);
	sandbox_allow(ctx, SCMP_SYS(statx), 0);
	/* libudev (systemd 252) checks a device directory has a uevent file
	 * (faccessat2 F_OK) and lies on sysfs (fstatfs) before it lists it */
	sandbox_allow(ctx, SCMP_SYS(faccessat2), 0);
	sandbox_allow(ctx, SCMP_SYS(fstatfs), 0);
	/* libudev walking /sys/class/hidraw and following its links */
	sandbox_allow(ctx, SCMP_SYS(getdents64), 0);
	sandbox_allow(ctx, SCMP_SYS(readlinkat), 0);
	/* a token's report descriptor: its size and its bytes, the two
	 * hidraw ioctls libfido2 uses, nothing else */
	for (size_t i = 0; i < sizeof(hid_ioctls) / sizeof(hid_ioctls[0]); i++)
		sandbox_allow(ctx, SCMP_SYS(ioctl), 1,
		    SCMP_A1(SCMP_CMP_EQ, hid_ioctls[i]));
	/* taking the token for itself (flock LOCK_EX|LOCK_NB) */
	sandbox_allow(ctx, SCMP_SYS(flock), 0);
	/* waiting for the token's answer (with a signal mask) */
	sandbox_allow(ctx, SCMP_SYS(ppoll), 0);
	/* libfido2 looks for NFC readers over netlink: refused, not killed,
	 * so USB tokens still work (no socket is ever made) */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0) != 0)
		fatal("seccomp: cannot add the socket rule");
}

void
sandbox_sk(int chan_fd, const int *token_fds, size_t n)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* token/sk/sk.c:serve(), token/sk/sk.c:send_reply(): the one request from
	 * policy and the one reply, on fd 3 */
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	/* waiting between tries: libfido2's U2F touch loop, a provider's
	 * own waiting (glibc's nanosleep is this syscall) */
	sandbox_allow(ctx, SCMP_SYS(clock_nanosleep), 0);
	if (token_fds == NULL)
		allow_provider(ctx);
	else
		/* token/sk/fido.c:io_read(), token/sk/fido.c:io_write(): HID reports
		 * read from and written to the tokens opened before this
		 * filter, nothing else
		 * (waiting is poll, a common one) */
		for (size_t i = 0; i < n; i++) {
			sandbox_allow_fd(ctx, SCMP_SYS(read), token_fds[i]);
			sandbox_allow_fd(ctx, SCMP_SYS(write), token_fds[i]);
		}
	sandbox_load(ctx, "sk");
}
