/*
 * inspect.c - the INSPECT_EXTENSION request and the decoder of its reply
 * (layout in ipc/msg.h, encoder in policy/requests.c h_inspect). Counts
 * are checked against the bytes left before anything is allocated, so a
 * hostile count cannot make us allocate more than the frame could hold.
 */
#include "ctl/inspect.h"
#include "ipc/agent.h"
#include "ipc/msg.h"

#include <stdlib.h>
#include <string.h>

/* The fewest bytes one element can take on the wire. */
#define MIN_KEY_BYTES   (4 + 1)                 /* string fp; bool is_ca */
#define MIN_HOP_BYTES   (4 + 4 + 4)             /* user, host, nkeys */
#define MIN_RULE_BYTES  (2 * MIN_HOP_BYTES)
#define MIN_ID_BYTES    (4 + 4 + 4 + 4 + 1 + 4) /* blob .. nrules */

#define FAIL(msg) do { *why = (msg); return -1; } while (0)

void
inspect_request(struct wb *w)
{
	wb_u8(w, SSH_AGENTC_EXTENSION);
	wb_cstring(w, INSPECT_EXTENSION);
}

/* calloc for count elements that each take at least min_bytes of r. */
static void *
alloc_counted(const struct rd *r, uint32_t count, size_t min_bytes, size_t size,
    const char **why)
{
	void *p;

	if (count > r->len / min_bytes) {
		*why = "a count is larger than the bytes that follow";
		return NULL;
	}
	if (count == 0)
		return NULL;
	if ((p = calloc(count, size)) == NULL)
		*why = "out of memory";
	return p;
}

static int
decode_hop(struct rd *r, struct inspect_hop *h, const char **why)
{
	uint32_t n;

	if (rd_text(r, &h->user) != 0 || rd_text(r, &h->host) != 0 ||
	    rd_u32(r, &n) != 0)
		FAIL("truncated destination hop");
	if (n > 0 && (h->keys = alloc_counted(r, n, MIN_KEY_BYTES,
	    sizeof(*h->keys), why)) == NULL)
		return -1;
	h->nkeys = n;
	for (size_t i = 0; i < h->nkeys; i++)
		if (rd_text(r, &h->keys[i].fp) != 0 ||
		    rd_bool(r, &h->keys[i].is_ca) != 0)
			FAIL("truncated hop key");
	return 0;
}

static int
decode_rules(struct rd *r, struct inspect_id *id, const char **why)
{
	uint32_t n;

	if (rd_u32(r, &n) != 0)
		FAIL("truncated identity");
	if (n > 0 && (id->rules = alloc_counted(r, n, MIN_RULE_BYTES,
	    sizeof(*id->rules), why)) == NULL)
		return -1;
	id->nrules = n;
	for (size_t i = 0; i < id->nrules; i++) {
		struct inspect_rule *ru = &id->rules[i];
		if (decode_hop(r, &ru->from, why) != 0 ||
		    decode_hop(r, &ru->to, why) != 0)
			return -1;
		/* what the agent accepts on add (ipc/dest.c) */
		if (ru->from.user.len != 0)
			FAIL("a from-hop names a user");
		if (ru->to.host.len == 0)
			FAIL("a to-hop names no host");
	}
	return 0;
}

static int
decode_id(struct rd *r, struct inspect_id *id, const char **why)
{
	struct slice blob;
	const char *kwhy = NULL;

	if (rd_string(r, &blob) != 0 || rd_text(r, &id->comment) != 0 ||
	    rd_text(r, &id->fp) != 0 || rd_u32(r, &id->seconds_left) != 0 ||
	    rd_bool(r, &id->confirm) != 0)
		FAIL("truncated identity");
	if (key_parse_public(blob, &id->pub, &kwhy) != 0)
		FAIL(kwhy != NULL ? kwhy : "an identity's key blob does not parse");
	return decode_rules(r, id, why);
}

enum inspect_answer
inspect_decode(struct slice reply, struct inspect_list *l, const char **why)
{
	struct rd r;
	struct slice name;
	uint8_t type;
	uint32_t n;

	memset(l, 0, sizeof(*l));
	*why = NULL;
	rd_init(&r, reply.p, reply.len);
	if (rd_u8(&r, &type) != 0) {
		*why = "empty reply";
		return INSPECT_MALFORMED;
	}
	if ((type == SSH_AGENT_EXTENSION_FAILURE || type == SSH_AGENT_FAILURE) &&
	    rd_done(&r) == 0)
		return type == SSH_AGENT_FAILURE ? INSPECT_UNSUPPORTED : INSPECT_REFUSED;
	if (type != SSH_AGENT_EXTENSION_RESPONSE) {
		*why = "unexpected reply type";
		return INSPECT_MALFORMED;
	}
	if (rd_text(&r, &name) != 0 || !slice_eq_str(name, INSPECT_EXTENSION)) {
		*why = "the reply names another extension";
		return INSPECT_MALFORMED;
	}
	if (rd_u32(&r, &n) != 0) {
		*why = "truncated reply";
		return INSPECT_MALFORMED;
	}
	if (n > 0 && (l->ids = alloc_counted(&r, n, MIN_ID_BYTES,
	    sizeof(*l->ids), why)) == NULL)
		return INSPECT_MALFORMED;
	l->n = n;
	for (size_t i = 0; i < l->n; i++)
		if (decode_id(&r, &l->ids[i], why) != 0)
			goto bad;
	if (rd_done(&r) != 0) {
		*why = "bytes after the last identity";
		goto bad;
	}
	return INSPECT_LISTED;
bad:
	inspect_free(l);
	return INSPECT_MALFORMED;
}

void
inspect_free(struct inspect_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct inspect_id *id = &l->ids[i];
		for (size_t j = 0; j < id->nrules; j++) {
			free(id->rules[j].from.keys);
			free(id->rules[j].to.keys);
		}
		free(id->rules);
	}
	free(l->ids);
	memset(l, 0, sizeof(*l));
}
