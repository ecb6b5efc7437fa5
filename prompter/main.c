/*
 * prompter/main.c - keyward-prompter: started by policy (spawn(), with its
 * channel at fd 3 and the list of wire/args.h) before policy's sandbox
 * closes; a program of its own, it shares no memory with policy. It runs
 * $SSH_ASKPASS for confirm constraints, several at once, and
 * answers yes or no; and for a token's PIN, answered with what askpass
 * printed (wiped once sent). It never sees key material or data to sign:
 * only the question's text, and a PIN on its way to policy.
 */
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/clock.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "ipc/spawn.h"
#include "wire/prompter.h"
#include "wire/args.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ASKPASS "/usr/bin/ssh-askpass"

static long prompt_timeout_s = 60;

struct ask {
	uint32_t req;
	pid_t pid;
	int pidfd, out;         /* out: askpass's stdout, -1 once at EOF */
	int cancelled, timed_out;
	int secret;             /* a PIN: the answer is what askpass prints */
	uint64_t deadline_ms;    /* ipc/clock.h, monotonic */
	char buf[PROMPT_MAX_OUTPUT + 1];
	size_t len;
};

static struct ask asks[PROMPT_MAX_CONCURRENT];
static size_t nasks;

#define POLICY "keyward-policy"

static void
answer(struct chan *c, uint32_t req, int yes)
{
	struct wb w;

	wb_init(&w);
	msg_status_reply(&w, req, 0, yes ? ST_OK : ST_FAIL);
	if (chan_send(c, &w) != 0)
		peer_gone(POLICY);
	wb_free(&w);
}

/* The answer to a secret question: what askpass printed, or a refusal. */
static void
answer_secret(struct chan *c, uint32_t req, const char *s)
{
	struct wb w;

	if (s == NULL) {
		answer(c, req, 0);
		return;
	}
	wb_init(&w);
	msg_secret_write(&w, req, (struct slice){ (const uint8_t *)s, strlen(s) });
	if (chan_send(c, &w) != 0)
		peer_gone(POLICY);
	wb_free_secret(&w);
}

/* As ssh-agent: no prompt is possible without a display unless forced. */
/* NULL when a prompt can be shown, else why not (for the log). */
static const char *
cannot_prompt(void)
{
	const char *req = getenv("SSH_ASKPASS_REQUIRE");
	const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");

	if (req != NULL && strcmp(req, "never") == 0)
		return "SSH_ASKPASS_REQUIRE=never";
	if (req != NULL && strcmp(req, "force") == 0)
		return NULL;
	if ((d != NULL && *d != '\0') || (w != NULL && *w != '\0'))
		return NULL;
	return "no DISPLAY, WAYLAND_DISPLAY or SSH_ASKPASS_REQUIRE=force";
}

/* What the askpass child runs: the spawn routine has given it /dev/null,
 * the answer pipe and stderr, and closed every other fd (the prompter's
 * channel to policy above all: askpass, or anything it leaves running,
 * must not answer other prompts). */
struct askpass_run {
	const char *path, *text;
	int secret;
};

static void
askpass_exec(void *arg)
{
	const struct askpass_run *r = arg;

	if (!r->secret)
		setenv("SSH_ASKPASS_PROMPT", "confirm", 1);
	execl(r->path, r->path, r->text, (char *)NULL);
	_exit(127);                     /* never a yes */
}

static int
start_ask(struct ask *a, uint32_t req, const char *text, int secret)
{
	struct askpass_run run = { getenv("SSH_ASKPASS"), text, secret };
	int p[2], null;

	if (run.path == NULL || *run.path == '\0')
		run.path = DEFAULT_ASKPASS;
	/* Non-blocking: an askpass whose own children keep the pipe open must
	 * not stall the prompter when it reads what is left. */
	if (pipe2(p, O_CLOEXEC) != 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) != 0)
		return -1;
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	/* Its own group, so that a timeout ends its children too. */
	a->pid = spawn(&(struct spawn){ .nfds = 0, .stdin_fd = null,
	    .stdout_fd = p[1], .stderr_fd = -1, .own_group = 1,
	    .run = askpass_exec, .arg = &run });
	close(null);
	if (a->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	a->req = req;
	a->out = p[0];
	a->len = 0;
	a->cancelled = a->timed_out = 0;
	a->secret = secret;
	a->deadline_ms = clock_mono_ms() + (uint64_t)prompt_timeout_s * 1000;
	if ((a->pidfd = pidfd_open(a->pid, 0)) < 0) {
		kill(a->pid, SIGKILL);
		waitpid(a->pid, NULL, 0);
		close(a->out);
		return -1;
	}
	return 0;
}

static void
finish_ask(struct chan *c, size_t i)
{
	struct ask *a = &asks[i];
	int status = 0, yes;
	char *s = a->buf;

	while (a->out >= 0) {           /* take what is left in the pipe */
		ssize_t r = read(a->out, a->buf + a->len, PROMPT_MAX_OUTPUT - a->len);
		if (r <= 0 || (a->len += (size_t)r) >= PROMPT_MAX_OUTPUT)
			break;
	}
	if (waitpid(a->pid, &status, WNOHANG) != a->pid)
		status = 1 << 8;
	a->buf[a->len] = '\0';
	s[strcspn(s, "\r\n")] = '\0';
	yes = !a->timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    (*s == '\0' || strcasecmp(s, "yes") == 0);
	if (a->timed_out)
		log_info("%s prompt unanswered after %ld s: refused",
		    a->secret ? "PIN" : "confirmation", prompt_timeout_s);
	if (!a->cancelled && a->secret)
		answer_secret(c, a->req, !a->timed_out && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0 ? s : NULL);
	else if (!a->cancelled)
		answer(c, a->req, yes);
	wipe(a->buf, sizeof(a->buf));   /* a PIN */
	if (a->out >= 0)
		close(a->out);
	close(a->pidfd);
	asks[i] = asks[--nasks];
}

/* Policy's messages, one handler each (request's table). A message that
 * does not decode whole is policy gone wrong: the prompter ends, and
 * policy with it (fail closed; ipc/sibling.h). */
static void
h_cancel(struct chan *c, uint32_t req, struct rd *r, int secret)
{
	if (msg_empty_decode(r) != 0)
		peer_broke(POLICY, "a malformed cancel");
	for (size_t i = 0; i < nasks; i++)
		if (asks[i].req == req) {
			asks[i].cancelled = 1;
			kill(-asks[i].pid, SIGKILL);
		}
}

static void
h_prompt(struct chan *c, uint32_t req, struct rd *r, int secret)
{
	struct slice q;
	char text[PROMPT_MAX_TEXT + 1];
	const char *why;

	if (msg_string_read(r, &q) != 0 ||
	    q.len > PROMPT_MAX_TEXT || memchr(q.p, '\0', q.len))
		peer_broke(POLICY, "a malformed question");
	memcpy(text, q.p, q.len);
	text[q.len] = '\0';
	if ((why = cannot_prompt()) != NULL) {
		log_info("cannot ask for confirmation: %s; refusing", why);
		answer(c, req, 0);
		return;
	}
	if (nasks == PROMPT_MAX_CONCURRENT ||
	    start_ask(&asks[nasks], req, text, secret) != 0) {
		log_info("cannot start a confirmation prompt; refusing");
		answer(c, req, 0);
		return;
	}
	nasks++;
}

static const struct {
	uint8_t type;
	int secret;             /* a PIN: the answer is what askpass prints */
	void (*fn)(struct chan *c, uint32_t req, struct rd *r, int secret);
} from_policy[] = {
	{ MSG_PROMPT,        0, h_prompt },
	{ MSG_PROMPT_SECRET, 1, h_prompt },
	{ MSG_PROMPT_CANCEL, 0, h_cancel },
};

static void
request(struct chan *c, const uint8_t *p, size_t n)
{
	const __typeof__(from_policy[0]) *row;
	struct msg_hdr h;
	struct rd r;

	msg_sibling_hdr(POLICY, p, n, &r, &h);
	row = MSG_ROW(POLICY, from_policy, h.type);
	row->fn(c, h.req, &r, row->secret);
}

static long
ms_until(uint64_t t)
{
	return (long)((int64_t)t - (int64_t)clock_mono_ms());
}

/* Poll no longer than until the first open prompt's deadline. */
static int
next_deadline_ms(void)
{
	long best = -1;

	for (size_t i = 0; i < nasks; i++) {
		long ms = asks[i].timed_out ? -1 : ms_until(asks[i].deadline_ms);
		if (!asks[i].timed_out && (best < 0 || ms < best))
			best = ms < 0 ? 0 : ms;
	}
	return (int)best;
}

/* An unanswered prompt is killed; finish_ask then answers no. */
static void
expire_asks(void)
{
	for (size_t i = 0; i < nasks; i++)
		if (!asks[i].timed_out && ms_until(asks[i].deadline_ms) <= 0) {
			asks[i].timed_out = 1;
			kill(-asks[i].pid, SIGKILL);
		}
}

int
main(int argc, char **argv)
{
	struct pollfd pfd[1 + 2 * PROMPT_MAX_CONCURRENT];
	static uint8_t buf[IPC_MAX_MSG + 1];
	struct prompter_args args;
	struct chan c;
	size_t n, len;

	/* policy starts the prompter with exactly one argument list
	 * (wire/args.h); anything else is refused whole */
	if (args_prompter_decode(argc, argv, &args) != 0)
		start_refused("keyward-prompter");
	start_helper("keyward-prompter", args.debug, START_KEEP_PIPE);
	prompt_timeout_s = args.confirm_timeout;
	chan_init(&c, 3);
	sandbox_harden();
	sandbox_prompter();
	for (;;) {
		n = 0;
		pfd[n++] = (struct pollfd){ c.fd, chan_events(&c), 0 };
		for (size_t i = 0; i < nasks; i++) {
			pfd[n++] = (struct pollfd){ asks[i].out, POLLIN, 0 };
			pfd[n++] = (struct pollfd){ asks[i].pidfd, POLLIN, 0 };
		}
		if (poll(pfd, n, next_deadline_ms()) < 0 && errno != EINTR)
			fatal("poll: %m");
		expire_asks();
		if ((pfd[0].revents & POLLOUT) && chan_flush(&c) != 0)
			peer_gone(POLICY);
		/* Walk backwards: finish_ask moves the last entry into i. */
		for (size_t i = nasks; i-- > 0;) {
			struct ask *a = &asks[i];
			if (pfd[1 + 2 * i].revents && a->out >= 0) {
				ssize_t r = a->len < PROMPT_MAX_OUTPUT ? read(a->out,
				    a->buf + a->len, PROMPT_MAX_OUTPUT - a->len) : 0;
				if (r > 0)
					a->len += (size_t)r;
				else {
					close(a->out);
					a->out = -1;
				}
			}
			if (pfd[2 + 2 * i].revents)
				finish_ask(&c, i);
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			int r;
			while ((r = chan_recv(&c, buf, sizeof(buf), &len)) > 0)
				request(&c, buf, len);
			if (r < 0)
				peer_recv_end(POLICY, r, len);
		}
	}
}
