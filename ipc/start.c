/*
 * start.c - the first steps every program keyward starts takes
 * (start.h).
 */
#include "ipc/start.h"
#include "ipc/chan.h"
#include "ipc/log.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

void
start_refused(const char *prog)
{
	fprintf(stderr, "%s is started by keyward, not by hand\n", prog);
	exit(1);
}

void
start_helper(const char *prog, int debug, unsigned flags)
{
	log_init(prog, debug ? LOG_LVL_DEBUG : LOG_LVL_INFO, 0);
	if (!(flags & START_KEEP_PIPE))
		signal(SIGPIPE, SIG_IGN);
	if (flags & START_IGNORE_INT)
		signal(SIGINT, SIG_IGN);
}

void
start_only_channel(int fd)
{
	socklen_t len;
	int type = 0;

	len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
	    type != SOCK_SEQPACKET)
		fatal("fd %d is not a SOCK_SEQPACKET socket", fd);
	if (close_range((unsigned)fd + 1, ~0U, 0) != 0)
		fatal("close_range: %m");
	chan_setup_fd(fd);
}
