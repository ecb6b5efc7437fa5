/*
 * limits.c - the attack on what the agent holds: a forwarded server adds
 * keys until the agent says no (AGENT_MAX_HELD_BYTES, AGENT_MAX_KEYS).
 *
 *   limits-keys     the byte and count budgets, lists at the limit
 */
#include "tests/hostile/lib.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* limits-keys: the keys held: a forwarded server adds keys until the agent says no.
 * The byte budget is spent by keys with 250 KiB comments, the count by
 * small keys; each is refused with SSH_AGENT_FAILURE past its limit, a
 * re-add of a held key still fits, a removal makes room again. With
 * AGENT_MAX_KEYS held a LIST is cut to what one answer may carry, and
 * the connection asking again and again (the .t wrapper counts the log
 * lines this leaves) is answered the same each time. */
/* On one connection: add keys[0..n) (comment cm) until one is refused;
 * how many were taken; *refusal the first answer that was not SUCCESS. */
static int
add_until_refused(struct cl *c, struct key **keys, int n, const char *cm, int *refusal)
{
	struct wb w;
	int i, t = MSG_SUCCESS;

	wb_init(&w);
	for (i = 0; i < n; i++) {
		wb_reset(&w);
		msg_add(&w, keys[i], cm);
		if ((t = cl_call(c, &w, bound_ms(10000))) != MSG_SUCCESS)
			break;
	}
	*refusal = t;
	wb_free(&w);
	return i;
}

/* On one connection: remove keys[0..n); how many the agent removed. */
static int
remove_all(struct cl *c, struct key **keys, int n)
{
	struct wb w;
	int i, gone = 0;

	wb_init(&w);
	for (i = 0; i < n; i++) {
		wb_reset(&w);
		msg_remove(&w, keys[i]);
		gone += cl_call(c, &w, bound_ms(10000)) == MSG_SUCCESS;
	}
	wb_free(&w);
	return gone;
}

void
attack_limits_keys(void)
{
	enum { NBIG = 200, NLIST = 50, COMMENT = 250 * 1024, OVER_FRAME = 4600 };
	/* ssh-agent takes keys in time that grows with the keys held (77 s
	 * for 16,392): for it, enough that one LIST is over a frame */
	const int nsmall = is_keyward() ? AGENT_MAX_KEYS + 8 : OVER_FRAME;
	struct key **big = xmalloc(NBIG * sizeof(*big));
	struct key **small = xmalloc((size_t)nsmall * sizeof(*small));
	struct key *keep[1] = { probe_key };
	struct cl c = { .fd = -1 };
	char *cm = xmalloc(COMMENT + 1);
	size_t cost, held;
	struct probe p;
	struct wb w;
	int i, nb, ns, t, refusal, n, found, allcut = 1, gone;
	uint64_t t0;

	memset(cm, 'c', COMMENT);
	for (i = 0; i < NBIG; i++)
		big[i] = key_new(KEY_ED25519);
	for (i = 0; i < nsmall; i++)
		small[i] = key_new(KEY_ED25519);
	wb_init(&w);
	/* what keyward charges for a key (ipc/limits.h) */
	held = probe_key->priv.len + strlen(PROBE_COMMENT) + AGENT_KEY_OVERHEAD;
	cost = big[0]->priv.len + COMMENT + AGENT_KEY_OVERHEAD;
	probe_start(&p, 1);
	if (cl_connect(&c, bound_ms(10000)) != 0)
		die("limits-keys: cannot connect");

	/* the byte budget */
	t0 = now_ms();
	nb = add_until_refused(&c, big, NBIG, cm, &refusal);
	figure("limits-keys-bytes", "%d keys of %zu bytes taken in %.1f s, then "
	    "answer %d", nb,
	    cost, (double)(now_ms() - t0) / 1000, refusal);
	if (is_keyward()) {
		/* as many whole big keys as fit beside the probe key */
		int want = (int)((AGENT_MAX_HELD_BYTES - held) / cost);
		tap_ok(refusal == MSG_FAILURE && nb == want,
		    "limits-keys: keys of %zu bytes are refused with FAILURE past "
		    "AGENT_MAX_HELD_BYTES (%d taken, %d expected, answer %d)", cost,
		    nb, want, refusal);
		wb_reset(&w);
		msg_add(&w, big[0], cm);
		t = cl_call(&c, &w, bound_ms(10000));
		tap_ok(nb > 0 && t == MSG_SUCCESS, "limits-keys: ... a held key "
		    "re-added at "
		    "its size still fits (answer %d)", t);
	} else {
		diag("limits-keys: %s took all %d keys of %zu bytes (answer "
		    "%d)", agent_name, nb,
		    cost, refusal);
		tap_keyward_only("ssh-agent holds as many keys as memory allows");
		tap_keyward_only("ssh-agent holds as many keys as memory allows");
	}
	gone = remove_all(&c, big, nb);
	tap_ok(gone == nb, "limits-keys: all %d big keys removed (%d)", nb, gone);
	wb_reset(&w);
	msg_add(&w, big[nb < NBIG ? nb : 0], cm);
	t = cl_call(&c, &w, bound_ms(10000));
	tap_ok(t == MSG_SUCCESS, "limits-keys: ... which makes room again (answer "
	    "%d)", t);
	remove_all(&c, &big[nb < NBIG ? nb : 0], 1);

	/* the count budget */
	t0 = now_ms();
	ns = add_until_refused(&c, small, nsmall, "", &refusal);
	figure("limits-keys-count", "%d small keys taken in %.1f s, then answer %d", ns,
	    (double)(now_ms() - t0) / 1000, refusal);
	if (is_keyward())
		tap_ok(refusal == MSG_FAILURE && ns == AGENT_MAX_KEYS - 1,
		    "limits-keys: with the probe key held, %d more keys are taken "
		    "and the next "
		    "is refused with FAILURE (%d taken, answer %d)", AGENT_MAX_KEYS - 1,
		    ns, refusal);
	else
		tap_keyward_only("ssh-agent holds as many keys as memory allows");

	/* lists at the limit: cut, and the same every time */
	for (i = 0; i < NLIST; i++) {
		wb_reset(&w);
		msg_simple(&w, MSG_REQ_IDENTITIES);
		t = cl_call(&c, &w, bound_ms(10000));
		n = t == MSG_IDENTITIES ? list_has(c.msg, probe_key, &found) : -1;
		if (n < 0 || !found || c.msg.len > FRAME_MAX || n >= ns + 1) {
			allcut = 0;
			diag("limits-keys: list %d: answer %d, %d keys, %zu bytes, "
			    "probe key %s", i, t,
			    n, c.msg.len, found ? "listed" : "missing");
			break;
		}
	}
	if (is_keyward() || allcut)
		tap_ok(allcut, "limits-keys: %d LISTs with %d keys held: each answer "
		    "within one "
		    "frame, cut, the first key in it", NLIST, ns + 1);
	else
		tap_skip("limits-keys: %s's LIST of %d keys is over one frame "
		    "(%s)", agent_name,
		    ns + 1, "clients refuse it");
	gone = remove_all(&c, small, ns);
	tap_ok(gone == ns, "limits-keys: all %d small keys removed (%d)", ns, gone);
	cl_free(&c);
	probe_stop(&p);
	check_common("limits-keys", &p, keep, 1);
	for (i = 0; i < NBIG; i++)
		key_free(big[i]);
	for (i = 0; i < nsmall; i++)
		key_free(small[i]);
	free(big);
	free(small);
	free(cm);
	wb_free(&w);
}
