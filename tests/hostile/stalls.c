/*
 * stalls.c - attacks by clients that do not keep up: readers that never
 * read their replies (the agent's memory must stay bounded), writers that
 * send a byte at a time, and clients that vanish mid-frame or while their
 * signature is being made.
 *
 *   stall-readers   8 connections pipelining LISTs of 200 keys, never
 *                   reading: within 64 MiB of idle, back to 1.5x idle
 *   stall-writers   slow writers (a byte every 10 ms) and vanishing clients
 */
#include "tests/hostile/lib.h"

#include <openssl/rand.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_GROWTH_MAX_KIB   (64 * 1024)     /* over idle while flooded */
#define MEM_RETURN_FACTOR    1.5             /* after the readers close */
#define READER_CONNS         8
#define READER_KEYS          200
#define READER_LISTS         4000       /* LIST requests per reader at most */
#define SLOW_WRITERS         4
#define SLOW_BYTE_MS         10
#define VANISHERS            10

/* stall-readers: readers that never read: memory stays bounded. */
struct memguard {
	long idle, peak, limit;
	int over;
};

static int
mem_guard(void *arg)
{
	struct memguard *g = arg;
	long r = tree_rss_kib(NULL);

	if (r > g->peak)
		g->peak = r;
	/* Stop well before a runaway agent hurts the machine. */
	if (r > g->limit) {
		g->over = 1;
		return 1;
	}
	return 0;
}

void
attack_stall_readers(void)
{
	struct key *keys[READER_KEYS];
	struct key *keep[1] = { probe_key };
	struct memguard g;
	struct wb all;
	struct flood f;
	struct probe p;
	uint64_t t0;
	char comment[64];
	long after = 0;
	int i, nproc, ok = 1;

	for (i = 0; i < READER_KEYS; i++) {
		keys[i] = key_new(KEY_ED25519);
		snprintf(comment, sizeof(comment), "reader-key-%03d@hostile", i);
		ok &= add_key(keys[i], comment) == MSG_SUCCESS;
	}
	tap_ok(ok, "stall-readers: %d keys added", READER_KEYS);
	sleep_ms(500);
	memset(&g, 0, sizeof(g));
	g.idle = g.peak = tree_rss_kib(&nproc);
	g.limit = g.idle + 2 * MEM_GROWTH_MAX_KIB;
	wb_init(&all);
	for (i = 0; i < READER_LISTS; i++)
		msg_simple(&all, MSG_REQ_IDENTITIES);
	flood_init(&f, READER_CONNS);
	f.noread = 1;
	flood_same(&f, &all);
	f.guard = mem_guard;
	f.guard_arg = &g;
	probe_start(&p, 1);
	if (flood_connect(&f) != 0)
		diag("stall-readers: could not open every reader");
	t0 = now_ms();
	flood_run(&f, t0 + window_ms(6));
	(void)mem_guard(&g);
	figure("stall-readers", "idle %ld KiB (%d processes), peak %ld KiB (+%ld "
	    "KiB)%s; %zu LIST "
	    "requests taken", g.idle, nproc, g.peak, g.peak - g.idle,
	    g.over ? ", stopped at the guard" : "", sum_z(f.off, f.n) / 5);
	tap_ok(g.peak - g.idle <= MEM_GROWTH_MAX_KIB, "stall-readers: with 8 readers "
	    "that never read the "
	    "agent stays within %d MiB of idle (+%ld KiB)", MEM_GROWTH_MAX_KIB / 1024,
	    g.peak - g.idle);
	flood_close(&f);
	t0 = now_ms();
	while (now_ms() - t0 < (uint64_t)bound_ms(5000)) {
		after = tree_rss_kib(NULL);
		if ((double)after <= MEM_RETURN_FACTOR * (double)g.idle)
			break;
		sleep_ms(100);
	}
	figure("stall-readers-after", "%ld KiB %.1f s after the readers closed (idle "
	    "%ld KiB)", after,
	    (double)(now_ms() - t0) / 1000, g.idle);
	tap_ok((double)after <= MEM_RETURN_FACTOR * (double)g.idle, "stall-readers: "
	    "after they close "
	    "it returns to within %.1fx idle (%ld KiB, idle %ld KiB)", MEM_RETURN_FACTOR,
	    after, g.idle);
	probe_stop(&p);
	check_common("stall-readers", &p, keep, 1);
	wb_free(&all);
}

/* stall-writers: slow writers and clients that vanish mid-frame or mid-request. */
struct slow {
	pthread_t th;
	const struct key *k;
	int ok;
	char why[128];
};

static void *
slow_main(void *arg)
{
	struct slow *s = arg;
	struct cl c = { .fd = -1 };
	struct slice sig;
	uint8_t data[32];
	struct wb w;
	size_t i;
	int t;

	RAND_bytes(data, sizeof(data));
	wb_init(&w);
	msg_sign(&w, s->k, data, sizeof(data));
	if (cl_connect(&c, bound_ms(10000)) != 0) {
		snprintf(s->why, sizeof(s->why), "connect");
		goto out;
	}
	for (i = 0; i < w.len; i++) {
		if (cl_send(&c, w.p + i, 1, bound_ms(10000)) != 0) {
			snprintf(s->why, sizeof(s->why), "closed at byte %zu", i);
			goto out;
		}
		sleep_ms(SLOW_BYTE_MS);
	}
	t = cl_recv(&c, bound_ms(10000));
	if (t != MSG_SIGN_RESPONSE || sign_reply_sig(c.msg, &sig) != 0 ||
	    !sig_verifies(s->k, data, sizeof(data), sig))
		snprintf(s->why, sizeof(s->why), "answer %d", t);
	else
		s->ok = 1;
out:
	cl_free(&c);
	wb_free(&w);
	return NULL;
}

void
attack_stall_writers(void)
{
	struct key *rsa = key_load_rsa("rsa8192.pem");
	struct key *keep[2] = { probe_key, rsa };
	struct slow sw[SLOW_WRITERS];
	uint8_t *big = xmalloc(SIGN_FLOOD_DATA);
	struct probe p;
	struct cl c = { .fd = -1 };
	struct wb w;
	int i, ok = 1, sent = 0;

	tap_ok(add_key(rsa, "vanish-rsa8192") == MSG_SUCCESS, "stall-writers: "
	    "RSA-8192 key added");
	probe_start(&p, 1);
	for (i = 0; i < SLOW_WRITERS; i++) {
		memset(&sw[i], 0, sizeof(sw[i]));
		sw[i].k = probe_key;
		if (pthread_create(&sw[i].th, NULL, slow_main, &sw[i]) != 0)
			die("pthread_create");
	}
	RAND_bytes(big, SIGN_FLOOD_DATA);
	wb_init(&w);
	for (i = 0; i < VANISHERS; i++) {
		/* mid-frame: half of a 250 KiB sign request, then gone */
		wb_reset(&w);
		msg_sign(&w, rsa, big, SIGN_FLOOD_DATA);
		if (cl_connect(&c, bound_ms(10000)) == 0 &&
		    cl_send(&c, w.p, w.len / 2, bound_ms(10000)) == 0)
			sent++;
		cl_close(&c);
		/* mid-frame: a header announcing a frame that never comes */
		if (cl_connect(&c, bound_ms(10000)) == 0 && cl_send(&c, w.p, 5, 1000) == 0)
			sent++;
		cl_close(&c);
		/* mid-request: a whole RSA-8192 sign request, closed at once */
		if (cl_connect(&c, bound_ms(10000)) == 0 &&
		    cl_send(&c, w.p, w.len, bound_ms(10000)) == 0)
			sent++;
		cl_close(&c);
		/* mid-request, a little later: the signature is being made */
		if (cl_connect(&c, bound_ms(10000)) == 0 &&
		    cl_send(&c, w.p, w.len, bound_ms(10000)) == 0)
			sent++;
		sleep_ms(20);
		cl_close(&c);
	}
	for (i = 0; i < SLOW_WRITERS; i++) {
		pthread_join(sw[i].th, NULL);
		if (!sw[i].ok) {
			ok = 0;
			diag("stall-writers: slow writer %d: %s", i, sw[i].why);
		}
	}
	figure("stall-writers", "%d slow writers (a byte every %d ms), %d vanishing "
	    "clients", SLOW_WRITERS,
	    SLOW_BYTE_MS, sent);
	tap_ok(ok, "stall-writers: %d slow writers (one byte every %d ms) each got a "
	    "signature that verifies",
	    SLOW_WRITERS, SLOW_BYTE_MS);
	sleep_ms(500);
	probe_stop(&p);
	check_common("stall-writers", &p, keep, 2);
	wb_free(&w);
	free(big);
}
