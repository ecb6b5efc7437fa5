/*
 * policy.h - state of keyward-policy, the process that makes every
 * decision. It holds public keys, constraints, the lock state and each
 * connection's state; it never holds a private key longer than it takes
 * to pass an ADD on to the keyholder, and it wipes that copy.
 *
 * The module, as calls go (down only; every file includes this header
 * and the headers of the files it calls):
 *
 *   main.c        the poll loop: the monitor, the peers, the session
 *        |        watcher, the timers
 *        v
 *   THE REQUEST STATE MACHINE (its states drawn in pending.h)
 *     dispatch.c  the monitor's requests, a table: the rules many share
 *                 (flags, among them F_BARRIER), then the row's handler
 *     answers.c   the keyholder's, prompter's, auditor's and broker's
 *                 answers, a table a peer: the request's next step
 *     pending.c   the requests waiting, and the barrier (set and lifted
 *                 here alone)
 *     handlers    conn.c (open, close, peer, bind), keys.c (list,
 *                 remove, expiry), add.c, sign.c, token.c (FIDO), p11.c,
 *                 lock.c, extensions.c, session.c (the session's facts,
 *                 h_session_state), ruling.c's h_policy_load and
 *                 h_policy_show
 *        |
 *        v
 *   LEAVES: what a request is judged by and answered with. They call
 *   only each other (and ipc/, wire/, keys/, rules/, crypto/), never a
 *   handler, pending.c or the dispatcher.
 *     identity.c  the table of keys, found by blob and by key id
 *     ruling.c    the rules' word on a signature, remembered yeses (it
 *                 reads the session's state through session_rule_state,
 *                 a const query, the one call it makes into session.c)
 *     purpose.c, userauth.c   what the data to sign is
 *     bind.c, hop.c, destset.c, origin.c   session-binds, destination
 *                 constraints, where a connection comes from
 *     describe.c  what prompts and logs say about a request
 *     audit.c, audit_repeats.c   the audit trail's records
 *     caller.c    who the caller is (keyward-peer's record)
 *     reply.c     send_to, reply_status, ctx_reply: every message out
 *     hosttag.c   the default socket's host tag (keyward --host-tag)
 */
#ifndef KEYWARD_POLICY_H
#define KEYWARD_POLICY_H

#include "wire/args.h"
#include "ipc/chan.h"
#include "ipc/clock.h"
#include "ipc/limits.h"
#include "wire/auditor.h"
#include "wire/broker.h"
#include "wire/keyholder.h"
#include "wire/monitor.h"
#include "wire/msg.h"
#include "wire/prompter.h"
#include "policy/caller.h"
#include "policy/identity.h"
#include "policy/listcache.h"
#include "policy/pending.h"
#include "policy/session.h"

#include <stdint.h>
#include <sys/types.h>

struct conn {
	struct conn *next;
	uint32_t id;
	uint32_t uid, pid;
	uint32_t sock;          /* the socket it came in on (rules/scope.h) */
	struct bindings bind;   /* session-bind chain (doc/protocol.md §7.3) */
	struct caller caller;   /* who the peer is (MSG_PEER), caller.h */
	/* The identity table and bindings the last list here saw when it
	 * logged the keys it hid: the same again logs nothing (h_list). */
	struct { int told, attempted, failed; size_t nbind; uint64_t gen; } hid;
};

struct lockstate {
	int locked;
	uint8_t salt[LOCK_SALT_LEN];
	uint8_t hash[LOCK_HASH_LEN];
	unsigned failures;      /* survives lock/unlock until a good unlock */
	uint64_t gate_ms;       /* no guess is judged before (doc/protocol.md §5.8) */
	struct pending *queue, *queue_tail;     /* guesses waiting, all clients */
};

struct policy {
	struct chan mon, kh, pr, au;    /* au: the auditor, fd -1 if none */
	struct chan tk;                 /* the broker (token helpers) */
	int audit_on;
	const char *fp_hash;
	long default_lifetime;  /* seconds, <= 0: none */
	struct policy_args args;        /* as keyward started us (wire/args.h) */
	struct idtable ids;
	size_t cut_told;                /* the key count an identity list was
	                                 * last logged as cut at, 0: never */
	struct conn *conns;
	int opened;                     /* a MSG_OPEN came: no start-up rules now */
	struct ruleset *rules;          /* keyward(5); NULL: none (allow) */
	uint64_t rules_gen;             /* changes with every rules load */
	struct listcache lc;            /* the list answer lent the monitor */
	struct remembered *remembered;  /* approvals a rule's remember= keeps */
	struct pending *pending;
	size_t npending;
	/* Confirm requests waiting for a prompt of their forwarding host
	 * (P_CONFIRM_WAIT, sign.c), in arrival order. */
	struct pending *prompt_wait, *prompt_wait_tail;
	/* The request whose effect is not known until the keyholder or the
	 * broker answers (an F_BARRIER row of dispatch.c: add, PKCS#11 add
	 * and remove, a right unlock); 0: none. Nothing from the monitor is
	 * judged before it ends. Only pending.c sets and lifts it. */
	uint32_t barrier;
	struct lockstate lock;
	struct sessionstate session;    /* keyward-session's facts (session.c) */
	uint32_t next_req;
	uint64_t next_key_id;
	uint64_t next_expiry_ms;
	struct wb out, secret;
	uint8_t rbuf[IPC_MAX_MSG + 1];
};

/* Policy's one clock: CLOCK_BOOTTIME, which counts the time the machine
 * slept, as the reference's key lifetimes do (doc/protocol.md §6.2). */
static inline uint64_t
now_ms(void)
{
	return clock_ms(CLOCK_BOOTTIME);
}

/* dispatch.c: one datagram from each peer; may policy take the next
 * message from the monitor now (no barrier, no peer over its queue)? */
void policy_from_monitor(struct policy *P, const uint8_t *p, size_t n);
void policy_from_keyholder(struct policy *P, const uint8_t *p, size_t n);
void policy_from_prompter(struct policy *P, const uint8_t *p, size_t n);
void policy_from_auditor(struct policy *P, const uint8_t *p, size_t n);
void policy_from_broker(struct policy *P, const uint8_t *p, size_t n);
int policy_may_read_monitor(const struct policy *P);
/* Expire identities, judge queued unlocks, answer delayed replies;
 * returns the poll timeout. */
int policy_timers(struct policy *P);

/* Replies and sends to the other processes (dispatch.c). A peer that is
 * gone ends policy: the agent fails closed. */
void send_to(struct chan *c, struct wb *w, const char *peer);
void reply_status(struct policy *P, uint32_t conn, uint32_t req, uint8_t st);
struct conn *conn_find(struct policy *P, uint32_t id);
void audit_simple(struct policy *P, const char *event, const char *decision,
    const char *reason, const struct conn *c, const struct identity *id);

struct ruleset;                 /* rules/rules.h */
struct remembered;              /* policy/ruling.c */

/* lock.c */
int lock_set(struct lockstate *l, struct slice pass);
int lock_check(const struct lockstate *l, struct slice pass);
/* Judge the first queued unlock if its time has come; the poll timeout
 * until the next one, or -1. */
int lock_judge(struct policy *P, uint64_t now);
void lock_done(struct policy *P, struct pending *p, int ok);

/* keys.c, add.c */
void keys_expire(struct policy *P);
void keys_add_done(struct policy *P, struct pending *p, struct slice pub);
void keys_resolved(struct policy *P, struct pending *p, struct slice path);
/* An expiry was set or an identity went: recompute the next one. */
void keys_expiry_changed(struct policy *P);
/* A new identity expiring at expiry_ms (0: never) joined the table. */
void keys_expiry_added(struct policy *P, uint64_t expiry_ms);
/* Is identity id usable at all on connection c (doc/protocol.md §8.4 with u = ANY)? */
int id_visible(const struct identity *id, const struct conn *c,
    struct verdict *v);
/* Why a key a forwarded host added may not serve c (NULL: it may): it
 * serves only connections whose origin is that host (policy/origin.h). */
const char *id_owner_refuses(const struct identity *id, const struct conn *c);
/* The keyholder forgets a key (no answer awaited). */
void kh_delete(struct policy *P, uint64_t key_id);
struct origin;                  /* policy/origin.h */
/* add.c: where an add on connection c comes from, in *o; -1 with *why
 * when it may not be kept (a host keyward cannot name, and no -O
 * allow-remote-add to make the key the user's). */
int add_origin(const struct policy *P, const struct conn *c,
    struct origin *o, const char **why);
/* Record on id who added it (keyward-ctl, prompts, audit) and, unless
 * -O allow-remote-add, make a forwarded host's key that host's own. */
void id_set_added(const struct policy *P, struct identity *id,
    const struct origin *o);

/* sign.c: the next step of a signature once the prompter, the auditor or
 * the keyholder has answered. */
void sign_confirmed(struct policy *P, struct pending *p, int yes);
/* A prompt (confirm or PIN) from origin (its forwarding host's key) has
 * closed: the first request waiting for one that may now open is asked. */
void sign_prompt_ended(struct policy *P, struct slice origin);
/* Ask p->prompt (a PIN prompt if p->pin_asked) now, or once its
 * forwarding host has room (PROMPT_MAX_PER_HOP, PROMPT_MAX_FORWARDED). */
void prompt_or_wait(struct policy *P, struct pending *p);
/* How many requests on list, in one of states (PSTATE bits), come from
 * origin; origin NULL: from any forwarding host. */
size_t held_by(const struct pending *list, unsigned states,
    const struct slice *origin);
void sign_audited(struct policy *P, struct pending *p, int ok);
void sign_signed(struct policy *P, struct pending *p, struct slice sig);

/* host tag for the default socket name (doc/protocol.md §11.3) */
int host_tag_print(void);

#endif
