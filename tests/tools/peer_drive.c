/*
 * peer_drive.c - drives one keyward-peer as keyward will: started with
 * spawn() (ipc/spawn.h: fd 3 a SOCK_SEQPACKET socketpair, nothing else,
 * dies with its parent) and args_peer_encode, requests with a pidfd taken
 * by pidfd_open (or none), one reply each. Used by
 * tests/integration/150-peer.t.
 *
 *   peer_drive -h HELPER [-l debug|info] [-u UID] [-e NAME=VALUE]... STEP...
 *
 * -u: the helper and every process made here to be asked about run as
 * UID (the driver itself stays root, to pin pids with ns_last_pid). The
 * inspector has no capabilities, so root's processes are unreadable to
 * it: as root, the test gives it a uid of its own.
 * Steps, run in order:
 *   pid:N         who is N? (a pidfd of N taken now; uid from its status)
 *   nopidfd:N     the same without a pidfd
 *   exited        a child whose pidfd is taken, then exits and is reaped,
 *                 before the request
 *   recycle       the same, then its pid is given to a new process (a
 *                 sleep, "sleep 29.5150"), pinned with ns_last_pid (root)
 *                 or by forking until the kernel hands it out again; then
 *                 asked about through the old pidfd, and without a pidfd
 *   race, race-nopidfd
 *                 (the helper's test build, with KEYWARD_TEST_PEER_PAUSE_MS)
 *                 a child asked about, killed and its pid recycled to a
 *                 fork with the same exe and cmdline while the helper
 *                 waits between reading and checking
 *   status        the helper's Seccomp, NoNewPrivs and Cap* status lines
 *   burst:N       64 requests about N sent at once, then their replies:
 *                 "burst 64 of 64 answered in order" when all came, in
 *                 order, ok
 *   garbage       a datagram that is no request (expect no reply, exit 255)
 *
 * Prints, one a line: "helper PID"; per reply "reply ID STATUS", "exe E",
 * "cmdline C", "anc PID EXE ARGV0" (bytes outside printable ASCII as \xNN);
 * "recycled N" or "not recycled N"; at the end "exit N" or "signal N".
 * Exits 0 when every reply decoded, 1 otherwise, 2 on a usage error.
 */
#include "wire/args.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "wire/peer.h"
#include "ipc/spawn.h"
#include "peer/proc.h"
#include "tests/tools/drive.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#define MAX_ENV         8
#define REPLY_WAIT_MS   20000
#define RECYCLE_SECONDS 60
#define RACE_HEADSTART_MS 300
#define SLEEP_ARG       "29.5150"

static const char *helper;
static char *envs[MAX_ENV];
static int nenv, sock = -1, bad;
static uint32_t next_id = 1;
static pid_t helper_pid;
static uint8_t rbuf[PEER_MAX_REPLY + 1];
static long drop_uid = -1;

/* In a child: become -u's uid (group the same, no supplementary). */
static void
become(void)
{
	if (drop_uid < 0)
		return;
	if (setgroups(0, NULL) != 0 || setgid((gid_t)drop_uid) != 0 ||
	    setuid((uid_t)drop_uid) != 0)
		_exit(127);
	/* setuid made it not dumpable, which no process it runs as is: an
	 * exec would undo that too */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		_exit(127);
}

static void
die(const char *what)
{
	fprintf(stderr, "peer_drive: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Close the channel, reap the helper and say how it ended; then exit. */
static void __attribute__((noreturn))
finish(void)
{
	close(sock);
	(void)drive_end(helper_pid);
	fflush(stdout);
	exit(bad);
}

/* A request the helper cannot take: where it has already gone (a test
 * build that kills it right after its filter is loaded may beat the
 * first request), say so and report how it ended, as at the end of a run. */
static void
send_failed(void)
{
	if (errno != EPIPE && errno != ECONNRESET)
		die("send");
	printf("no reply (the helper is gone: %s)\n", strerror(errno));
	bad = 1;
	finish();
}

static void
run_helper(void *arg)
{
	char **argv = arg;

	for (int i = 0; i < nenv; i++)
		putenv(envs[i]);
	become();
	execv(helper, argv);
	_exit(127);
}

static void
start(int debug)
{
	static struct args_buf ab;
	struct spawn s;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		die("socketpair");
	memset(&s, 0, sizeof(s));
	s.fds[0] = sv[1];
	s.nfds = 1;
	s.stdout_fd = s.stderr_fd = -1;
	s.run = run_helper;
	s.arg = args_peer_encode(&(struct peer_args){ debug }, &ab);
	if ((helper_pid = spawn(&s)) < 0)
		die("spawn");
	close(sv[1]);
	sock = sv[0];
	printf("helper %d\n", (int)helper_pid);
	fflush(stdout);
}

static void
show(const char *label, struct slice s)
{
	printf("%s", label);
	for (size_t i = 0; i < s.len; i++)
		if (s.p[i] >= 0x20 && s.p[i] < 0x7f && s.p[i] != '\\')
			putchar(s.p[i]);
		else
			printf("\\x%02x", s.p[i]);
}

static uint32_t
uid_of(pid_t pid)
{
	char path[64], b[PEER_MAX_PROCFILE];
	uint32_t euid = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (uint32_t)geteuid();
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n <= 0 || proc_status_euid(b, (size_t)n, &euid) != 0)
		return (uint32_t)geteuid();
	return euid;
}

/* The uid of the processes made here. */
static uint32_t
victim_uid(void)
{
	return drop_uid >= 0 ? (uint32_t)drop_uid : (uint32_t)geteuid();
}

static uint32_t
send_req(pid_t pid, uint32_t uid, int pidfd)
{
	struct peer_req m = { next_id++, (uint32_t)pid, uid,
	    pidfd >= 0 ? PEER_REQ_PIDFD : 0 };

	if (peer_req_send(sock, &m, pidfd) != 0)
		send_failed();
	return m.id;
}

static void
get_reply(uint32_t id)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	struct peer_reply m;
	struct rd r;
	ssize_t n;

	if (poll(&p, 1, REPLY_WAIT_MS) != 1 ||
	    (n = recv(sock, rbuf, sizeof(rbuf), 0)) <= 0) {
		printf("no reply\n");
		bad = 1;
		return;
	}
	rd_init(&r, rbuf, (size_t)n);
	if (peer_reply_decode(&r, &m) != 0 || m.id != id) {
		printf("bad reply (%zd bytes)\n", n);
		bad = 1;
		return;
	}
	printf("reply %u %s\n", m.id, peer_status_name(m.status));
	show("exe ", m.exe);
	show("\ncmdline ", m.cmdline);
	putchar('\n');
	for (uint32_t i = 0; i < m.nanc; i++) {
		printf("anc %u ", m.anc[i].pid);
		show("", m.anc[i].exe);
		show(" ", m.anc[i].argv0);
		putchar('\n');
	}
	fflush(stdout);
}

static int
pidfd_of(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		die("pidfd_open");
	return fd;
}

/* A child that runs until its pipe closes; *wfd is the pipe's end.
 * Returns once it runs as -u's uid (it says so on a second pipe). */
static pid_t
victim(int *wfd)
{
	int p[2], ready[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0 || pipe(ready) != 0 || (pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		become();
		close(p[1]);
		close(ready[0]);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		close(ready[1]);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("victim");
	close(ready[0]);
	*wfd = p[1];
	return pid;
}

static void
end_victim(pid_t pid, int wfd)
{
	int st;

	close(wfd);
	waitpid(pid, &st, 0);
}

static void
ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A new process with pid want: exec's "sleep 29.5150" when exec_sleep,
 * else waits to be killed (same exe and cmdline as this program). -1 if
 * the kernel did not hand the pid out again in time. Forked here, not
 * with spawn() (which starts the helper, above): these are the processes
 * the helper is asked about, not programs the driver drives, and the
 * pinned fork must be the very next process the kernel makes after
 * ns_last_pid is written, a child with any other pid leaving at once. */
static pid_t
recycle(pid_t want, int exec_sleep)
{
	time_t until = time(NULL) + RECYCLE_SECONDS;
	char last[24];
	pid_t pid;
	int fd, st, n;

	snprintf(last, sizeof(last), "%d", (int)want - 1);
	while (time(NULL) < until) {
		/* root (CAP_CHECKPOINT_RESTORE): the next pid is want */
		if ((fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)) >= 0) {
			n = (int)write(fd, last, strlen(last));
			close(fd);
			(void)n;
		}
		if ((pid = fork()) < 0) {
			ms_sleep(10);
			continue;
		}
		if (pid == 0) {
			if (getpid() != want)
				_exit(0);
			become();
			if (exec_sleep)
				execl("/bin/sleep", "sleep", SLEEP_ARG, (char *)NULL);
			for (;;)
				pause();
		}
		if (pid == want)
			return pid;
		waitpid(pid, &st, 0);
	}
	return -1;
}

static void
wait_exec(pid_t pid)
{
	char path[64], b[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	for (int i = 0; i < 200; i++) {
		if ((fd = open(path, O_RDONLY)) >= 0) {
			n = read(fd, b, sizeof(b) - 1);
			close(fd);
			if (n > 0 && memmem(b, (size_t)n, SLEEP_ARG, strlen(SLEEP_ARG)))
				return;
		}
		ms_sleep(10);
	}
}

static void
kill_reap(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

static void
step_recycle(void)
{
	pid_t a, b;
	int wfd, pidfd;

	a = victim(&wfd);
	pidfd = pidfd_of(a);
	end_victim(a, wfd);
	if ((b = recycle(a, 1)) < 0) {
		printf("not recycled %d\n", (int)a);
		close(pidfd);
		return;
	}
	wait_exec(b);
	printf("recycled %d\n", (int)b);
	fflush(stdout);
	get_reply(send_req(a, victim_uid(), pidfd));
	close(pidfd);
	get_reply(send_req(a, victim_uid(), -1));
	kill_reap(b);
}

/* The helper reads a, then waits (its test build); a is killed and its
 * pid handed to b, a fork of this program (same exe, same cmdline): only
 * the pidfd and the start time tell them apart. */
static void
step_race(int with_pidfd)
{
	uint32_t id;
	pid_t a, b;
	int wfd, pidfd;

	a = victim(&wfd);
	pidfd = pidfd_of(a);
	id = send_req(a, victim_uid(), with_pidfd ? pidfd : -1);
	ms_sleep(RACE_HEADSTART_MS);
	end_victim(a, wfd);
	b = recycle(a, 0);
	printf("%s %d\n", b == a ? "recycled" : "not recycled", (int)a);
	fflush(stdout);
	get_reply(id);
	close(pidfd);
	if (b > 0)
		kill_reap(b);
}

static void
step_status(void)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)helper_pid);
	if ((f = fopen(path, "r")) == NULL)
		die("helper status");
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Seccomp:", 8) == 0 ||
		    strncmp(line, "NoNewPrivs:", 11) == 0 ||
		    strncmp(line, "Cap", 3) == 0)
			printf("helper %s", line);
	fclose(f);
	fflush(stdout);
}

/* BURST requests for pid sent at once, then their replies: in order, all
 * of them, each ok. */
#define BURST 64

static void
step_burst(pid_t pid)
{
	uint32_t ids[BURST], uid = uid_of(pid);
	struct peer_reply m;
	struct pollfd p = { .fd = sock, .events = POLLIN };
	struct rd r;
	ssize_t n;
	int i, pidfd, in_order = 1;

	for (i = 0; i < BURST; i++) {
		pidfd = pidfd_of(pid);
		ids[i] = send_req(pid, uid, pidfd);
		close(pidfd);
	}
	for (i = 0; i < BURST; i++) {
		if (poll(&p, 1, REPLY_WAIT_MS) != 1 ||
		    (n = recv(sock, rbuf, sizeof(rbuf), 0)) <= 0)
			break;
		rd_init(&r, rbuf, (size_t)n);
		if (peer_reply_decode(&r, &m) != 0 || m.id != ids[i] ||
		    m.status != PEER_OK)
			in_order = 0;
	}
	printf("burst %d of %d answered%s\n", i, BURST, in_order ? " in order" : "");
	if (i != BURST || !in_order)
		bad = 1;
	fflush(stdout);
}

/* A datagram that is no request: the helper must stop (exit 255,
 * ipc/sibling.h). */
static void
step_garbage(void)
{
	static const uint8_t junk[] = { PEER_MSG_REQUEST, 0, 0, 0, 1, 0 };

	if (send(sock, junk, sizeof(junk), MSG_NOSIGNAL) != (ssize_t)sizeof(junk))
		send_failed();
	get_reply(0);
}

static void
step(const char *s)
{
	uint32_t uid;
	int wfd, pidfd;
	pid_t pid;

	if (strncmp(s, "pid:", 4) == 0) {
		pid = (pid_t)atoi(s + 4);
		pidfd = pidfd_of(pid);
		get_reply(send_req(pid, uid_of(pid), pidfd));
		close(pidfd);
	} else if (strncmp(s, "nopidfd:", 8) == 0) {
		pid = (pid_t)atoi(s + 8);
		get_reply(send_req(pid, uid_of(pid), -1));
	} else if (strcmp(s, "exited") == 0) {
		pid = victim(&wfd);
		pidfd = pidfd_of(pid);
		uid = victim_uid();
		end_victim(pid, wfd);
		get_reply(send_req(pid, uid, pidfd));
		close(pidfd);
	} else if (strcmp(s, "recycle") == 0)
		step_recycle();
	else if (strcmp(s, "race") == 0)
		step_race(1);
	else if (strcmp(s, "race-nopidfd") == 0)
		step_race(0);
	else if (strcmp(s, "status") == 0)
		step_status();
	else if (strncmp(s, "burst:", 6) == 0)
		step_burst((pid_t)atoi(s + 6));
	else if (strcmp(s, "garbage") == 0)
		step_garbage();
	else {
		fprintf(stderr, "peer_drive: unknown step %s\n", s);
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	int c, debug = 1;

	while ((c = getopt(argc, argv, "h:l:u:e:")) != -1) {
		switch (c) {
		case 'h':
			helper = optarg;
			break;
		case 'l':
			debug = strcmp(optarg, "debug") == 0;
			break;
		case 'u':
			drop_uid = atol(optarg);
			break;
		case 'e':
			if (nenv == MAX_ENV)
				exit(2);
			envs[nenv++] = optarg;
			break;
		default:
			exit(2);
		}
	}
	if (helper == NULL)
		exit(2);
	signal(SIGPIPE, SIG_IGN);
	start(debug);
	for (; optind < argc; optind++)
		step(argv[optind]);
	finish();
}
