/*
 * jobs.c - fair queuing by connection, per lane. Each connection with jobs
 * waiting has its own FIFO and a turn number; a worker always takes from
 * the connection with the lowest turn, the longest waiting among equals,
 * and that connection's next turn is one more. A connection that joins
 * gets the current turn, so it goes ahead of every connection that has
 * already had it: 16 jobs piped in on one connection delay a newcomer by
 * no more than the jobs being signed, one per worker. Only one newcomer
 * a turn may jump that way (the others take the next turn, at the end),
 * or a stream of fresh connections could keep the turn from ever moving
 * on and starve those waiting for the next one. A connection whose
 * queue ran dry is remembered until the turn moves on, so that taking
 * each job as soon as it arrives does not make it a newcomer again.
 * Trusts its caller (the keyholder's main thread and workers, under one
 * mutex).
 *
 * Every connection in a lane's list has turn now or now + 1, in that
 * order, so the list stays sorted with no search but the insertion point.
 */
#include "keyholder/jobs.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"

#include <stdlib.h>

struct jq_conn {
	struct jq_conn *next;
	uint32_t conn;
	uint64_t turn;
	struct jq_node *head, *tail;
};

/* A connection with no job waiting that has had the current turn is
 * remembered until the turn moves on: if it sends another job meanwhile,
 * it comes back with the next turn, not as a newcomer. */
static struct jq_conn *
unrest(struct jobq *q, enum jq_lane lane, uint32_t conn)
{
	struct jq_conn **pp, *c;

	for (pp = &q->lane[lane].rested; (c = *pp) != NULL; pp = &c->next)
		if (c->conn == conn) {
			*pp = c->next;
			return c;
		}
	return NULL;
}

static void
forget_rested(struct jobq *q, enum jq_lane lane)
{
	struct jq_conn *c, *next;

	for (c = q->lane[lane].rested; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	q->lane[lane].rested = NULL;
}

void
jq_init(struct jobq *q)
{
	for (int l = 0; l < JQ_LANES; l++) {
		q->lane[l].head = NULL;
		q->lane[l].rested = NULL;
		q->lane[l].now = 0;
		q->lane[l].jumped = 0;
		q->lane[l].njobs = 0;
	}
}

int
jq_push(struct jobq *q, enum jq_lane lane, struct jq_node *n)
{
	struct jq_conn *c, **at = NULL, **pp;

	/* Linear: the list holds only the connections with jobs waiting in
	 * this lane, and a step of the search costs nanoseconds where the
	 * job it queues costs a signature. */
	for (pp = &q->lane[lane].head; (c = *pp) != NULL; pp = &c->next) {
		if (c->conn == n->conn)
			break;
		if (at == NULL && c->turn > q->lane[lane].now)
			at = pp;        /* first one that already had this turn */
	}
	if (c == NULL && (c = unrest(q, lane, n->conn)) != NULL) {
		*pp = c;                /* had this turn: the end */
		c->next = NULL;
	}
	if (c == NULL) {
		if ((c = calloc(1, sizeof(*c))) == NULL)
			return -1;
		c->conn = n->conn;
		c->turn = q->lane[lane].now;
		if (at != NULL && q->lane[lane].jumped)
			c->turn++;      /* the jump of this turn is taken */
		if (at != NULL && c->turn == q->lane[lane].now)
			q->lane[lane].jumped = 1;
		else
			at = pp;        /* the end */
		c->next = *at;
		*at = c;
	}
	n->next = NULL;
	if (c->tail != NULL)
		c->tail->next = n;
	else
		c->head = n;
	c->tail = n;
	q->lane[lane].njobs++;
	return 0;
}

struct jq_node *
jq_pop(struct jobq *q, enum jq_lane lane)
{
	struct jq_conn *c = q->lane[lane].head, **pp;
	struct jq_node *n;

	if (c == NULL)
		return NULL;
	n = c->head;
	if ((c->head = n->next) == NULL)
		c->tail = NULL;
	n->next = NULL;
	q->lane[lane].njobs--;
	if (c->turn != q->lane[lane].now) {
		q->lane[lane].now = c->turn;    /* a new turn: one may jump again */
		q->lane[lane].jumped = 0;
		forget_rested(q, lane);
	}
	c->turn++;
	q->lane[lane].head = c->next;
	if (c->head == NULL) {
		c->next = q->lane[lane].rested;
		q->lane[lane].rested = c;
		return n;
	}
	/* its next turn comes after everyone's current one: the end */
	for (pp = &q->lane[lane].head; *pp != NULL; pp = &(*pp)->next)
		;
	c->next = NULL;
	*pp = c;
	return n;
}

void
jq_clear(struct jobq *q)
{
	struct jq_conn *c, *next;

	for (int l = 0; l < JQ_LANES; l++) {
		forget_rested(q, (enum jq_lane)l);
		for (c = q->lane[l].head; c != NULL; c = next) {
			next = c->next;
			free(c);
		}
	}
	jq_init(q);
}

enum jq_lane
jq_lane_for(int kind, unsigned rsa_bits)
{
	return kind == KEY_RSA && rsa_bits > KEYHOLDER_FAST_RSA_BITS ?
	    JQ_SLOW : JQ_FAST;
}
