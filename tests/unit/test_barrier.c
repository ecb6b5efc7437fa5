/*
 * test_barrier.c - which requests from the monitor hold its next message
 * until the keyholder or the broker has answered (the F_BARRIER rows of
 * policy/dispatch.c, pending.h): an add, a PKCS#11 add and remove, and an
 * unlock judged right; not a lock, not a wrong unlock waiting for its
 * answer, not a refusal. Each request goes through policy_from_monitor as
 * the monitor sends it, and is answered as the keyholder and the broker
 * answer, over socket pairs; so a row that lost its flag fails here
 * whatever its handler does.
 */
#include "policy/dispatch.h"
#include "tests/unit/policypeers.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"

#include <unistd.h>

static struct policy P;
static int peer[NPEERS];        /* the other ends of policy's channels */
static uint32_t next_req = 1;

/* As the monitor sends it: the message in w (its header made by the
 * caller) to policy; then may policy read the monitor's next one? */
static int
from_monitor(struct wb *w)
{
	tk_check(w, "a monitor message");
	policy_from_monitor(&P, w->p, w->len);
	return policy_may_read_monitor(&P);
}

/* The next message policy sent to peer i: its header; -1 if none. */
static int
sent_to(int i, struct msg_hdr *h)
{
	return policy_sent(peer[i], h, NULL);
}

/* The keyholder's (or the broker's) status answer to request h. */
static void
answer(int i, const struct msg_hdr *h, uint8_t st)
{
	struct wb w;

	wb_init(&w);
	msg_status_reply(&w, h->req, h->conn, st);
	if (i == KH)
		policy_from_keyholder(&P, w.p, w.len);
	else
		policy_from_broker(&P, w.p, w.len);
	wb_free(&w);
}

/* Each message the monitor's request left for the other peers read
 * (the client's answer among them), so no channel stays busy. */
static void
drain_monitor(void)
{
	struct msg_hdr h;

	while (sent_to(MON, &h) == 0)
		;
}

/* A request that goes to peer i: held (the monitor's next message
 * waits) until i answers, or not held at all. */
static void
check(const char *what, struct wb *w, int i, int barrier, uint8_t st)
{
	struct msg_hdr h;
	int may = from_monitor(w);

	drain_monitor();
	ok(sent_to(i, &h) == 0, "%s: goes to the %s", what,
	    i == KH ? "keyholder" : "broker");
	is_int(may, !barrier, "%s: the monitor's next message %s", what,
	    barrier ? "waits" : "is read at once");
	answer(i, &h, st);
	drain_monitor();
	ok(policy_may_read_monitor(&P), "%s: answered, the monitor is read",
	    what);
}

int
main(void)
{
	struct testkey k;
	struct wb w;
	struct msg_hdr h;
	const struct slice pass = { (const uint8_t *)"andromeda", 9 };
	const struct slice wrong = { (const uint8_t *)"cassiopeia", 10 };
	const struct slice prov = { (const uint8_t *)"/no/such/p11.so", 15 };

	policy_peers(&P, peer);
	wb_init(&w);
	testkey_gen(&k, KEY_ED25519, 0);

	msg_begin(&w, MSG_OPEN, 0, 1);
	msg_open_encode(&w, &(struct msg_open){ 1000, 4242, 0 });
	ok(from_monitor(&w) && conn_find(&P, 1) != NULL,
	    "a connection opened: the monitor is read");

	msg_begin(&w, MSG_ADD, next_req++, 1);
	msg_add_encode(&w, &(struct msg_add){ testkey_blob(&k),
	    { (const uint8_t *)"not parsed here", 15 },
	    { (const uint8_t *)"t", 1 }, { 0 } });
	check("ADD", &w, KH, 1, ST_FAIL);

	msg_begin(&w, MSG_P11_ADD, next_req++, 1);
	msg_p11_add_encode(&w, &(struct msg_p11_add){ prov,
	    { (const uint8_t *)"1234", 4 }, { 0 } });
	check("PKCS#11 ADD", &w, TK, 1, ST_FAIL);

	msg_p11_remove_write(&w, next_req++, 1, prov);
	check("PKCS#11 REMOVE", &w, TK, 1, ST_FAIL);

	/* a lock takes effect in policy at once: no barrier */
	msg_lock_write(&w, 0, next_req++, 1, pass);
	check("LOCK", &w, KH, 0, ST_OK);
	ok(P.lock.locked, "locked once the keyholder has sealed");

	/* a wrong guess waits for time alone: nothing is held */
	msg_lock_write(&w, 1, next_req++, 1, wrong);
	ok(from_monitor(&w) && sent_to(KH, &h) != 0,
	    "a wrong UNLOCK: not at the keyholder, the monitor is read");
	drain_monitor();
	P.lock.gate_ms = 0;     /* the delay it earned, spent */

	msg_lock_write(&w, 1, next_req++, 1, pass);
	check("a right UNLOCK", &w, KH, 1, ST_OK);
	ok(!P.lock.locked, "unlocked once the keyholder has opened the keys");

	wb_free(&w);
	testkey_free(&k);
	return done_testing();
}
