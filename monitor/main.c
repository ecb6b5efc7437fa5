/*
 * main.c - keyward, the monitor. It holds no key and links no libcrypto.
 * Set up (setup.c), drop privileges, enter the filter, then run one poll
 * loop (loop.c). If any child dies, the agent ends (fail closed).
 */
#include "monitor/monitor.h"
#include "monitor/setup.h"
#include "seccomp/sandbox.h"

int
main(int argc, char **argv)
{
	char path[4096];
	const char *made_dir = NULL;
	int listen_fds[1 + SOCKETS_MAX];
	int r;

	setup_signals_block();
	if ((r = setup_options(argc, argv)) >= 0 ||
	    (r = setup_socket(path, sizeof(path), &made_dir)) >= 0 ||
	    (r = setup_detach(path, made_dir)) >= 0)
		return r;
	setup_signals();
	setup_children(path, made_dir);
	setup_ready(path);

	sandbox_harden();
	sandbox_landlock("monitor", NULL, NULL);        /* it needs no file at all */
	listen_fds[0] = M.listen_fd;
	for (size_t i = 0; i < M.named.n; i++)
		listen_fds[1 + i] = M.named.s[i].fd;
	sandbox_monitor(listen_fds, 1 + M.named.n, M.opt.fg == FG_NONE,
	    M.peer_fd);
	monitor_loop();

	monitor_shutdown();
	return M.exit_status;
}
