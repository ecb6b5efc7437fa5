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
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---------------------------------------------------------------- probe */

struct key *probe_key;

/*
 * The probe is a process of its own, forked by probe_init before any
 * thread: to the agent it is another client with its own pid
 * (SO_PEERCRED), as the user's ssh is beside a hostile forwarded host.
 * As a thread of the attacker it had the attacker's pid, and at the
 * connection limit the monitor closes a connection of the peer holding
 * the most (doc/threat-model.md): now and then the probe's own, between
 * two of its rounds, under load -- a wrong answer no honest client gets.
 * The figures and the commands are in memory shared with it.
 */
struct probe_shm {
	pthread_mutex_t mu;     /* process-shared: guards fig */
	struct probe fig;       /* the current run's figures */
	int run;                /* the attacker: the run asked for (0: none) */
	int stop;               /* the attacker: stop the run */
	int ran;                /* the probe: the run it started */
	int done;               /* the probe: the run it finished */
};
static struct probe_shm *shm;
static int probe_runs;

/* The probe's process starts a run within this, and ends one within its
 * two calls' PROBE_GIVEUP_MS and a connect's. */
#define PROBE_START_MS  10000
#define PROBE_STOP_MS   (4 * PROBE_GIVEUP_MS)

static int
shm_get(int *v)
{
	return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

static void
shm_set(int *v, int n)
{
	__atomic_store_n(v, n, __ATOMIC_SEQ_CST);
}

static void
probe_wrong(struct probe *p, const char *what)
{
	pthread_mutex_lock(&shm->mu);
	if (p->wrong++ == 0) {
		p->wrong_at_ms = now_ms() - t_start;
		snprintf(p->wrong_what, sizeof(p->wrong_what), "%s", what);
	}
	pthread_mutex_unlock(&shm->mu);
}

static void
probe_lat(struct probe *p, uint64_t ms, uint64_t *worst)
{
	pthread_mutex_lock(&shm->mu);
	if (ms > *worst)
		*worst = ms;
	if (ms > p->worst_ms) {
		p->worst_ms = ms;
		p->worst_at_ms = now_ms() - t_start;
	}
	pthread_mutex_unlock(&shm->mu);
}

static void
probe_add(int *n)
{
	pthread_mutex_lock(&shm->mu);
	(*n)++;
	pthread_mutex_unlock(&shm->mu);
}

/* One run: a round every PROBE_PERIOD_MS until the attacker stops it. */
static void
probe_rounds(struct probe *p)
{
	struct cl c = { .fd = -1 };
	struct wb w;
	uint8_t data[64];
	uint64_t t0, seq = 0;
	struct slice sig;
	int t, found, n;

	wb_init(&w);
	while (!shm_get(&shm->stop)) {
		uint64_t round = now_ms();

		if (c.fd < 0) {
			t0 = now_ms();
			if (cl_connect(&c, PROBE_GIVEUP_MS) != 0) {
				probe_lat(p, now_ms() - t0, &p->worst_list_ms);
				probe_add(&p->timeouts);
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
				probe_add(&p->timeouts);
			else
				probe_wrong(p, "LIST: connection closed");
			cl_close(&c);
			continue;
		}
		n = t == MSG_IDENTITIES ? list_has(c.msg, probe_key, &found) : -1;
		if (n < 0)
			probe_wrong(p, "LIST: not an identities answer");
		else if (found && p->first_keys_ms == 0) {
			pthread_mutex_lock(&shm->mu);
			p->first_keys_ms = now_ms();
			pthread_mutex_unlock(&shm->mu);
		} else if (!found && p->expect_keys)
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
				probe_add(&p->timeouts);
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
		probe_add(&p->rounds);
		if (now_ms() - round < PROBE_PERIOD_MS)
			sleep_ms((unsigned)(PROBE_PERIOD_MS - (now_ms() - round)));
	}
	cl_free(&c);
	wb_free(&w);
}

/* The probe's process: a run each time the attacker asks for one; it dies
 * with the attacker. */
static __attribute__((noreturn)) void
probe_process(pid_t attacker)
{
	int seen = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != attacker)
		_exit(0);
	for (;;) {
		while (shm_get(&shm->run) == seen)
			sleep_ms(2);
		seen = shm_get(&shm->run);
		shm_set(&shm->ran, seen);
		probe_rounds(&shm->fig);
		shm_set(&shm->done, seen);
	}
}

void
probe_init(void)
{
	pthread_mutexattr_t ma;
	pid_t self = getpid(), pid;

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	if (pthread_mutexattr_init(&ma) != 0 ||
	    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) != 0 ||
	    pthread_mutex_init(&shm->mu, &ma) != 0)
		die("a process-shared mutex");
	pthread_mutexattr_destroy(&ma);
	fflush(stdout);
	if ((pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0)
		probe_process(self);
	shm->fig.pid = pid;
}

/* Waits, bounded, until the probe's process has set *v to n. */
static void
probe_wait(int *v, int n, int ms, const char *what)
{
	uint64_t t0 = now_ms();

	while (shm_get(v) != n) {
		if (now_ms() - t0 >= (uint64_t)ms)
			die("the probe's process (pid %d) did not %s within %d ms",
			    (int)shm->fig.pid, what, ms);
		sleep_ms(2);
	}
}

void
probe_start(struct probe *p, int expect_keys)
{
	pid_t pid;

	if (shm == NULL)
		die("probe_start before probe_init");
	pthread_mutex_lock(&shm->mu);
	pid = shm->fig.pid;
	memset(&shm->fig, 0, sizeof(shm->fig));
	shm->fig.pid = pid;
	shm->fig.expect_keys = expect_keys;
	*p = shm->fig;
	pthread_mutex_unlock(&shm->mu);
	shm_set(&shm->stop, 0);
	shm_set(&shm->run, ++probe_runs);
	probe_wait(&shm->ran, probe_runs, bound_ms(PROBE_START_MS), "start");
}

void
probe_read(struct probe *p)
{
	pthread_mutex_lock(&shm->mu);
	*p = shm->fig;
	pthread_mutex_unlock(&shm->mu);
}

void
probe_stop(struct probe *p)
{
	shm_set(&shm->stop, 1);
	probe_wait(&shm->done, probe_runs, bound_ms(PROBE_STOP_MS), "stop");
	probe_read(p);
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
		diag("%d wrong answers; the first at %.1f s: %s (the probe is pid "
		    "%d, the attacker pid %d)", p->wrong, (double)p->wrong_at_ms / 1000,
		    p->wrong_what, (int)p->pid, (int)getpid());
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
