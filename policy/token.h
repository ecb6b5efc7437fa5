/*
 * token.h - FIDO signatures through the broker, and provider checks
 * (token.c; the states are drawn there and in pending.h).
 */
#ifndef KEYWARD_TOKEN_POLICY_H
#define KEYWARD_TOKEN_POLICY_H

#include "wire/broker.h"
#include "wire/keyholder.h"

struct policy;
struct pending;

/* What the audit trail says of a token's signature. */
struct sk_result {
	const char *provider;
	uint8_t flags;          /* as the authenticator asserted them */
	uint32_t counter;
};

/* Is this provider the built-in one ("internal", any case)? */
int token_provider_internal(struct slice provider);

/* add: ask the broker to resolve the provider's path (P_RESOLVE). */
void token_resolve(struct policy *P, struct pending *p, struct slice provider);
/* sign: every check passed; fetch the key's material (P_SK_MATERIAL). */
void token_sign(struct policy *P, struct pending *p);
void token_material(struct policy *P, struct pending *p,
    const struct msg_sk_material *m);
void token_pin(struct policy *P, struct pending *p, struct slice pin);
/* fail: a TK_* reason, or 0 with the helper's reply. */
void token_answer(struct policy *P, struct pending *p, struct slice reply, int fail);

/* p11.c: PKCS#11 providers (the states are drawn there). */
struct identity;
void p11_resolved(struct policy *P, struct pending *p, struct slice path);
void p11_listed(struct policy *P, struct pending *p, struct slice reply, int fail);
void p11_sign(struct policy *P, struct pending *p, const struct identity *id);
void p11_signed(struct policy *P, struct pending *p, struct slice reply, int fail);
void p11_gone(struct policy *P, struct slice provider);
void p11_remove_all(struct policy *P);

#endif
