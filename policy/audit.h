/*
 * audit.h - one audit record per decision (policy/audit.c builds them,
 * keyward-auditor, auditor/, writes them).
 */
#ifndef KEYWARD_AUDIT_H
#define KEYWARD_AUDIT_H

#include "wire/args.h"
#include "policy/policy.h"
#include "policy/purpose.h"
#include "policy/ruling.h"
#include "policy/token.h"

struct audit_rec {
	const char *event;              /* list, sign, add, remove, ... */
	const char *decision;           /* "allow" or "refuse" */
	const char *reason;             /* why, for a refusal (or NULL) */
	const struct conn *conn;        /* NULL for the agent's own events */
	const struct identity *id;      /* the key, or NULL */
	enum sig_alg alg;               /* SIG_NONE: not a signature */
	long count;                     /* keys listed, or -1 */
	const struct sk_result *sk;     /* a token's signature, or NULL */
	const struct ruling *rule;      /* sign: what the rules said, or NULL */
};

/* Send one record to the auditor; req 0: nobody waits for the answer.
 * -1 if the record could not be made (the auditor will not answer). */
int audit_emit(struct policy *P, const struct audit_rec *r, uint32_t req);
/* A sign request's record (the same), with what its data is: the purpose
 * decided on its arrival (purpose.h), or NULL while it is not known. */
int audit_sign(struct policy *P, const struct audit_rec *r,
    const struct purpose *pu, uint32_t req);
/* Refusal windows (audit_repeats.c): close those that are due,
 * recording their counts; ms until the next is due, or -1. */
int audit_repeats_due(struct policy *P);
/* Record every open window's count now (policy is leaving). */
void audit_repeats_flush(struct policy *P);

#endif
