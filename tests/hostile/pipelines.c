/*
 * pipelines.c - attacks by many requests in one write: their effects must
 * come in order, as OpenSSH's agent gives them, and every one be answered.
 *
 *   pipeline-order  ADD/SIGN/LIST/REMOVE, REMOVE then re-ADD, UNLOCK then
 *                   ADD, LOCK then ADD, each in one write
 *   pipeline-long   17, 100 and 1000 requests in one write
 */
#include "tests/hostile/lib.h"

#include <openssl/rand.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* pipeline-order: effects in order, within one write. */
struct expect {
	uint8_t type;
	const struct key *sig_key;      /* SIGN_RESPONSE: verify with it */
	const uint8_t *data;
	const struct key *listed;       /* IDENTITIES: must (not) list it */
	int must_list;
};

static void
run_sequence(const char *name, const struct wb *msgs, const struct expect *ex, int n)
{
	struct cl c = { .fd = -1 };
	char got[256] = "", want[256] = "";
	struct slice sig;
	int i, t, found, right = 1;

	for (i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%d%s",
		    i ? "," : "", ex[i].type, ex[i].listed ? (ex[i].must_list ? "+K" : "-K") : "");
	if (cl_connect(&c, bound_ms(10000)) != 0 ||
	    cl_send(&c, msgs->p, msgs->len, bound_ms(10000)) != 0) {
		tap_ok(0, "pipeline-order: %s: could not send", name);
		cl_free(&c);
		return;
	}
	for (i = 0; i < n; i++) {
		t = cl_recv(&c, bound_ms(15000));
		if (t < 0) {
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
			    i ? "," : "", t == R_TIMEOUT ? "TIMEOUT" : "EOF");
			right = 0;
			break;
		}
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d", i ? "," : "", t);
		if (t != ex[i].type)
			right = 0;
		else if (t == MSG_SIGN_RESPONSE && ex[i].sig_key != NULL &&
		    (sign_reply_sig(c.msg, &sig) != 0 ||
		    !sig_verifies(ex[i].sig_key, ex[i].data, 32, sig))) {
			right = 0;
			strncat(got, "(bad signature)", sizeof(got) - strlen(got) - 1);
		} else if (t == MSG_IDENTITIES && ex[i].listed != NULL) {
			list_has(c.msg, ex[i].listed, &found);
			strncat(got, found ? "+K" : "-K", sizeof(got) - strlen(got) - 1);
			if (found != ex[i].must_list)
				right = 0;
		}
	}
	if (!tap_ok(right, "pipeline-order: %s answered %s", name, want))
		diag("got %s, want %s", got, want);
	cl_free(&c);
}

void
attack_pipeline_order(void)
{
	struct key *k = key_new(KEY_ED25519), *k2 = key_new(KEY_ED25519);
	struct key *k3 = key_new(KEY_ED25519);
	struct key *keep[1] = { probe_key };
	uint8_t d1[32], d2[32], d3[32], d4[32];
	struct wb w;
	struct probe p;
	int t;

	RAND_bytes(d1, 32);
	RAND_bytes(d2, 32);
	RAND_bytes(d3, 32);
	RAND_bytes(d4, 32);
	probe_start(&p, 0);     /* g locks the agent twice */
	wb_init(&w);

	/* ADD K; SIGN K; LIST; REMOVE K; SIGN K */
	msg_add(&w, k, "g-k");
	msg_sign(&w, k, d1, 32);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	msg_remove(&w, k);
	msg_sign(&w, k, d2, 32);
	{
		struct expect ex[] = {
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_SIGN_RESPONSE, k, d1, NULL, 0 },
			{ MSG_IDENTITIES, NULL, NULL, k, 1 },
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_FAILURE, NULL, NULL, NULL, 0 },
		};
		run_sequence("ADD K; SIGN K; LIST; REMOVE K; SIGN K", &w, ex, 5);
	}

	/* K held: REMOVE K; ADD K; SIGN K; LIST */
	t = add_key(k, "g-k");
	wb_reset(&w);
	msg_remove(&w, k);
	msg_add(&w, k, "g-k");
	msg_sign(&w, k, d3, 32);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	{
		struct expect ex[] = {
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_SIGN_RESPONSE, k, d3, NULL, 0 },
			{ MSG_IDENTITIES, NULL, NULL, k, 1 },
		};
		if (t != MSG_SUCCESS)
			diag("pipeline-order: adding K beforehand answered %d", t);
		run_sequence("REMOVE K; ADD K; SIGN K; LIST", &w, ex, 4);
	}

	/* locked: UNLOCK; ADD K2; LIST; SIGN K2 */
	wb_reset(&w);
	msg_pass(&w, MSG_LOCK, "g-pass", 6);
	t = call_once(&w, bound_ms(10000), NULL);
	wb_reset(&w);
	msg_pass(&w, MSG_UNLOCK, "g-pass", 6);
	msg_add(&w, k2, "g-k2");
	msg_simple(&w, MSG_REQ_IDENTITIES);
	msg_sign(&w, k2, d4, 32);
	{
		struct expect ex[] = {
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_IDENTITIES, NULL, NULL, k2, 1 },
			{ MSG_SIGN_RESPONSE, k2, d4, NULL, 0 },
		};
		if (t != MSG_SUCCESS)
			diag("pipeline-order: LOCK beforehand answered %d", t);
		run_sequence("(locked) UNLOCK; ADD K2; LIST; SIGN K2", &w, ex, 4);
	}

	/* LOCK; ADD K3; UNLOCK; LIST: the ADD is refused while locked */
	wb_reset(&w);
	msg_pass(&w, MSG_LOCK, "g-pass", 6);
	msg_add(&w, k3, "g-k3");
	msg_pass(&w, MSG_UNLOCK, "g-pass", 6);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	{
		struct expect ex[] = {
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_FAILURE, NULL, NULL, NULL, 0 },
			{ MSG_SUCCESS, NULL, NULL, NULL, 0 },
			{ MSG_IDENTITIES, NULL, NULL, k3, 0 },
		};
		run_sequence("LOCK; ADD K3; UNLOCK; LIST", &w, ex, 4);
	}
	wb_free(&w);
	probe_stop(&p);
	check_common("pipeline-order", &p, keep, 1);
}

/* pipeline-long: long pipelines answered in order. */
void
attack_pipeline_long(void)
{
	static const int lens[] = { 17, 100, 1000 };
	struct key *keep[1] = { probe_key };
	struct probe p;
	struct wb w;
	struct cl c = { .fd = -1 };
	unsigned li;
	char key[16];
	int i, t, n, found;

	probe_start(&p, 1);
	wb_init(&w);
	for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		int got = 0, inorder = 1, firstbad = -1;
		uint64_t t0 = now_ms();

		wb_reset(&w);
		for (i = 0; i < lens[li]; i++)
			msg_simple(&w, i % 2 ? MSG_REQ_IDENTITIES : MSG_UNKNOWN);
		if (cl_connect(&c, bound_ms(10000)) != 0 ||
		    cl_send(&c, w.p, w.len, bound_ms(10000)) != 0) {
			tap_ok(0, "pipeline-long: %d requests in one write: could "
			    "not send", lens[li]);
			continue;
		}
		for (i = 0; i < lens[li]; i++) {
			t = cl_recv(&c, bound_ms(10000));
			if (t < 0)
				break;
			got++;
			n = t == MSG_IDENTITIES ? list_has(c.msg, probe_key, &found) : -1;
			if (i % 2 ? (n < 0 || !found) : t != MSG_FAILURE) {
				if (firstbad < 0)
					firstbad = i;
				inorder = 0;
			}
		}
		cl_close(&c);
		snprintf(key, sizeof(key), "pipeline-long-%d", lens[li]);
		figure(key, "%d of %d pipelined requests answered in %llu "
		    "ms", got, lens[li],
		    (unsigned long long)(now_ms() - t0));
		tap_ok(got == lens[li], "pipeline-long: %d requests in one write: "
		    "every one answered (%d)",
		    lens[li], got);
		if (!tap_ok(inorder && got > 0, "pipeline-long: %d requests in one "
		    "write: answered in order",
		    lens[li]))
			diag("first answer out of order: %d", firstbad);
	}
	cl_free(&c);
	wb_free(&w);
	probe_stop(&p);
	check_common("pipeline-long", &p, keep, 1);
}
