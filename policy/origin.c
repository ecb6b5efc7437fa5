/*
 * origin.c - where a connection's requests come from (origin.h). A shim
 * of the fwd branch until main's lands: main's version (which also reads
 * the bindings' "failed" mark) replaces this file whole.
 */
#include "policy/origin.h"
#include "policy/policy.h"

#include <string.h>

void
origin_of_bindings(const struct bindings *b, uint32_t relay, struct origin *o)
{
	memset(o, 0, sizeof(*o));
	o->relay = relay;
	if (b->attempted && b->n == 0)
		o->kind = ORIGIN_UNKNOWN;
	else if (b->n > 1 || (b->n == 1 && b->b[0].forwarding))
		o->kind = ORIGIN_FORWARDED;
	else
		o->kind = ORIGIN_LOCAL;
	if (b->n > 0 && b->b[0].forwarding)
		o->host = (struct slice){ b->b[0].key, b->b[0].keylen };
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
