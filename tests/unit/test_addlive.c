/*
 * test_addlive.c - an ADD going live in policy (policy/add.c
 * keys_add_live): the client's success reaches the monitor, the log line
 * is still written, and the next expiry policy wakes for is right after
 * new keys (kept without a scan of the table) and after a re-add that
 * moves a key's expiry out (rescanned). Each add goes through
 * policy_from_monitor as the monitor sends it and is answered as the
 * keyholder answers, over socket pairs.
 */
#include "ipc/log.h"
#include "policy/dispatch.h"
#include "tests/unit/policypeers.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct policy P;
static int peer[NPEERS];        /* the other ends of policy's channels */
static uint32_t next_req = 1;
static int log_rd = -1;         /* policy's stderr, read back */

static void
setup(void)
{
	int lp[2];

	policy_peers(&P, peer);
	P.audit_on = 1;
	/* the log lines go to a pipe this test reads */
	if (pipe(lp) != 0 || dup2(lp[1], STDERR_FILENO) < 0 ||
	    fcntl(lp[0], F_SETFL, O_NONBLOCK) != 0)
		tk_die("pipe");
	close(lp[1]);
	log_rd = lp[0];
	log_init("test_addlive", LOG_LVL_INFO, 0);
}

/* The next message policy sent to peer i: its header, and its body in
 * *body (static); -1 if none. */
static int
sent_to(int i, struct msg_hdr *h, struct rd *body)
{
	return policy_sent(peer[i], h, body);
}

/* Did the auditor get a record of an add, with decision and reason?
 * (Each record read; the last add's must be among them.) */
static int
audited(const char *reason)
{
	struct msg_hdr h;
	struct rd body;
	const char *want = "\"event\":\"add\",";
	const char *allow = "\"decision\":\"allow\"";
	int seen = 0;

	while (sent_to(AU, &h, &body) == 0) {
		const char *p = (const char *)body.p;
		size_t n = body.len;
		if (memmem(p, n, want, strlen(want)) != NULL &&
		    memmem(p, n, allow, strlen(allow)) != NULL &&
		    memmem(p, n, reason, strlen(reason)) != NULL)
			seen = 1;
	}
	return seen;
}

/* Whatever policy logged since the last call, as one string. */
static const char *
logged(void)
{
	static char buf[4096];
	ssize_t n = read(log_rd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Add key k with lifetime (seconds; -1: none) as the monitor sends it,
 * the keyholder accepting it; the status the client was sent. */
static int
add(const struct testkey *k, long lifetime)
{
	struct msg_add m = { testkey_blob(k),
	    { (const uint8_t *)"not parsed here", 15 },
	    { (const uint8_t *)"lifetime", 8 }, { 0 } };
	struct msg_hdr h;
	struct msg_status st;
	struct rd body;
	struct wb w;

	if (lifetime >= 0) {
		m.c.has_lifetime = 1;
		m.c.lifetime = (uint32_t)lifetime;
	}
	wb_init(&w);
	msg_begin(&w, MSG_ADD, next_req++, 1);
	msg_add_encode(&w, &m);
	tk_check(&w, "an ADD");
	policy_from_monitor(&P, w.p, w.len);
	if (sent_to(KH, &h, NULL) != 0 || h.type != MSG_KH_ADD) {
		wb_free(&w);
		return -1;
	}
	wb_reset(&w);
	msg_pubkey_write(&w, h.req, testkey_blob(k));
	policy_from_keyholder(&P, w.p, w.len);
	wb_free(&w);
	while (sent_to(KH, &h, NULL) == 0)
		;                       /* a re-add's delete of the old copy */
	if (sent_to(MON, &h, &body) != 0 || h.type != MSG_R_STATUS ||
	    msg_status_decode(&body, &st) != 0)
		return -1;
	return st.status;
}

/* Is the next expiry at (seconds from now)? Within a second either
 * way: the adds take their now_ms() a moment apart from ours. */
static int
next_at(long secs)
{
	uint64_t want = now_ms() + (uint64_t)secs * 1000;

	return P.next_expiry_ms + 1000 >= want &&
	    P.next_expiry_ms <= want + 1000;
}

int
main(void)
{
	struct testkey k1, k2, k3;
	struct msg_hdr h;
	char fp[FP_TEXT_MAX], line[FP_TEXT_MAX + 64];
	struct wb w;

	setup();
	testkey_gen(&k1, KEY_ED25519, 0);
	testkey_gen(&k2, KEY_ED25519, 0);
	testkey_gen(&k3, KEY_ECDSA_P256, 0);

	wb_init(&w);
	msg_begin(&w, MSG_OPEN, 0, 1);
	msg_open_encode(&w, &(struct msg_open){ 1000, 4242, 0 });
	policy_from_monitor(&P, w.p, w.len);
	wb_free(&w);
	while (sent_to(MON, &h, NULL) == 0)
		;
	(void)logged();

	is_int(add(&k1, 100), ST_OK, "an add with a lifetime: the client hears success");
	ok(P.ids.n == 1, "the key is held");
	ok(fingerprint(testkey_blob(&k1), "sha256", fp, sizeof(fp)) == 0 &&
	    snprintf(line, sizeof(line), "added ssh-ed25519 %s \"lifetime\"",
	    fp) > 0 && strstr(logged(), line) != NULL,
	    "the add is logged, with its fingerprint");
	ok(audited("\"reason\":null"), "the add is audited");
	ok(next_at(100), "a new key's lifetime is the next expiry");

	is_int(add(&k2, -1), ST_OK, "an add with no lifetime");
	ok(next_at(100), "a key that never expires leaves the next expiry");

	is_int(add(&k3, 50), ST_OK, "an add expiring sooner");
	ok(next_at(50), "a sooner lifetime is the next expiry");
	is_int(add(&k2, 70), ST_OK, "a re-add giving a key a lifetime");
	ok(next_at(50), "a later one leaves it");
	ok(strstr(logged(), "replaced ssh-ed25519") != NULL,
	    "the re-add is logged as a replacement");
	ok(audited("replaced an identity already held"),
	    "the re-add is audited as a replacement");

	is_int(add(&k3, 300), ST_OK, "a re-add moving the soonest expiry out");
	ok(P.ids.n == 3, "a re-add replaces, it adds no identity");
	ok(next_at(70), "the next expiry is the soonest that is left");
	is_int(add(&k2, -1), ST_OK, "a re-add with no lifetime");
	ok(next_at(100), "its expiry is gone with it");
	is_int(add(&k1, -1), ST_OK, "another");
	is_int(add(&k3, -1), ST_OK, "and the last");
	ok(P.next_expiry_ms == 0, "nothing expires: no next expiry");

	testkey_free(&k1);
	testkey_free(&k2);
	testkey_free(&k3);
	return done_testing();
}
