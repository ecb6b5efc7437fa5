/*
 * broker/main.c - keyward-broker: started by policy (spawn(), with its
 * channel at fd 3 and the list of wire/args.h) before policy's sandbox
 * closes, it is the one process that starts token helpers, since policy
 * itself may neither exec nor make a new fd. A program of its own, it
 * shares no memory with policy: it holds only what policy sends it.
 * For each MSG_TK_SIGN it starts one keyward-sk (ipc/spawn.h) for the
 * named provider, hands it the request, and relays its one reply; a
 * helper that does not answer within the touch timeout is killed and the
 * signature refused. It also resolves provider paths (realpath) for
 * policy, which has no file system.
 *
 * It holds, for the life of one signature, the request in flight: the
 * key handle, the data and any PIN (wiped once sent). Its filter allows
 * by default, as a helper it starts must load a library before entering
 * its own allowlist; Landlock lets it execute the token helpers alone.
 * This file: the loop, policy's messages, provider paths; sk.c: FIDO
 * signatures; p11.c: PKCS#11 providers (broker.h).
 *
 *   policy --MSG_TK_SIGN(req, provider, request)--> broker
 *          broker --spawn--> keyward-sk PROVIDER --request--> (touch)
 *          keyward-sk --reply--> broker --MSG_R_TOKEN(req, reply)--> policy
 *   or     broker --MSG_R_TOKEN_FAIL(req, busy|start|timeout|died|cancelled)
 * Every MSG_TK_SIGN gets exactly one answer.
 *
 * PKCS#11: one keyward-pkcs11 per provider, started by
 * MSG_TK_P11_START with its LOGIN and kept until MSG_TK_P11_STOP. It
 * serves one request at a time; the others wait in its queue (at most
 * TOKEN_P11_QUEUE). A helper that ends, or does not answer within the
 * touch timeout (then it is killed), fails what it had and is reported
 * (MSG_R_P11_GONE): policy drops that provider's keys, and only those.
 */
#include "wire/args.h"
#include "ipc/clock.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "wire/broker.h"
#include "ipc/spawn.h"
#include "broker/broker.h"
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


struct broker B;

#define POLICY "keyward-policy"

void
send_policy(void)
{
	if (chan_send(&B.c, &B.out) != 0)
		peer_gone(POLICY);
}

void
answer_fail(uint32_t req, enum tk_fail why)
{
	msg_begin(&B.out, MSG_R_TOKEN_FAIL, req, 0);
	msg_tk_fail_encode(&B.out, &(struct msg_tk_fail){ (uint8_t)why });
	send_policy();
}

static void
resolve(uint32_t req, struct slice in)
{
	char path[TOKEN_MAX_PATH], real[PATH_MAX];

	if (in.len >= sizeof(path)) {
		msg_status_reply(&B.out, req, 0, ST_FAIL);
		send_policy();
		return;
	}
	memcpy(path, in.p, in.len);
	path[in.len] = '\0';
	if (realpath(path, real) == NULL) {
		msg_status_reply(&B.out, req, 0, ST_FAIL);
	} else {
		msg_path_write(&B.out, req,
		    (struct slice){ (const uint8_t *)real, strlen(real) });
	}
	send_policy();
}







/* Policy's messages, one handler each (from_policy's table). A message
 * that does not decode whole is policy gone wrong: the broker ends, and
 * policy with it (fail closed; ipc/sibling.h). */
static void __attribute__((noreturn))
bad(const char *what)
{
	peer_broke(POLICY, "a malformed %s", what);
}

static void
h_sign(uint32_t req, struct rd *r)
{
	struct msg_tk_sign s;

	if (msg_tk_sign_decode(r, &s) != 0)
		bad("MSG_TK_SIGN");
	sk_start(req, s.provider, s.request);
}

static void
h_cancel(uint32_t req, struct rd *r)
{
	struct job *j;

	if (msg_empty_decode(r) != 0)
		bad("MSG_TK_CANCEL");
	if ((j = sk_job(req)) != NULL) {
		sk_end(j);
		answer_fail(req, TK_CANCELLED);
	}
	prov_cancel(req);
}

static void
h_resolve(uint32_t req, struct rd *r)
{
	struct slice provider;

	if (msg_string_read(r, &provider) != 0)
		bad("MSG_TK_RESOLVE");
	resolve(req, provider);
}

static void
h_p11_start(uint32_t req, struct rd *r)
{
	struct msg_tk_sign s;

	if (msg_tk_sign_decode(r, &s) != 0)
		bad("MSG_TK_P11_START");
	prov_start(req, s.provider, s.request);
}

static void
h_p11_sign(uint32_t req, struct rd *r)
{
	struct msg_tk_sign s;
	struct prov *v;

	if (msg_tk_sign_decode(r, &s) != 0)
		bad("MSG_TK_P11_SIGN");
	if ((v = prov_named(s.provider)) == NULL)
		answer_fail(req, TK_DIED);
	else
		prov_queue(v, req, s.request);
}

static void
h_p11_stop(uint32_t req, struct rd *r)
{
	struct slice provider;
	struct prov *v;

	if (msg_string_read(r, &provider) != 0)
		bad("MSG_TK_P11_STOP");
	if ((v = prov_named(provider)) != NULL) {
		log_info("keyward-pkcs11 for %s stopped", v->path);
		prov_end(v, TK_CANCELLED, 0);
	}
}

static const struct {
	uint8_t type;
	void (*fn)(uint32_t req, struct rd *r);
} from_policy_rows[] = {
	{ MSG_TK_SIGN,      h_sign },
	{ MSG_TK_CANCEL,    h_cancel },
	{ MSG_TK_RESOLVE,   h_resolve },
	{ MSG_TK_P11_START, h_p11_start },
	{ MSG_TK_P11_SIGN,  h_p11_sign },
	{ MSG_TK_P11_STOP,  h_p11_stop },
};

static void
from_policy(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct rd r;

	msg_sibling_hdr(POLICY, p, n, &r, &h);
	MSG_ROW(POLICY, from_policy_rows, h.type)->fn(h.req, &r);
}

/* Poll timeout: the nearest helper deadline; end the ones past it. */
static int
deadlines(void)
{
	uint64_t now = clock_mono_ms();
	int timeout = -1;

	sk_deadlines(now, &timeout);
	prov_deadlines(now, &timeout);
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

/* The sandbox: it may execute the token helpers and their ELF
 * interpreter, and nothing else; a helper not installed is simply not
 * among them. */
static void
confine(void)
{
	static char helper[PATH_MAX], p11[PATH_MAX], interp[PATH_MAX];
	const char *exe[3];
	size_t nexe = 0;

	sandbox_harden();
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
}

/* Policy's channel, then every running sk helper, then every provider's
 * helper: at[] and pv[] name the latter two's owners. */
static nfds_t
fill_pollfds(struct pollfd *pfd, struct job **at, int *nj, struct prov **pv,
    int *npv)
{
	int np = 1;

	pfd[0] = (struct pollfd){ B.c.fd, chan_events(&B.c), 0 };
	for (int i = 0; i < TOKEN_MAX_HELPERS; i++)
		if (B.jobs[i].pid != 0) {
			at[np - 1] = &B.jobs[i];
			pfd[np++] = (struct pollfd){ B.jobs[i].fd, POLLIN, 0 };
		}
	*nj = np;
	*npv = 0;
	for (int i = 0; i < TOKEN_MAX_PROVIDERS; i++)
		if (B.provs[i].path[0] != '\0') {
			pv[(*npv)++] = &B.provs[i];
			pfd[np++] = (struct pollfd){ B.provs[i].fd, POLLIN, 0 };
		}
	return (nfds_t)np;
}

int
main(int argc, char **argv)
{
	struct broker_args a;
	struct pollfd pfd[1 + TOKEN_MAX_HELPERS + TOKEN_MAX_PROVIDERS];
	size_t n;
	int r;

	/* policy starts the broker with exactly one argument list
	 * (wire/args.h); anything else is refused whole */
	if (args_broker_decode(argc, argv, &a) != 0)
		start_refused("keyward-broker");
	start_helper("keyward-broker", a.debug, START_IGNORE_INT);
	chan_init(&B.c, 3);
	wb_init(&B.out);
	B.touch_ms = a.touch_timeout * 1000;
	B.debug = a.debug;
	confine();
	for (;;) {
		int timeout = deadlines(), nj, npv;
		struct job *at[TOKEN_MAX_HELPERS];
		struct prov *pv[TOKEN_MAX_PROVIDERS];
		nfds_t np = fill_pollfds(pfd, at, &nj, pv, &npv);

		if (poll(pfd, np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		if ((pfd[0].revents & POLLOUT) && chan_flush(&B.c) != 0)
			peer_gone(POLICY);
		for (int i = 1; i < nj; i++)
			if (pfd[i].revents != 0 && at[i - 1]->pid != 0)
				sk_from_helper(at[i - 1]);
		for (int i = 0; i < npv; i++)
			if (pfd[nj + i].revents != 0 && pv[i]->path[0] != '\0')
				prov_from(pv[i]);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			while ((r = chan_recv(&B.c, B.buf, sizeof(B.buf), &n)) > 0) {
				from_policy(B.buf, n);
				wipe(B.buf, n);         /* a key handle, a PIN */
			}
			if (r < 0)
				peer_recv_end(POLICY, r, n);
		}
	}
}
