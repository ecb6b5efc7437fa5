/*
 * unlock.c - the attack on the lock passphrase: guesses pipelined on many
 * connections; the agent-wide rate limit (doc/protocol.md §5.8) keeps it locked.
 *
 *   unlock-guessing 8 connections x 16 pipelined UNLOCKs, the right
 *                   passphrase the 128th; and "pw\0" is not "pw" (doc/protocol.md §2)
 */
#include "tests/hostile/lib.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define UNLOCK_CONNS         8
#define UNLOCK_DEPTH         16
#define UNLOCK_LOCKED_MS     5000       /* must still be locked then */

/* unlock-guessing: unlock guessing, agent-wide rate limit; "pw\0" is not "pw". */
void
attack_unlock_guessing(void)
{
	static const char right[] = "correct horse battery staple";
	struct key *keep[1] = { probe_key };
	struct wb w, all[UNLOCK_CONNS];
	struct flood f;
	struct probe p;
	uint64_t t0, unlocked = 0;
	char guess[64], s[32];
	int i, j, t, n, found, locked_at_check, owner;

	/* doc/protocol.md §2: a lock passphrase is hashed as the bytes sent. */
	wb_init(&w);
	msg_pass(&w, MSG_LOCK, "pw\0", 3);
	t = call_once(&w, bound_ms(10000), NULL);
	tap_ok(t == MSG_SUCCESS, "unlock-guessing: LOCK \"pw\\0\" succeeds (answer "
	    "%d)", t);
	wb_reset(&w);
	msg_pass(&w, MSG_UNLOCK, "pw", 2);
	t = call_once(&w, bound_ms(15000), NULL);
	tap_ok(t == MSG_FAILURE, "unlock-guessing: UNLOCK \"pw\" does not open a "
	    "lock set with \"pw\\0\" "
	    "(answer %d)", t);
	n = list_fresh(probe_key, &found, bound_ms(10000));
	tap_ok(n == 0, "unlock-guessing: still locked: LIST answers no keys (%d)", n);
	wb_reset(&w);
	msg_pass(&w, MSG_UNLOCK, "pw\0", 3);
	t = call_once(&w, bound_ms(15000), NULL);
	tap_ok(t == MSG_SUCCESS, "unlock-guessing: UNLOCK \"pw\\0\" opens it (answer "
	    "%d)", t);
	n = list_fresh(probe_key, &found, bound_ms(10000));
	tap_ok(n > 0 && found, "unlock-guessing: unlocked: LIST shows the probe key "
	    "again");

	/* 8 connections x 16 pipelined UNLOCKs; the 128th is right. */
	wb_reset(&w);
	msg_pass(&w, MSG_LOCK, right, strlen(right));
	t = call_once(&w, bound_ms(10000), NULL);
	if (!tap_ok(t == MSG_SUCCESS, "unlock-guessing: LOCK with the passphrase to "
	    "guess (answer %d)", t)) {
		wb_free(&w);
		return;
	}
	flood_init(&f, UNLOCK_CONNS);
	for (i = 0; i < UNLOCK_CONNS; i++) {
		wb_init(&all[i]);
		for (j = 0; j < UNLOCK_DEPTH; j++) {
			int g = i * UNLOCK_DEPTH + j;

			if (g == UNLOCK_CONNS * UNLOCK_DEPTH - 1)
				msg_pass(&all[i], MSG_UNLOCK, right, strlen(right));
			else {
				snprintf(guess, sizeof(guess), "wrong guess %d", g);
				msg_pass(&all[i], MSG_UNLOCK, guess, strlen(guess));
			}
		}
		f.out[i] = all[i].p;
		f.outlen[i] = all[i].len;
	}
	f.want = UNLOCK_DEPTH;
	probe_start(&p, 0);
	if (flood_connect(&f) != 0)
		diag("unlock-guessing: could not open every guessing connection");
	t0 = now_ms();
	flood_run(&f, t0 + UNLOCK_LOCKED_MS);
	n = list_fresh(probe_key, &found, bound_ms(2000));
	/* No answer is not an unlock: an agent stalled in the delay is
	 * caught by the probe's bound, not here. */
	locked_at_check = n <= 0;
	if (n < 0)
		diag("unlock-guessing: LIST got no answer within %d ms (the agent is "
		    "stalled)", bound_ms(2000));
	tap_ok(locked_at_check, "unlock-guessing: %.1f s after 128 pipelined guesses "
	    "the agent is still "
	    "locked (LIST: %d keys, %u guesses answered)",
	    (double)(now_ms() - t0) / 1000, n, sum_u(f.replies, f.n));
	flood_run(&f, t0 + window_ms(10));
	for (i = 0; i < f.n; i++)
		if (f.first_success_ms[i] != 0 && (unlocked == 0 || f.first_success_ms[i] < unlocked))
			unlocked = f.first_success_ms[i];
	probe_read(&p);
	if (unlocked == 0 && p.first_keys_ms != 0)
		unlocked = p.first_keys_ms;
	if (unlocked != 0) {
		fmt_ms(s, sizeof(s), unlocked - t0);
		figure("unlock-guessing", "the 128th guess unlocked it after %s (%u "
		    "guesses answered)", s,
		    sum_u(f.replies, f.n));
	} else {
		fmt_ms(s, sizeof(s), now_ms() - t0);
		figure("unlock-guessing", "still locked after %s; %u of 128 guesses "
		    "answered (one queue at "
		    "0.1 s x failures: 127 failures take about 775 "
		    "s)", s, sum_u(f.replies, f.n));
	}
	flood_close(&f);
	for (i = 0; i < UNLOCK_CONNS; i++)
		wb_free(&all[i]);
	/* The owner unlocks once the guessers left (the delay earned by the
	 * last failure, at most 10 s, may still apply). */
	owner = 1;
	if (unlocked == 0) {
		wb_reset(&w);
		msg_pass(&w, MSG_UNLOCK, right, strlen(right));
		t0 = now_ms();
		t = call_once(&w, bound_ms(15000), NULL);
		fmt_ms(s, sizeof(s), now_ms() - t0);
		figure("unlock-guessing-owner", "the owner's UNLOCK after the "
		    "guessers left: %s in %s",
		    t == MSG_SUCCESS ? "SUCCESS" : t == MSG_FAILURE ? "FAILURE" : "no answer", s);
		owner = t == MSG_SUCCESS;
		tap_bound(owner, s, "unlock-guessing: the owner unlocks within %d s "
		    "once the guessers are gone",
		    bound_ms(15000) / 1000);
	}
	probe_stop(&p);
	/* Whether the keys survived can be seen only once unlocked. */
	check_common("unlock-guessing", &p, keep, owner ? 1 : 0);
	wb_free(&w);
}
