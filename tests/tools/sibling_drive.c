/*
 * sibling_drive.c - plays a broken or compromised keyward-policy to one of
 * its helpers (the prompter, the auditor, the broker, the session
 * watcher): the helper is started as policy/main.c starts it (spawn(),
 * fd 3 its end of a SOCK_SEQPACKET socketpair sized by chan_setup_fd, fd
 * 4 the audit trail for the auditor, its argv from args_*_encode), sent
 * what policy's encoder cannot have made, and watched end. Used by
 * tests/integration/84-sibling-broke.t.
 *
 *   sibling_drive -h HELPER -k prompter|auditor|broker|session
 *       [-t TRAIL] [-K AUDITKEY] [-w SECONDS] STEP...
 *
 * Steps, in order:
 *   good      a well-formed message the helper takes (the prompter and
 *             the auditor are asked with a request id and their answer
 *             awaited: "reply TYPE"; the broker resolves "/"; the session
 *             watcher is sent a notice, which it never answers)
 *   short     a datagram of 4 bytes: no header
 *   trunc     a header of a type the helper takes, its body cut
 *   unknown   a whole header of a type policy never sends it (a reply
 *             type, MSG_R_STATUS), with an empty body
 *   oversize  IPC_MAX_MSG + 1 bytes, a header of a type it takes
 *   close     our end closed: policy gone, the ordered end
 * After the last step the helper is waited for, at most -w seconds
 * (default 10): "exit N", "signal N", or "hang" (it is then killed).
 * Its stderr is ours. Exits 0 when every step could be sent and every
 * reply awaited came, 1 otherwise, 2 on a usage error.
 */
#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/clock.h"
#include "ipc/limits.h"
#include "ipc/spawn.h"
#include "wire/args.h"
#include "wire/auditor.h"
#include "wire/broker.h"
#include "wire/msg.h"
#include "wire/prompter.h"
#include "wire/session.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPLY_WAIT_MS   10000

static const char *helper, *kind;
static int sock = -1, bad;
static pid_t pid;

struct run_helper {
	const char *path;
	char **argv;
};

static void
run_helper(void *arg)
{
	const struct run_helper *x = arg;

	execv(x->path, x->argv);
	_exit(127);
}

static void
usage(void)
{
	fprintf(stderr, "usage: sibling_drive -h HELPER -k prompter|auditor|"
	    "broker|session [-t TRAIL] [-K AUDITKEY] [-w SECONDS] STEP...\n");
	exit(2);
}

/* The helper's argv, as policy/main.c and policy/session.c encode it. */
static char **
helper_argv(struct args_buf *b, const char *key)
{
	if (strcmp(kind, "prompter") == 0)
		return args_prompter_encode(&(struct prompter_args){ 1, 30 }, b);
	if (strcmp(kind, "broker") == 0)
		return args_broker_encode(&(struct broker_args){ 1, 30 }, b);
	if (strcmp(kind, "session") == 0)
		return args_session_encode(&(struct session_args){ 1,
		    (long)getpid() }, b);
	if (strcmp(kind, "auditor") == 0)
		return args_auditor_encode(&(struct auditor_args){ 1, AUDIT_FD,
		    0, 4 << 3, NULL, NULL, key }, b);
	usage();
	return NULL;
}

static void
start(const char *trail, const char *key)
{
	struct args_buf b;
	struct run_helper x = { helper, NULL };
	int sp[2], tfd = -1;

	x.argv = helper_argv(&b, key);
	if (trail != NULL &&
	    (tfd = open(trail, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0600)) < 0) {
		perror(trail);
		exit(2);
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0) {
		perror("socketpair");
		exit(2);
	}
	chan_setup_fd(sp[0]);
	chan_setup_fd(sp[1]);
	fflush(stdout);
	pid = spawn(&(struct spawn){ .fds = { sp[1], tfd },
	    .nfds = tfd >= 0 ? 2 : 1, .stdout_fd = -1, .stderr_fd = -1,
	    .outlives_parent = 1, .run = run_helper, .arg = &x });
	if (pid < 0) {
		perror("spawn");
		exit(2);
	}
	close(sp[1]);
	if (tfd >= 0)
		close(tfd);
	sock = sp[0];
	printf("helper %ld\n", (long)pid);
	fflush(stdout);
}

static void
send_bytes(const void *p, size_t n, const char *step)
{
	if (send(sock, p, n, MSG_NOSIGNAL) != (ssize_t)n) {
		printf("%s: not sent (%s)\n", step, strerror(errno));
		bad = 1;
	}
}

/* A type the helper takes, and a well-formed message of it. */
static uint8_t
own_type(void)
{
	if (strcmp(kind, "prompter") == 0)
		return MSG_PROMPT;
	if (strcmp(kind, "auditor") == 0)
		return MSG_AUDIT;
	if (strcmp(kind, "broker") == 0)
		return MSG_TK_RESOLVE;
	return MSG_NOTICE;
}

static void
good_message(struct wb *w, uint32_t req)
{
	static const char q[] = "allow?", rec[] = "{\"event\":\"test\"}";

	if (strcmp(kind, "session") == 0) {
		msg_begin(w, MSG_NOTICE, req, 0);
		msg_notice_encode(w, &(struct msg_notice){
		    { (const uint8_t *)"s", 1 }, { (const uint8_t *)"b", 1 } });
	} else if (strcmp(kind, "broker") == 0)
		msg_tk_resolve_write(w, req, 0,
		    (struct slice){ (const uint8_t *)"/", 1 });
	else if (strcmp(kind, "auditor") == 0)
		msg_audit_write(w, req,
		    (struct slice){ (const uint8_t *)rec, sizeof(rec) - 1 });
	else
		msg_prompt_write(w, 0, req,
		    (struct slice){ (const uint8_t *)q, sizeof(q) - 1 });
}

/* The answer to req (what else comes, the watcher's facts, is skipped). */
static void
await_reply(uint32_t req)
{
	static uint8_t buf[IPC_MAX_MSG + 1];
	uint64_t end = clock_mono_ms() + REPLY_WAIT_MS;
	struct pollfd pfd = { sock, POLLIN, 0 };
	struct msg_hdr h;
	struct rd r;
	ssize_t n;

	while (clock_mono_ms() < end) {
		if (poll(&pfd, 1, (int)(end - clock_mono_ms())) <= 0)
			continue;
		if ((n = recv(sock, buf, sizeof(buf), 0)) <= 0)
			break;
		rd_init(&r, buf, (size_t)n);
		if (msg_hdr_decode(&r, &h) == 0 && h.req == req) {
			printf("reply %u\n", h.type);
			return;
		}
	}
	printf("no reply to %u\n", req);
	bad = 1;
}

static void
step(const char *s)
{
	static uint8_t big[IPC_MAX_MSG + 1];
	static uint32_t req = 1;
	struct wb w;

	wb_init(&w);
	if (strcmp(s, "good") == 0) {
		good_message(&w, req);
		send_bytes(w.p, w.len, s);
		if (strcmp(kind, "session") != 0)
			await_reply(req);
		req++;
	} else if (strcmp(s, "short") == 0)
		send_bytes("\x40\0\0\0", 4, s);
	else if (strcmp(s, "trunc") == 0) {
		/* a string said to be 100 bytes long, of which 3 came */
		msg_begin(&w, own_type(), req++, 0);
		wb_u32(&w, 100);
		wb_bytes(&w, "abc", 3);
		send_bytes(w.p, w.len, s);
	} else if (strcmp(s, "unknown") == 0) {
		msg_begin(&w, MSG_R_STATUS, req++, 0);
		send_bytes(w.p, w.len, s);
	} else if (strcmp(s, "oversize") == 0) {
		msg_begin(&w, own_type(), req++, 0);
		memcpy(big, w.p, w.len);
		send_bytes(big, sizeof(big), s);
	} else if (strcmp(s, "close") == 0) {
		close(sock);
		sock = -1;
	} else
		usage();
	wb_free(&w);
	printf("sent %s\n", s);
	fflush(stdout);
}

/* How the helper ended, waited for at most secs. */
static void
end(long secs)
{
	uint64_t until = clock_mono_ms() + (uint64_t)secs * 1000;
	int st;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) == 0 && clock_mono_ms() < until)
		usleep(20000);
	if (r == 0) {
		printf("hang\n");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		bad = 1;
	} else if (r < 0) {
		printf("waitpid: %s\n", strerror(errno));
		bad = 1;
	} else if (WIFEXITED(st))
		printf("exit %d\n", WEXITSTATUS(st));
	else
		printf("signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : -1);
}

int
main(int argc, char **argv)
{
	const char *trail = NULL, *key = NULL;
	long secs = 10;
	int ch;

	while ((ch = getopt(argc, argv, "h:k:t:K:w:")) != -1) {
		if (ch == 'h')
			helper = optarg;
		else if (ch == 'k')
			kind = optarg;
		else if (ch == 't')
			trail = optarg;
		else if (ch == 'K')
			key = optarg;
		else if (ch == 'w')
			secs = atol(optarg);
		else
			usage();
	}
	if (helper == NULL || kind == NULL || optind == argc || secs <= 0)
		usage();
	signal(SIGPIPE, SIG_IGN);
	start(trail, key);
	for (int i = optind; i < argc; i++)
		step(argv[i]);
	end(secs);
	if (sock >= 0)
		close(sock);
	return bad;
}
