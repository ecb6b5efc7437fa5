/*
 * setup.c - everything the monitor does before its sandbox closes: the
 * command line, the socket (or the one systemd passed), daemonising or
 * running a command, signals, the audit trail's fd and the children.
 */
#include "ipc/log.h"
#include "ipc/clock.h"
#include "wire/monitor.h"
#include "monitor/whois.h"
#include "monitor/monitor.h"
#include "monitor/setup.h"
#include "monitor/trail.h"
#include "monitor/sockpath.h"
#include "rules/rules.h"

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
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The signals the monitor acts on, read from its signalfd; SIGINT too
 * until setup_signals() has ignored it (a daemon) or taken it (-d, -D);
 * before: the mask keyward was started with, for a command it runs. */
static sigset_t acted_on, before;

static struct policy_args pargs;
static int audit_fd = -1;      /* the trail, for policy's auditor */
static int read_rules(void);
static void fill_pargs(void);
static char *rules_text;        /* -O policy=FILE, checked, for policy */
static size_t rules_len;
/* The socket and -T directory as absolute paths, for the reapers and the
 * log: a relative -a or TMPDIR is printed as given (as ssh-agent does)
 * but the daemon changes to / before the reapers look it up. */
static char abs_path[4096], abs_dir[4096];

/* p made absolute against the current directory. 0, or -1. */
static int
absolute(const char *p, char *out, size_t n)
{
	char cwd[4096];
	int r;

	if (p[0] == '/')
		r = snprintf(out, n, "%s", p);
	else if (getcwd(cwd, sizeof(cwd)) == NULL)
		return -1;
	else
		r = snprintf(out, n, "%s/%s", cwd, p);
	if (r < 0 || (size_t)r >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

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
	sockets_print(&M.named, M.opt.shell);
	printf("echo Agent pid %ld;\n", (long)pid);
	fflush(stdout);
}

static int
kill_agent(void)
{
	const char *s = getenv("SSH_AGENT_PID"), *why;
	char *end;
	long pid;

	if (s == NULL) {
		fprintf(stderr, "SSH_AGENT_PID not set, cannot kill agent\n");
		return 1;
	}
	errno = 0;
	pid = strtol(s, &end, 10);
	/* ssh-agent's words: strtonum(3)'s reason after the value */
	why = end == s || *end != '\0' ? "invalid" :
	    pid < 2 ? "too small" : errno == ERANGE || pid > INT_MAX ?
	    "too large" : NULL;
	if (why != NULL) {
		fprintf(stderr, "SSH_AGENT_PID=\"%s\", which is not a good PID: %s\n",
		    s, why);
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

/* Close every fd from 3 but the nkeep systemd passed. */
static void
sanitise_fds(int nkeep)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
	close_range(3 + (unsigned)nkeep, ~0U, 0);
}

static int
activation(void)
{
	const char *lpid = getenv("LISTEN_PID"), *lfds = getenv("LISTEN_FDS");

	if (M.opt.fg == FG_NONE || M.opt.bind_address != NULL ||
	    M.opt.command != NULL || lpid == NULL || lfds == NULL)
		return 0;
	/* More than one: the named sockets of keyward(5), told apart by
	 * LISTEN_FDNAMES (sockets.c). */
	char *end;
	long n = strtol(lfds, &end, 10);
	if (*end != '\0' || n < 1 || n > 1 + SOCKETS_MAX ||
	    (n > 1 && getenv("LISTEN_FDNAMES") == NULL))
		fatal("socket activation: LISTEN_FDS=%s, expected 1 (or up to %d "
		    "with LISTEN_FDNAMES)", lfds, 1 + SOCKETS_MAX);
	for (int fd = 3; fd < 3 + n; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			fatal("socket activation: fd %d is not open", fd);
	if (strtol(lpid, NULL, 10) != (long)getpid())
		fatal("socket activation: LISTEN_PID=%s is not our pid", lpid);
	return (int)n;
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

/* policy's argument list (trail_open() set its audit fields) */
static void
fill_pargs(void)
{
	pargs.debug = M.opt.fg == FG_DEBUG;
	pargs.fp_hash = M.opt.fp_hash;
	pargs.default_lifetime = M.opt.default_lifetime;
	pargs.confirm_timeout = M.opt.confirm_timeout;
	pargs.touch_timeout = M.opt.touch_timeout;
	pargs.audit_sync = M.opt.audit_sync;
	pargs.providers = M.opt.allowed_providers != NULL ?
	    M.opt.allowed_providers : PROVIDERS_DEFAULT;
	pargs.allow_remote_providers = M.opt.allow_remote_pkcs11;
	pargs.allow_remote_manage = M.opt.allow_remote_manage;
	pargs.allow_remote_add = M.opt.allow_remote_add;
	pargs.session_lock = (enum session_lock_mode)M.opt.session_lock;
	pargs.session_suspend = (enum session_suspend_mode)M.opt.session_suspend;
	pargs.session_notify = (enum session_notify_mode)M.opt.session_notify;
	pargs.session_idle = M.opt.session_idle;
	pargs.restrict_websafe = !M.opt.no_restrict_websafe;
	pargs.websafe_allow = M.opt.websafe_allow != NULL ?
	    M.opt.websafe_allow : WEBSAFE_DEFAULT;
}

int
setup_options(int argc, char **argv)
{
	char tag[64], agentdir[4096];
	struct rlimit nofile;
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
	/* The helpers first: even the socket's default name needs one. */
	if (children_check_helpers(M.opt.audit != NULL) != 0)
		return 255;

	if (M.opt.cleanup_only || !M.opt.no_cleanup) {
		if (host_tag(tag, sizeof(tag)) != 0 ||
		    sock_agent_dir(agentdir, sizeof(agentdir)) != 0) {
			if (M.opt.cleanup_only)
				fatal("cannot clean up stale agent sockets: "
				    "~/.ssh/agent cannot be made (check HOME and "
				    "its permissions)");
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
	if (trail_open(&pargs, &audit_fd) != 0)
		return 255; /* an invalid -O, as keyward(1) EXIT STATUS says */
	/* A policy file that cannot be read or parsed is an invalid -O. */
	if (read_rules() != 0)
		return 255;
	/* Every value, and every helper, checked now: nothing refused
	 * after the fork can leave a started agent (or printed variables)
	 * behind. */
	fill_pargs();
	if (children_check_args(&pargs) != 0)
		return 255;
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &nofile) != 0 || nofile.rlim_cur < MONITOR_MIN_NOFILE)
		fatal("%s: file descriptor limit is too low: raise it to at "
		    "least %d (ulimit -n)", argv[0], MONITOR_MIN_NOFILE);
	/* each named socket is an fd of the connection budget */
	M.maxclients = nofile.rlim_cur - MONITOR_FD_RESERVE - M.named.n;
	return -1;
}

/* -O policy=FILE: read now, while the file system is ours, and checked
 * whole, so that a malformed file stops keyward with its line and column
 * before it starts. Policy parses the same bytes again: it trusts no
 * other process's parse. */
static int
read_rules(void)
{
	struct ruleset *rs;
	char why[RULES_READ_MSG_MAX];
	struct rules_err err;

	if (M.opt.policy_file == NULL)
		return 0;
	if (rules_read_file(M.opt.policy_file, &rules_text, &rules_len, why,
	    sizeof(why)) != 0) {
		fprintf(stderr, "keyward: %s\n", why);
		return -1;
	}
	if (rules_parse(M.opt.policy_file, rules_text, rules_len, &rs, &err) != 0) {
		fprintf(stderr, "keyward: %s\n", err.msg);
		return -1;
	}
	log_debug("policy %s: %zu rules, %zu sockets", M.opt.policy_file, rs->n,
	    rs->nsock);
	sockets_declare(&M.named, rs, M.opt.policy_file);
	rules_free(rs);
	return 0;
}

int
setup_socket(char *path, size_t n, const char **made_dir)
{
	static char dir[4096];
	char tag[64], agentdir[4096];

	if (M.activated) {
		if (sockets_make(&M.named, NULL, M.activated, &M.listen_fd) != 0)
			return 255;
		fcntl(M.listen_fd, F_SETFD, FD_CLOEXEC);
		snprintf(path, n, "the activated socket");
		return -1;
	}
	if (M.opt.tempdir) {
		if (sock_tempdir_path(dir, sizeof(dir), path, n) != 0) {
			perror("keyward: cannot create socket directory");
			return 1;
		}
		*made_dir = dir;
	} else if (M.opt.bind_address != NULL) {
		if (strlen(M.opt.bind_address) >= n) {
			fprintf(stderr, "keyward: socket path too long\n");
			return 1;
		}
		strcpy(path, M.opt.bind_address);
	} else {
		if (host_tag(tag, sizeof(tag)) != 0 ||
		    sock_agent_dir(agentdir, sizeof(agentdir)) != 0 ||
		    sock_default_path(agentdir, tag, path, n) != 0)
			fatal("cannot create the agent socket directory "
			    "~/.ssh/agent: check HOME and its permissions, or "
			    "name a socket with -a or -T");
	}
	if ((M.listen_fd = sock_listen(path)) < 0) {
		fprintf(stderr, "keyward: bind %s: %s\n", path, strerror(errno));
		if (*made_dir != NULL)
			rmdir(*made_dir);
		return M.opt.tempdir || M.opt.bind_address ? 1 : 255;
	}
	if (absolute(path, abs_path, sizeof(abs_path)) != 0 ||
	    (*made_dir != NULL && absolute(*made_dir, abs_dir, sizeof(abs_dir)) != 0)) {
		fprintf(stderr, "keyward: cannot name %s from the root: %s\n",
		    path, strerror(errno));
		unlink(path);
		close(M.listen_fd);
		if (*made_dir != NULL)
			rmdir(*made_dir);
		return 1;
	}
	/* the named sockets, all or none: without them, no main one; a
	 * bare name sits beside the main socket, named from the root */
	if (sockets_make(&M.named, abs_path, 0, NULL) != 0) {
		unlink(path);
		close(M.listen_fd);
		if (*made_dir != NULL)
			rmdir(*made_dir);
		return 1;
	}
	return -1;
}

/* The starter, after the fork: wait until the agent serves, its start-up
 * errors copied to our stderr. 0 once it is ready; else the socket it
 * may have left is removed and -1. */
static int
wait_ready(int fd, pid_t pid, const char *path, const char *made_dir)
{
	uint64_t end = clock_mono_ms() + MONITOR_READY_MS, now;
	char buf[1024], *nul;
	ssize_t r;

	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		if ((now = clock_mono_ms()) >= end) {
			fprintf(stderr, "keyward: the agent did not start within "
			    "%d s; stopped\n", MONITOR_READY_MS / 1000);
			kill(pid, SIGTERM);
			break;
		}
		if (poll(&pfd, 1, (int)(end - now)) < 0 && errno != EINTR)
			break;
		if ((r = read(fd, buf, sizeof(buf))) < 0 && (errno == EINTR ||
		    errno == EAGAIN))
			continue;
		if (r <= 0)
			break;          /* it has ended before it served */
		nul = memchr(buf, '\0', (size_t)r);
		(void)!write(STDERR_FILENO, buf, nul != NULL ?
		    (size_t)(nul - buf) : (size_t)r);
		if (nul != NULL) {
			close(fd);
			return 0;
		}
	}
	close(fd);
	(void)waitpid(pid, NULL, WNOHANG);
	/* What the reapers would have removed, had it got so far. */
	unlink(path);
	for (size_t i = 0; i < M.named.n; i++)
		unlink(M.named.s[i].path);
	if (made_dir != NULL)
		rmdir(made_dir);
	return -1;
}

int
setup_detach(const char *path, const char *made_dir)
{
	char pidstr[32];
	int ready[2];
	pid_t pid;

	if (M.opt.fg != FG_NONE)
		return -1;
	fflush(stdout);
	/* The parent is recorded before the fork: read after it, a parent
	 * that had already exited (a command that cannot run) would read as
	 * init's pid and never be missed. */
	if (M.opt.command != NULL)
		M.command_parent = getpid();
	if (pipe2(ready, O_CLOEXEC) != 0)
		fatal("pipe: %m");
	if ((pid = fork()) < 0)
		fatal("fork: %m");
	if (pid > 0) {
		close(ready[1]);
		close(M.listen_fd);
		for (size_t i = 0; i < M.named.n; i++)
			close(M.named.s[i].fd);
		/* Nothing printed, no command run, until the agent serves:
		 * whatever stops it on its way says so here, exit 255. */
		if (wait_ready(ready[0], pid, path, made_dir) != 0)
			return 255;
		if (M.opt.command == NULL) {
			print_env(path, pid, 1);
			return 0;
		}
		setenv("SSH_AUTH_SOCK", path, 1);
		sockets_setenv(&M.named);
		snprintf(pidstr, sizeof(pidstr), "%ld", (long)pid);
		setenv("SSH_AGENT_PID", pidstr, 1);
		/* the command gets the signal mask keyward was started with */
		if (sigprocmask(SIG_SETMASK, &before, NULL) != 0)
			fatal("sigprocmask: %m");
		execvp(M.opt.command[0], M.opt.command);
		perror(M.opt.command[0]);
		return 1;
	}
	close(ready[0]);
	/* listen() again: a client's SO_PEERCRED then names this process,
	 * not the parent that bound the socket and is gone (keyward-ctl
	 * tells a locked keyward by its name). */
	(void)listen(M.listen_fd, MONITOR_LISTEN_BACKLOG);
	daemonise();
	/* Until setup_ready(), stderr is the starter's pipe: an error on
	 * the way goes to syslog and to the starter, which prints it. */
	if (dup2(ready[1], STDERR_FILENO) != STDERR_FILENO)
		fatal("dup2: %m");
	close(ready[1]);
	log_init("keyward", LOG_LVL_INFO, 1);
	log_errors_to_stderr(1);
	return -1;
}

void
setup_ready(const char *path)
{
	int fd;

	if (M.opt.fg != FG_NONE) {
		/* the same point for every way of starting: the children
		 * are up before anything is printed */
		if (!M.activated)
			print_env(path, getpid(), 0);
		return;
	}
	/* a NUL is no part of any log line: the starter's sign to go on */
	(void)!write(STDERR_FILENO, "", 1);
	log_errors_to_stderr(0);
	if ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    dup2(fd, STDERR_FILENO) != STDERR_FILENO)
		fatal("/dev/null: %m");
	close(fd);
}

void
setup_signals_block(void)
{
	sigemptyset(&acted_on);
	sigaddset(&acted_on, SIGTERM);
	sigaddset(&acted_on, SIGHUP);
	sigaddset(&acted_on, SIGUSR1);
	sigaddset(&acted_on, SIGCHLD);
	sigaddset(&acted_on, SIGINT);
	if (sigprocmask(SIG_BLOCK, &acted_on, &before) != 0)
		fatal("sigprocmask: %m");
}

void
setup_signals(void)
{
	sigset_t intr;

#ifdef KEYWARD_TESTING
	/* Test builds only: a pause here, where a signal sent as soon as
	 * the environment is printed finds it (70-signals-early.t). */
	if (getenv("KEYWARD_TEST_SIGNALS_PAUSE_MS") != NULL)
		(void)poll(NULL, 0, atoi(getenv("KEYWARD_TEST_SIGNALS_PAUSE_MS")));
#endif
	/* A daemon ignores SIGINT (a pending one is discarded with it). */
	if (M.opt.fg == FG_NONE) {
		signal(SIGINT, SIG_IGN);
		sigdelset(&acted_on, SIGINT);
		sigemptyset(&intr);
		sigaddset(&intr, SIGINT);
		if (sigprocmask(SIG_UNBLOCK, &intr, NULL) != 0)
			fatal("sigprocmask: %m");
	}
	if ((M.sig_fd = signalfd(-1, &acted_on, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		fatal("signalfd: %m");
}

void
setup_children(const char *path, const char *made_dir)
{
	/* Orphans of our children (the prompter, if policy dies first) come
	 * to us, so nothing the agent started outlives it. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		fatal("prctl(PR_SET_CHILD_SUBREAPER): %m");
	for (int i = 0; i < CHILDREN_REAPERS; i++)
		M.kids.reaper_fd[i] = -1;
	if (!M.activated) {
		const char *named[SOCKETS_MAX];
		for (size_t i = 0; i < M.named.n; i++)
			named[i] = M.named.s[i].path;
		children_start_reapers(&M.kids, abs_path, made_dir != NULL ? abs_dir : NULL,
		    named, M.named.n);
		path = abs_path;
	}
	children_start(&M.kids, M.opt.fg == FG_NONE, &pargs, audit_fd);
	if (audit_fd >= 0)
		close(audit_fd);        /* only the auditor keeps it */
	chan_init(&M.policy, M.kids.policy_fd);
	whois_init(M.kids.peer_fd);
	if (rules_text != NULL) {
		/* Before any client: policy takes rules without a connection
		 * only now (policy/ruling.c). */
		msg_policy_load_write(&M.ipc, 0, 0,
		    (struct slice){ (const uint8_t *)rules_text, rules_len });
		monitor_send(&M.ipc);
		free(rules_text);
		rules_text = NULL;
	}
	if ((M.clients = calloc(M.maxclients, sizeof(*M.clients))) == NULL)
		fatal("out of memory");
	wb_init(&M.ipc);
	wb_init(&M.reply);
	wb_init(&M.lc.reply);
	log_info("keyward %s listening on %s", KEYWARD_VERSION, path);
	for (size_t i = 0; i < M.named.n; i++)
		log_info("and on socket %s: %s", M.named.s[i].name,
		    M.named.s[i].path);
}
