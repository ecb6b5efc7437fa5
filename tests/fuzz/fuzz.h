/*
 * fuzz.h - what every libFuzzer harness of tests/fuzz/ shares: the entry
 * point's prototype, CHECK (a property that must hold aborts the run,
 * which the fuzzer reports as a crash, naming the line), and fuzz_same,
 * whether an encoder wrote back exactly the bytes that were decoded.
 */
#ifndef KEYWARD_TESTS_FUZZ_H
#define KEYWARD_TESTS_FUZZ_H

#include "ipc/buf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x) do { if (!(x)) { \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #x); \
	abort(); } } while (0)

static inline int
fuzz_same(const struct wb *w, const uint8_t *p, size_t n)
{
	return !w->err && w->len == n && (n == 0 || memcmp(w->p, p, n) == 0);
}

#endif
