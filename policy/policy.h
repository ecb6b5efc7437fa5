/*
 * policy.h - state of keyward-policy, the process that makes every
 * decision. It holds public keys, constraints, the lock state and each
 * connection's state; it never holds a private key longer than it takes
 * to pass an ADD on to the keyholder, and it wipes that copy.
 */
#ifndef KEYWARD_POLICY_H
#define KEYWARD_POLICY_H

#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/msg.h"
#include "policy/identity.h"

#include <stdint.h>
#include <sys/types.h>

struct conn {
	struct conn *next;
	uint32_t id;
	uint32_t uid, pid;
	struct bindings bind;   /* session-bind chain (spec §7.3) */
};

enum pending_kind { P_ADD, P_CONFIRM, P_SIGN, P_UNLOCK_DELAY, P_LOCK, P_UNLOCK, P_AUDIT };

/* A client request waiting for the keyholder, the prompter or a timer. */
struct pending {
	struct pending *next;
	enum pending_kind kind;
	uint32_t id;            /* request id towards keyholder / prompter */
	uint32_t conn, req;     /* where the answer goes */
	uint64_t key_id;
	uint64_t due_ms;        /* P_UNLOCK_DELAY: when to answer */
	enum sig_alg alg;
	struct wb data;         /* P_CONFIRM: data to sign once allowed */
	struct identity *add;   /* P_ADD: the identity to insert on success */
};

struct lockstate {
	int locked;
	uint8_t salt[LOCK_SALT_LEN];
	uint8_t hash[LOCK_HASH_LEN];
	unsigned failures;      /* survives lock/unlock until a good unlock */
};

struct policy {
	struct chan mon, kh, pr, au;    /* au: the auditor, fd -1 if none */
	int audit_on;
	const char *fp_hash;
	long default_lifetime;  /* seconds, <= 0: none */
	struct idtable ids;
	struct conn *conns;
	struct pending *pending;
	struct lockstate lock;
	uint32_t next_req;
	uint64_t next_key_id;
	uint64_t next_expiry_ms;
	struct wb out, secret;
	uint8_t rbuf[IPC_MAX_MSG + 1];
};

uint64_t now_ms(void);          /* CLOCK_BOOTTIME, as the reference (§6.2) */

/* requests.c: handle one datagram from each peer. */
void policy_from_monitor(struct policy *P, const uint8_t *p, size_t n);
void policy_from_keyholder(struct policy *P, const uint8_t *p, size_t n);
void policy_from_prompter(struct policy *P, const uint8_t *p, size_t n);
void policy_from_auditor(struct policy *P, const uint8_t *p, size_t n);
/* Expire identities and answer delayed replies; returns the poll timeout. */
int policy_timers(struct policy *P);

/* lock.c */
int lock_set(struct lockstate *l, struct slice pass);
int lock_check(const struct lockstate *l, struct slice pass);

/* prompter.c: fork the prompter; returns policy's end of its channel.
 * A prompt unanswered for prompt_timeout_s seconds is a refusal. */
extern long prompt_timeout_s;
int prompter_spawn(void);

/* host tag for the default socket name (spec §11.3) */
int host_tag_print(void);

#endif
