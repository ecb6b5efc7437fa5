/*
 * jobs.h - the keyholder's queue of signing jobs: one FIFO per client
 * connection, the connections served in turn (jobs.c says how), in two
 * lanes so that a big RSA key never makes an Ed25519 signature wait.
 * Pure data structure: the caller holds the lock and owns the threads.
 */
#ifndef KEYWARD_JOBS_H
#define KEYWARD_JOBS_H

#include <stddef.h>
#include <stdint.h>

enum jq_lane {
	JQ_FAST,        /* Ed25519, ECDSA, RSA up to KEYHOLDER_FAST_RSA_BITS */
	JQ_SLOW,        /* larger RSA keys: KEYHOLDER_SLOW_WORKERS threads */
	JQ_LANES
};

/* Embedded first in the caller's job; conn is the client connection the
 * job is for (any value, 0 included). */
struct jq_node {
	struct jq_node *next;
	uint32_t conn;
};

struct jq_conn;

struct jobq {
	struct {
		/* connections with jobs waiting, in the order they are served */
		struct jq_conn *head;
		struct jq_conn *rested; /* had turn now, no job waiting */
		uint64_t now;           /* the turn of the last job taken */
		int jumped;             /* a newcomer took turn now already */
		size_t njobs;
	} lane[JQ_LANES];
};

void jq_init(struct jobq *q);
/* Queue n behind the other jobs of its connection in lane. A connection
 * that had none goes after those that have not had the current turn yet,
 * before those that have (the first such newcomer of a turn; later ones
 * go to the end). 0, or -1 when out of memory (n is then not queued). */
int jq_push(struct jobq *q, enum jq_lane lane, struct jq_node *n);
/* The oldest job of the connection whose turn it is in lane, or NULL;
 * that connection, if it has more, goes to the end. */
struct jq_node *jq_pop(struct jobq *q, enum jq_lane lane);
/* Free the queue's own bookkeeping; the jobs are the caller's. */
void jq_clear(struct jobq *q);
/* The lane for a key: kind is enum key_kind, rsa_bits its modulus size. */
enum jq_lane jq_lane_for(int kind, unsigned rsa_bits);

#endif
