/*
 * seccomp/monitor.c - what the monitor may do once it reads client bytes.
 * It accepts connections, moves bytes and reaps its children; it never
 * opens a file, never executes anything and has no network: its only new
 * sockets are syslog's AF_UNIX reconnects.
 */
#include "seccomp/sandbox.h"

#include <sys/socket.h>

void
sandbox_monitor(void)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* main.c accept_client: new clients, non-blocking from the start */
	sandbox_allow(ctx, SCMP_SYS(accept4), 0);
	/* main.c accept_client: SO_PEERCRED of each client, nothing else */
	sandbox_allow(ctx, SCMP_SYS(getsockopt), 2,
	    SCMP_A1(SCMP_CMP_EQ, SOL_SOCKET), SCMP_A2(SCMP_CMP_EQ, SO_PEERCRED));
	/* main.c signal_input: reap a child that died (then fail closed);
	 * main: wait for the reaper at exit */
	sandbox_allow(ctx, SCMP_SYS(wait4), 0);
	/* main.c loop: command mode checks its parent every 10 s */
	sandbox_allow(ctx, SCMP_SYS(getppid), 0);
	/* ipc/log.c: glibc syslog reconnects to /dev/log after journald
	 * restarts; only local datagram sockets */
	sandbox_allow(ctx, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	sandbox_allow(ctx, SCMP_SYS(connect), 0);
	sandbox_load(ctx, "monitor");
}
