/*
 * ruling.h - the rules of keyward(5) applied: loaded (MSG_POLICY_LOAD),
 * asked about one sign request once the key's own constraints have let it
 * through, and the approvals a rule's remember= keeps. Rules only
 * restrict: nothing here can turn a refusal into a signature.
 */
#ifndef KEYWARD_RULING_H
#define KEYWARD_RULING_H

#include "ipc/buf.h"
#include "rules/rules.h"

#include <stddef.h>
#include <stdint.h>

struct policy;
struct identity;
struct conn;
struct ctx;
struct bindings;
struct purpose;

struct ruling {
	enum rule_action action;        /* RULE_ALLOW when no rule matched */
	size_t line;                    /* the deciding rule's line; 0: none */
	uint32_t remember;              /* confirm: seconds to remember a yes */
	int remembered;                 /* a remembered yes stands for the prompt */
	struct wb memo;                 /* what a yes is remembered under: the
	                                 * rule, key, caller, origin and first
	                                 * binding, purpose, destination,
	                                 * socket (memo_make); empty: none */
};

/* The rules' word on key id signing data of purpose pu (purpose.h) for
 * connection c. */
void ruling_judge(struct policy *P, const struct identity *id,
    const struct conn *c, const struct purpose *pu, struct ruling *out);
/* Whether a yes is remembered now for what r asks (sets r->remembered):
 * a request that waited for its prompt may find one given meanwhile. */
int ruling_recall(const struct policy *P, struct ruling *r);
/* The user said yes to a prompt that r asked for: keep it if it says so. */
void ruling_remember(struct policy *P, const struct ruling *r);
void ruling_free(struct ruling *r);
/* Every remembered approval goes (lock, new rules). */
void rules_forget(struct policy *P);

int h_policy_load(struct ctx *c);

#endif
