/*
 * bind.c - the attack on session-bind: a forged bind must leave the
 * connection seeing less, not more.
 *
 *   bind-failed     after a failed session-bind LIST hides destination-
 *                   constrained keys and keyward refuses
 *                   constraints@keyward.dev; a later good bind is
 *                   refused (it would become the anchor) and so is a
 *                   LOCK
 */
#include "tests/hostile/lib.h"

#include <openssl/rand.h>

#include <stdint.h>

/* bind-failed: a failed session-bind hides destination-constrained keys. */
#define HIDDEN_RELISTS 100
void
attack_bind_failed(void)
{
	struct key *host = key_new(KEY_ED25519), *dk = key_new(KEY_ED25519);
	struct key *keep[1] = { probe_key };
	struct cl c = { .fd = -1 };
	struct wb w;
	struct probe p;
	size_t m;
	int t, n, found;

	wb_init(&w);
	msg_add_dest(&w, dk, "dest-perseus", "perseus", &host, 1);
	t = call_once(&w, bound_ms(10000), NULL);
	tap_ok(t == MSG_SUCCESS, "bind-failed: destination-constrained key added "
	    "(answer %d)", t);
	n = list_fresh(dk, &found, bound_ms(10000));
	tap_ok(found, "bind-failed: a local unbound connection lists it");
	probe_start(&p, 1);

	/* session-bind with a signature over other bytes than the session id */
	wb_reset(&w);
	msg_bind(&w, host, 1, 1);
	if (cl_connect(&c, bound_ms(10000)) != 0)
		diag("bind-failed: could not connect for the session-bind");
	t = cl_call(&c, &w, bound_ms(10000));
	tap_ok(t == MSG_EXT_FAILURE || t == MSG_FAILURE,
	    "bind-failed: session-bind with a bad signature is refused (answer %d)", t);

	wb_reset(&w);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	t = cl_call(&c, &w, bound_ms(10000));
	n = t == MSG_IDENTITIES ? list_has(c.msg, dk, &found) : -1;
	if (is_keyward() || !found)
		tap_ok(n >= 0 && !found, "bind-failed: after the failed bind LIST "
		    "hides the constrained "
		    "key (%d listed)", n);
	else {
		diag("bind-failed: ssh-agent lists the constrained key after a "
		    "failed bind: this "
		    "OpenSSH predates 9.6, which hides it (doc/protocol.md §7.4, §14)");
		tap_skip("ssh-agent before 9.6 leaves a failed bind \"local\" (spec "
		    "doc/protocol.md §14)");
	}
	list_has(c.msg, probe_key, &found);
	tap_ok(n >= 0 && found, "bind-failed: ... and still lists the unconstrained "
	    "probe key");
	/* asked again and again: hidden each time (the .t wrapper checks
	 * that the log said so once, not once a LIST) */
	if (is_keyward()) {
		int i, hid = 0;

		for (i = 0; i < HIDDEN_RELISTS; i++) {
			wb_reset(&w);
			msg_simple(&w, MSG_REQ_IDENTITIES);
			t = cl_call(&c, &w, bound_ms(10000));
			hid += t == MSG_IDENTITIES && list_has(c.msg, dk, &found) >= 0 &&
			    !found;
		}
		tap_ok(hid == HIDDEN_RELISTS, "bind-failed: %d LISTs more: the key "
		    "hidden from "
		    "each (%d)", HIDDEN_RELISTS, hid);
	} else {
		tap_keyward_only("ssh-agent before 9.6 lists the key after a failed "
		    "bind");
	}

	wb_reset(&w);
	{
		uint8_t d[48];

		RAND_bytes(d, sizeof(d));
		msg_sign(&w, dk, d, sizeof(d));
	}
	t = cl_call(&c, &w, bound_ms(10000));
	tap_ok(t == MSG_FAILURE, "bind-failed: ... and refuses to sign with it "
	    "(answer %d)", t);

	/* The server's own bind next (its "ssh perseus", forwarding 0): were
	 * it taken, it would become the connection's first binding and the
	 * connection would read as the user's local login to perseus. */
	if (is_keyward()) {
		wb_reset(&w);
		msg_bind(&w, host, 0, 0);
		t = cl_call(&c, &w, bound_ms(10000));
		tap_ok(t == MSG_EXT_FAILURE || t == MSG_FAILURE,
		    "bind-failed: a good session-bind after the refused one is "
		    "refused too (answer %d)", t);
		wb_reset(&w);
		msg_simple(&w, MSG_REQ_IDENTITIES);
		t = cl_call(&c, &w, bound_ms(10000));
		n = t == MSG_IDENTITIES ? list_has(c.msg, dk, &found) : -1;
		tap_ok(n >= 0 && !found, "bind-failed: ... the constrained key "
		    "stays hidden (%d listed)", n);
		/* management, as on any forwarded connection */
		wb_reset(&w);
		m = msg_begin(&w, MSG_LOCK);
		wb_cstring(&w, "hostile");
		msg_end(&w, m);
		t = cl_call(&c, &w, bound_ms(10000));
		tap_ok(t == MSG_FAILURE, "bind-failed: ... and a LOCK on the "
		    "connection is refused (answer %d)", t);
	} else {
		tap_keyward_only("ssh-agent takes a later bind as the anchor and "
		    "serves a LOCK there");
	}

	if (is_keyward()) {
		wb_reset(&w);
		m = msg_begin(&w, MSG_EXTENSION);
		wb_cstring(&w, "constraints@keyward.dev");
		msg_end(&w, m);
		t = cl_call(&c, &w, bound_ms(10000));
		tap_ok(t == MSG_FAILURE || t == MSG_EXT_FAILURE,
		    "bind-failed: ... and refuses constraints@keyward.dev (answer "
		    "%d)", t);
	} else {
		tap_keyward_only("constraints@keyward.dev is keyward's extension");
	}
	cl_free(&c);
	probe_stop(&p);
	check_common("bind-failed", &p, keep, 1);
	wb_free(&w);
}
