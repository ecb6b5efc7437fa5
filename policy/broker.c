/*
 * broker.c - the broker: forked by policy before its sandbox closes, it is
 * the one process that starts token helpers, since policy itself may
 * neither exec nor make a new fd. For each MSG_TK_SIGN it starts one
 * keyward-sk (ipc/spawn.h) for the named provider, hands it the request,
 * and relays its one reply; a helper that does not answer within the
 * touch timeout is killed and the signature refused. It also resolves
 * provider paths (realpath) for policy, which has no file system.
 *
 * It holds, for the life of one signature, the request in flight: the
 * key handle, the data and any PIN (wiped once sent). Its filter allows
 * by default, as a helper it starts must load a library before entering
 * its own allowlist; Landlock lets it execute keyward-sk alone.
 *
 *   policy --MSG_TK_SIGN(req, provider, request)--> broker
 *          broker --spawn--> keyward-sk PROVIDER --request--> (touch)
 *          keyward-sk --reply--> broker --MSG_R_TOKEN(req, reply)--> policy
 *   or     broker --MSG_R_TOKEN_FAIL(req, busy|start|timeout|died|cancelled)
 * Every MSG_TK_SIGN gets exactly one answer.
 */
#include "ipc/args.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/msg.h"
#include "ipc/spawn.h"
#include "policy/broker.h"
#include "seccomp/sandbox.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct job {
	uint32_t req;
	pid_t pid;              /* 0: the slot is free */
	int fd;                 /* the helper's socket */
	uint64_t deadline_ms;
};

static struct {
	struct chan c;
	struct job jobs[TOKEN_MAX_HELPERS];
	long touch_ms;
	int debug;
	struct wb out;
	uint8_t buf[IPC_MAX_MSG + 1];
} B;

static uint64_t
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
send_policy(void)
{
	if (chan_send(&B.c, &B.out) != 0)
		_exit(0);               /* policy is gone */
}

static void
answer_fail(uint32_t req, enum tk_fail why)
{
	msg_begin(&B.out, MSG_R_TOKEN_FAIL, req, 0);
	msg_tk_fail_encode(&B.out, &(struct msg_tk_fail){ (uint8_t)why });
	send_policy();
}

static void
end_job(struct job *j)
{
	kill(j->pid, SIGKILL);
	while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(j->fd);
	*j = (struct job){ 0 };
}

static struct job *
job_by_req(uint32_t req)
{
	for (int i = 0; i < TOKEN_MAX_HELPERS; i++)
		if (B.jobs[i].pid != 0 && B.jobs[i].req == req)
			return &B.jobs[i];
	return NULL;
}

static void
start_sign(uint32_t req, struct slice provider, struct slice request)
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
	j->deadline_ms = mono_now() + (uint64_t)B.touch_ms;
	/* One datagram into an empty socket sized for IPC_MAX_MSG. */
	if (send(j->fd, request.p, request.len, MSG_DONTWAIT) != (ssize_t)request.len) {
		log_error("cannot hand the request to keyward-sk: %m");
		end_job(j);
		goto fail;
	}
	log_debug("keyward-sk %ld started for request %u", (long)j->pid, req);
	return;
fail:
	log_error("cannot start keyward-sk: %m");
	answer_fail(req, TK_START);
}

static void
resolve(uint32_t req, struct slice in)
{
	char path[TOKEN_MAX_PATH], real[PATH_MAX];

	if (in.len >= sizeof(path)) {
		msg_begin(&B.out, MSG_R_STATUS, req, 0);
		msg_status_encode(&B.out, &(struct msg_status){ ST_FAIL });
		send_policy();
		return;
	}
	memcpy(path, in.p, in.len);
	path[in.len] = '\0';
	if (realpath(path, real) == NULL) {
		msg_begin(&B.out, MSG_R_STATUS, req, 0);
		msg_status_encode(&B.out, &(struct msg_status){ ST_FAIL });
	} else {
		msg_begin(&B.out, MSG_R_PATH, req, 0);
		msg_blob_encode(&B.out, &(struct msg_blob){
		    { (const uint8_t *)real, strlen(real) } });
	}
	send_policy();
}

static void
from_policy(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct msg_tk_sign s;
	struct msg_blob b;
	struct job *j;
	struct rd r;

	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0)
		fatal("broker: bad message from policy");
	switch (h.type) {
	case MSG_TK_SIGN:
		if (msg_tk_sign_decode(&r, &s) != 0)
			fatal("broker: bad MSG_TK_SIGN");
		start_sign(h.req, s.provider, s.request);
		break;
	case MSG_TK_CANCEL:
		if (msg_empty_decode(&r) != 0)
			fatal("broker: bad MSG_TK_CANCEL");
		if ((j = job_by_req(h.req)) != NULL) {
			end_job(j);
			answer_fail(h.req, TK_CANCELLED);
		}
		break;
	case MSG_TK_RESOLVE:
		if (msg_blob_decode(&r, &b) != 0)
			fatal("broker: bad MSG_TK_RESOLVE");
		resolve(h.req, b.blob);
		break;
	default:
		fatal("broker: unexpected message %u from policy", h.type);
	}
}

/* The helper answered, or closed without answering. */
static void
from_helper(struct job *j)
{
	ssize_t n;
	int st = 0;

	do {
		n = recv(j->fd, B.buf, sizeof(B.buf), MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0 || (size_t)n > IPC_MAX_MSG) {
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
	msg_begin(&B.out, MSG_R_TOKEN, j->req, 0);
	msg_blob_encode(&B.out, &(struct msg_blob){ { B.buf, (size_t)n } });
	send_policy();
	end_job(j);
}

/* Poll timeout: the nearest helper deadline; kill the ones past it. */
static int
deadlines(void)
{
	uint64_t now = mono_now();
	int timeout = -1;

	for (int i = 0; i < TOKEN_MAX_HELPERS; i++) {
		struct job *j = &B.jobs[i];
		if (j->pid == 0)
			continue;
		if (j->deadline_ms <= now) {
			log_info("keyward-sk %ld: no answer from the token in %ld s "
			    "(no touch?): signature refused", (long)j->pid,
			    B.touch_ms / 1000);
			answer_fail(j->req, TK_TIMEOUT);
			end_job(j);
		} else if (timeout < 0 || j->deadline_ms - now < (uint64_t)timeout)
			timeout = (int)(j->deadline_ms - now);
	}
	return timeout;
}

/* The ELF interpreter keyward-sk names (PT_INTERP): executing the helper
 * executes it too, so Landlock must allow both. */
static int
interpreter(const char *exe, char *out, size_t n)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, rc = -1;

	if ((fd = open(exe, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		goto out;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			goto out;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz == 0 || ph.p_filesz > n ||
		    pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) !=
		    (ssize_t)ph.p_filesz || out[ph.p_filesz - 1] != '\0')
			goto out;
		rc = 0;
		break;
	}
out:
	close(fd);
	return rc;
}

static void
broker_main(void *arg)
{
	const struct policy_args *a = arg;
	struct pollfd pfd[1 + TOKEN_MAX_HELPERS];
	char helper[PATH_MAX], interp[PATH_MAX];
	size_t n;
	int r;

	log_init("keyward-broker", log_level(), 0);
	signal(SIGPIPE, SIG_IGN);
	chan_init(&B.c, 3);
	wb_init(&B.out);
	B.touch_ms = a->touch_timeout * 1000;
	B.debug = a->debug;
	sandbox_harden();
	if (helper_path("keyward-sk", helper, sizeof(helper)) == 0 &&
	    interpreter(helper, interp, sizeof(interp)) == 0) {
		const char *exe[] = { helper, interp };
		sandbox_landlock_exec("broker", exe, 2);
	} else {
		/* No token helper installed: execute nothing at all. */
		log_info("keyward-sk not found: FIDO keys cannot sign");
		sandbox_landlock_exec("broker", NULL, 0);
	}
	sandbox_broker();
	for (;;) {
		int timeout = deadlines(), np = 1;
		struct job *at[TOKEN_MAX_HELPERS];

		pfd[0] = (struct pollfd){ B.c.fd, chan_events(&B.c), 0 };
		for (int i = 0; i < TOKEN_MAX_HELPERS; i++)
			if (B.jobs[i].pid != 0) {
				at[np - 1] = &B.jobs[i];
				pfd[np++] = (struct pollfd){ B.jobs[i].fd, POLLIN, 0 };
			}
		if (poll(pfd, (nfds_t)np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		if ((pfd[0].revents & POLLOUT) && chan_flush(&B.c) != 0)
			_exit(0);
		for (int i = 1; i < np; i++)
			if (pfd[i].revents != 0 && at[i - 1]->pid != 0)
				from_helper(at[i - 1]);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			while ((r = chan_recv(&B.c, B.buf, sizeof(B.buf), &n)) > 0) {
				from_policy(B.buf, n);
				wipe(B.buf, n);         /* a key handle, a PIN */
			}
			if (r < 0)
				_exit(0);       /* policy is gone: so is the agent */
		}
	}
}

int
broker_spawn(const struct policy_args *a)
{
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0)
		fatal("socketpair: %m");
	chan_setup_fd(sp[0]);
	chan_setup_fd(sp[1]);
	if (spawn(&(struct spawn){ .fds = { sp[1] }, .nfds = 1, .stdout_fd = -1,
	    .stderr_fd = -1, .run = broker_main, .arg = (void *)a }) < 0)
		fatal("cannot start the broker: %m");
	close(sp[1]);
	return sp[0];
}
