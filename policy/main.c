/*
 * main.c - keyward-policy. Started by the monitor with fd 3 to the monitor
 * and fd 4 to the keyholder; forks the prompter, drops everything, enters
 * its filter and runs one poll loop over its three peers. Any peer gone
 * means the agent is going: exit.
 */
#include "ipc/log.h"
#include "policy/audit.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct policy P;

static void
drain(struct chan *c, const char *peer,
    void (*fn)(struct policy *, const uint8_t *, size_t))
{
	size_t n;
	int r;

	while ((r = chan_recv(c, P.rbuf, sizeof(P.rbuf), &n)) > 0) {
		fn(&P, P.rbuf, n);
		wipe(P.rbuf, n);        /* an ADD carried a private key */
	}
	if (r < 0) {
		log_debug("%s closed; exiting", peer);
		exit(0);
	}
}

int
main(int argc, char **argv)
{
	struct pollfd pfd[4];
	struct chan *chans[4] = { &P.mon, &P.kh, &P.pr, &P.au };

	if (argc == 2 && strcmp(argv[1], "--host-tag") == 0)
		return host_tag_print();
	if (argc != 4 && argc != 5 && argc != 7)
		fatal("keyward-policy is started by keyward, not by hand");
	log_init("keyward-policy", strcmp(argv[1], "debug") == 0 ?
	    LOG_LVL_DEBUG : LOG_LVL_INFO, 0);
	P.fp_hash = argv[2];
	P.default_lifetime = strtol(argv[3], NULL, 10);
	if (argc >= 5)
		prompt_timeout_s = strtol(argv[4], NULL, 10);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);        /* ^C reaches the monitor; it decides */
	chan_init(&P.mon, 3);
	chan_init(&P.kh, 4);
	chan_init(&P.pr, prompter_spawn());
	/* argv[5]: the audit trail, "none", "fd" (fd 5) or "syslog". */
	chan_init(&P.au, -1);
	if (argc == 7 && strcmp(argv[5], "none") != 0) {
		int sync = strcmp(argv[6], "sync") == 0;
		if (strcmp(argv[5], "fd") == 0 && fcntl(5, F_GETFD) < 0)
			fatal("audit trail fd 5 is not open");
		chan_init(&P.au, auditor_spawn(strcmp(argv[5], "fd") == 0 ? 5 : -1,
		    strcmp(argv[5], "syslog") == 0, sync));
		P.audit_on = 1;
	}
	idt_init(&P.ids);
	wb_init(&P.out);
	wb_init(&P.secret);
	/* Load libcrypto's configuration and seed its DRBG now: after the
	 * filter there is no open() for openssl.cnf or /dev/urandom. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1 ||
	    RAND_status() != 1)
		fatal("cannot initialise libcrypto");

	/* The first gmtime_r (audit timestamps) reads the time zone files:
	 * let it happen now, while there are files. */
	tzset();
	sandbox_harden();
	sandbox_landlock("policy", NULL, NULL);
	sandbox_limit_fds();
	sandbox_policy((int[]){ P.mon.fd, P.kh.fd, P.pr.fd, P.au.fd },
	    P.audit_on ? 4 : 3);
	for (;;) {
		int timeout = policy_timers(&P);
		for (int i = 0; i < 4; i++)
			pfd[i] = (struct pollfd){ chans[i]->fd, chan_events(chans[i]), 0 };
		if (poll(pfd, 4, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		for (int i = 0; i < 4; i++)
			if ((pfd[i].revents & POLLOUT) && chan_flush(chans[i]) != 0)
				exit(0);
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.mon, "monitor", policy_from_monitor);
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.kh, "keyholder", policy_from_keyholder);
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.pr, "prompter", policy_from_prompter);
		if (pfd[3].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.au, "auditor", policy_from_auditor);
	}
}
