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
 *
 * PKCS#11 (issue 15): one keyward-pkcs11 per provider, started by
 * MSG_TK_P11_START with its LOGIN and kept until MSG_TK_P11_STOP. It
 * serves one request at a time; the others wait in its queue (at most
 * TOKEN_P11_QUEUE). A helper that ends, or does not answer within the
 * touch timeout (then it is killed), fails what it had and is reported
 * (MSG_R_P11_GONE): policy drops that provider's keys, and only those.
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

struct p11_queued {
	uint32_t req;
	struct wb request;      /* may hold a PIN: wiped */
};

/* A PKCS#11 provider's helper; path[0] == 0: the slot is free. */
struct prov {
	char path[TOKEN_MAX_PATH];
	pid_t pid;
	int fd;
	uint32_t busy;          /* the request at the helper now, 0: none */
	uint64_t deadline_ms;
	struct p11_queued q[TOKEN_P11_QUEUE];
	size_t nq;
};

static struct {
	struct chan c;
	struct job jobs[TOKEN_MAX_HELPERS];
	struct prov provs[TOKEN_MAX_PROVIDERS];
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

/* ------------------------------------------------------------ PKCS#11 */

static struct prov *
prov_named(struct slice path)
{
	for (int i = 0; i < TOKEN_MAX_PROVIDERS; i++)
		if (B.provs[i].path[0] != '\0' &&
		    strlen(B.provs[i].path) == path.len &&
		    memcmp(B.provs[i].path, path.p, path.len) == 0)
			return &B.provs[i];
	return NULL;
}

/* Hand the next queued request to the helper. */
static void
prov_next(struct prov *v)
{
	struct p11_queued *q;

	while (v->busy == 0 && v->nq > 0) {
		q = &v->q[0];
		if (send(v->fd, q->request.p, q->request.len, MSG_DONTWAIT) ==
		    (ssize_t)q->request.len) {
			v->busy = q->req;
			v->deadline_ms = mono_now() + (uint64_t)B.touch_ms;
		} else
			answer_fail(q->req, TK_DIED);
		wb_free_secret(&q->request);
		memmove(&v->q[0], &v->q[1], (v->nq - 1) * sizeof(v->q[0]));
		v->nq--;
	}
}

static void
prov_queue(struct prov *v, uint32_t req, struct slice request)
{
	struct p11_queued *q;

	if (v->nq == TOKEN_P11_QUEUE) {
		log_info("PKCS#11 signature refused: %d requests wait for %s",
		    TOKEN_P11_QUEUE, v->path);
		answer_fail(req, TK_BUSY);
		return;
	}
	q = &v->q[v->nq++];
	q->req = req;
	wb_init(&q->request);
	wb_bytes(&q->request, request.p, request.len);
	prov_next(v);
}

/* End a provider's helper; tell policy unless policy asked (tell 0). */
static void
prov_end(struct prov *v, enum tk_fail why, int tell)
{
	kill(v->pid, SIGKILL);
	while (waitpid(v->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(v->fd);
	if (v->busy != 0)
		answer_fail(v->busy, why);
	for (size_t i = 0; i < v->nq; i++) {
		answer_fail(v->q[i].req, why);
		wb_free_secret(&v->q[i].request);
	}
	if (tell) {
		msg_begin(&B.out, MSG_R_P11_GONE, 0, 0);
		msg_blob_encode(&B.out, &(struct msg_blob){
		    { (const uint8_t *)v->path, strlen(v->path) } });
		send_policy();
	}
	memset(v, 0, sizeof(*v));
}

static void
p11_start(uint32_t req, struct slice provider, struct slice login)
{
	struct args_buf ab;
	struct prov *v = NULL;
	int sp[2];

	for (int i = 0; i < TOKEN_MAX_PROVIDERS && v == NULL; i++)
		if (B.provs[i].path[0] == '\0')
			v = &B.provs[i];
	if (prov_named(provider) != NULL || v == NULL ||
	    provider.len >= sizeof(v->path)) {
		log_info("PKCS#11 provider not started: already loaded, or %d "
		    "are", TOKEN_MAX_PROVIDERS);
		answer_fail(req, TK_BUSY);
		return;
	}
	memcpy(v->path, provider.p, provider.len);
	v->path[provider.len] = '\0';
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0) {
		memset(v, 0, sizeof(*v));
		answer_fail(req, TK_START);
		return;
	}
	chan_setup_fd(sp[0]);
	chan_setup_fd(sp[1]);
	v->pid = spawn(&(struct spawn){ .fds = { sp[1] }, .nfds = 1,
	    .stdout_fd = -1, .stderr_fd = -1, .exec = "keyward-pkcs11",
	    .argv = args_pkcs11_encode(&(struct pkcs11_args){ B.debug, v->path },
	    &ab) });
	close(sp[1]);
	if (v->pid <= 0) {
		log_error("cannot start keyward-pkcs11: %m");
		close(sp[0]);
		memset(v, 0, sizeof(*v));
		answer_fail(req, TK_START);
		return;
	}
	v->fd = sp[0];
	log_debug("keyward-pkcs11 %ld started for %s", (long)v->pid, v->path);
	prov_queue(v, req, login);
}

/* The helper answered (or ended). */
static void
from_prov(struct prov *v)
{
	ssize_t n;

	do {
		n = recv(v->fd, B.buf, sizeof(B.buf), MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0 || (size_t)n > IPC_MAX_MSG - 64 || v->busy == 0) {
		log_error("keyward-pkcs11 %ld for %s ended%s: its keys are "
		    "removed", (long)v->pid, v->path, n > 0 ? " (an answer "
		    "nobody asked for)" : "");
		prov_end(v, TK_DIED, 1);
		return;
	}
	msg_begin(&B.out, MSG_R_TOKEN, v->busy, 0);
	msg_blob_encode(&B.out, &(struct msg_blob){ { B.buf, (size_t)n } });
	send_policy();
	v->busy = 0;
	prov_next(v);
}

static void
from_policy(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct msg_tk_sign s;
	struct msg_blob b;
	struct job *j;
	struct prov *v;
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
		/* a PKCS#11 request still queued goes; one at its helper is
		 * answered when the helper answers */
		for (int i = 0; i < TOKEN_MAX_PROVIDERS; i++)
			for (size_t k = 0; k < B.provs[i].nq; k++)
				if (B.provs[i].q[k].req == h.req) {
					struct prov *pv = &B.provs[i];
					wb_free_secret(&pv->q[k].request);
					memmove(&pv->q[k], &pv->q[k + 1],
					    (pv->nq - k - 1) * sizeof(pv->q[0]));
					pv->nq--;
					answer_fail(h.req, TK_CANCELLED);
					break;
				}
		break;
	case MSG_TK_RESOLVE:
		if (msg_blob_decode(&r, &b) != 0)
			fatal("broker: bad MSG_TK_RESOLVE");
		resolve(h.req, b.blob);
		break;
	case MSG_TK_P11_START:
		if (msg_tk_sign_decode(&r, &s) != 0)
			fatal("broker: bad MSG_TK_P11_START");
		p11_start(h.req, s.provider, s.request);
		break;
	case MSG_TK_P11_SIGN:
		if (msg_tk_sign_decode(&r, &s) != 0)
			fatal("broker: bad MSG_TK_P11_SIGN");
		if ((v = prov_named(s.provider)) == NULL)
			answer_fail(h.req, TK_DIED);
		else
			prov_queue(v, h.req, s.request);
		break;
	case MSG_TK_P11_STOP:
		if (msg_blob_decode(&r, &b) != 0)
			fatal("broker: bad MSG_TK_P11_STOP");
		if ((v = prov_named(b.blob)) != NULL) {
			log_info("keyward-pkcs11 for %s stopped", v->path);
			prov_end(v, TK_CANCELLED, 0);
		}
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
	for (int i = 0; i < TOKEN_MAX_PROVIDERS; i++) {
		struct prov *v = &B.provs[i];
		if (v->path[0] == '\0' || v->busy == 0)
			continue;
		if (v->deadline_ms <= now) {
			log_error("keyward-pkcs11 %ld for %s: no answer in %ld s: "
			    "stopped, its keys are removed", (long)v->pid, v->path,
			    B.touch_ms / 1000);
			prov_end(v, TK_TIMEOUT, 1);
		} else if (timeout < 0 || v->deadline_ms - now < (uint64_t)timeout)
			timeout = (int)(v->deadline_ms - now);
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
	struct pollfd pfd[1 + TOKEN_MAX_HELPERS + TOKEN_MAX_PROVIDERS];
	char helper[PATH_MAX], p11[PATH_MAX], interp[PATH_MAX];
	const char *exe[3];
	size_t nexe = 0;
	size_t n;
	int r;

	log_init("keyward-broker", log_level(), 0);
	signal(SIGPIPE, SIG_IGN);
	chan_init(&B.c, 3);
	wb_init(&B.out);
	B.touch_ms = a->touch_timeout * 1000;
	B.debug = a->debug;
	sandbox_harden();
	/* It may execute the token helpers and their ELF interpreter, and
	 * nothing else; a helper not installed is simply not among them. */
	if (helper_path("keyward-sk", helper, sizeof(helper)) == 0)
		exe[nexe++] = helper;
	else
		log_info("keyward-sk not found: FIDO keys cannot sign");
	if (helper_path("keyward-pkcs11", p11, sizeof(p11)) == 0)
		exe[nexe++] = p11;
	else
		log_info("keyward-pkcs11 not found: PKCS#11 keys cannot be added");
	if (nexe > 0 && interpreter(exe[0], interp, sizeof(interp)) == 0)
		exe[nexe++] = interp;
	sandbox_landlock_exec("broker", exe, nexe);
	sandbox_broker();
	for (;;) {
		int timeout = deadlines(), np = 1, nj, npv = 0;
		struct job *at[TOKEN_MAX_HELPERS];
		struct prov *pv[TOKEN_MAX_PROVIDERS];

		pfd[0] = (struct pollfd){ B.c.fd, chan_events(&B.c), 0 };
		for (int i = 0; i < TOKEN_MAX_HELPERS; i++)
			if (B.jobs[i].pid != 0) {
				at[np - 1] = &B.jobs[i];
				pfd[np++] = (struct pollfd){ B.jobs[i].fd, POLLIN, 0 };
			}
		nj = np;
		for (int i = 0; i < TOKEN_MAX_PROVIDERS; i++)
			if (B.provs[i].path[0] != '\0') {
				pv[npv++] = &B.provs[i];
				pfd[np++] = (struct pollfd){ B.provs[i].fd, POLLIN, 0 };
			}
		if (poll(pfd, (nfds_t)np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		if ((pfd[0].revents & POLLOUT) && chan_flush(&B.c) != 0)
			_exit(0);
		for (int i = 1; i < nj; i++)
			if (pfd[i].revents != 0 && at[i - 1]->pid != 0)
				from_helper(at[i - 1]);
		for (int i = 0; i < npv; i++)
			if (pfd[nj + i].revents != 0 && pv[i]->path[0] != '\0')
				from_prov(pv[i]);
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
