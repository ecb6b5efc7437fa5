/*
 * origin.c - where a connection's requests come from (origin.h).
 */
#include "policy/origin.h"
#include "policy/policy.h"

#include <stdio.h>
#include <string.h>

void
origin_of_bindings(const struct bindings *b, uint32_t relay, struct origin *o)
{
	memset(o, 0, sizeof(*o));
	o->relay = relay;
	/* bind.c takes nothing after an authentication binding, so a
	 * connection with bindings is forwarded exactly when its first one
	 * forwards, and then that one names the host. The host a refused
	 * bind followed is still named, for the shares: the user's ssh
	 * bound it. */
	if (b->n > 0 && b->b[0].forwarding)
		o->host = (struct slice){ b->b[0].key, b->b[0].keylen };
	if (b->failed || (b->attempted && b->n == 0))
		o->kind = ORIGIN_UNKNOWN;
	else if (o->host.len > 0)
		o->kind = ORIGIN_FORWARDED;
	else
		o->kind = ORIGIN_LOCAL;
}

void
conn_origin(const struct conn *c, struct origin *o)
{
	static const struct bindings none;

	if (c == NULL)
		origin_of_bindings(&none, 0, o);
	else
		origin_of_bindings(&c->bind, c->pid, o);
}

int
conn_forwarded(const struct conn *c)
{
	struct origin o;

	conn_origin(c, &o);
	return o.kind != ORIGIN_LOCAL;
}

int
conn_remote(const struct conn *c)
{
	return c->bind.attempted || c->bind.n > 0;
}

void
origin_share_key(const struct origin *o, struct wb *out)
{
	char relay[32];

	if (o->kind == ORIGIN_LOCAL)
		return;
	if (o->host.len > 0) {
		wb_bytes(out, o->host.p, o->host.len);
		return;
	}
	snprintf(relay, sizeof(relay), "relay %u", (unsigned)o->relay);
	wb_bytes(out, relay, strlen(relay));
}
