/*
 * forwarded.c - the attacks of a host the agent is forwarded to, with
 * well-formed requests on a connection it binds to itself as the user's
 * ssh -A does (a session-bind with the forwarding flag, signed with the
 * host key it holds):
 *
 *   planted-key     it adds a key of its own: the key is that host's,
 *                   listed and used on its connection only; a local LIST
 *                   does not show it and a local SIGN with it is refused
 *                   (keyward(1), -O allow-remote-add)
 *   forwarded-readd it re-adds a key the user added (the private half it
 *                   would need is the user's here; for a FIDO key, whose
 *                   "private" half is a handle, 137-sk-forwarded-readd.t):
 *                   refused as management, the key keeps its comment; the
 *                   same re-add from a local connection replaces it, as in
 *                   ssh-agent (keyward(1), -O allow-remote-manage)
 *
 * ssh-agent serves both (its results are the reference run's
 * diagnostics).
 */
#include "tests/hostile/lib.h"

#include <openssl/rand.h>

#include <string.h>

/* The comment LIST gives key k in an IDENTITIES payload, copied to out
 * (at most n - 1 bytes); 0 if found, -1 if not or malformed. */
static int
list_comment(struct slice msg, const struct key *k, char *out, size_t n)
{
	struct rd r;
	struct slice b, cm;
	uint32_t cnt;
	uint8_t t;

	rd_init(&r, msg.p, msg.len);
	if (rd_u8(&r, &t) != 0 || t != MSG_IDENTITIES || rd_u32(&r, &cnt) != 0)
		return -1;
	while (cnt-- > 0) {
		if (rd_string(&r, &b) != 0 || rd_string(&r, &cm) != 0)
			return -1;
		if (slice_eq(b, blob_of(k))) {
			size_t l = cm.len < n - 1 ? cm.len : n - 1;
			memcpy(out, cm.p, l);
			out[l] = '\0';
			return 0;
		}
	}
	return -1;
}

/* A connection bound to host as the user's ssh -A binds it: forwarding. */
static int
fwd_connect(struct cl *c, const struct key *host, const char *cs)
{
	struct wb w;
	int t;

	wb_init(&w);
	msg_bind(&w, host, 1, 0);
	if (cl_connect(c, bound_ms(10000)) != 0) {
		diag("%s: could not connect", cs);
		wb_free(&w);
		return -1;
	}
	t = cl_call(c, &w, bound_ms(10000));
	wb_free(&w);
	tap_ok(t == MSG_SUCCESS, "%s: the host binds its connection as forwarded "
	    "(answer %d)", cs, t);
	return t == MSG_SUCCESS ? 0 : -1;
}

/* SIGN with k on connection c (a fresh one if c is NULL): 1 if the
 * signature verifies, 0 if refused, -1 for anything else. */
static int
signs(struct cl *c, const struct key *k)
{
	struct wb w;
	struct slice sig;
	uint8_t d[48];
	int t;

	RAND_bytes(d, sizeof(d));
	wb_init(&w);
	msg_sign(&w, k, d, sizeof(d));
	if (c != NULL) {
		t = cl_call(c, &w, bound_ms(10000));
	} else {
		struct cl f = { .fd = -1 };
		t = call_once(&w, bound_ms(10000), &f);
		if (t == MSG_SIGN_RESPONSE && sign_reply_sig(f.msg, &sig) == 0) {
			t = sig_verifies(k, d, sizeof(d), sig) ? 1 : -1;
			cl_free(&f);
			wb_free(&w);
			return t;
		}
		cl_free(&f);
		wb_free(&w);
		return t == MSG_FAILURE ? 0 : -1;
	}
	wb_free(&w);
	if (t == MSG_SIGN_RESPONSE && sign_reply_sig(c->msg, &sig) == 0)
		return sig_verifies(k, d, sizeof(d), sig) ? 1 : -1;
	return t == MSG_FAILURE ? 0 : -1;
}

void
attack_planted_key(void)
{
	static const char cs[] = "planted-key";
	struct key *host = key_new(KEY_ED25519), *planted = key_new(KEY_ED25519);
	struct key *keep[1] = { probe_key };
	struct cl c = { .fd = -1 };
	struct probe p;
	struct wb w;
	int t, n, found;

	probe_start(&p, 1);
	wb_init(&w);
	if (fwd_connect(&c, host, cs) == 0) {
		msg_add(&w, planted, "deploy-key ");
		t = cl_call(&c, &w, bound_ms(10000));
		tap_ok(t == MSG_SUCCESS, "%s: the host adds its own key (answer %d)",
		    cs, t);
		wb_reset(&w);
		msg_simple(&w, MSG_REQ_IDENTITIES);
		t = cl_call(&c, &w, bound_ms(10000));
		n = t == MSG_IDENTITIES ? list_has(c.msg, planted, &found) : -1;
		tap_ok(n >= 0 && found, "%s: ... its own connection lists it", cs);
		tap_ok(signs(&c, planted) == 1, "%s: ... and signs with it there", cs);
	}
	n = list_fresh(planted, &found, bound_ms(10000));
	tap_ok(n >= 0 && !found, "%s: a local LIST does not show the planted key "
	    "(%d listed)", cs, n);
	tap_ok(signs(NULL, planted) == 0, "%s: a local SIGN with it is refused", cs);
	/* a connection forwarded from another host does not see it either */
	{
		struct key *other = key_new(KEY_ED25519);
		struct cl o = { .fd = -1 };

		if (fwd_connect(&o, other, cs) == 0) {
			wb_reset(&w);
			msg_simple(&w, MSG_REQ_IDENTITIES);
			t = cl_call(&o, &w, bound_ms(10000));
			n = t == MSG_IDENTITIES ? list_has(o.msg, planted, &found) : -1;
			tap_ok(n >= 0 && !found, "%s: a connection forwarded from "
			    "another host does not list it", cs);
		}
		cl_free(&o);
		key_free(other);
	}
	wb_free(&w);
	cl_free(&c);
	probe_stop(&p);
	check_common(cs, &p, keep, 1);
	key_free(host);
	key_free(planted);
}

void
attack_forwarded_readd(void)
{
	static const char cs[] = "forwarded-readd";
	struct key *host = key_new(KEY_ED25519), *victim = key_new(KEY_ED25519);
	struct key *keep[2] = { probe_key, victim };
	struct cl c = { .fd = -1 }, l = { .fd = -1 };
	char comment[64] = "";
	struct probe p;
	struct wb w;
	int t;

	t = add_key_wait(victim, "victim@user", bound_ms(10000));
	tap_ok(t == MSG_SUCCESS, "%s: the user adds a key locally (answer %d)",
	    cs, t);
	probe_start(&p, 1);
	wb_init(&w);
	if (fwd_connect(&c, host, cs) == 0) {
		msg_add(&w, victim, "replaced by the host");
		t = cl_call(&c, &w, bound_ms(10000));
		tap_ok(t == MSG_FAILURE, "%s: the host's re-add of the user's key "
		    "is refused (answer %d)", cs, t);
	}
	wb_reset(&w);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	t = call_once(&w, bound_ms(10000), &l);
	tap_ok(t == MSG_IDENTITIES && list_comment(l.msg, victim, comment,
	    sizeof(comment)) == 0 && strcmp(comment, "victim@user") == 0,
	    "%s: ... the key keeps the user's comment (\"%s\")", cs, comment);
	cl_free(&l);
	tap_ok(signs(NULL, victim) == 1, "%s: ... and signs for the user", cs);
	/* the same re-add, local: today's behaviour, as in ssh-agent */
	wb_reset(&w);
	msg_add(&w, victim, "re-added by the user");
	t = call_once(&w, bound_ms(10000), NULL);
	tap_ok(t == MSG_SUCCESS, "%s: a local re-add is served (answer %d)", cs, t);
	wb_reset(&w);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	t = call_once(&w, bound_ms(10000), &l);
	tap_ok(t == MSG_IDENTITIES && list_comment(l.msg, victim, comment,
	    sizeof(comment)) == 0 && strcmp(comment, "re-added by the user") == 0,
	    "%s: ... and replaces the comment (\"%s\")", cs, comment);
	cl_free(&l);
	wb_free(&w);
	cl_free(&c);
	probe_stop(&p);
	check_common(cs, &p, keep, 2);
	key_free(host);
	key_free(victim);
}
