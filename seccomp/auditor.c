/*
 * seccomp/auditor.c - the audit writer reads records from its channel and
 * writes them to the one trail it holds, or sends them to syslog; with a
 * key it rewrites the key file in place.
 */
#include "seccomp/sandbox.h"

#include <sys/socket.h>

void
sandbox_auditor(int chan_fd, int audit_fd, int use_syslog, int key_fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* auditor/main.c:request(): records in, acknowledgements out, on its
	 * channel only */
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	if (use_syslog) {
		/* auditor/trail.c:syslog_send(): one datagram per record to the syslog
		 * socket, and when the daemon restarted a new socket connected
		 * to it (its fd is not known in advance: sendto and connect on
		 * any fd; socket only for a Unix datagram one) */
		sandbox_allow(ctx, SCMP_SYS(sendto), 0);
		sandbox_allow(ctx, SCMP_SYS(socket), 2, SCMP_A0(SCMP_CMP_EQ, AF_UNIX),
		    SCMP_A1(SCMP_CMP_EQ, SOCK_DGRAM | SOCK_CLOEXEC));
		sandbox_allow(ctx, SCMP_SYS(connect), 0);
	} else {
		/* auditor/trail.c:write_line(): one write per line to the trail, and
		 * fdatasync with -O audit-sync=yes */
		sandbox_allow_fd(ctx, SCMP_SYS(write), audit_fd);
		sandbox_allow_fd(ctx, SCMP_SYS(fdatasync), audit_fd);
	}
	if (key_fd >= 0) {
		/* auditor/main.c:seal(): the evolved key over the old one, synced */
		sandbox_allow_fd(ctx, SCMP_SYS(pwrite64), key_fd);
		sandbox_allow_fd(ctx, SCMP_SYS(fdatasync), key_fd);
	}
	sandbox_load(ctx, "auditor");
}
