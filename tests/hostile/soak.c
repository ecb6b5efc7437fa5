/*
 * soak.c - the mixed soak (make stress only): the other attacks but those
 * that lock the agent, again and again, while three well-behaved clients
 * sign and verify every signature.
 *
 *   soak            HOSTILE_SOAK_SECONDS (180) of it
 */
#include "tests/hostile/lib.h"

#include <openssl/rand.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* soak: mixed soak: the cases above, again and again, beside well-behaved
 * clients whose every signature is verified. */
struct good {
	pthread_t th;
	struct key *k;
	volatile int *stop;
	unsigned sigs, refused, bad, lost;
};

static void *
good_main(void *arg)
{
	struct good *g = arg;
	struct cl c = { .fd = -1 };
	struct slice sig;
	uint8_t data[64];
	struct wb w;
	int t;

	wb_init(&w);
	while (!*g->stop) {
		if (c.fd < 0 && cl_connect(&c, PROBE_GIVEUP_MS) != 0) {
			g->lost++;
			sleep_ms(200);
			continue;
		}
		RAND_bytes(data, sizeof(data));
		wb_reset(&w);
		msg_sign(&w, g->k, data, sizeof(data));
		t = cl_call(&c, &w, 60000);
		if (t < 0) {
			g->lost++;
			cl_close(&c);
			continue;
		}
		if (t != MSG_SIGN_RESPONSE)
			g->refused++;
		else if (sign_reply_sig(c.msg, &sig) != 0 ||
		    !sig_verifies(g->k, data, sizeof(data), sig))
			g->bad++;
		else
			g->sigs++;
		sleep_ms(50);
	}
	cl_free(&c);
	wb_free(&w);
	return NULL;
}

void
attack_soak(void)
{
	static void (*const cases[])(void) = { attack_flood_add, attack_flood_sign,
		attack_stall_writers, attack_pipeline_long, attack_bind_failed,
		attack_stall_readers, attack_connections, attack_flood_big_rsa };
	struct good g[3];
	struct key *keep[3];
	volatile int stop = 0;
	const char *s = getenv("HOSTILE_SOAK_SECONDS");
	uint64_t end = now_ms() + (uint64_t)(s != NULL ? atoi(s) : 180) * 1000u;
	unsigned round = 0, ci;
	int i, all = 1;

	g[0].k = key_new(KEY_ED25519);
	g[1].k = key_new(KEY_ED25519);
	g[2].k = key_load_rsa("rsa8192.pem");
	for (i = 0; i < 3; i++) {
		g[i].stop = &stop;
		g[i].sigs = g[i].refused = g[i].bad = g[i].lost = 0;
		keep[i] = g[i].k;
		tap_ok(add_key(g[i].k, "soak-good") == MSG_SUCCESS, "soak: "
		    "well-behaved key %d added", i);
		if (pthread_create(&g[i].th, NULL, good_main, &g[i]) != 0)
			die("pthread_create");
	}
	while (now_ms() < end) {
		for (ci = 0; ci < sizeof(cases) / sizeof(cases[0]) && now_ms() < end; ci++) {
			diag("soak: round %u, case %u", round, ci);
			cases[(ci + round) % (sizeof(cases) / sizeof(cases[0]))]();
			if (!agent_alive())
				break;
		}
		if (!agent_alive()) {
			diag("soak: the agent is gone; the soak stops");
			break;
		}
		round++;
	}
	stop = 1;
	for (i = 0; i < 3; i++) {
		pthread_join(g[i].th, NULL);
		diag("soak: well-behaved client %d: %u signatures verified, %u "
		    "refused, %u bad, "
		    "%u lost "
		    "connections", i, g[i].sigs, g[i].refused, g[i].bad, g[i].lost);
		all &= g[i].bad == 0 && g[i].sigs > 0;
	}
	figure("soak", "%u rounds; well-behaved signatures verified "
	    "%u/%u/%u", round, g[0].sigs,
	    g[1].sigs, g[2].sigs);
	tap_ok(all, "soak: every signature the well-behaved clients got verifies");
	for (i = 0; i < 3; i++) {
		int found, n = list_fresh(keep[i], &found, bound_ms(10000));

		tap_ok(n > 0 && found, "soak: well-behaved key %d is still held at "
		    "the end", i);
	}
	tap_ok(g[0].refused + g[1].refused + g[2].refused == 0,
	    "soak: no well-behaved signature was refused (%u, %u, %u)", g[0].refused,
	    g[1].refused, g[2].refused);
}
