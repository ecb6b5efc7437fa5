/*
 * pending.h - a client request that waits for another process or for
 * time. Every state a request can be in, and every way out of it:
 *
 *   sign:    h_sign --(confirm key)--> CONFIRM --yes--> AUDIT? --> SIGN --> reply
 *                   \--(no confirm)------------------/ (audit trail on)
 *            CONFIRM --no/timeout--> refuse;  AUDIT --not written--> refuse
 *            FIDO key, instead of SIGN (token.c):
 *              SK_MATERIAL --keyholder--> TOKEN --broker: signature verified--> reply
 *              TOKEN --"PIN required", first time--> PIN --prompter--> SK_MATERIAL
 *              TOKEN --no touch / refused / died--> refuse
 *   PKCS#11: h_p11_add --> RESOLVE --> P11_LOGIN --keys listed--> reply [barrier]
 *            h_p11_remove --> RESOLVE --> keys dropped, reply          [barrier]
 *            sign as above, with P11_SIGN (the provider's helper) for SIGN
 *   add:     h_add --> ADD --keyholder: the public key judged--> identity
 *                          live, reply OK                             [barrier]
 *                          \-keyholder no, or another key--> reply FAIL
 *            ADD --(FIDO key naming a library)--> RESOLVE --broker: path
 *                   allowed by -P--> identity live; else the keyholder
 *                   forgets the key, reply FAIL
 *   lock:    h_lock (locked from here on) --> LOCK --keyholder--> reply
 *   unlock:  h_unlock --> UNLOCK_QUEUED --judged: right--> UNLOCK --> reply [barrier]
 *                                      \--judged: wrong--> UNLOCK_DELAY --due--> FAIL
 *
 * A barrier request (an add, a PKCS#11 add or remove, an unlock judged
 * right) holds every later message from the monitor until the keyholder
 * or the broker has answered, so each request is judged against the
 * state left by all before it (doc/protocol.md §5, as OpenSSH's single
 * loop does). Which requests are barriers is a flag of their row in the
 * dispatch table (F_BARRIER, dispatch.c): pending_keep() sets the
 * barrier and pending_free() lifts it, so no handler sets it by hand. A
 * lock needs none: it takes effect in policy at once, and the keyholder
 * seals before it serves anything after it.
 * Queued unlocks are judged one at a time, agent-wide (lock.c).
 * A request whose client has gone is still carried to its end and
 * answered: the monitor counts what it has in flight.
 */
#ifndef KEYWARD_PENDING_H
#define KEYWARD_PENDING_H

#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "policy/purpose.h"
#include "policy/ruling.h"

#include <stdint.h>

enum pending_state {
	P_CONFIRM,              /* at the prompter */
	P_AUDIT,                /* at the auditor: the record before the signature */
	P_SIGN,                 /* at the keyholder */
	P_ADD,                  /* at the keyholder */
	P_LOCK,                 /* at the keyholder: re-sealing every key */
	P_UNLOCK,               /* at the keyholder: opening every key */
	P_UNLOCK_QUEUED,        /* waiting its turn to be judged (lock.c) */
	P_UNLOCK_DELAY,         /* judged wrong: answered at due_ms (waits
	                         * for time alone: holds no barrier) */
	P_RESOLVE,              /* at the broker: an ADD's provider path */
	P_SK_MATERIAL,          /* at the keyholder: a FIDO key's handle */
	P_TOKEN,                /* at the broker: a token's signature */
	P_PIN,                  /* at the prompter: the token's PIN */
	P_CONFIRM_WAIT,         /* in policy's prompt_wait: its forwarding host
	                         * has PROMPT_MAX_PER_HOP prompts open, or all
	                         * have PROMPT_MAX_FORWARDED; a confirm prompt,
	                         * or a PIN one if pin_asked */
	P_P11_LOGIN,            /* at the broker: a provider's helper logs in
	                         * and lists its keys (p11.c) */
	P_P11_SIGN,             /* at the broker: its helper signs */
};

#define PSTATE(s) (1u << (s))    /* a set of states, for held_by() and
                                  * pending_take() */

enum p11_op { P11_NONE, P11_ADDING, P11_REMOVING };

struct identity;

struct pending {
	struct pending *next;
	enum pending_state state;
	uint32_t id;            /* request id towards keyholder / prompter / auditor */
	uint32_t conn, req;     /* where the answer goes */
	int gone;               /* the client closed: answer, but say nothing more */
	int barrier;            /* made from an F_BARRIER row (dispatch.c) */
	uint64_t key_id;
	uint64_t due_ms;        /* P_UNLOCK_DELAY: when to answer */
	enum sig_alg alg;
	struct wb data;         /* sign: the data; unlock: the passphrase;
	                         * ADD: the FIDO provider to resolve (all
	                         * wiped) */
	struct wb pin;          /* a token's PIN, until handed on (wiped) */
	int pin_asked;          /* once per signature, as OpenSSH */
	enum p11_op p11;        /* RESOLVE, P11_LOGIN: a provider's add or remove */
	char *p11_provider;     /* P11_LOGIN: the resolved path */
	struct {                /* P11 add: what each key will carry (data:
	                         * the destination constraint as sent) */
		int has_lifetime, confirm, has_dest;
		uint32_t lifetime;
		int certs_only;         /* only the certificates (doc/protocol.md §6.7) */
		struct wb certs;        /* their certsblob (keys/assoc.h),
		                         * each CA signature verified */
		int added_over;         /* where the add came from (enum
		                         * origin_kind; its host in origin) */
	} keep;
	struct identity *add;   /* P_ADD: the identity to insert on success */
	struct purpose purpose; /* sign: what the data is, decided once on
	                         * arrival (purpose.h; it points into data) */
	struct ruling rule;     /* sign: what the rules said (ruling.h) */
	char *prompt;           /* P_CONFIRM(_WAIT), P_PIN: the question */
	char *notice;           /* a forwarded signature's desktop notice,
	                         * raised once it is made (session.c) */
	struct wb origin;       /* sign: the host key of the host its client
	                         * was forwarded from; empty: none (sign.c);
	                         * P11 add: the adding host's (p11.c) */
};

struct policy;

struct ctx;

/* A new request for the monitor's request c, on no list yet:
 * pending_keep() when it starts to wait. It is a barrier if c's row in
 * the dispatch table says so. */
struct pending *pending_new(const struct ctx *c, enum pending_state s);
/* Take the request waiting for answer id in one of states (PSTATE bits:
 * those a peer answers, from its table in answers.c). */
struct pending *pending_take(struct policy *P, uint32_t id, unsigned states);
/* Back on the list for its next step; a barrier request now holds the
 * monitor's next message (unless it waits for time alone). */
void pending_keep(struct policy *P, struct pending *p);
/* The request ends; its barrier, if it held one, lifts. */
void pending_free(struct policy *P, struct pending *p);
/* The client has gone: cancel its prompts, mark its requests. */
void pending_gone(struct policy *P, uint32_t conn);
uint32_t pending_new_id(struct policy *P);

#endif
