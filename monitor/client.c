/*
 * client.c - buffers of one client connection. Never blocks: reads and
 * writes are non-blocking, and a client that stops reading its replies
 * only stops its own requests from being taken.
 */
#include "monitor/client.h"
#include "ipc/clock.h"

#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FRAME_HDR 4

struct client *
client_new(int fd, uint32_t id, uid_t uid, pid_t pid)
{
	/* Everything but the inline input buffer is zeroed: most requests
	 * fill a few hundred bytes of its 8 KiB, and with 64 connections
	 * open, zeroing all of it (calloc) kept some 4 KiB a connection
	 * resident for nothing. No byte of it is read before it is written
	 * (inlen), and every byte written is wiped (inline_hw). */
	struct client *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	memset(c, 0, offsetof(struct client, inline_in));
	c->fd = fd;
	c->id = id;
	c->uid = uid;
	c->pid = pid;
	c->in = c->inline_in;
	c->incap = sizeof(c->inline_in);
	c->whois.pidfd = -1;
	wb_init(&c->out);
	for (unsigned i = 0; i < AGENT_MAX_INFLIGHT; i++)
		wb_init(&c->slots[i].reply);
	return c;
}

static void
big_free(struct client *c)
{
	if (c->big == NULL)
		return;
	wipe(c->big, c->incap);
	free(c->big);
	c->big = NULL;
}

/* The inline buffer's bytes hold at most inline_hw bytes ever written. */
static void
inline_mark(struct client *c)
{
	if (c->in == c->inline_in && c->inlen > c->inline_hw)
		c->inline_hw = c->inlen;
}

void
client_free(struct client *c)
{
	wipe(c->inline_in, c->inline_hw);
	big_free(c);
	wb_free(&c->out);
	for (unsigned i = 0; i < AGENT_MAX_INFLIGHT; i++)
		wb_free(&c->slots[i].reply);
	close(c->fd);
	free(c);
}

/* The frame length at the head of the input; the callers hold
 * FRAME_HDR bytes at least. */
static uint32_t
head_len(const struct client *c)
{
	struct rd r;
	uint32_t n;

	rd_init(&r, c->in, FRAME_HDR);
	return rd_u32(&r, &n) == 0 ? n : 0;
}

int
client_read(struct client *c)
{
	size_t room = c->incap - c->inlen;
	ssize_t r;

	if (room == 0)
		return 1;               /* a whole frame waits, or client_need */
	do {
		r = read(c->fd, c->in + c->inlen, room);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK;
	if (r == 0)
		return 0;
	c->inlen += (size_t)r;
	inline_mark(c);
	return 1;
}

int
client_frame(struct client *c, const uint8_t **p, size_t *len)
{
	uint32_t n;

	if (c->inlen < FRAME_HDR)
		return 0;
	n = head_len(c);
	if (n == 0 || n > AGENT_MAX_FRAME)
		return -1;
	if (c->inlen - FRAME_HDR < n)
		return 0;
	*p = c->in + FRAME_HDR;
	*len = n;
	return 1;
}

size_t
client_need(const struct client *c)
{
	uint32_t n;

	if (c->inlen < FRAME_HDR || (n = head_len(c)) == 0 || n > AGENT_MAX_FRAME ||
	    FRAME_HDR + (size_t)n <= c->incap)
		return 0;
	return FRAME_HDR + (size_t)n;
}

int
client_grow(struct client *c)
{
	size_t need = client_need(c);
	uint8_t *n;

	if (need == 0)
		return 0;
	if ((n = malloc(need)) == NULL)
		return -1;
	memcpy(n, c->in, c->inlen);
	if (c->big != NULL)
		big_free(c);
	else
		wipe(c->inline_in, c->inline_hw);
	c->big = c->in = n;
	c->incap = need;
	return 0;
}

void
client_consume(struct client *c, size_t len)
{
	size_t used = FRAME_HDR + len;

	memmove(c->in, c->in + used, c->inlen - used);
	wipe(c->in + c->inlen - used, used);
	c->inlen -= used;
	/* The next frame's bytes came with this one's: its time starts now. */
	c->frame_ms = c->inlen > 0 ? clock_ms(CLOCK_MONOTONIC) : 0;
	if (c->big != NULL && c->inlen <= sizeof(c->inline_in)) {
		memcpy(c->inline_in, c->in, c->inlen);
		big_free(c);
		c->in = c->inline_in;
		c->incap = sizeof(c->inline_in);
		inline_mark(c);
	}
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
	s->fence = 0;
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

void
client_done(struct client *c, struct slot *s)
{
	s->done = 1;
	if (s->fence) {
		s->fence = 0;
		c->fences--;
	}
}

size_t
client_unsent(const struct client *c)
{
	return c->out.len - c->outoff;
}

size_t
client_held(const struct client *c)
{
	size_t n = (c->big != NULL ? c->incap : 0) + c->out.cap;

	for (unsigned i = 0; i < c->count; i++)
		n += c->slots[(c->head + i) % AGENT_MAX_INFLIGHT].reply.cap;
	return n;
}

int
client_flush(struct client *c, uint64_t now_ms)
{
	ssize_t r;

	/* One batch at a time: replies join the output only once the last
	 * batch is written, so a client that does not read holds at most
	 * its pipeline's replies. */
	if (c->outoff == c->out.len) {
		wb_reset(&c->out);
		c->outoff = 0;
		while (c->count > 0 && c->slots[c->head].done) {
			struct slot *s = &c->slots[c->head];
			wb_u32(&c->out, (uint32_t)s->reply.len);
			wb_bytes(&c->out, s->reply.p, s->reply.len);
			wb_free(&s->reply);
			c->head = (c->head + 1) % AGENT_MAX_INFLIGHT;
			c->count--;
		}
		if (c->out.err)
			return -1;
	}
	while (c->outoff < c->out.len) {
		r = write(c->fd, c->out.p + c->outoff, c->out.len - c->outoff);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		c->outoff += (size_t)r;
		c->last_ms = now_ms;
	}
	wb_free(&c->out);       /* an idle client keeps no output buffer */
	c->outoff = 0;
	return 0;
}

short
client_events(const struct client *c)
{
	short ev = 0;

	if (c->inlen < c->incap)
		ev |= POLLIN;
	if (client_unsent(c) > 0)
		ev |= POLLOUT;
	return ev;
}
