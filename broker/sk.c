/*
 * broker/sk.c - the broker's FIDO signatures: one keyward-sk a signature,
 * its one reply relayed, killed at the touch timeout (main.c).
 */
#include "wire/args.h"
#include "ipc/clock.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "wire/broker.h"
#include "ipc/spawn.h"
#include "broker/broker.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

void
sk_end(struct job *j)
{
	kill(j->pid, SIGKILL);
	while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(j->fd);
	*j = (struct job){ 0 };
}

struct job *
sk_job(uint32_t req)
{
	for (int i = 0; i < TOKEN_MAX_HELPERS; i++)
		if (B.jobs[i].pid != 0 && B.jobs[i].req == req)
			return &B.jobs[i];
	return NULL;
}

void
sk_start(uint32_t req, struct slice provider, struct slice request)
{
	char path[TOKEN_MAX_PATH];
	struct args_buf ab;
	struct job *j = NULL;
	int sp[2];

	for (int i = 0; i < TOKEN_MAX_HELPERS && j == NULL; i++)
		if (B.jobs[i].pid == 0)
			j = &B.jobs[i];
	if (j == NULL) {
		log_info("token signature refused: %d token helpers are running",
		    TOKEN_MAX_HELPERS);
		answer_fail(req, TK_BUSY);
		return;
	}
	if (provider.len >= sizeof(path))
		goto fail;
	memcpy(path, provider.p, provider.len);
	path[provider.len] = '\0';
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0)
		goto fail;
	chan_setup_fd(sp[0]);
	chan_setup_fd(sp[1]);
	j->pid = spawn(&(struct spawn){ .fds = { sp[1] }, .nfds = 1,
	    .stdout_fd = -1, .stderr_fd = -1, .exec = "keyward-sk",
	    .argv = args_sk_encode(&(struct sk_args){ B.debug, path }, &ab) });
	close(sp[1]);
	if (j->pid <= 0) {
		close(sp[0]);
		j->pid = 0;
		goto fail;
	}
	j->req = req;
	j->fd = sp[0];
	j->deadline_ms = clock_mono_ms() + (uint64_t)B.touch_ms;
	/* One datagram into an empty socket sized for IPC_MAX_MSG. */
	if (send(j->fd, request.p, request.len, MSG_DONTWAIT) != (ssize_t)request.len) {
		log_error("cannot hand the request to keyward-sk: %m");
		sk_end(j);
		goto fail;
	}
	log_debug("keyward-sk %ld started for request %u", (long)j->pid, req);
	return;
fail:
	log_error("cannot start keyward-sk: %m");
	answer_fail(req, TK_START);
}

/* The helper answered, or closed without answering. */
void
sk_from_helper(struct job *j)
{
	ssize_t n;
	int st = 0;

	do {
		n = recv(j->fd, B.buf, sizeof(B.buf), MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0 || (size_t)n > IPC_MAX_MSG - 64) {
		kill(j->pid, SIGKILL);
		waitpid(j->pid, &st, 0);
		if (WIFSIGNALED(st))
			log_error("keyward-sk %ld ended by signal %d without an "
			    "answer", (long)j->pid, WTERMSIG(st));
		else
			log_error("keyward-sk %ld ended (status %d) without an "
			    "answer", (long)j->pid, WEXITSTATUS(st));
		close(j->fd);
		answer_fail(j->req, TK_DIED);
		*j = (struct job){ 0 };
		return;
	}
	msg_token_write(&B.out, j->req, (struct slice){ B.buf, (size_t)n });
	send_policy();
	sk_end(j);
}

void
sk_deadlines(uint64_t now, int *timeout)
{
	for (int i = 0; i < TOKEN_MAX_HELPERS; i++) {
		struct job *j = &B.jobs[i];
		if (j->pid == 0)
			continue;
		if (j->deadline_ms <= now) {
			log_info("keyward-sk %ld: no answer from the token in %ld s "
			    "(no touch?): signature refused", (long)j->pid,
			    B.touch_ms / 1000);
			answer_fail(j->req, TK_TIMEOUT);
			sk_end(j);
		} else if (*timeout < 0 || j->deadline_ms - now < (uint64_t)*timeout)
			*timeout = (int)(j->deadline_ms - now);
	}
}
