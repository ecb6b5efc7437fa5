/*
 * tap.h - a minimal TAP producer for the C unit tests.
 * Each test binary prints "1..N" at the end (done_testing style) and exits
 * non-zero when any check failed, so prove and make both see failures.
 */
#ifndef KEYWARD_TAP_H
#define KEYWARD_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *name)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, name);
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
	return cond;
}

#define ok(cond, ...) do { \
	char tap_name_[512]; \
	snprintf(tap_name_, sizeof(tap_name_), __VA_ARGS__); \
	tap_ok((cond) != 0, __FILE__, __LINE__, tap_name_); \
} while (0)

#define is_int(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	char tap_name_[512]; \
	snprintf(tap_name_, sizeof(tap_name_), __VA_ARGS__); \
	if (!tap_ok(g_ == w_, __FILE__, __LINE__, tap_name_)) \
		printf("#   got %lld, want %lld\n", g_, w_); \
} while (0)

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	char tap_name_[512]; \
	snprintf(tap_name_, sizeof(tap_name_), __VA_ARGS__); \
	if (!tap_ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, \
	    __FILE__, __LINE__, tap_name_)) \
		printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)", \
		    w_ ? w_ : "(null)"); \
} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	if (tap_n == 0) {
		printf("# no test ran\n");
		return 1;
	}
	return tap_failed ? 1 : 0;
}

#endif
