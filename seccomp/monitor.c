/*
 * seccomp/monitor.c - what the monitor may do once it reads client bytes.
 * It accepts connections, moves bytes and reaps its children; it never
 * opens a file, never executes anything and has no network: its only new
 * sockets are syslog's AF_UNIX reconnects.
 */
#include "seccomp/sandbox.h"

#include <sys/socket.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77         /* Linux 6.5; older headers lack it */
#endif

void
sandbox_monitor(const int *listen_fds, size_t nlisten, int use_syslog,
    int peer_fd)
{
	scmp_filter_ctx ctx = sandbox_filter_new();

	sandbox_allow_common(ctx);
	/* monitor/client.c:client_read(), monitor/client.c:client_flush():
	 * client bytes in and out (clients come and go, so these cannot be
	 * pinned to fds); monitor/loop.c:signal_input(): the signalfd;
	 * monitor/loop.c:log_input(): the children's log pipe */
	sandbox_allow(ctx, SCMP_SYS(read), 0);
	sandbox_allow(ctx, SCMP_SYS(write), 0);
	/* ipc/chan.c:chan_send(), ipc/chan.c:chan_recv(): datagrams to and
	 * from policy; monitor/whois.c:whois_input(): keyward-peer's answers */
	sandbox_allow(ctx, SCMP_SYS(sendto), 0);
	sandbox_allow(ctx, SCMP_SYS(recvfrom), 0);
	/* monitor/clients.c:clients_accept(): new clients, on the listening
	 * sockets only (the main one and the named ones of keyward(5)) */
	for (size_t i = 0; i < nlisten; i++)
		sandbox_allow(ctx, SCMP_SYS(accept4), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)listen_fds[i]));
	/* monitor/clients.c:clients_accept(): SO_PEERCRED of each client,
	 * nothing else */
	sandbox_allow(ctx, SCMP_SYS(getsockopt), 2,
	    SCMP_A1(SCMP_CMP_EQ, SOL_SOCKET), SCMP_A2(SCMP_CMP_EQ, SO_PEERCRED));
	/* monitor/whois.c:whois_pidfd(): a pidfd of each client's process,
	 * from the socket (SO_PEERPIDFD, Linux 6.5), else from its pid; no
	 * flags */
	sandbox_allow(ctx, SCMP_SYS(getsockopt), 2,
	    SCMP_A1(SCMP_CMP_EQ, SOL_SOCKET), SCMP_A2(SCMP_CMP_EQ, SO_PEERPIDFD));
	sandbox_allow(ctx, SCMP_SYS(pidfd_open), 1, SCMP_A1(SCMP_CMP_EQ, 0));
	/* monitor/whois.c:whois_pump(), by ipc/chan.c:chan_send_fd(): a
	 * request and its pidfd to keyward-peer, on its socket only (its
	 * answers come by recvfrom, above) */
	if (peer_fd >= 0)
		sandbox_allow_fd(ctx, SCMP_SYS(sendmsg), peer_fd);
	/* monitor/loop.c:signal_input(): reap a child that died (then fail
	 * closed); monitor/loop.c:monitor_shutdown(): wait for the reapers at
	 * exit */
	sandbox_allow(ctx, SCMP_SYS(wait4), 0);
	/* monitor/loop.c:monitor_loop(): command mode checks its parent
	 * every 10 s */
	sandbox_allow(ctx, SCMP_SYS(getppid), 0);
	/* ipc/log.c:emit(): glibc syslog reconnects to /dev/log after journald
	 * restarts; only as a daemon, only local datagram sockets */
	if (use_syslog) {
		sandbox_allow(ctx, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
		sandbox_allow(ctx, SCMP_SYS(connect), 0);
	}
	sandbox_load(ctx, "monitor");
}
