/*
 * secrets.h - what the hostile harnesses (hostile_monitor.c,
 * hostile_policy.c) look for in every reply: each private component of
 * each key they made. Header-only: each harness is one program.
 */
#ifndef KEYWARD_TESTS_SECRETS_H
#define KEYWARD_TESTS_SECRETS_H

#include "tests/unit/testkeys.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct secret {
	const uint8_t *p;
	size_t len;
	char what[48];
};
static struct secret secrets[128];
static size_t nsecrets;

static void
secret_add(const struct comp *c, const char *key, const char *part)
{
	if (c->len == 0)
		return;
	if (nsecrets >= sizeof(secrets) / sizeof(secrets[0]))
		abort();
	secrets[nsecrets].p = c->b;
	secrets[nsecrets].len = c->len;
	snprintf(secrets[nsecrets].what, sizeof(secrets[nsecrets].what), "%s %s",
	    key, part);
	nsecrets++;
}

/* Every private component of k, under the name given. */
static void
secrets_add_key(const struct testkey *k, const char *name)
{
	secret_add(&k->seed, name, "Ed25519 seed");
	secret_add(&k->d, name, "ECDSA d");
	secret_add(&k->rd, name, "RSA d");
	secret_add(&k->p, name, "RSA p");
	secret_add(&k->pq, name, "RSA q");
	secret_add(&k->iqmp, name, "RSA iqmp");
}

/* Any run of 16 bytes of any private component (so any leak of 31
 * contiguous bytes or more is seen). Each leak is printed as a TAP
 * comment naming the case; returns how many components leaked. */
static unsigned long
secrets_scan(const uint8_t *p, size_t n, const char *what_case)
{
	unsigned long leaks = 0;

	for (size_t i = 0; i < nsecrets; i++) {
		const struct secret *s = &secrets[i];
		size_t w = s->len < 16 ? s->len : 16;
		for (size_t off = 0;; off += w) {
			if (off + w > s->len)
				off = s->len - w;
			if (memmem(p, n, s->p + off, w) != NULL) {
				leaks++;
				printf("# LEAK: reply of %zu bytes carries bytes %zu..%zu of "
				    "the %s (case: %s)\n", n, off, off + w, s->what, what_case);
				break;
			}
			if (off + w >= s->len)
				break;
		}
	}
	return leaks;
}

#endif
