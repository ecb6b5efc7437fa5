/*
 * connections.c - the attack on the agent's descriptors: as many idle
 * connections as the agent accepts (the wrapper starts the agents with
 * RLIMIT_NOFILE 1024), then a new well-behaved client must be served.
 *
 *   connections     the connection flood
 */
#include "tests/hostile/lib.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define FLOOD_CONN_MAX       4096       /* connections we open at most */

/* connections: connection flood: as many connections as the agent accepts. */
void
attack_connections(void)
{
	struct key *keep[1] = { probe_key };
	struct rlimit rl;
	struct probe p;
	struct cl c = { .fd = -1 };
	struct wb w;
	int *fds, nfd = 0, eagain = 0, t, found, n, served;
	long anofile = agent_nofile(), cap;
	uint64_t t0;
	char s[32];

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	cap = anofile > 0 ? anofile + 1024 : FLOOD_CONN_MAX;
	if (cap > FLOOD_CONN_MAX)
		cap = FLOOD_CONN_MAX;
	if ((rlim_t)cap + 64 > rl.rlim_cur)
		cap = (long)rl.rlim_cur - 64;
	diag("connections: agent RLIMIT_NOFILE %ld; ours %llu; opening at most %ld "
	    "connections",
	    anofile, (unsigned long long)rl.rlim_cur, cap);
	fds = xmalloc((size_t)cap * sizeof(int));
	probe_start(&p, 1);
	sleep_ms(300);
	t0 = now_ms();
	while (nfd < cap && now_ms() - t0 < window_ms(15)) {
		if (sock_connect(&fds[nfd]) == 0) {
			nfd++;
			eagain = 0;
			continue;
		}
		if (errno != EAGAIN) {
			diag("connections: connect: %s after %d "
			    "connections", strerror(errno), nfd);
			break;
		}
		if (++eagain >= 20)     /* backlog full for 200 ms: no longer accepting */
			break;
		sleep_ms(10);
	}
	figure("connections", "%d connections open (%s) in %.1f s", nfd,
	    eagain ? "then connect() found the backlog full" : "our cap",
	    (double)(now_ms() - t0) / 1000);
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
