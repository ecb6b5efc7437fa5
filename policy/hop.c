/*
 * hop.c - the decision procedure for destination-constrained keys,
 * written to be read beside doc/protocol.md §8. Every refusal names its rule. The
 * destination sets it walks are built in destset.c.
 */
#include "policy/hop.h"
#include "ipc/log.h"
#include "keys/sshkey.h"
#include "policy/purpose.h"
#include "rules/match.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CA signature algorithms a host certificate may carry (doc/protocol.md §8.2 step 6). */
static int
ca_alg_allowed(struct slice sig)
{
	static const char *const ok[] = {
		"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
		"ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com",
		"sk-ecdsa-sha2-nistp256@openssh.com",
		"webauthn-sk-ecdsa-sha2-nistp256@openssh.com",
		"rsa-sha2-512", "rsa-sha2-256",
	};
	struct slice name;
	struct rd r;

	rd_init(&r, sig.p, sig.len);
	if (rd_string(&r, &name) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (slice_eq_str(name, ok[i]))
			return 1;
	return 0;
}

/* doc/protocol.md §8.2, the host certificate check, with the hop's hostname. */
static int
host_cert_ok(const struct pubkey *c, const char *host, time_t now)
{
	struct rd r;
	struct slice p;
	char *pat;
	int ok = 0;

	if (c->cert.type != 2)                          /* 1. a host certificate */
		return 0;
	if ((uint64_t)now < c->cert.valid_after ||      /* 2. valid now */
	    (uint64_t)now >= c->cert.valid_before)
		return 0;
	if (c->cert.nprincipals == 0)                   /* 3. some principal */
		return 0;
	if (c->cert.critical_options.len != 0)          /* 5. no critical options */
		return 0;
	if (!ca_alg_allowed(c->cert.signature))         /* 6. no SHA-1 CA */
		return 0;
	/* 4. the principal is the pattern, the hostname the subject */
	rd_init(&r, c->cert.principals.p, c->cert.principals.len);
	while (!ok && r.len > 0) {
		if (rd_text(&r, &p) != 0)
			return 0;
		if (p.len > AGENT_MAX_PRINCIPAL_MATCH)
			continue;       /* bounds wmatch's work; no real name is this long */
		if ((pat = slice_strdup(p)) == NULL)
			fatal("out of memory matching a principal");
		ok = wmatch(host, pat);
		free(pat);
	}
	return ok;
}

static int
blob_eq(struct slice a, const struct hopkey *k)
{
	return a.len == k->len && memcmp(a.p, k->blob, a.len) == 0;
}

int
hop_matches(struct slice K, const struct hop *h, time_t now)
{
	struct pubkey k;
	struct wb ca;
	int same;

	if (key_parse_public(K, &k, NULL) != 0)
		return 0;
	for (size_t i = 0; i < h->nkeys; i++) {
		const struct hopkey *spec = &h->keys[i];
		if (!k.is_cert) {
			/* a plain key matches only a plain spec holding it */
			if (!spec->is_ca && blob_eq(K, spec))
				return 1;
			continue;
		}
		/* a certificate matches only a CA spec that signed it */
		if (!spec->is_ca || h->host == NULL)
			continue;
		wb_init(&ca);
		same = key_canonical(k.cert.signature_key, NULL, &ca, NULL) == 0 &&
		    blob_eq(wb_slice_of(&ca), spec);
		wb_free(&ca);
		if (same && host_cert_ok(&k, h->host, now))
			return 1;
	}
	return 0;
}

static int
is_origin_hop(const struct hop *h)
{
	return h->host == NULL && h->nkeys == 0;
}

int
hop_permitted(const struct dest_set *I, const struct slice *prev,
    struct slice K, const char *user, time_t now, size_t *which)
{
	for (size_t i = 0; i < I->n; i++) {
		const struct dconstraint *d = &I->c[i];
		if (prev == NULL ? !is_origin_hop(&d->from) :           /* 1 */
		    !hop_matches(*prev, &d->from, now))
			continue;
		if (K.p != NULL && !hop_matches(K, &d->to, now))        /* 2 */
			continue;
		if (d->to.user != NULL && user != NULL &&               /* 3 */
		    !wmatch(user, d->to.user))
			continue;
		if (which != NULL)
			*which = i;
		return 1;                                               /* 4 */
	}
	return 0;
}

int
path_permitted(const struct dest_set *I, const struct bindings *C,
    const char *u, time_t now, struct verdict *v)
{
	const struct slice *prev = NULL;
	struct slice keys[AGENT_MAX_BINDINGS];
	size_t n = C->n;

	v->hop = 0;
	if (I->n == 0)                                          /* 1 */
		return 1;
	if (C->failed || (C->attempted && n == 0)) {            /* 2 */
		v->rule = "a session-bind on this connection failed, so "
		    "destination-constrained keys are not usable on it";
		return 0;
	}
	if (n == 0)                                             /* 3 */
		return 1;
	for (size_t i = 0; i < n; i++) {                        /* 4 */
		const struct binding *b = &C->b[i];
		keys[i] = (struct slice){ b->key, b->keylen };
		v->hop = i;
		if (i < n - 1 && !b->forwarding) {
			v->rule = "an authentication binding is followed by another "
			    "binding";
			return 0;
		}
		if (i == n - 1 && b->forwarding && u != NULL) {
			v->rule = "the last binding is a forwarding one: signing "
			    "needs an ssh that binds the session it authenticates";
			return 0;
		}
		if (!hop_permitted(I, prev, keys[i], i == n - 1 ? u : NULL, now,
		    NULL)) {
			v->rule = i == n - 1 && u != NULL ?
			    "no constraint permits this hop for this user" :
			    "no constraint permits this hop";
			return 0;
		}
		prev = &keys[i];
	}
	if (C->b[n - 1].forwarding && u == NULL &&              /* 5 */
	    !hop_permitted(I, &keys[n - 1], (struct slice){ NULL, 0 }, NULL,
	    now, NULL)) {
		v->hop = n;
		v->rule = "no constraint leads on from the forwarding host";
		return 0;
	}
	return 1;                                               /* 6 */
}

const char *
sign_permitted(const struct dest_set *I, const struct bindings *b,
    const struct purpose *pu, time_t now, size_t *hop, char *user, size_t ulen)
{
	struct verdict v;
	char *uname;
	int permitted;

	*hop = b->n ? b->n - 1 : 0;
	snprintf(user, ulen, "(unknown)");
	if (b->failed)                                                  /* 3.1 */
		return "a session-bind on this connection failed";
	if (b->n == 0)
		return b->attempted ? "a session-bind on this connection failed" :
		    "the key is destination-constrained and this connection is "
		    "not bound to any host (local use is refused)";
	if (pu->kind != PURPOSE_LOGIN)                                  /* 3.2 */
		return "the data to sign is not an SSH authentication request "
		    "for this key";
	snprintf(user, ulen, "%.*s", (int)pu->ua.user.len,
	    (const char *)pu->ua.user.p);
	/* Decide on the whole name: the caller's buffer is for the log and
	 * may hold only a prefix of it. */
	if ((uname = slice_strdup(pu->ua.user)) == NULL)
		return "out of memory";
	permitted = path_permitted(I, b, uname, now, &v);               /* 3.3 */
	free(uname);
	if (!permitted) {
		*hop = v.hop;
		return v.rule;
	}
	return login_bound(b, pu);
}

/* doc/protocol.md §8.6 step 3.4-3.6: a login is for the host the connection is bound to
 * last, in the session that binding names. */
const char *
login_bound(const struct bindings *b, const struct purpose *pu)
{
	const struct binding *last;

	if (b->n == 0)
		return "the connection is not bound to any host";
	last = &b->b[b->n - 1];
	if (pu->ua.session_id.len != last->sidlen ||                    /* 3.4 */
	    CRYPTO_memcmp(pu->ua.session_id.p, last->sid, last->sidlen) != 0)
		return "the session id does not match the connection's last binding";
	if (b->n > 1 && !pu->ua.hostbound)                              /* 3.5 */
		return "after a forwarding hop the server must support "
		    "publickey-hostbound (OpenSSH 8.9 or later)";
	if (pu->ua.hostbound && !slice_eq(wb_slice_of(&pu->hostkey),    /* 3.6 */
	    (struct slice){ last->key, last->keylen }))
		return "the request's host key is not the host the "
		    "connection is bound to";
	return NULL;
}

const char *
dest_host_name(const struct dest_set *d, struct slice K, time_t now)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->c[i].to.host != NULL && hop_matches(K, &d->c[i].to, now))
			return d->c[i].to.host;
		if (d->c[i].from.host != NULL && hop_matches(K, &d->c[i].from, now))
			return d->c[i].from.host;
	}
	return NULL;
}
