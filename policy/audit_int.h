/*
 * audit_int.h - what the audit trail's two halves share inside policy:
 * audit.c builds and sends the records, audit_repeats.c counts repeats and
 * records their counts in the same form.
 */
#ifndef KEYWARD_AUDIT_INT_H
#define KEYWARD_AUDIT_INT_H

#include "policy/audit.h"

#include <stddef.h>
#include <stdint.h>

/* A record's fields, in order: the key (with its comma, none after the
 * '{' or '[' that opens an object or array), a number, a boolean, a
 * string (NULL: null). */
void audit_key(struct wb *w, const char *k);
void audit_num(struct wb *w, const char *k, long long v);
void audit_bool(struct wb *w, const char *k, int v);
void audit_str(struct wb *w, const char *k, const char *v);
/* A host or user key's fingerprint in the -E hash, "?" if none. */
void audit_fp(const struct policy *P, struct slice blob, char *out, size_t n);
/* "time": now, UTC, to the millisecond. */
void audit_time(struct wb *w);
/* Hand the record in w (freed) to the auditor; req 0: nobody waits for
 * the answer. -1 if too long (dropped). */
int audit_send(struct policy *P, struct wb *w, uint32_t req);
/* 1: r is a repeat of a kind and origin whose window is open, counted
 * there and not recorded now (audit_repeats.c). */
int audit_repeat_counted(struct policy *P, const struct audit_rec *r);

#endif
