/*
 * children.c - the monitor's children, started by the spawn routine
 * (ipc/spawn.c), and the table that knows which pid is which: each gets
 * exactly the fds it needs at fixed numbers (3, 4, 5) and sandboxes itself
 * before it reads a byte.
 */
#include "monitor/children.h"
#include "ipc/chan.h"
#include "ipc/log.h"
#include "ipc/spawn.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int
host_tag(char *out, size_t n)
{
	char *const argv[] = { "keyward-policy", "--host-tag", NULL };
	int p[2], status;
	ssize_t r;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid = spawn(&(struct spawn){ .stdout_fd = p[1], .stderr_fd = -1,
	    .exec = "keyward-policy", .argv = argv });
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	do {
		r = read(p[0], out, n - 1);
	} while (r < 0 && errno == EINTR);
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || r <= 0)
		return -1;
	out[r] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

int
children_check_helpers(int with_auditor)
{
	static const char *const need[] = { "keyward-policy",
	    "keyward-keyholder", "keyward-prompter", "keyward-broker",
	    "keyward-auditor" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!with_auditor && strcmp(need[i], "keyward-auditor") == 0)
			continue;
		if (helper_path(need[i], path, sizeof(path)) != 0) {
			fprintf(stderr, "keyward: cannot run %s (looked for it "
			    "beside keyward and in %s): %s\n", need[i],
			    KEYWARD_LIBEXECDIR, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int
children_check_args(const struct policy_args *a)
{
	struct args_buf b;
	struct policy_args back;
	char **argv;
	int argc;

	/* The list policy will decode, decoded here by the same code: a
	 * value it would refuse stops keyward now, not a started agent. */
	argv = args_policy_encode(a, &b);
	for (argc = 0; argv[argc] != NULL; argc++)
		;
	if (args_policy_decode(argc, argv, &back) != 0) {
		fprintf(stderr, "keyward: an option value keyward-policy would "
		    "refuse (a pattern list with a control character?)\n");
		return -1;
	}
	return 0;
}

static pid_t
start(const char *name, char *const argv[], int log_w, int fd3, int fd4, int fd5)
{
	pid_t pid = spawn(&(struct spawn){ .fds = { fd3, fd4, fd5 },
	    .nfds = fd5 >= 0 ? 3 : fd4 >= 0 ? 2 : 1, .stdout_fd = -1,
	    .stderr_fd = log_w, .exec = name, .argv = argv });

	if (pid < 0)
		fatal("cannot start %s (beside keyward or in %s): %m", name,
		    KEYWARD_LIBEXECDIR);
	return pid;
}

/* keyward-peer, "keyward-peer LOGLEVEL" with fd 3 its end of a
 * SOCK_SEQPACKET pair (peer/main.c). Not having it is no reason not to
 * serve: callers are then unavailable, and that is logged. */
static void
start_peer(struct children *c, int log_w, int debug)
{
	struct args_buf b;
	int sv[2];
	pid_t pid;

	c->peer = 0;
	c->peer_fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		fatal("socketpair: %m");
	chan_setup_fd(sv[0]);
	chan_setup_fd(sv[1]);
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) != 0)
		fatal("fcntl: %m");
	pid = spawn(&(struct spawn){ .fds = { sv[1] }, .nfds = 1, .stdout_fd = -1,
	    .stderr_fd = log_w, .exec = "keyward-peer",
	    .argv = args_peer_encode(&(struct peer_args){ .debug = debug }, &b) });
	close(sv[1]);
	if (pid < 0) {
		log_error("cannot start keyward-peer (beside keyward or in %s): %m; "
		    "callers are unavailable", KEYWARD_LIBEXECDIR);
		close(sv[0]);
		return;
	}
	c->peer = pid;
	c->peer_fd = sv[0];
}

void
children_start(struct children *c, int relay_log, const struct policy_args *a,
    int audit_fd)
{
	struct args_buf pb, kb;
	int mp[2], pk[2], lp[2] = { -1, -1 };

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, mp) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pk) != 0)
		fatal("socketpair: %m");
	chan_setup_fd(mp[0]);
	chan_setup_fd(mp[1]);
	chan_setup_fd(pk[0]);
	chan_setup_fd(pk[1]);
	if (relay_log && pipe2(lp, O_CLOEXEC) != 0)
		fatal("pipe: %m");
	c->keyholder = start("keyward-keyholder", args_keyholder_encode(
	    &(struct keyholder_args){ .debug = a->debug }, &kb), lp[1],
	    pk[1], -1, -1);
	c->policy = start("keyward-policy", args_policy_encode(a, &pb), lp[1],
	    mp[1], pk[0], audit_fd);
	start_peer(c, lp[1], a->debug);
	close(mp[1]);
	close(pk[0]);
	close(pk[1]);
	if (lp[1] >= 0)
		close(lp[1]);
	c->policy_fd = mp[0];
	c->log_fd = lp[0];
}

/* Which of ours pid was ("keyward-policy", ...), now reaped; NULL if it
 * was none of ours. */
const char *
children_reaped(struct children *c, pid_t pid)
{
	if (pid == c->policy) {
		c->policy = 0;
		return "keyward-policy";
	}
	if (pid == c->keyholder) {
		c->keyholder = 0;
		return "keyward-keyholder";
	}
	if (pid == c->peer) {
		c->peer = 0;
		return "keyward-peer";
	}
	for (int i = 0; i < CHILDREN_REAPERS; i++)
		if (pid == c->reaper[i]) {
			c->reaper[i] = 0;
			return "a reaper";
		}
	return NULL;
}

int
children_reapers_left(const struct children *c)
{
	int n = 0;

	for (int i = 0; i < CHILDREN_REAPERS; i++)
		n += c->reaper[i] > 0;
	return n;
}
