/*
 * client.c - buffers of one client connection. Never blocks: reads and
 * writes are non-blocking, and a client that stops reading its replies
 * only stops its own requests from being read.
 */
#include "monitor/client.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FRAME_HDR 4

struct client *
client_new(int fd, uint32_t id, uid_t uid, pid_t pid)
{
	struct client *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->fd = fd;
	c->id = id;
	c->uid = uid;
	c->pid = pid;
	wb_init(&c->out);
	for (unsigned i = 0; i < AGENT_MAX_INFLIGHT; i++)
		wb_init(&c->slots[i].reply);
	return c;
}

void
client_free(struct client *c)
{
	if (c->in != NULL) {
		wipe(c->in, c->incap);
		free(c->in);
	}
	wb_free(&c->out);
	for (unsigned i = 0; i < AGENT_MAX_INFLIGHT; i++)
		wb_free(&c->slots[i].reply);
	close(c->fd);
	free(c);
}

static int
in_reserve(struct client *c, size_t want)
{
	size_t cap = c->incap ? c->incap : 4096;
	uint8_t *n;

	if (want <= c->incap)
		return 0;
	while (cap < want)
		cap *= 2;
	if (cap > FRAME_HDR + AGENT_MAX_FRAME)
		cap = FRAME_HDR + AGENT_MAX_FRAME;
	if (cap < want || (n = malloc(cap)) == NULL)
		return -1;
	if (c->in != NULL) {
		memcpy(n, c->in, c->inlen);
		wipe(c->in, c->incap);
		free(c->in);
	}
	c->in = n;
	c->incap = cap;
	return 0;
}

int
client_read(struct client *c)
{
	size_t room, want = c->inlen + AGENT_READ_CHUNK;
	ssize_t r;

	if (want > FRAME_HDR + AGENT_MAX_FRAME)
		want = FRAME_HDR + AGENT_MAX_FRAME;
	if (in_reserve(c, want) != 0)
		return 0;
	if ((room = c->incap - c->inlen) == 0)
		return 1;               /* a whole frame waits to be handled */
	do {
		r = read(c->fd, c->in + c->inlen, room);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK;
	if (r == 0)
		return 0;
	c->inlen += (size_t)r;
	return 1;
}

int
client_frame(struct client *c, const uint8_t **p, size_t *len)
{
	uint32_t n;

	if (c->inlen < FRAME_HDR)
		return 0;
	n = (uint32_t)c->in[0] << 24 | (uint32_t)c->in[1] << 16 |
	    (uint32_t)c->in[2] << 8 | c->in[3];
	if (n == 0 || n > AGENT_MAX_FRAME)
		return -1;
	if (c->inlen - FRAME_HDR < n)
		return 0;
	*p = c->in + FRAME_HDR;
	*len = n;
	return 1;
}

void
client_consume(struct client *c, size_t len)
{
	size_t used = FRAME_HDR + len;

	memmove(c->in, c->in + used, c->inlen - used);
	wipe(c->in + c->inlen - used, used);
	c->inlen -= used;
}

struct slot *
client_slot(struct client *c, uint32_t req)
{
	struct slot *s;

	if (c->count >= AGENT_MAX_INFLIGHT)
		return NULL;
	s = &c->slots[(c->head + c->count) % AGENT_MAX_INFLIGHT];
	c->count++;
	s->req = req;
	s->done = 0;
	wb_reset(&s->reply);
	return s;
}

struct slot *
client_find_slot(struct client *c, uint32_t req)
{
	for (unsigned i = 0; i < c->count; i++) {
		struct slot *s = &c->slots[(c->head + i) % AGENT_MAX_INFLIGHT];
		if (s->req == req && !s->done)
			return s;
	}
	return NULL;
}

int
client_flush(struct client *c)
{
	ssize_t r;

	while (c->count > 0 && c->slots[c->head].done) {
		struct slot *s = &c->slots[c->head];
		wb_u32(&c->out, (uint32_t)s->reply.len);
		wb_bytes(&c->out, s->reply.p, s->reply.len);
		wb_reset(&s->reply);
		c->head = (c->head + 1) % AGENT_MAX_INFLIGHT;
		c->count--;
	}
	if (c->out.err)
		return -1;
	while (c->outoff < c->out.len) {
		r = write(c->fd, c->out.p + c->outoff, c->out.len - c->outoff);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		c->outoff += (size_t)r;
	}
	wb_reset(&c->out);
	c->outoff = 0;
	return 0;
}

short
client_events(const struct client *c)
{
	short ev = 0;
	int pending_out = c->outoff < c->out.len;

	/* Stop reading while the pipeline is full or replies pile up. */
	if (c->count < AGENT_MAX_INFLIGHT && c->out.len - c->outoff < AGENT_MAX_FRAME)
		ev |= POLLIN;
	if (pending_out)
		ev |= POLLOUT;
	return ev;
}
