/*
 * lib.c - the attack library of the hostile client (lib.h): its settings,
 * time and its bounds, TAP, and the agent's process tree. The client
 * (connecting, framing, messages, keys) is conn.c; the probe and the
 * flood are probe.c.
 */
#include "tests/hostile/lib.h"
#include "tests/hostile/client.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int scale = 1;
int reference;
int stress;
const char *agent_name = "agent";
const char *sock_path;
pid_t agent_pid;
const char *keydir = "tests/hostile/keys";
uint64_t t_start;

/* ------------------------------------------------------------ utilities */

uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void
sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

__attribute__((format(printf, 1, 2), noreturn)) void
die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(255);
}

void *
xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

int
is_keyward(void)
{
	return strcmp(agent_name, "keyward") == 0;
}

int
bound_ms(int ms)
{
	return ms * scale;
}

/* ------------------------------------------------------------------ TAP */

static int ntests, nfailed;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 1, 2))) void
diag(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

/* A figure for the side-by-side table of the wrappers. */
__attribute__((format(printf, 2, 3))) void
figure(const char *key, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	diag("FIGURE %s %s: %s", key, agent_name, text);
}

__attribute__((format(printf, 2, 3))) int
tap_ok(int pass, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (reference) {
		diag("%s (reference): %s - %s", agent_name, pass ? "ok" : "FAILS", name);
		return pass;
	}
	ntests++;
	if (!pass)
		nfailed++;
	pthread_mutex_lock(&out_lock);
	printf("%sok %d - %s\n", pass ? "" : "not ", ntests, name);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	return pass;
}

__attribute__((format(printf, 1, 2))) void
tap_skip(const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (reference) {
		diag("%s (reference): skip - %s", agent_name, why);
		return;
	}
	ntests++;
	pthread_mutex_lock(&out_lock);
	printf("ok %d # skip %s\n", ntests, why);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

/* A bound that OpenSSH's agent may miss: asserted for keyward; for
 * ssh-agent a pass is a pass and a miss is a skip line that says so. */
__attribute__((format(printf, 3, 4))) void
tap_bound(int pass, const char *figure_text, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (is_keyward() || pass) {
		tap_ok(pass, "%s", name);
		return;
	}
	diag("ssh-agent misses this bound: %s (%s)", name, figure_text);
	tap_skip("ssh-agent MISSES the bound (%s): %s", figure_text, name);
}

void
tap_keyward_only(const char *what)
{
	if (is_keyward())
		return;
	tap_skip("keyward only: %s", what);
}

void
fmt_ms(char *buf, size_t cap, uint64_t ms)
{
	if (ms >= 10000)
		snprintf(buf, cap, "%.1f s", (double)ms / 1000);
	else
		snprintf(buf, cap, "%llu ms", (unsigned long long)ms);
}

/* --------------------------------------------------------------- agent */

int
agent_alive(void)
{
	char path[64], line[256];
	FILE *f;
	int alive = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)agent_pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "State:", 6) == 0) {
			alive = strchr(line, 'Z') == NULL && strchr(line, 'X') == NULL;
			break;
		}
	fclose(f);
	return alive;
}

/* VmRSS summed over the agent and every descendant, in KiB. */
long
tree_rss_kib(int *nproc)
{
	pid_t tree[64];
	char path[64], line[256];
	long sum = 0, v;
	int nt, i;
	FILE *f;

	if ((nt = ac_tree_pids(agent_pid, tree, 64)) < 0)
		die("/proc: %s", strerror(errno));
	for (i = 0; i < nt; i++) {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)tree[i]);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
				sum += v;
		fclose(f);
	}
	if (nproc != NULL)
		*nproc = nt;
	return sum;
}

long
agent_nofile(void)
{
	char path[64], line[256];
	long soft = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)agent_pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Max open files %ld", &soft) == 1)
			break;
	fclose(f);
	return soft;
}

unsigned
sum_u(const unsigned *v, int n)
{
	unsigned s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

size_t
sum_z(const size_t *v, int n)
{
	size_t s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* The attack window, seconds: short for make check, longer for stress. */
uint64_t
window_ms(unsigned quick_s)
{
	return (uint64_t)(stress ? quick_s * 3 : quick_s) * 1000u;
}

int
tap_done(void)
{
	if (!reference)
		printf("1..%d\n", ntests);
	return nfailed ? 1 : 0;
}
