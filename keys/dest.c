/*
 * dest.c - restrict-destination, three levels of strings deep (doc/protocol.md §6.6 and
 * §15.1): a list of constraints, each of a from-hop, a to-hop and a
 * reserved string; each hop of user, host, reserved and key specs that
 * run to the end of the hop with no count.
 */
#include "keys/dest.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"

static int
parse_hop(struct rd *r, struct dest_hop *h, const char **why)
{
	struct slice reserved, blob;
	struct rd hr, kr;
	struct pubkey k;
	int is_ca;

	if (rd_sub(r, &hr) != 0 || rd_text(&hr, &h->user) != 0 ||
	    rd_text(&hr, &h->host) != 0 || rd_string(&hr, &reserved) != 0) {
		*why = "truncated destination hop";
		return -1;
	}
	if (reserved.len != 0) {
		*why = "reserved field of a hop is not empty";
		return -1;
	}
	if (h->user.len > AGENT_MAX_USER_PATTERN) {
		*why = "user pattern is longer than 256 bytes";
		return -1;
	}
	if (h->host.len > AGENT_MAX_HOSTNAME) {
		*why = "host name is longer than 255 bytes";
		return -1;
	}
	h->keys.p = hr.p;
	h->keys.len = hr.len;
	h->nkeys = 0;
	kr = hr;
	while (kr.len > 0) {
		if (rd_string(&kr, &blob) != 0 || rd_bool(&kr, &is_ca) != 0) {
			*why = "truncated host key in a destination hop";
			return -1;
		}
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
	const char *unasked;
	int n = 0;

	if (why == NULL)
		why = &unasked;         /* every failure below sets *why */
	rd_init(&lr, list.p, list.len);
	while (lr.len > 0) {
		if (n >= AGENT_MAX_DEST_RULES) {
			*why = "more than 1024 destination constraints";
			return -1;
		}
		if (rd_sub(&lr, &cr) != 0) {
			*why = "truncated destination constraint";
			return -1;
		}
		if (parse_hop(&cr, &rule.from, why) != 0 ||
		    parse_hop(&cr, &rule.to, why) != 0)
			return -1;
		if (rd_string(&cr, &reserved) != 0 || reserved.len != 0) {
			*why = "reserved field of a constraint is missing or not empty";
			return -1;
		}
		if (rd_done(&cr) != 0) {
			*why = "bytes after a destination constraint";
			return -1;
		}
		if (rule.from.user.len != 0) {
			*why = "a from-hop names a user";
			return -1;
		}
		if ((rule.from.host.len == 0) != (rule.from.nkeys == 0)) {
			*why = "a from-hop has a host name without keys or keys without one";
			return -1;
		}
		if (rule.to.host.len == 0 || rule.to.nkeys == 0) {
			*why = "a to-hop has no host name or no host keys";
			return -1;
		}
		if (fn != NULL && fn(ctx, &rule) != 0) {
			*why = "destination constraint refused";
			return -1;
		}
		n++;
	}
	/* The reference leaves a key with an empty list unconstrained: never
	 * take "no rule" for "no restriction" (doc/protocol.md §6.6). */
	if (n == 0) {
		*why = "empty destination constraint list";
		return -1;
	}
	return n;
}
