/*
 * connections.c - the attack on the agent's descriptors: as many idle
 * connections as the agent accepts (the wrapper starts the agents with
 * RLIMIT_NOFILE 1024), then a new well-behaved client must be served.
 *
 *   connections       the connection flood
 *   connections-idle  the same flood while a lone client of the user's
 *                     holds its connection open and idle
 */
#include "tests/hostile/lib.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define FLOOD_CONN_MAX       4096       /* connections we open at most */

/* Our descriptors raised to their hard limit, and how many connections
 * to open: the agent's limit and as many again, so that the agent makes
 * room for each one past it. */
static long
flood_cap(const char *cs)
{
	struct rlimit rl;
	long anofile = agent_nofile(), cap;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	cap = anofile > 0 ? anofile + 1024 : FLOOD_CONN_MAX;
	if (cap > FLOOD_CONN_MAX)
		cap = FLOOD_CONN_MAX;
	if ((rlim_t)cap + 64 > rl.rlim_cur)
		cap = (long)rl.rlim_cur - 64;
	diag("%s: agent RLIMIT_NOFILE %ld; ours %llu; opening at most %ld "
	    "connections",
	    cs, anofile, (unsigned long long)rl.rlim_cur, cap);
	return cap;
}

/* Opens up to cap connections, all from this process, until the agent's
 * backlog stays full; returns how many, *eagain set if it filled. */
static int
flood_fill(int *fds, long cap, const char *cs)
{
	int nfd = 0, eagain = 0;
	uint64_t t0 = now_ms();

	while (nfd < cap && now_ms() - t0 < window_ms(15)) {
		if (sock_connect(&fds[nfd]) == 0) {
			nfd++;
			eagain = 0;
			continue;
		}
		if (errno != EAGAIN) {
			diag("%s: connect: %s after %d "
			    "connections", cs, strerror(errno), nfd);
			break;
		}
		if (++eagain >= 20)     /* backlog full for 200 ms: no longer accepting */
			break;
		sleep_ms(10);
	}
	figure(cs, "%d connections open (%s) in %.1f s", nfd,
	    eagain ? "then connect() found the backlog full" : "our cap",
	    (double)(now_ms() - t0) / 1000);
	return nfd;
}

/* connections: connection flood: as many connections as the agent accepts. */
void
attack_connections(void)
{
	struct key *keep[1] = { probe_key };
	struct probe p;
	struct cl c = { .fd = -1 };
	struct wb w;
	int *fds, nfd, t, found, n, served;
	long cap = flood_cap("connections");
	uint64_t t0;
	char s[32];

	fds = xmalloc((size_t)cap * sizeof(int));
	probe_start(&p, 1);
	sleep_ms(300);
	nfd = flood_fill(fds, cap, "connections");
	sleep_ms(1000);                 /* held idle */
	/* A well-behaved client now: LIST and SIGN within the liveness wait. */
	wb_init(&w);
	t0 = now_ms();
	served = 0;
	if (cl_connect(&c, bound_ms(10000)) == 0) {
		msg_simple(&w, MSG_REQ_IDENTITIES);
		t = cl_call(&c, &w, bound_ms(10000) - (int)(now_ms() - t0));
		n = t == MSG_IDENTITIES ? list_has(c.msg, probe_key, &found) : -1;
		served = n > 0 && found;
	}
	fmt_ms(s, sizeof(s), now_ms() - t0);
	figure("connections-new", "a new client during the flood: %s after %s",
	    served ? "served" : "NOT served", s);
	tap_bound(served, served ? s : "not served within 10 s",
	    "connections: with %d idle connections open a new client is still "
	    "served", nfd);
	cl_free(&c);
	while (nfd > 0)
		close(fds[--nfd]);
	free(fds);
	sleep_ms(500);
	n = list_fresh(probe_key, &found, bound_ms(10000));
	tap_ok(n > 0 && found, "connections: after the flood closes a new client is "
	    "served");
	probe_stop(&p);
	check_common("connections", &p, keep, 1);
	wb_free(&w);
}

/* The lone client's answers to the attacker, one byte each. */
#define LONE_LISTED    'l'      /* connected, and LIST showed the probe key */
#define LONE_FAILED    'f'      /* could not connect or list */
#define LONE_SIGNED    's'      /* SIGN on the same connection: verifies */
#define LONE_CLOSED    'c'      /* ... the connection was closed */
#define LONE_NOANSWER  'n'      /* ... no answer, or a wrong one */
#define LONE_IDLE_MS   (CLIENT_EVICT_IDLE_MS + 500) /* idle before the flood */

/* The lone client: its own process, one connection; LIST, then idle until
 * told, then SIGN on the same connection. */
static __attribute__((noreturn)) void
lone_client(int in, int out, pid_t attacker)
{
	struct cl c = { .fd = -1 };
	struct wb w;
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	struct slice sig;
	uint8_t data[64] = "a lone client, idle through a flood";
	char r = LONE_FAILED;
	int t, found = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != attacker)
		_exit(1);
	wb_init(&w);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	if (cl_connect(&c, bound_ms(10000)) == 0 &&
	    cl_call(&c, &w, bound_ms(10000)) == MSG_IDENTITIES &&
	    list_has(c.msg, probe_key, &found) > 0 && found)
		r = LONE_LISTED;
	if (write(out, &r, 1) != 1 || r != LONE_LISTED)
		_exit(1);
	if (poll(&pfd, 1, 120000) != 1 || read(in, &r, 1) != 1)
		_exit(1);
	wb_reset(&w);
	msg_sign(&w, probe_key, data, sizeof(data));
	t = cl_call(&c, &w, bound_ms(10000));
	if (t == R_EOF || t == R_ERROR)
		r = LONE_CLOSED;
	else if (t == MSG_SIGN_RESPONSE && sign_reply_sig(c.msg, &sig) == 0 &&
	    sig_verifies(probe_key, data, sizeof(data), sig))
		r = LONE_SIGNED;
	else
		r = LONE_NOANSWER;
	_exit(write(out, &r, 1) == 1 ? 0 : 1);
}

/* Reads the lone client's next answer within ms; 0 if none. */
static char
lone_answer(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char r = 0;

	if (poll(&pfd, 1, ms) != 1 || read(fd, &r, 1) != 1)
		return 0;
	return r;
}

/*
 * connections-idle: a client of the user's (a process of its own, one
 * connection) lists the keys and holds its connection open and idle, as
 * ssh does between its LIST and its SIGN while the server answers; then
 * the attacker, one process, opens as many connections as the agent
 * accepts and more. The agent makes room from the peer holding the most:
 * the lone client's SIGN on its connection is answered after the flood.
 */
void
attack_connections_idle(void)
{
	struct key *keep[1] = { probe_key };
	struct probe p;
	int *fds, nfd, to[2], from[2], st;
	long cap = flood_cap("connections-idle");
	pid_t pid, self = getpid();
	char r;

	fds = xmalloc((size_t)cap * sizeof(int));
	if (pipe(to) != 0 || pipe(from) != 0)
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	if ((pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		lone_client(to[0], from[1], self);
	}
	close(to[0]);
	close(from[1]);
	probe_start(&p, 1);
	r = lone_answer(from[0], bound_ms(20000));
	tap_ok(r == LONE_LISTED, "connections-idle: the lone client (pid %d) "
	    "connected and listed the keys", (int)pid);
	sleep_ms(LONE_IDLE_MS);         /* its connection idle past the limit's */
	nfd = flood_fill(fds, cap, "connections-idle");
	sleep_ms(1000);                 /* held idle */
	r = LONE_SIGNED;
	if (write(to[1], &r, 1) != 1)
		diag("connections-idle: the lone client is gone");
	r = lone_answer(from[0], bound_ms(20000));
	figure("connections-idle-lone", "the lone client's SIGN after the flood: %s",
	    r == LONE_SIGNED ? "signed" : r == LONE_CLOSED ? "its connection "
	    "was closed" : "no answer");
	tap_ok(r == LONE_SIGNED, "connections-idle: a lone client idle %d ms "
	    "before %d connections of one process, its connection is kept and "
	    "its SIGN answered", LONE_IDLE_MS, nfd);
	while (nfd > 0)
		close(fds[--nfd]);
	free(fds);
	close(to[1]);
	close(from[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		diag("connections-idle: the lone client ended with status %d", st);
	probe_stop(&p);
	check_common("connections-idle", &p, keep, 1);
}
