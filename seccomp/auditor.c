/*
 * seccomp/auditor.c - the audit writer reads records from its channel and
 * writes them to the one trail it holds (or to syslog).
 */
#include "seccomp/sandbox.h"

#include <sys/socket.h>

void
sandbox_auditor(int chan_fd, int audit_fd, int use_syslog)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* auditor.c: records in, acknowledgements out, on its channel only */
	sandbox_allow_fd(ctx, SCMP_SYS(recvfrom), chan_fd);
	sandbox_allow_fd(ctx, SCMP_SYS(sendto), chan_fd);
	if (use_syslog) {
		/* auditor.c write_line: syslog(), which reconnects to /dev/log
		 * after journald restarts */
		sandbox_allow(ctx, SCMP_SYS(sendto), 0);
		sandbox_allow(ctx, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
		sandbox_allow(ctx, SCMP_SYS(connect), 0);
	} else {
		/* auditor.c write_line: one write per line to the trail, and
		 * fdatasync with -O audit-sync=yes */
		sandbox_allow_fd(ctx, SCMP_SYS(write), audit_fd);
		sandbox_allow_fd(ctx, SCMP_SYS(fdatasync), audit_fd);
	}
	sandbox_load(ctx, "auditor");
}
