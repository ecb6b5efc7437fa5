/*
 * fuzz_audit.c - libFuzzer harness for the audit trail's verifier
 * (crypto/auditchain.c), which keyward-ctl audit verify runs over a file
 * anyone with the uid may have written. Input: byte 0 flags (bit 0: verify
 * with the key, bit 1: and with a key file made from the key at epoch 0),
 * bytes 1-32 the verification key, then the trail. On every input: no
 * read outside it (ASan), the same verdict twice, a verdict that names
 * only lines the trail has (the line where it stopped, or another), and "intact" only for a trail whose last line
 * is a seal that verified. Each line is also parsed alone.
 */
#include "tests/fuzz/fuzz.h"
#include "ipc/limits.h"
#include "crypto/auditchain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The verifier derives a key per epoch a seal claims: bound that here so
 * one input does not spend the fuzzer's time on 2^24 hashes. */
static int
small_epochs(const uint8_t *p, size_t n)
{
	static const char pat[] = "\"epoch\":";

	for (size_t i = 0; i + sizeof(pat) - 1 < n; i++) {
		unsigned long v = 0;
		size_t k = i + sizeof(pat) - 1, d = 0;
		if (memcmp(p + i, pat, sizeof(pat) - 1) != 0)
			continue;
		for (; k < n && p[k] >= '0' && p[k] <= '9' && d < 12; k++, d++)
			v = v * 10 + (unsigned long)(p[k] - '0');
		if (d >= 12 || v > 4096)
			return 0;
	}
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_verdict v1, v2;
	struct audit_state st;
	enum audit_finding f1, f2;
	const uint8_t *trail, *key = NULL, *body;
	struct audit_line l;
	size_t n, blen;
	uint8_t *copy;

	if (size < 33)
		return 0;
	trail = data + 33;
	n = size - 33;
	/* a copy of exactly n bytes: ASan sees any read past the end */
	copy = malloc(n ? n : 1);
	CHECK(copy != NULL);
	memcpy(copy, trail, n);
	if ((data[0] & 1) && small_epochs(copy, n))
		key = data + 1;
	memset(&st, 0, sizeof(st));
	memcpy(st.key, data + 1, AUDIT_KEY_LEN);
	f1 = audit_verify(copy, n, key, key && (data[0] & 2) ? &st : NULL, &v1);
	f2 = audit_verify(copy, n, key, key && (data[0] & 2) ? &st : NULL, &v2);
	CHECK(f1 == f2 && f1 == v1.finding && memcmp(&v1, &v2, sizeof(v1)) == 0);
	{
		size_t total = 0;
		for (size_t i = 0; i < n; i++)
			total += copy[i] == '\n';
		total += n > 0 && copy[n - 1] != '\n';
		CHECK(v1.line <= v1.lines && v1.lines <= total && v1.other <= total);
	}
	CHECK(v1.last_seal <= v1.lines && v1.seals <= v1.lines);
	if (f1 == AV_INTACT) {
		CHECK(key != NULL && v1.seals > 0 && v1.unsealed == 0 &&
		    v1.last_seal == v1.lines);
	}
	if (f1 == AV_EMPTY)
		CHECK(n == 0);
	/* each line alone */
	for (size_t off = 0; off < n;) {
		const uint8_t *nl = memchr(copy + off, '\n', n - off);
		size_t len = nl ? (size_t)(nl - (copy + off)) : n - off;
		uint8_t *line = malloc(len ? len : 1);
		CHECK(line != NULL);
		memcpy(line, copy + off, len);
		if (auditline_parse(line, len, &l, &body, &blen) == 0) {
			CHECK(body >= line && body + blen == line + len);
			CHECK(blen > 0 && body[0] == '{' && body[blen - 1] == '}');
		}
		free(line);
		off += len + 1;
	}
	free(copy);
	return 0;
}
