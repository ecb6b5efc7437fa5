/*
 * prompts.c - attacks on the confirm prompts: forwarded servers that ask
 * for signatures with a -c key (ssh-add -c) from many connections at once.
 * The askpass the .t wrappers set up (tests/integration/lib-hostile.sh,
 * hostile_askpass) holds each forwarded prompt open for a second and says
 * no; a local client (no session-bind: its prompt says so, and the
 * askpass answers yes at once) signs with the same key meanwhile and must
 * get its prompt and its signature. The wrappers read the askpass log to
 * count the prompts open at once.
 *
 *   prompts-one-host     140 connections of one host: PROMPT_MAX_PER_HOP
 *                        open, PROMPT_MAX_WAIT_PER_HOP waiting, the rest
 *                        refused at once
 *   prompts-many-hosts   PROMPT_MAX_PER_HOP connections from each of more
 *                        hosts than the prompter runs prompts for: none
 *                        refused, PROMPT_MAX_FORWARDED open at most
 */
#include "tests/hostile/lib.h"

#include <openssl/rand.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROMPT_FLOOD_CONNS   140      /* more than MONITOR_MAX_INFLIGHT */
#define PROMPT_LOCAL_MS      5000       /* the local signature, prompt included */
#define PROMPT_FLOOD_HOSTS   (PROMPT_MAX_CONCURRENT / PROMPT_MAX_PER_HOP + 1)
#define PROMPT_HOSTS_CONNS   (PROMPT_FLOOD_HOSTS * PROMPT_MAX_PER_HOP)

/* One prompt flood: nconns connections, per_host of them session-bound
 * (forwarding) to each of the hosts, each asking for a signature with a
 * -c key at once; refused of them are to be refused at once. */
struct prompt_flood {
	const char *cs;                 /* the case, first in every line */
	struct key **hosts;
	int nhosts, per_host;
	int refused;                    /* how many keyward refuses at once */
	const char *bound_what;         /* "to one host", "2 to each of 9 hosts" */
	const char *who;                /* "the host's", "the hosts'" */
	const char *refused_what;       /* the refusal test's name */
	const char *waits_what;         /* "the host's 140 prompts wait", ... */
};

static void
prompt_flood(const struct prompt_flood *pf)
{
	struct key *ck = key_new(KEY_ED25519);
	struct key *keep[2] = { probe_key, ck };
	int nconns = pf->nhosts * pf->per_host;
	struct cl *c = xmalloc((size_t)nconns * sizeof(*c)), local = { .fd = -1 };
	uint8_t data[32];
	struct probe p;
	struct timespec ts;
	struct wb w;
	int i, t, bound = 0, sent = 0, refused = 0;
	uint64_t t0, took;
	size_t m;

	wb_init(&w);
	m = msg_begin(&w, MSG_ADD_CONSTRAINED);
	wb_bytes(&w, ck->priv.p, ck->priv.len);
	wb_cstring(&w, "confirm@hostile");
	wb_u8(&w, AGENT_CONSTRAIN_CONFIRM);
	msg_end(&w, m);
	t = call_once(&w, bound_ms(10000), NULL);
	tap_ok(t == MSG_SUCCESS, "%s: a -c key added (answer %d)", pf->cs, t);
	probe_start(&p, 1);
	for (i = 0; i < nconns; i++) {
		c[i] = (struct cl){ .fd = -1 };
		wb_reset(&w);
		msg_bind(&w, pf->hosts[i / pf->per_host], 1, 0);
		if (cl_connect(&c[i], bound_ms(10000)) == 0 &&
		    cl_call(&c[i], &w, bound_ms(10000)) == MSG_SUCCESS)
			bound++;
	}
	tap_ok(bound == nconns, "%s: %d connections session-bound, forwarding, %s (%d)",
	    pf->cs, nconns, pf->bound_what, bound);
	for (i = 0; i < nconns; i++) {
		wb_reset(&w);
		RAND_bytes(data, sizeof(data));
		msg_sign(&w, ck, data, sizeof(data));
		sent += cl_send(&c[i], w.p, w.len, bound_ms(10000)) == 0;
	}
	diag("%s: %d signatures with the -c key asked for from the forwarded host%s",
	    pf->cs, sent, pf->nhosts == 1 ? "" : "s");
	sleep_ms(500);                  /* their prompts open, or wait */
	for (i = 0; i < nconns; i++)
		refused += cl_recv(&c[i], 0) == MSG_FAILURE;
	if (is_keyward())
		tap_ok(refused == pf->refused, "%s: %s (%d refused)", pf->cs,
		    pf->refused_what, refused);
	else
		tap_keyward_only("ssh-agent asks one prompt at a time");

	wb_reset(&w);
	msg_sign(&w, ck, (const uint8_t *)"local", 5);
	t0 = now_ms();
	t = cl_connect(&local, bound_ms(10000)) == 0 ?
	    cl_call(&local, &w, bound_ms(PROMPT_LOCAL_MS)) : R_EOF;
	took = now_ms() - t0;
	figure(pf->cs, "the local signature with the -c key: answer %d after %llu ms", t,
	    (unsigned long long)took);
	if (is_keyward() || t == MSG_SIGN_RESPONSE)
		tap_ok(t == MSG_SIGN_RESPONSE, "%s: a local client's confirmed signature "
		    "is made while %s (answer %d, %llu ms)", pf->cs, pf->waits_what, t,
		    (unsigned long long)took);
	else
		tap_skip("ssh-agent runs one prompt at a time and every client waits "
		    "for it (answer %d after %llu ms)", t, (unsigned long long)took);
	cl_free(&local);
	/* the wrapper counts the prompts opened before this moment */
	clock_gettime(CLOCK_REALTIME, &ts);
	diag("%s: closing %s connections at %lld%09ld", pf->cs, pf->who,
	    (long long)ts.tv_sec, ts.tv_nsec);
	for (i = 0; i < nconns; i++)
		cl_free(&c[i]);         /* their waiting requests end with them */
	free(c);
	probe_stop(&p);
	check_common(pf->cs, &p, keep, 2);
	wb_free(&w);
}

/* prompts-one-host: PROMPT_FLOOD_CONNS connections of a forwarded server,
 * each session-bound, forwarding, to the one host key its agent
 * connections arrive through. The local client must not be refused
 * because the host holds every prompt; never more than
 * PROMPT_MAX_PER_HOP of the host's prompts open at once. */
void
attack_prompts_one_host(void)
{
	struct key *host = key_new(KEY_ED25519);
	char refused[160], waits[80];

	snprintf(refused, sizeof(refused), "all but %d open and %d waiting are "
	    "refused at once", PROMPT_MAX_PER_HOP, PROMPT_MAX_WAIT_PER_HOP);
	snprintf(waits, sizeof(waits), "the host's %d prompts wait", PROMPT_FLOOD_CONNS);
	prompt_flood(&(struct prompt_flood){ .cs = "prompts-one-host", .hosts = &host,
	    .nhosts = 1, .per_host = PROMPT_FLOOD_CONNS,
	    .refused = PROMPT_FLOOD_CONNS - PROMPT_MAX_PER_HOP - PROMPT_MAX_WAIT_PER_HOP,
	    .bound_what = "to one host", .who = "the host's", .refused_what = refused,
	    .waits_what = waits });
	key_free(host);
}

/* prompts-many-hosts: PROMPT_FLOOD_HOSTS hosts (each its own host key),
 * PROMPT_MAX_PER_HOP connections each: every host within its own share,
 * together more than the prompter runs (PROMPT_MAX_CONCURRENT). The local
 * client gets its prompt, since all forwarding hosts together have at
 * most PROMPT_MAX_FORWARDED open; the others wait. */
void
attack_prompts_many_hosts(void)
{
	struct key *hosts[PROMPT_FLOOD_HOSTS];
	char bound[80], waits[80];
	int i;

	for (i = 0; i < PROMPT_FLOOD_HOSTS; i++)
		hosts[i] = key_new(KEY_ED25519);
	snprintf(bound, sizeof(bound), "%d to each of %d hosts", PROMPT_MAX_PER_HOP,
	    PROMPT_FLOOD_HOSTS);
	snprintf(waits, sizeof(waits), "%d hosts' prompts are open or wait",
	    PROMPT_FLOOD_HOSTS);
	prompt_flood(&(struct prompt_flood){ .cs = "prompts-many-hosts", .hosts = hosts,
	    .nhosts = PROMPT_FLOOD_HOSTS, .per_host = PROMPT_MAX_PER_HOP, .refused = 0,
	    .bound_what = bound, .who = "the hosts'",
	    .refused_what = "none is refused at once: each host is within its share, "
	    "the prompts beyond PROMPT_MAX_FORWARDED wait", .waits_what = waits });
	for (i = 0; i < PROMPT_FLOOD_HOSTS; i++)
		key_free(hosts[i]);
}
