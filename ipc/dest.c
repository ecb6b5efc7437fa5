/*
 * dest.c - restrict-destination, three levels of strings deep (§6.6 and
 * §15.1): a list of constraints, each of a from-hop, a to-hop and a
 * reserved string; each hop of user, host, reserved and key specs that
 * run to the end of the hop with no count.
 */
#include "ipc/dest.h"
#include "ipc/limits.h"
#include "ipc/sshkey.h"

#define FAIL(msg) do { if (why != NULL) *why = (msg); return -1; } while (0)

static int
parse_hop(struct rd *r, struct dest_hop *h, const char **why)
{
	struct slice reserved, blob;
	struct rd hr, kr;
	struct pubkey k;
	int is_ca;

	if (rd_sub(r, &hr) != 0 || rd_text(&hr, &h->user) != 0 ||
	    rd_text(&hr, &h->host) != 0 || rd_string(&hr, &reserved) != 0)
		FAIL("truncated destination hop");
	if (reserved.len != 0)
		FAIL("reserved field of a hop is not empty");
	if (h->user.len > AGENT_MAX_USER_PATTERN)
		FAIL("user pattern is longer than 256 bytes");
	if (h->host.len > AGENT_MAX_HOSTNAME)
		FAIL("host name is longer than 255 bytes");
	h->keys.p = hr.p;
	h->keys.len = hr.len;
	h->nkeys = 0;
	kr = hr;
	while (kr.len > 0) {
		if (rd_string(&kr, &blob) != 0 || rd_bool(&kr, &is_ca) != 0)
			FAIL("truncated host key in a destination hop");
		if (key_parse_public(blob, &k, why) != 0)
			return -1;
		h->nkeys++;
	}
	return 0;
}

int
dest_hop_keys(const struct dest_hop *h,
    int (*fn)(void *ctx, struct slice blob, int is_ca), void *ctx)
{
	struct rd r;
	struct slice blob;
	int is_ca, rc;

	rd_init(&r, h->keys.p, h->keys.len);
	while (r.len > 0) {
		if (rd_string(&r, &blob) != 0 || rd_bool(&r, &is_ca) != 0)
			return -1;
		if ((rc = fn(ctx, blob, is_ca)) != 0)
			return rc;
	}
	return 0;
}

int
dest_parse(struct slice list,
    int (*fn)(void *ctx, const struct dest_rule *r), void *ctx, const char **why)
{
	struct rd lr, cr;
	struct slice reserved;
	struct dest_rule rule;
	int n = 0;

	rd_init(&lr, list.p, list.len);
	while (lr.len > 0) {
		if (n >= AGENT_MAX_DEST_RULES)
			FAIL("more than 1024 destination constraints");
		if (rd_sub(&lr, &cr) != 0)
			FAIL("truncated destination constraint");
		if (parse_hop(&cr, &rule.from, why) != 0 ||
		    parse_hop(&cr, &rule.to, why) != 0)
			return -1;
		if (rd_string(&cr, &reserved) != 0 || reserved.len != 0)
			FAIL("reserved field of a constraint is missing or not empty");
		if (rd_done(&cr) != 0)
			FAIL("bytes after a destination constraint");
		if (rule.from.user.len != 0)
			FAIL("a from-hop names a user");
		if ((rule.from.host.len == 0) != (rule.from.nkeys == 0))
			FAIL("a from-hop has a host name without keys or keys without one");
		if (rule.to.host.len == 0 || rule.to.nkeys == 0)
			FAIL("a to-hop has no host name or no host keys");
		if (fn != NULL && fn(ctx, &rule) != 0)
			FAIL("destination constraint refused");
		n++;
	}
	/* The reference leaves a key with an empty list unconstrained: never
	 * take "no rule" for "no restriction" (§6.6). */
	if (n == 0)
		FAIL("empty destination constraint list");
	return n;
}
