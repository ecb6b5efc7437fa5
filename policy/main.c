/*
 * main.c - keyward-policy. Started by the monitor with fd 3 to the monitor
 * and fd 4 to the keyholder; starts keyward-prompter, keyward-broker,
 * keyward-session and (with an audit trail) keyward-auditor, each a
 * program of its own given only its channel (and the trail) and its
 * argument list, drops everything, enters its filter and runs one poll loop over its peers.
 * Any peer gone means the agent is going: exit; but keyward-session
 * (policy/session.c), which ends by itself when it has no bus to watch.
 */
#include "crypto/crypto.h"
#include "keys/fphash.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "policy/audit.h"
#include "ipc/spawn.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static struct policy P;

static void
drain(struct chan *c, const char *peer,
    void (*fn)(struct policy *, const uint8_t *, size_t),
    int (*more)(const struct policy *))
{
	size_t n = 0;
	int r = 0;

	while ((more == NULL || more(&P)) &&
	    (r = chan_recv(c, P.rbuf, sizeof(P.rbuf), &n)) > 0) {
		fn(&P, P.rbuf, n);
		wipe(P.rbuf, n);        /* an ADD carried a private key */
	}
	if (r < 0) {
		if (c == &P.mon)
			audit_repeats_flush(&P);    /* the agent is ending */
		peer_recv_end(peer, r, n);
	}
}

/* keyward starts policy with exactly one argument list (wire/args.h);
 * anything else is refused whole, so what runs is what was tested. */
static void
parse_args(int argc, char **argv)
{
	if (args_policy_decode(argc, argv, &P.args) != 0) {
		fprintf(stderr, "keyward-policy is started by keyward, not by hand\n");
		exit(1);
	}
	log_init("keyward-policy", P.args.debug ? LOG_LVL_DEBUG : LOG_LVL_INFO, 0);
	P.fp_hash = P.args.fp_hash;
	P.default_lifetime = P.args.default_lifetime;
}

/* Start one of policy's own helpers (argv: wire/args.h) with its channel
 * at fd 3 and, if trail >= 0, the audit trail at fd 4 (ipc/spawn.h);
 * returns policy's end of the channel. Before the sandbox: policy itself
 * may neither fork nor exec after it. */
static int
start_helper(char **argv, int trail)
{
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0)
		fatal("socketpair: %m");
	chan_setup_fd(sp[0]);
	chan_setup_fd(sp[1]);
	/* Nothing but stderr, the channel and the trail stays open. */
	if (spawn(&(struct spawn){ .fds = { sp[1], trail }, .nfds = trail >= 0 ? 2 : 1,
	    .stdout_fd = -1, .stderr_fd = -1, .exec = argv[0], .argv = argv }) < 0)
		fatal("cannot start %s: %m", argv[0]);
	close(sp[1]);
	if (trail >= 0)
		close(trail);
	return sp[0];
}

static void
start_helpers(void)
{
	const struct policy_args *a = &P.args;
	struct args_buf b;

	chan_init(&P.pr, start_helper(args_prompter_encode(&(struct prompter_args){
	    a->debug, a->confirm_timeout }, &b), -1));
	chan_init(&P.tk, start_helper(args_broker_encode(&(struct broker_args){
	    a->debug, a->touch_timeout }, &b), -1));
	chan_init(&P.au, -1);
	if (a->audit != AUDIT_NONE) {
		int fd = a->audit == AUDIT_FD ? 5 : -1;
		if (fd == 5 && fcntl(5, F_GETFD) < 0)
			fatal("audit trail fd 5 is not open");
		chan_init(&P.au, start_helper(args_auditor_encode(&(struct auditor_args){
		    a->debug, a->audit, a->audit_sync, a->audit_facility,
		    a->audit_tag, a->audit_socket, a->audit_key }, &b), fd));
		P.audit_on = 1;
	}
	session_start(&P, start_helper);
}

/* The timeout of the next poll: policy's own timers (policy_timers), a
 * refusal window closing (audit_repeats.c), -O session-idle (session.c). */
static int
poll_timeout(void)
{
	int timeout = policy_timers(&P);
	int due = P.audit_on ? audit_repeats_due(&P) : -1;

	if (due >= 0 && (timeout < 0 || due < timeout))
		timeout = due;
	due = session_idle_due(&P);
	if (due >= 0 && (timeout < 0 || due < timeout))
		timeout = due;
	return timeout;
}

/* Everything before the first message: the helpers, libcrypto, the
 * sandbox. */
static void
setup(int argc, char **argv)
{
	parse_args(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);        /* ^C reaches the monitor; it decides */
	/* A helper that ends on its own (keyward-session with no bus to
	 * watch) is reaped by the kernel: policy has no wait() under its
	 * filter. SIGCHLD keeps its default action, and execve clears the
	 * flag, so the helpers' own children are theirs to wait for. */
	if (sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = SIG_DFL,
	    .sa_flags = SA_NOCLDWAIT }, NULL) != 0)
		fatal("sigaction(SIGCHLD): %m");
	chan_init(&P.mon, 3);
	chan_init(&P.kh, 4);
	start_helpers();
	idt_init(&P.ids);
	listcache_watch(&P);
	wb_init(&P.out);
	wb_init(&P.secret);
	/* Load libcrypto's configuration now: after the filter there is no
	 * open() for openssl.cnf. Policy verifies and hashes but never draws
	 * from libcrypto's DRBG (the lock's salt comes from getrandom(2)), so
	 * the DRBG is never built here: about 250 KiB less. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1)
		fatal("cannot initialise libcrypto");

	/* The first gmtime_r (audit timestamps) reads the time zone files:
	 * let it happen now, while there are files. */
	tzset();
	caller_init(getuid());  /* no getuid() under the filter */
	sandbox_harden();
	sandbox_landlock("policy", NULL, NULL);
	sandbox_limit_fds();
	sandbox_policy((int[]){ P.mon.fd, P.kh.fd, P.pr.fd, P.tk.fd,
	    P.session.ch.fd, P.au.fd }, P.audit_on ? 6 : 5);
}

int
main(int argc, char **argv)
{
	struct pollfd pfd[6];
	struct chan *chans[6] = { &P.mon, &P.kh, &P.pr, &P.au, &P.tk,
	    &P.session.ch };
	static const char *const names[6] = { "monitor", "keyholder",
	    "prompter", "auditor", "broker", "session watcher" };

	if (argc == 2 && strcmp(argv[1], "--host-tag") == 0)
		return host_tag_print();
	setup(argc, argv);
	for (;;) {
		int timeout = poll_timeout();
		/* an expiry, a session lock: the monitor's list answer ends */
		listcache_check(&P);
		for (int i = 0; i < 6; i++)
			pfd[i] = (struct pollfd){ chans[i]->fd, chan_events(chans[i]), 0 };
		/* Back-pressure and barriers: the monitor's next request waits
		 * in its queue until policy may judge it (dispatch.c). */
		if (!policy_may_read_monitor(&P))
			pfd[0].events &= (short)~POLLIN;
		if (poll(pfd, 6, timeout) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		for (int i = 0; i < 5; i++)
			if ((pfd[i].revents & POLLOUT) && chan_flush(chans[i]) != 0)
				peer_gone(names[i]);
		/* the session watcher's end is no reason to stop (session.c) */
		if (pfd[5].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR))
			session_drain(&P);
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.kh, "keyholder", policy_from_keyholder, NULL);
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.pr, "prompter", policy_from_prompter, NULL);
		if (pfd[3].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.au, "auditor", policy_from_auditor, NULL);
		if (pfd[4].revents & (POLLIN | POLLHUP | POLLERR))
			drain(&P.tk, "broker", policy_from_broker, NULL);
		if (pfd[0].revents & POLLIN)
			drain(&P.mon, "monitor", policy_from_monitor,
			    policy_may_read_monitor);
		else if (pfd[0].revents & (POLLHUP | POLLERR)) {
			audit_repeats_flush(&P);
			peer_gone("monitor");   /* the agent is ending */
		}
	}
}
