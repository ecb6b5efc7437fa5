/*
 * fuzz_conns.c - libFuzzer harness for the CONNS_EXTENSION answer that
 * keyward-ctl reads from whatever listens on SSH_AUTH_SOCK (wire/conns.c,
 * ctl/conns.c). Input: the body of the answer (wire/conns.h). On every
 * input:
 *
 *  the body decodes (conns_decode) exactly when the whole reply around it
 *  (byte 29, string CONNS_EXTENSION, the body) decodes in keyward-ctl
 *  (conns_reply_decode), and a refusal leaves the list empty;
 *  accepted: at most total connections listed, every count within its
 *  limit, and encoding what was decoded gives back the input's bytes
 *  (one encoding per listing); both listings, the table and the JSON
 *  lines, hold no control byte but their own newlines, and each JSON
 *  line starts with '{' and ends with '}'.
 *
 * The seeds in tests/fuzz/corpus/fuzz_conns are bodies written by the
 * encoder (tests/fuzz/mkcorpus.sh does not make them): none, a local
 * caller with ancestors, a client bound through two hops, a caller
 * named with escapes, a cut listing.
 */
#include "tests/fuzz/fuzz.h"
#include "ctl/conns.h"
#include "wire/agent.h"
#include "ipc/buf.h"
#include "wire/conns.h"
#include "ipc/limits.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What keyward-ctl printed: no control byte but newlines; JSON lines
 * are objects. */
static void
check_output(char *p, size_t n, int json)
{
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];

		CHECK(ch == '\n' || (ch >= 0x20 && ch != 0x7f));
		if (ch != '\n')
			continue;
		if (json)
			CHECK(i > start && p[start] == '{' && p[i - 1] == '}');
		start = i + 1;
	}
	CHECK(start == n);
}

static void
print_both(const struct conns_list *l)
{
	char *buf;
	size_t len;
	FILE *f;

	for (int json = 0; json <= 1; json++) {
		CHECK((f = open_memstream(&buf, &len)) != NULL);
		if (json)
			conns_print_json(f, l);
		else
			conns_print_text(f, l);
		CHECK(fclose(f) == 0);
		check_output(buf, len, json);
		free(buf);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conns_list l, l2;
	const char *why = NULL, *why2 = NULL;
	struct wb w;
	struct rd r;
	int rc, rc2;

	if (size > AGENT_MAX_FRAME)
		return 0;
	rd_init(&r, data, size);
	rc = conns_decode(&r, &l, &why);
	/* the same body inside a whole reply, as keyward-ctl reads it */
	wb_init(&w);
	wb_u8(&w, SSH_AGENT_EXTENSION_RESPONSE);
	wb_cstring(&w, CONNS_EXTENSION);
	wb_bytes(&w, data, size);
	CHECK(!w.err);
	rc2 = conns_reply_decode(wb_slice_of(&w), &l2, &why2) == EXT_ANSWERED ?
	    0 : -1;
	CHECK(rc == rc2);
	if (rc != 0) {
		CHECK(why != NULL && why2 != NULL);
		CHECK(l.n == 0 && l.c == NULL && l2.n == 0 && l2.c == NULL);
		wb_free(&w);
		return 0;
	}
	CHECK(l.n <= l.total && l.n == l2.n);
	for (size_t i = 0; i < l.n; i++)
		CHECK(l.c[i].nanc <= PEER_MAX_ANCESTORS &&
		    l.c[i].nhops <= AGENT_MAX_BINDINGS &&
		    (l.c[i].nhops == 0 || l.c[i].bind_attempted));
	print_both(&l);
	conns_free(&l2);
	wb_free(&w);
	/* one encoding per listing: decode then encode is the identity */
	wb_init(&w);
	conns_encode_head(&w, l.total, (uint32_t)l.n);
	for (size_t i = 0; i < l.n; i++)
		conns_encode_one(&w, &l.c[i]);
	CHECK(!w.err && w.len == size && memcmp(w.p, data, size) == 0);
	wb_free(&w);
	conns_free(&l);
	return 0;
}
