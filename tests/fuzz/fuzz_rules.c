/*
 * fuzz_rules.c - libFuzzer harness for the rules reader (rules/rules.h,
 * keyward(5)). Input: the bytes of a rules file. On every input:
 *
 *  refused: the error's line and column lie in the input (a line that
 *  exists, a column from 1 to one past that line's end, or RULES_MAX_LINE
 *  + 1 for a line that is too long), and its message starts with
 *  "fuzz:LINE:COLUMN: ";
 *  accepted: at most RULES_MAX_RULES rules and SOCKETS_MAX sockets,
 *  each with a good name, and a path that is absolute or none;
 *  rules_format's text parses
 *  again to equal rules (rules_equal), formats to the same bytes, and
 *  both sets give the same decision and the same rule for a few queries
 *  made from the input's own bytes.
 *
 * The seeds in tests/fuzz/corpus/fuzz_rules are hand-written rules files,
 * valid and not (the worked examples of keyward(5) among them); they are
 * not made by mkcorpus.sh.
 */
#include "tests/fuzz/fuzz.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "rules/rules.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
check_error(const uint8_t *data, size_t size, const struct rules_err *err)
{
	char head[64];
	size_t line = 1, start = 0, i, llen;

	CHECK(err->line >= 1 && err->col >= 1);
	snprintf(head, sizeof(head), "fuzz:%zu:%zu: ", err->line, err->col);
	CHECK(strncmp(err->msg, head, strlen(head)) == 0);
	CHECK(strlen(err->msg) > strlen(head));
	/* find the line */
	for (i = 0; i < size && line < err->line; i++) {
		if (data[i] == '\n') {
			line++;
			start = i + 1;
		}
	}
	CHECK(line == err->line);
	for (llen = 0; start + llen < size && data[start + llen] != '\n'; llen++)
		;
	CHECK(err->col <= llen + 1 || (size > RULES_MAX_FILE && err->col == 1));
}

/* Queries whose strings are cut from the input, so that patterns in it
 * sometimes match. */
static void
check_decisions(const uint8_t *data, size_t size, const struct ruleset *a,
    const struct ruleset *b)
{
	char s[4][32];
	const char *anc[2], *hops[2];
	struct rules_query q;
	const struct rule *wa, *wb;
	size_t i, k, off;

	for (k = 0; k < 4; k++) {
		off = size > 0 ? (k * 37) % size : 0;
		for (i = 0; i < sizeof(s[k]) - 1 && off + i < size &&
		    data[off + i] != ' ' && data[off + i] != '\n' &&
		    data[off + i] != '\0'; i++)
			s[k][i] = (char)data[off + i];
		s[k][i] = '\0';
	}
	anc[0] = s[1];
	anc[1] = NULL;
	hops[0] = s[2];
	hops[1] = s[3];
	for (k = 0; k < 8; k++) {
		memset(&q, 0, sizeof(q));
		q.fingerprint = (k & 1) ? s[0] : NULL;
		q.comment = s[(k + 1) % 4];
		q.exe = (k & 2) ? s[k % 4] : NULL;
		q.ancestors = anc;
		q.nancestors = k % 3;
		q.forwarded = (k & 4) != 0;
		q.hops = hops;
		q.nhops = q.forwarded ? 1 + (k & 1) : 0;
		q.first_hop = (k & 2) != 0;
		q.verified = (k & 1) == 0;
		q.purpose = (enum rule_purpose)(1 + k % 3);
		q.user = s[2];
		q.host = (k & 1) ? s[3] : NULL;
		q.ns = s[(k + 2) % 4];
		q.socket = (k & 2) ? s[(k + 3) % 4] : "main";
		q.session = (enum rule_session)(k % 3);
		CHECK(rules_decide(a, &q, &wa) == rules_decide(b, &q, &wb));
		CHECK((wa == NULL) == (wb == NULL));
		if (wa != NULL)
			CHECK(wa - a->r == wb - b->r);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ruleset *rs = NULL, *again = NULL;
	struct rules_err err;
	struct wb out, out2;

	if (rules_parse("fuzz", (const char *)data, size, &rs, &err) != 0) {
		CHECK(rs == NULL);
		check_error(data, size, &err);
		return 0;
	}
	CHECK(rs != NULL && rs->n <= RULES_MAX_RULES && rs->nsock <= SOCKETS_MAX);
	for (size_t i = 0; i < rs->nsock; i++) {
		const char *n = rs->sock[i].name, *p = rs->sock[i].path;
		CHECK(n != NULL && n[0] >= 'a' && n[0] <= 'z');
		CHECK(strlen(n) <= SOCKET_NAME_MAX && strcmp(n, "main") != 0);
		CHECK(strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789-_") ==
		    strlen(n));
		CHECK(p == NULL || (p[0] == '/' && strlen(p) <= SOCKET_PATH_MAX));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(rs->sock[j].name, n) != 0);
	}
	wb_init(&out);
	wb_init(&out2);
	CHECK(rules_format(rs, &out) == 0);
	if (rules_parse("canon", (const char *)out.p, out.len, &again,
	    &err) != 0) {
		fprintf(stderr, "canonical form refused: %s\n%.*s", err.msg,
		    (int)out.len, (const char *)out.p);
		abort();
	}
	CHECK(rules_equal(rs, again));
	CHECK(rules_format(again, &out2) == 0);
	CHECK(out.len == out2.len &&
	    (out.len == 0 || memcmp(out.p, out2.p, out.len) == 0));
	check_decisions(data, size, rs, again);
	rules_free(rs);
	rules_free(again);
	wb_free(&out);
	wb_free(&out2);
	return 0;
}
