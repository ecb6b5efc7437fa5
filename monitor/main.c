/*
 * main.c - keyward, the monitor. It holds no key and links no libcrypto.
 * Set up (options, socket, children), drop privileges, enter the filter,
 * then run one poll loop: clients in, typed requests to policy, replies
 * out in request order. If any child dies, the agent ends (fail closed).
 */
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/msg.h"
#include "monitor/client.h"
#include "monitor/options.h"
#include "monitor/proto.h"
#include "monitor/sockpath.h"
#include "monitor/spawn.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct monitor {
	struct options opt;
	int listen_fd, activated, sig_fd;
	struct chan policy;
	struct children kids;
	struct client **clients;
	size_t nclients, maxclients;
	uint32_t next_conn, next_req;
	pid_t command_parent;
	uid_t uid;              /* ours: peers must be this uid or root */
	int quit, exit_status;
	struct wb ipc, reply;
	uint8_t rbuf[IPC_MAX_MSG + 1];
	char log_line[LOG_LINE_MAX];
	size_t log_len;
};

static struct monitor M;

static void reaped(pid_t pid);

static void
send_policy(struct wb *w)
{
	if (chan_send(&M.policy, w) != 0)
		fatal("policy process is gone; shutting down");
	wipe(w->p, w->len);     /* an ADD carried a private key */
	wb_reset(w);
}

static void
drop_client(size_t i)
{
	struct client *c = M.clients[i];

	msg_begin(&M.ipc, MSG_CLOSE, 0, c->id);
	send_policy(&M.ipc);
	client_free(c);
	M.clients[i] = M.clients[--M.nclients];
}

static void
accept_client(void)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct msg_open m;
	struct client *c;
	int fd;

	if ((fd = accept4(M.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		log_error("getsockopt(SO_PEERCRED): %m");
		close(fd);
		return;
	}
	if (cred.uid != 0 && cred.uid != M.uid) {
		log_error("uid mismatch: peer euid %u != uid %u; connection closed",
		    (unsigned)cred.uid, (unsigned)M.uid);
		close(fd);
		return;
	}
	if (++M.next_conn == 0)
		M.next_conn = 1;        /* 0 means "no connection" */
	if ((c = client_new(fd, M.next_conn, cred.uid, cred.pid)) == NULL) {
		close(fd);
		return;
	}
	M.clients[M.nclients++] = c;
	m.uid = cred.uid;
	m.pid = (uint32_t)cred.pid;
	msg_begin(&M.ipc, MSG_OPEN, 0, c->id);
	msg_open_encode(&M.ipc, &m);
	send_policy(&M.ipc);
	log_debug("connection %u from uid %u pid %d", c->id, (unsigned)cred.uid,
	    (int)cred.pid);
}

/* Handle every complete frame the client has sent, as far as its pipeline
 * allows. Returns -1 when the client must be closed. */
static int
client_requests(struct client *c)
{
	const uint8_t *p;
	size_t len;
	struct slot *s;
	int r;

	while (c->count < AGENT_MAX_INFLIGHT && (r = client_frame(c, &p, &len)) != 0) {
		if (r < 0) {
			log_info("connection %u: broken frame; closed", c->id);
			return -1;
		}
		if (++M.next_req == 0)
			M.next_req = 1;
		s = client_slot(c, M.next_req);
		if (proto_request(p, len, M.next_req, c->id, &M.ipc, &M.reply)) {
			send_policy(&M.ipc);
		} else {
			wb_bytes(&s->reply, M.reply.p, M.reply.len);
			s->done = 1;
		}
		client_consume(c, len);
	}
	return client_flush(c);
}

static struct client *
find_client(uint32_t id, size_t *index)
{
	for (size_t i = 0; i < M.nclients; i++)
		if (M.clients[i]->id == id) {
			*index = i;
			return M.clients[i];
		}
	return NULL;
}

static void
policy_reply(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct client *c;
	struct slot *s;
	struct rd r;
	size_t i;

	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0)
		fatal("malformed message from policy");
	if (h.conn == 0)
		return;                 /* our own request (SIGUSR1) */
	if ((c = find_client(h.conn, &i)) == NULL ||
	    (s = client_find_slot(c, h.req)) == NULL)
		return;                 /* the client has gone meanwhile */
	if (proto_reply(&h, &r, &s->reply) != 0)
		fatal("malformed reply from policy");
	s->done = 1;
	if (client_requests(c) != 0)
		drop_client(i);
}

static void
policy_input(void)
{
	size_t n;
	int r;

	while ((r = chan_recv(&M.policy, M.rbuf, sizeof(M.rbuf), &n)) > 0)
		policy_reply(M.rbuf, n);
	if (r < 0 && !M.quit) {
		/* Policy is gone; shutdown_children reaps it and says why. */
		M.quit = 1;
		M.exit_status = 255;
	}
}

/* Children's log lines arrive on a pipe when we are a daemon. */
static void
log_input(void)
{
	char buf[4096];
	ssize_t r = read(M.kids.log_fd, buf, sizeof(buf));

	if (r <= 0)
		return;                 /* EOF: a child died; SIGCHLD handles it */
	for (ssize_t i = 0; i < r; i++) {
		if (buf[i] == '\n' || M.log_len == sizeof(M.log_line) - 1) {
			M.log_line[M.log_len] = '\0';
			log_relay(M.log_line);
			M.log_len = 0;
		}
		if (buf[i] != '\n')
			M.log_line[M.log_len++] = buf[i];
	}
}

/* A child is gone: the agent fails closed. Say which and how. */
static void
child_died(pid_t pid, int status)
{
	const char *who = pid == M.kids.policy ? "keyward-policy" :
	    pid == M.kids.keyholder ? "keyward-keyholder" :
	    pid == M.kids.reaper ? "the reaper" : NULL;

	if (who == NULL) {
		/* An orphan we adopted as subreaper (an askpass program's
		 * child, say): reaped, and none of our business. */
		log_debug("reaped adopted process %d", (int)pid);
		return;
	}
	reaped(pid);
	if (WIFSIGNALED(status))
		log_error("%s was killed by signal %d (%s); shutting down", who,
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!M.quit)
		log_error("%s exited with status %d; shutting down", who,
		    WEXITSTATUS(status));
	if (!M.quit)
		M.exit_status = 255;
	M.quit = 1;
}

static void
signal_input(void)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	if (read(M.sig_fd, &si, sizeof(si)) != sizeof(si))
		return;
	switch (si.ssi_signo) {
	case SIGUSR1:
		log_info("SIGUSR1: removing all keys");
		msg_begin(&M.ipc, MSG_REMOVE_ALL, 0, 0);
		send_policy(&M.ipc);
		break;
	case SIGCHLD:
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			child_died(pid, status);
		break;
	default:
		log_debug("signal %u: exiting", si.ssi_signo);
		M.quit = 1;
		M.exit_status = M.activated && si.ssi_signo == SIGTERM ? 0 : 2;
		break;
	}
}

static void
reaped(pid_t pid)
{
	if (pid == M.kids.policy)
		M.kids.policy = 0;
	if (pid == M.kids.keyholder)
		M.kids.keyholder = 0;
	if (pid == M.kids.reaper)
		M.kids.reaper = 0;
}

/* Closing the channel ends policy, which ends the keyholder (which wipes
 * its keys) and the prompter; wait for them a bounded time. Then the
 * reaper removes the socket, and we wait until it has. */
static void
shutdown_children(void)
{
	pid_t pid = 0;

	int status;

	chan_close(&M.policy);
	for (int i = 0; i < 200 && (M.kids.policy || M.kids.keyholder); i++) {
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			child_died(pid, status);
		if (pid < 0)
			break;                  /* ECHILD: nobody left */
		if (M.kids.policy || M.kids.keyholder)
			poll(NULL, 0, 10);
	}
	if (M.kids.reaper_fd >= 0)
		close(M.kids.reaper_fd);
	while (M.kids.reaper > 0 && (pid = waitpid(-1, &status, 0)) != -1)
		child_died(pid, status);
}

static void
loop(void)
{
	struct pollfd *pfd;
	size_t fixed, n, i;
	struct timespec last_check = { 0, 0 }, now;
	int timeout;

	if ((pfd = calloc(M.maxclients + 4, sizeof(*pfd))) == NULL)
		fatal("out of memory");
	while (!M.quit) {
		n = 0;
		pfd[n++] = (struct pollfd){ M.sig_fd, POLLIN, 0 };
		pfd[n++] = (struct pollfd){ M.policy.fd, chan_events(&M.policy), 0 };
		pfd[n++] = (struct pollfd){ M.kids.log_fd, POLLIN, 0 };
		/* Stop accepting at the fd limit; clients wait in the backlog. */
		pfd[n++] = (struct pollfd){ M.nclients < M.maxclients ?
		    M.listen_fd : -1, POLLIN, 0 };
		fixed = n;
		for (i = 0; i < M.nclients; i++)
			pfd[n++] = (struct pollfd){ M.clients[i]->fd,
			    client_events(M.clients[i]), 0 };
		timeout = M.command_parent > 0 ? MONITOR_PARENT_CHECK_MS : -1;
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		if (M.command_parent > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - last_check.tv_sec >= MONITOR_PARENT_CHECK_MS / 1000) {
				last_check = now;
				if (getppid() != M.command_parent) {
					log_info("command has exited; shutting down");
					M.exit_status = 2;
					break;
				}
			}
		}
		if (pfd[0].revents)
			signal_input();
		if (pfd[1].revents & POLLOUT && chan_flush(&M.policy) != 0)
			fatal("policy process is gone; shutting down");
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
			policy_input();
		if (M.quit)
			break;
		if (pfd[2].revents)
			log_input();
		/* Clients, walked backwards so drop_client's swap is safe.
		 * Policy replies above may have dropped clients: match fds. */
		for (i = n; i-- > fixed;) {
			size_t ci;
			if (pfd[i].revents == 0)
				continue;
			for (ci = 0; ci < M.nclients && M.clients[ci]->fd != pfd[i].fd; ci++)
				;
			if (ci == M.nclients)
				continue;
			struct client *c = M.clients[ci];
			if ((pfd[i].revents & POLLIN) && !client_read(c)) {
				drop_client(ci);
				continue;
			}
			if ((pfd[i].revents & (POLLERR | POLLNVAL)) ||
			    ((pfd[i].revents & POLLHUP) && !(pfd[i].revents & POLLIN))) {
				drop_client(ci);
				continue;
			}
			if (client_requests(c) != 0)
				drop_client(ci);
		}
		if (pfd[3].revents & POLLIN)
			accept_client();
	}
	free(pfd);
}

/* ---------------------------------------------------------------- set-up */

static void
print_env(const char *path, pid_t pid, int with_pid)
{
	char q[8192];

	sock_quote(path, q, sizeof(q));
	if (M.opt.shell == SHELL_CSH) {
		printf("setenv SSH_AUTH_SOCK %s;\n", q);
		if (with_pid)
			printf("setenv SSH_AGENT_PID %ld;\n", (long)pid);
	} else {
		printf("SSH_AUTH_SOCK=%s; export SSH_AUTH_SOCK;\n", q);
		if (with_pid)
			printf("SSH_AGENT_PID=%ld; export SSH_AGENT_PID;\n", (long)pid);
	}
	printf("echo Agent pid %ld;\n", (long)pid);
	fflush(stdout);
}

static int
kill_agent(void)
{
	const char *s = getenv("SSH_AGENT_PID");
	char *end;
	long pid;

	if (s == NULL) {
		fprintf(stderr, "SSH_AGENT_PID not set, cannot kill agent\n");
		return 1;
	}
	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || pid < 2 || pid > INT_MAX) {
		fprintf(stderr, "SSH_AGENT_PID=\"%s\", which is not a good PID\n", s);
		return 1;
	}
	if (kill((pid_t)pid, SIGTERM) != 0) {
		perror("kill");
		return 1;
	}
	if (M.opt.shell == SHELL_CSH)
		printf("unsetenv SSH_AUTH_SOCK;\nunsetenv SSH_AGENT_PID;\n");
	else
		printf("unset SSH_AUTH_SOCK;\nunset SSH_AGENT_PID;\n");
	printf("echo Agent pid %ld killed;\n", pid);
	return 0;
}

static void
sanitise_fds(int keep3)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
	close_range(keep3 ? 4 : 3, ~0U, 0);
}

static int
activation(void)
{
	const char *lpid = getenv("LISTEN_PID"), *lfds = getenv("LISTEN_FDS");

	if (M.opt.fg == FG_NONE || M.opt.bind_address != NULL ||
	    M.opt.command != NULL || lpid == NULL || lfds == NULL)
		return 0;
	if (strcmp(lfds, "1") != 0)
		fatal("socket activation: LISTEN_FDS=%s, expected 1", lfds);
	if (fcntl(3, F_GETFD) < 0)
		fatal("socket activation: fd 3 is not open");
	if (strtol(lpid, NULL, 10) != (long)getpid())
		fatal("socket activation: LISTEN_PID=%s is not our pid", lpid);
	return 1;
}

static void
daemonise(void)
{
	int fd;

	if (setsid() < 0)
		fatal("setsid: %m");
	(void)!chdir("/");
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

static int
open_audit(struct policy_args *a)
{
	a->audit = "none";
	a->audit_fd = -1;
	if (M.opt.audit == NULL)
		return 0;
	if (strcmp(M.opt.audit, "syslog") == 0) {
		a->audit = "syslog";
		return 0;
	}
	a->audit = "fd";
	if (strcmp(M.opt.audit, "-") == 0)
		a->audit_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		a->audit_fd = open(M.opt.audit, O_WRONLY | O_APPEND | O_CREAT |
		    O_CLOEXEC | O_NOCTTY, 0600);
	if (a->audit_fd < 0) {
		fprintf(stderr, "keyward: cannot open the audit trail %s: %s\n",
		    M.opt.audit, strerror(errno));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct policy_args pargs;
	char path[4096], dir[4096], tag[64], agentdir[4096];
	const char *made_dir = NULL;
	struct rlimit nofile;
	sigset_t mask;
	pid_t pid;
	int r;

	if ((r = options_parse(argc, argv, &M.opt)) >= 0)
		return r;
	if (M.opt.version) {
		fprintf(stderr, "keyward %s\n", KEYWARD_VERSION);
		return 0;
	}
	if (M.opt.kill)
		return kill_agent();
	M.uid = getuid();
	if (getegid() != getgid() && setgid(getgid()) != 0)
		fatal("cannot drop set-group-id privileges");
	log_init("keyward", M.opt.fg == FG_DEBUG ? LOG_LVL_DEBUG : LOG_LVL_INFO, 0);

	if (M.opt.cleanup_only || !M.opt.no_cleanup) {
		if (host_tag(tag, sizeof(tag)) != 0 ||
		    sock_agent_dir(agentdir, sizeof(agentdir)) != 0) {
			if (M.opt.cleanup_only)
				fatal("cannot clean up stale agent sockets");
		} else {
			sock_cleanup_stale(agentdir, tag, M.opt.cleanup_only > 1);
			if (M.opt.cleanup_only) {
				printf("Deleted stale agent sockets in ~/.ssh/agent\n");
				return 0;
			}
		}
	}
	M.activated = activation();
	sanitise_fds(M.activated);
	/* The audit trail is opened now, before the daemon changes to / and
	 * before any sandbox closes; only policy's auditor will hold it. */
	if (open_audit(&pargs) != 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &nofile) != 0 || nofile.rlim_cur < MONITOR_MIN_NOFILE)
		fatal("%s: file descriptor limit is too low", argv[0]);
	M.maxclients = nofile.rlim_cur - MONITOR_FD_RESERVE;

	if (M.activated) {
		M.listen_fd = 3;
		fcntl(3, F_SETFD, FD_CLOEXEC);
	} else {
		if (M.opt.tempdir) {
			if (sock_tempdir_path(dir, sizeof(dir), path, sizeof(path)) != 0) {
				perror("keyward: cannot create socket directory");
				return 1;
			}
			made_dir = dir;
		} else if (M.opt.bind_address != NULL) {
			if (strlen(M.opt.bind_address) >= sizeof(path)) {
				fprintf(stderr, "keyward: socket path too long\n");
				return 1;
			}
			strcpy(path, M.opt.bind_address);
		} else {
			if (host_tag(tag, sizeof(tag)) != 0 ||
			    sock_agent_dir(agentdir, sizeof(agentdir)) != 0 ||
			    sock_default_path(agentdir, tag, path, sizeof(path)) != 0)
				fatal("cannot create the agent socket directory");
		}
		if ((M.listen_fd = sock_listen(path)) < 0) {
			fprintf(stderr, "keyward: bind %s: %s\n", path, strerror(errno));
			if (made_dir != NULL)
				rmdir(made_dir);
			return M.opt.tempdir || M.opt.bind_address ? 1 : 255;
		}
	}

	if (M.opt.fg != FG_NONE) {
		if (!M.activated)
			print_env(path, getpid(), 0);
	} else {
		fflush(stdout);
		if ((pid = fork()) < 0)
			fatal("fork: %m");
		if (pid > 0) {
			close(M.listen_fd);
			if (M.opt.command == NULL) {
				print_env(path, pid, 1);
				return 0;
			}
			setenv("SSH_AUTH_SOCK", path, 1);
			char pidstr[32];
			snprintf(pidstr, sizeof(pidstr), "%ld", (long)pid);
			setenv("SSH_AGENT_PID", pidstr, 1);
			execvp(M.opt.command[0], M.opt.command);
			perror(M.opt.command[0]);
			return 1;
		}
		if (M.opt.command != NULL)
			M.command_parent = getppid();
		daemonise();
		log_init("keyward", LOG_LVL_INFO, 1);
	}

	/* Block the signals we act on; they arrive through signalfd. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGCHLD);
	if (M.opt.fg != FG_NONE)
		sigaddset(&mask, SIGINT);
	else
		signal(SIGINT, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) != 0 ||
	    (M.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		fatal("signalfd: %m");

	/* Orphans of our children (the prompter, if policy dies first) come
	 * to us, so nothing the agent started outlives it. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		fatal("prctl(PR_SET_CHILD_SUBREAPER): %m");
	M.kids.reaper_fd = -1;
	if (!M.activated)
		spawn_reaper(&M.kids, path, made_dir);
	pargs.loglevel = M.opt.fg == FG_DEBUG ? "debug" : "info";
	pargs.fp_hash = M.opt.fp_hash;
	pargs.default_lifetime = M.opt.default_lifetime;
	pargs.confirm_timeout = M.opt.confirm_timeout;
	pargs.audit_sync = M.opt.audit_sync;
	spawn_children(&M.kids, M.opt.fg == FG_NONE, &pargs);
	if (pargs.audit_fd >= 0)
		close(pargs.audit_fd);  /* only the auditor keeps it */
	chan_init(&M.policy, M.kids.policy_fd);
	if ((M.clients = calloc(M.maxclients, sizeof(*M.clients))) == NULL)
		fatal("out of memory");
	wb_init(&M.ipc);
	wb_init(&M.reply);
	log_info("keyward %s listening on %s", KEYWARD_VERSION,
	    M.activated ? "the activated socket" : path);

	sandbox_harden();
	sandbox_landlock("monitor", NULL, NULL);        /* it needs no file at all */
	sandbox_monitor(M.listen_fd, M.opt.fg == FG_NONE);
	loop();

	shutdown_children();
	return M.exit_status;
}
