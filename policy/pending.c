/*
 * pending.c - the list of requests waiting for another process or for
 * time (the states and their transitions are drawn in pending.h).
 */
#include "ipc/log.h"
#include "policy/dispatch.h"
#include "policy/policy.h"

#include <stdlib.h>

uint32_t
pending_new_id(struct policy *P)
{
	if (++P->next_req == 0)
		P->next_req = 1;        /* 0 marks fire-and-forget requests */
	return P->next_req;
}

struct pending *
pending_new(const struct ctx *c, enum pending_state s)
{
	struct policy *P = c->P;
	struct pending *p = calloc(1, sizeof(*p));

	if (p == NULL)
		fatal("out of memory");
	p->state = s;
	p->conn = c->h.conn;
	p->req = c->h.req;
	p->barrier = c->barrier;
	p->id = pending_new_id(P);
	wb_init(&p->data);
	wb_init(&p->pin);
	wb_init(&p->rule.memo);
	wb_init(&p->origin);
	P->npending++;
	return p;
}

struct pending *
pending_take(struct policy *P, uint32_t id, unsigned states)
{
	for (struct pending **pp = &P->pending; *pp != NULL; pp = &(*pp)->next) {
		struct pending *p = *pp;
		if (p->id == id && (states & PSTATE(p->state))) {
			*pp = p->next;
			p->next = NULL;
			return p;
		}
	}
	return NULL;
}

void
pending_keep(struct policy *P, struct pending *p)
{
	/* A barrier holds the monitor while the request waits for another
	 * process; a wrong unlock waiting to be answered waits for time. */
	if (p->barrier && p->state != P_UNLOCK_DELAY)
		P->barrier = p->id;
	p->next = P->pending;
	P->pending = p;
}

void
pending_free(struct policy *P, struct pending *p)
{
	if (P->barrier == p->id)
		P->barrier = 0;
	purpose_free(&p->purpose);      /* points into data */
	wb_free_secret(&p->data);       /* a passphrase, data to sign, a key */
	wb_free_secret(&p->pin);
	free(p->p11_provider);
	identity_free(p->add);
	ruling_free(&p->rule);
	free(p->prompt);
	free(p->notice);
	wb_free(&p->origin);
	wb_free(&p->keep.certs);
	free(p);
	P->npending--;
}

/* Its requests waiting for a prompt end first, so that a prompt
 * pending_gone closes goes to someone else's. */
static void
gone_prompt_wait(struct policy *P, uint32_t conn)
{
	struct pending **pp, *p, *prev;

	for (pp = &P->prompt_wait, prev = NULL; (p = *pp) != NULL;) {
		if (p->conn != conn) {
			prev = p;
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		if (P->prompt_wait_tail == p)
			P->prompt_wait_tail = prev;
		reply_status(P, p->conn, p->req, ST_FAIL);
		pending_free(P, p);
	}
}

/* Its requests at another process are marked gone and carried to their
 * end; a token's signature is cancelled; an open prompt is closed and
 * its request ends now. */
static void
gone_pending(struct policy *P, uint32_t conn)
{
	struct pending **pp = &P->pending, *p;

	while ((p = *pp) != NULL) {
		if (p->conn != conn) {
			pp = &p->next;
			continue;
		}
		p->gone = 1;
		if (p->state == P_TOKEN || p->state == P_P11_SIGN) {
			/* The broker kills the helper and answers "cancelled". */
			msg_begin(&P->out, MSG_TK_CANCEL, p->id, p->conn);
			send_to(&P->tk, &P->out, "broker");
		}
		if (p->state != P_CONFIRM && p->state != P_PIN) {
			pp = &p->next;
			continue;
		}
		/* A cancelled prompt is never answered: end the request now. */
		*pp = p->next;
		msg_begin(&P->out, MSG_PROMPT_CANCEL, p->id, 0);
		send_to(&P->pr, &P->out, "prompter");
		reply_status(P, p->conn, p->req, ST_FAIL);
		struct wb origin = p->origin;
		wb_init(&p->origin);
		pending_free(P, p);
		/* Its host's next prompt goes in at the head of the list, for
		 * another connection: the walk goes on from *pp either way. */
		sign_prompt_ended(P, wb_slice_of(&origin));
		wb_free(&origin);
	}
}

/* A guess whose client has gone is not judged: nobody would hear the
 * answer, and judging it could still unlock the agent for whoever
 * queued it, then watches from another connection. */
static void
gone_unlocks(struct policy *P, uint32_t conn)
{
	struct pending **pp, *p, *prev;

	for (pp = &P->lock.queue, prev = NULL; (p = *pp) != NULL;) {
		if (p->conn != conn) {
			prev = p;
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		if (P->lock.queue_tail == p)
			P->lock.queue_tail = prev;
		reply_status(P, p->conn, p->req, ST_FAIL);
		pending_free(P, p);
	}
}

void
pending_gone(struct policy *P, uint32_t conn)
{
	gone_prompt_wait(P, conn);
	gone_pending(P, conn);
	gone_unlocks(P, conn);
}
