/*
 * probe.c - the attack library's measures (lib.h): the probe, a
 * well-behaved client timed through every case, the checks every case
 * ends with, and the flood of many connections writing at once.
 */
#include "tests/hostile/lib.h"

#include <openssl/rand.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* ---------------------------------------------------------------- probe */

struct key *probe_key;

/* Hard limit on one probe answer; beyond it the probe reconnects. */
#define PROBE_GIVEUP_MS 15000

static void
probe_wrong(struct probe *p, const char *what)
{
	pthread_mutex_lock(&p->mu);
	if (p->wrong++ == 0)
		snprintf(p->wrong_what, sizeof(p->wrong_what), "%s", what);
	pthread_mutex_unlock(&p->mu);
}

static void
probe_lat(struct probe *p, uint64_t ms, uint64_t *worst)
{
	pthread_mutex_lock(&p->mu);
	if (ms > *worst)
		*worst = ms;
	if (ms > p->worst_ms) {
		p->worst_ms = ms;
		p->worst_at_ms = now_ms() - t_start;
	}
	pthread_mutex_unlock(&p->mu);
}

static void *
probe_main(void *arg)
{
	struct probe *p = arg;
	struct cl c = { .fd = -1 };
	struct wb w;
	uint8_t data[64];
	uint64_t t0, seq = 0;
	struct slice sig;
	int t, found, n;

	wb_init(&w);
	while (!p->stop) {
		uint64_t round = now_ms();

		if (c.fd < 0) {
			t0 = now_ms();
			if (cl_connect(&c, PROBE_GIVEUP_MS) != 0) {
				probe_lat(p, now_ms() - t0, &p->worst_list_ms);
				p->timeouts++;
				probe_wrong(p, "could not connect");
				cl_close(&c);
				sleep_ms(PROBE_PERIOD_MS);
				continue;
			}
		}
		wb_reset(&w);
		msg_simple(&w, MSG_REQ_IDENTITIES);
		t0 = now_ms();
		t = cl_call(&c, &w, PROBE_GIVEUP_MS);
		probe_lat(p, now_ms() - t0, &p->worst_list_ms);
		if (t < 0) {
			if (t == R_TIMEOUT)
				p->timeouts++;
			else
				probe_wrong(p, "LIST: connection closed");
			cl_close(&c);
			continue;
		}
		n = t == MSG_IDENTITIES ? list_has(c.msg, probe_key, &found) : -1;
		if (n < 0)
			probe_wrong(p, "LIST: not an identities answer");
		else if (found && p->first_keys_ms == 0)
			p->first_keys_ms = now_ms();
		else if (!found && p->expect_keys)
			probe_wrong(p, "LIST: the probe key is gone");

		RAND_bytes(data, sizeof(data));
		memcpy(data, &seq, sizeof(seq));
		seq++;
		wb_reset(&w);
		msg_sign(&w, probe_key, data, sizeof(data));
		t0 = now_ms();
		t = cl_call(&c, &w, PROBE_GIVEUP_MS);
		probe_lat(p, now_ms() - t0, &p->worst_sign_ms);
		if (t < 0) {
			if (t == R_TIMEOUT)
				p->timeouts++;
			else
				probe_wrong(p, "SIGN: connection closed");
			cl_close(&c);
			continue;
		}
		if (t == MSG_SIGN_RESPONSE) {
			if (sign_reply_sig(c.msg, &sig) != 0 ||
			    !sig_verifies(probe_key, data, sizeof(data), sig))
				probe_wrong(p, "SIGN: a signature that does not verify");
		} else if (p->expect_keys) {
			probe_wrong(p, "SIGN: refused");
		}
		p->rounds++;
		if (now_ms() - round < PROBE_PERIOD_MS)
			sleep_ms((unsigned)(PROBE_PERIOD_MS - (now_ms() - round)));
	}
	cl_free(&c);
	wb_free(&w);
	return NULL;
}

void
probe_start(struct probe *p, int expect_keys)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	p->expect_keys = expect_keys;
	if (pthread_create(&p->th, NULL, probe_main, p) != 0)
		die("pthread_create");
}

void
probe_stop(struct probe *p)
{
	p->stop = 1;
	pthread_join(p->th, NULL);
}

/* The checks every case ends with: alive, answered the probe within the
 * bound (and correctly), still holds the keys it was given. */
void
check_common(const char *cs, struct probe *p, struct key **keep, int nkeep)
{
	char w[32], bound[32], fig[160];
	int i, found, n, allkept = 1;

	fmt_ms(w, sizeof(w), p->worst_ms);
	fmt_ms(bound, sizeof(bound), (uint64_t)bound_ms(PROBE_BOUND_MS));
	snprintf(fig, sizeof(fig), "worst probe latency %s (LIST %llu ms, SIGN %llu ms, "
	    "at %.1f s), %d rounds, %d timeouts", w,
	    (unsigned long long)p->worst_list_ms, (unsigned long long)p->worst_sign_ms,
	    (double)p->worst_at_ms / 1000, p->rounds, p->timeouts);
	figure("probe", "%s", fig);
	tap_ok(agent_alive(), "%s: the agent is alive", cs);
	tap_bound(p->worst_ms <= (uint64_t)bound_ms(PROBE_BOUND_MS) && p->timeouts == 0,
	    w, "%s: the probe was answered within %s throughout (worst "
	    "%s)", cs, bound, w);
	if (!tap_ok(p->wrong == 0, "%s: every probe answer was right", cs))
		diag("%d wrong answers; the first: %s", p->wrong, p->wrong_what);
	if (nkeep == 0) {
		tap_skip("%s: keys not counted: the agent is still locked", cs);
		return;
	}
	for (i = 0; i < nkeep; i++) {
		n = list_fresh(keep[i], &found, bound_ms(10000));
		if (n < 0) {
			/* A stalled agent is a liveness failure, not a lost key. */
			tap_bound(0, "no answer to LIST within 10 s",
			    "%s: the agent answers LIST to count its keys", cs);
			return;
		}
		if (!found) {
			allkept = 0;
			diag("key %d of %d is not listed", i, nkeep);
		}
	}
	tap_ok(allkept, "%s: the agent kept its %d "
	    "key%s", cs, nkeep, nkeep == 1 ? "" : "s");
}

/* ---------------------------------------------------------------- flood */

void
flood_init(struct flood *f, int n)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->n = n;
	f->c = xmalloc((size_t)n * sizeof(*f->c));
	f->out = xmalloc((size_t)n * sizeof(*f->out));
	f->outlen = xmalloc((size_t)n * sizeof(size_t));
	f->off = xmalloc((size_t)n * sizeof(size_t));
	f->replies = xmalloc((size_t)n * sizeof(unsigned));
	f->success = xmalloc((size_t)n * sizeof(unsigned));
	f->eof = xmalloc((size_t)n * sizeof(unsigned));
	f->first_success_ms = xmalloc((size_t)n * sizeof(uint64_t));
	f->types = xmalloc((size_t)n * sizeof(struct wb));
	for (i = 0; i < n; i++) {
		f->c[i].fd = -1;
		wb_init(&f->types[i]);
	}
}

int
flood_connect(struct flood *f)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (cl_connect(&f->c[i], bound_ms(10000)) != 0)
			return -1;
	return 0;
}

/* Runs until done or deadline (absolute ms); returns 1 if done. */
int
flood_run(struct flood *f, uint64_t deadline)
{
	struct pollfd *pfd = xmalloc((size_t)f->n * sizeof(*pfd));
	uint64_t next_guard = now_ms() + 50, t;
	int i, done = 0, typ;
	ssize_t r;

	while ((t = now_ms()) < deadline) {
		done = 1;
		for (i = 0; i < f->n; i++) {
			pfd[i].fd = f->c[i].fd;
			pfd[i].events = 0;
			pfd[i].revents = 0;
			if (f->c[i].fd < 0 || f->eof[i])
				continue;
			if (f->off[i] < f->outlen[i]) {
				pfd[i].events |= POLLOUT;
				done = 0;
			}
			if (!f->noread) {
				pfd[i].events |= POLLIN;
				if (f->replies[i] < f->want)
					done = 0;
			}
		}
		/* Readers that never read hold their connections to the end. */
		if (done && !f->noread)
			break;
		if (f->guard != NULL && t >= next_guard) {
			next_guard = t + 50;
			if (f->guard(f->guard_arg) != 0)
				break;
		}
		(void)poll(pfd, (nfds_t)f->n, 50);
		for (i = 0; i < f->n; i++) {
			if (pfd[i].fd < 0)
				continue;
			if ((pfd[i].revents & POLLOUT) && f->off[i] < f->outlen[i]) {
				r = send(f->c[i].fd, f->out[i] + f->off[i],
				    f->outlen[i] - f->off[i], MSG_NOSIGNAL);
				if (r > 0)
					f->off[i] += (size_t)r;
				else if (r < 0 && errno != EAGAIN && errno != EINTR)
					f->eof[i] = 1;
			}
			if (!f->noread && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) {
				while ((typ = cl_recv(&f->c[i], 0)) >= 0) {
					f->replies[i]++;
					wb_u8(&f->types[i], (uint8_t)typ);
					if (typ == MSG_SUCCESS) {
						f->success[i]++;
						if (f->first_success_ms[i] == 0)
							f->first_success_ms[i] = now_ms();
					}
				}
				if (typ == R_EOF || typ == R_ERROR)
					f->eof[i] = 1;
			} else if (f->noread && (pfd[i].revents & (POLLHUP | POLLERR))) {
				f->eof[i] = 1;
			}
		}
	}
	free(pfd);
	return done;
}

void
flood_close(struct flood *f)
{
	int i;

	for (i = 0; i < f->n; i++) {
		cl_free(&f->c[i]);
		wb_free(&f->types[i]);
	}
	free(f->c);
	free(f->out);
	free(f->outlen);
	free(f->off);
	free(f->replies);
	free(f->success);
	free(f->eof);
	free(f->first_success_ms);
	free(f->types);
}

void
flood_same(struct flood *f, const struct wb *all)
{
	int i;

	for (i = 0; i < f->n; i++) {
		f->out[i] = all->p;
		f->outlen[i] = all->len;
	}
}
