/*
 * whoisq.c - the connections waiting for keyward-peer's answer (whoisq.h):
 * a FIFO threaded through the clients themselves, so a flood costs one
 * fd (the pidfd) per waiting client and no allocation, and a fixed table
 * of PEER_MAX_QUEUE requests at the inspector. Trusts nothing about the
 * ids the inspector answers with: an unknown id is reported, not assumed.
 */
#include "monitor/whoisq.h"

#include <string.h>

void
whoisq_init(struct whoisq *q)
{
	memset(q, 0, sizeof(*q));
}

void
whoisq_push(struct whoisq *q, struct whois_item *it, uint32_t conn, uint32_t pid,
    uint32_t uid, int pidfd, uint64_t deadline)
{
	it->conn = conn;
	it->pid = pid;
	it->uid = uid;
	it->req = 0;
	it->pidfd = pidfd;
	it->deadline = deadline;
	it->state = WHOIS_WAITING;
	it->next = NULL;
	it->prev = q->tail;
	if (q->tail != NULL)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
	q->nwait++;
	q->nfds += pidfd >= 0;
}

struct whois_item *
whoisq_next(const struct whoisq *q)
{
	return q->nout < PEER_MAX_QUEUE ? q->head : NULL;
}

static int
unlink_item(struct whoisq *q, struct whois_item *it)
{
	int fd = it->pidfd;

	if (it->prev != NULL)
		it->prev->next = it->next;
	else
		q->head = it->next;
	if (it->next != NULL)
		it->next->prev = it->prev;
	else
		q->tail = it->prev;
	it->prev = it->next = NULL;
	it->pidfd = -1;
	q->nwait--;
	q->nfds -= fd >= 0;
	return fd;
}

uint32_t
whoisq_next_id(const struct whoisq *q)
{
	return q->next_req + 1 != 0 ? q->next_req + 1 : 1;
}

uint32_t
whoisq_sent(struct whoisq *q, int *pidfd)
{
	struct whois_item *it = q->head;
	size_t i;

	*pidfd = unlink_item(q, it);
	q->next_req = whoisq_next_id(q);
	for (i = 0; q->out[i].req != 0; i++)
		;                       /* whoisq_next() said there is room */
	q->out[i] = (struct whois_out){ q->next_req, it };
	q->nout++;
	it->req = q->next_req;
	it->state = WHOIS_OUT;
	return it->req;
}

static struct whois_out *
find_out(struct whoisq *q, uint32_t req)
{
	for (size_t i = 0; req != 0 && i < PEER_MAX_QUEUE; i++)
		if (q->out[i].req == req)
			return &q->out[i];
	return NULL;
}

int
whoisq_answer(struct whoisq *q, uint32_t req, struct whois_item **it)
{
	struct whois_out *o = find_out(q, req);

	*it = NULL;
	if (o == NULL)
		return 0;
	if ((*it = o->it) != NULL) {
		(*it)->state = WHOIS_DONE;
		(*it)->req = 0;
	}
	*o = (struct whois_out){ 0, NULL };
	q->nout--;
	return 1;
}

int
whoisq_forget(struct whoisq *q, struct whois_item *it)
{
	struct whois_out *o;
	int fd = -1;

	if (it->state == WHOIS_WAITING)
		fd = unlink_item(q, it);
	else if (it->state == WHOIS_OUT && (o = find_out(q, it->req)) != NULL)
		o->it = NULL;   /* the answer, when it comes, is discarded */
	it->state = WHOIS_DONE;
	it->req = 0;
	return fd;
}

struct whois_item *
whoisq_expired(const struct whoisq *q, uint64_t now)
{
	/* The FIFO is in deadline order: its head is the earliest. */
	if (q->head != NULL && q->head->deadline <= now)
		return q->head;
	for (size_t i = 0; i < PEER_MAX_QUEUE; i++)
		if (q->out[i].it != NULL && q->out[i].it->deadline <= now)
			return q->out[i].it;
	return NULL;
}

uint64_t
whoisq_deadline(const struct whoisq *q)
{
	uint64_t d = q->head != NULL ? q->head->deadline : UINT64_MAX;

	for (size_t i = 0; i < PEER_MAX_QUEUE; i++)
		if (q->out[i].it != NULL && q->out[i].it->deadline < d)
			d = q->out[i].it->deadline;
	return d;
}

void
whoisq_flush(struct whoisq *q, void (*release)(struct whois_item *, int, void *),
    void *arg)
{
	struct whois_item *it;
	int fd;

	while ((it = q->head) != NULL) {
		fd = whoisq_forget(q, it);
		release(it, fd, arg);
	}
	for (size_t i = 0; i < PEER_MAX_QUEUE; i++) {
		if ((it = q->out[i].it) != NULL) {
			it->state = WHOIS_DONE;
			it->req = 0;
			release(it, -1, arg);
		}
		q->out[i] = (struct whois_out){ 0, NULL };
	}
	q->nout = 0;
}
