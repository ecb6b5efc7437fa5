/*
 * broker/p11.c - the broker's PKCS#11 providers: one keyward-pkcs11 a
 * provider, one request at it at a time and the rest queued; a helper
 * that ends or stalls is reported so that policy drops its keys alone
 * (main.c).
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
#include <time.h>
#include <unistd.h>

struct prov *
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
			v->deadline_ms = clock_mono_ms() + (uint64_t)B.touch_ms;
		} else
			answer_fail(q->req, TK_DIED);
		wb_free_secret(&q->request);
		memmove(&v->q[0], &v->q[1], (v->nq - 1) * sizeof(v->q[0]));
		v->nq--;
	}
}

void
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

/* Reap a helper: give it grace_ms to end on its own (C_Finalize once its
 * channel is closed), then SIGKILL. Its wait status, or -1. */
static int
reap(pid_t pid, int grace_ms)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int st = 0, waited = 0;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			return -1;
		if (waited >= grace_ms)
			break;
		nanosleep(&tick, NULL);
		waited += 10;
	}
	kill(pid, SIGKILL);
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	return r == pid ? st : -1;
}

/* End a provider's helper; tell policy unless policy asked (tell 0). An
 * idle helper policy stops, or one that closed its channel, has its
 * channel closed and TOKEN_P11_FINALIZE_MS to end by itself: a module
 * finalises as under ssh-agent (tpm2-pkcs11 without a resource manager
 * would otherwise leave its objects loaded in the TPM, and the next
 * login runs out of TPM memory). One stopped by its filter is said so. */
void
prov_end(struct prov *v, enum tk_fail why, int tell)
{
	int grace = (why == TK_CANCELLED && v->busy == 0) || why == TK_DIED ?
	    TOKEN_P11_FINALIZE_MS : 0;
	int st;

	close(v->fd);
	st = reap(v->pid, grace);
	if (st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		log_error("keyward-pkcs11 for %s stopped by its filter (SIGSYS; "
		    "its last line names the syscall)", v->path);
	else if (st != -1 && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
		log_error("keyward-pkcs11 for %s was killed by signal %d",
		    v->path, WTERMSIG(st));
	if (v->busy != 0)
		answer_fail(v->busy, why);
	for (size_t i = 0; i < v->nq; i++) {
		answer_fail(v->q[i].req, why);
		wb_free_secret(&v->q[i].request);
	}
	if (tell) {
		msg_p11_gone_write(&B.out,
		    (struct slice){ (const uint8_t *)v->path, strlen(v->path) });
		send_policy();
	}
	memset(v, 0, sizeof(*v));
}

void
prov_start(uint32_t req, struct slice provider, struct slice login)
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
void
prov_from(struct prov *v)
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
	msg_token_write(&B.out, v->busy, (struct slice){ B.buf, (size_t)n });
	send_policy();
	v->busy = 0;
	prov_next(v);
}

void
prov_deadlines(uint64_t now, int *timeout)
{
	for (int i = 0; i < TOKEN_MAX_PROVIDERS; i++) {
		struct prov *v = &B.provs[i];
		if (v->path[0] == '\0' || v->busy == 0)
			continue;
		if (v->deadline_ms <= now) {
			log_error("keyward-pkcs11 %ld for %s: no answer in %ld s: "
			    "stopped, its keys are removed", (long)v->pid, v->path,
			    B.touch_ms / 1000);
			prov_end(v, TK_TIMEOUT, 1);
		} else if (*timeout < 0 || v->deadline_ms - now < (uint64_t)*timeout)
			*timeout = (int)(v->deadline_ms - now);
	}
}

/* A request still queued goes; one at its helper is answered when the
 * helper answers. */
void
prov_cancel(uint32_t req)
{
	for (int i = 0; i < TOKEN_MAX_PROVIDERS; i++) {
		struct prov *v = &B.provs[i];
		for (size_t k = 0; k < v->nq; k++)
			if (v->q[k].req == req) {
				wb_free_secret(&v->q[k].request);
				memmove(&v->q[k], &v->q[k + 1],
				    (v->nq - k - 1) * sizeof(v->q[0]));
				v->nq--;
				answer_fail(req, TK_CANCELLED);
				return;
			}
	}
}
