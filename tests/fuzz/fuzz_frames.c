/*
 * fuzz_frames.c - libFuzzer harness for the monitor's client framing
 * (monitor/client.c): a struct client reads a byte stream from a real
 * socket (client_read), hands out frames (client_frame), drops them
 * (client_consume) and pipelines replies (client_slot, client_find_slot,
 * client_flush), as monitor/loop.c drives it.
 *
 * Input: byte 0 picks the write size (1 << (b % 18) bytes, at least a
 * 64th of the stream) and, with bit 7 set, the compact form of the rest:
 * records of (uint32 length, byte fill), each standing for the frame
 * header of that length followed by that many fill bytes (16 if the
 * length is over the limit), so small inputs reach the 256 KiB limit.
 * Otherwise the rest is the stream itself. The loop is the monitor's: it
 * reads only while client_events asks for POLLIN, takes frames while the
 * pipeline has room, answers some requests at once (as a refusal) and the
 * others later in any order (as policy), and the peer reads its replies
 * only every other turn, some of them 4 KiB, through small socket buffers,
 * so back-pressure happens.
 *
 * Checked against an independent reading of the stream: every frame
 * handed out is the next one of the stream, whole, inside the buffer; a
 * zero-length or oversized length is refused (-1) exactly where it
 * stands; nothing is handed out past it; at EOF what is left is exactly
 * the unfinished tail; every reply comes out once, in request order.
 */
#include "tests/fuzz/fuzz.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "monitor/client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* one frame at the limit, and what follows it */
#define STREAM_MAX (4 + AGENT_MAX_FRAME + 4096)

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The stream the input stands for, into w. */
static void
make_stream(const uint8_t *p, size_t n, int compact, struct wb *w)
{
	uint8_t fill[256];

	if (!compact) {
		wb_bytes(w, p, n);
		return;
	}
	for (; n >= 5 && w->len < STREAM_MAX; p += 5, n -= 5) {
		uint32_t len = be32(p);
		size_t body = len <= AGENT_MAX_FRAME ? len : 16;
		wb_bytes(w, p, 4);
		memset(fill, p[4], sizeof(fill));
		for (size_t i = 0; i < body && w->len < STREAM_MAX; i += sizeof(fill))
			wb_bytes(w, fill, body - i < sizeof(fill) ? body - i : sizeof(fill));
	}
	wb_bytes(w, p, n);      /* an unfinished record stays raw */
}

/* Non-blocking, with small socket buffers so that both directions fill up
 * (short writes, EAGAIN) with little data. */
static void
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL), sz = 8192;

	CHECK(fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0);
	CHECK(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) == 0);
	CHECK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)) == 0);
}

struct run {
	struct client *c;
	int peer;
	struct wb expect;       /* every reply frame, in request order */
	size_t *off;            /* where reply i starts in expect */
	size_t nreq, cap;
	size_t big;             /* bytes of large replies so far */
	struct wb got;          /* what the peer read */
};

#define BIG_REPLY (4 * 1024)
#define BIG_TOTAL (64 * 1024)

/* The reply to request i: its number, the first 4 bytes of its frame
 * (zero-padded) and, for a frame whose first byte is odd, 4 KiB more, so
 * that replies pile up in the (small) socket buffers and the client's
 * output buffer. */
static void
expect_reply(struct run *R, const uint8_t *frame, size_t len)
{
	uint8_t head[4] = { 0 }, fill[256];
	size_t extra = 0;

	if (R->nreq == R->cap) {
		R->cap = R->cap ? 2 * R->cap : 64;
		CHECK((R->off = realloc(R->off, R->cap * sizeof(*R->off))) != NULL);
	}
	if ((frame[0] & 1) && R->big < BIG_TOTAL) {
		extra = BIG_REPLY;
		R->big += extra;
	}
	memcpy(head, frame, len < 4 ? len : 4);
	memset(fill, (int)(R->nreq & 0xff), sizeof(fill));
	R->off[R->nreq] = R->expect.len;
	wb_u32(&R->expect, (uint32_t)(8 + extra));
	wb_u32(&R->expect, (uint32_t)R->nreq);
	wb_bytes(&R->expect, head, 4);
	for (size_t i = 0; i < extra; i += sizeof(fill))
		wb_bytes(&R->expect, fill, sizeof(fill));
	R->nreq++;
}

static void
drain(struct run *R)
{
	uint8_t buf[65536];
	ssize_t r;

	while ((r = read(R->peer, buf, sizeof(buf))) > 0)
		wb_bytes(&R->got, buf, (size_t)r);
	CHECK(r == 0 || errno == EAGAIN || errno == EWOULDBLOCK);
}

/* Finish request req (in flight) with its reply. */
static void
complete(struct run *R, uint32_t req)
{
	struct slot *s = client_find_slot(R->c, req);
	const uint8_t *e;

	CHECK(s != NULL && s->req == req && !s->done && req < R->nreq);
	e = R->expect.p + R->off[req];
	wb_bytes(&s->reply, e + 4, be32(e));
	client_done(R->c, s);
	CHECK(client_find_slot(R->c, req) == NULL);
}

/* Policy answers some of the requests in flight, in any order: those
 * whose number plus the turn is a multiple of 3, and the oldest one when
 * the pipeline is full. */
static void
answer(struct run *R, unsigned turn)
{
	struct client *c = R->c;

	for (unsigned i = 0; i < c->count; i++) {
		struct slot *s = &c->slots[(c->head + i) % AGENT_MAX_INFLIGHT];
		if (!s->done && (s->req + turn) % 3 == 0)
			complete(R, s->req);
	}
	if (c->count >= AGENT_MAX_INFLIGHT && !c->slots[c->head].done)
		complete(R, c->slots[c->head].req);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run R;
	struct wb stream;
	const uint8_t *fp;
	size_t flen, off = 0, model = 0, chunk;
	int sv[2], eof_sent = 0, eof_seen = 0, stall = 0;
	unsigned turn = 0;

	if (size == 0)
		return 0;
	wb_init(&stream);
	make_stream(data + 1, size - 1, data[0] & 0x80, &stream);
	CHECK(!stream.err);
	chunk = (size_t)1 << (data[0] % 18);
	if (chunk < stream.len / 64 + 1)
		chunk = stream.len / 64 + 1;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	set_nonblock(sv[0]);
	set_nonblock(sv[1]);
	memset(&R, 0, sizeof(R));
	CHECK((R.c = client_new(sv[0], 1, 0, 0)) != NULL);
	R.peer = sv[1];
	wb_init(&R.expect);
	wb_init(&R.got);

	for (;; turn++) {
		size_t before_in = R.c->inlen, before_off = off, before_req = R.nreq;
		size_t before_got = R.got.len;
		int f = 0, rd = 1;

		if (turn % 5 == 4) {
			/* nothing new this turn: the read finds nothing */
		} else if (off < stream.len) {
			size_t n = stream.len - off < chunk ? stream.len - off : chunk;
			ssize_t w = write(sv[1], stream.p + off, n);
			CHECK(w > 0 || errno == EAGAIN || errno == EWOULDBLOCK);
			if (w > 0)
				off += (size_t)w;
		} else if (!eof_sent) {
			CHECK(shutdown(sv[1], SHUT_WR) == 0);
			eof_sent = 1;
		}
		/* as the monitor's loop: a frame over the inline buffer gets
		 * a buffer of its own (the budget always allows it here) */
		if (client_need(R.c) > 0) {
			CHECK(client_grow(R.c) == 0);
			CHECK(client_need(R.c) == 0 && R.c->big != NULL);
		}
		/* read only when it wants POLLIN */
		if (!eof_seen && (client_events(R.c) & POLLIN)) {
			rd = client_read(R.c);
			CHECK(R.c->inlen <= R.c->incap && R.c->incap <= 4 + AGENT_MAX_FRAME);
			if (rd == 0) {
				/* EOF: every byte was written and read */
				CHECK(eof_sent && off == stream.len);
				eof_seen = 1;
			}
		}
		CHECK(model + R.c->inlen <= off);

		/* monitor/loop.c dispatch_one */
		while (R.c->count < AGENT_MAX_INFLIGHT &&
		    (f = client_frame(R.c, &fp, &flen)) == 1) {
			uint32_t want;
			struct slot *sl;
			/* the model: the next frame of the stream is whole */
			CHECK(model + 4 <= stream.len);
			want = be32(stream.p + model);
			CHECK(want >= 1 && want <= AGENT_MAX_FRAME);
			CHECK(flen == want && model + 4 + flen <= off);
			CHECK(fp == R.c->in + 4 && 4 + flen <= R.c->inlen);
			CHECK(memcmp(fp, stream.p + model + 4, flen) == 0);
			CHECK((sl = client_slot(R.c, (uint32_t)R.nreq)) != NULL);
			expect_reply(&R, fp, flen);
			/* refused at the edge: answered at once */
			if (fp[0] % 4 == 0)
				complete(&R, sl->req);
			client_consume(R.c, flen);
			model += 4 + flen;
		}
		if (R.c->count >= AGENT_MAX_INFLIGHT)
			CHECK(client_slot(R.c, 0xffffffffU) == NULL);
		if (f == -1) {
			/* refused exactly where a bad length stands */
			uint32_t n;
			CHECK(R.c->inlen >= 4);
			n = be32(stream.p + model);
			CHECK(n == 0 || n > AGENT_MAX_FRAME);
			break;
		}
		if (R.c->count < AGENT_MAX_INFLIGHT && R.c->inlen >= 4) {
			/* no whole frame: the model agrees */
			uint32_t n = be32(stream.p + model);
			CHECK(n >= 1 && n <= AGENT_MAX_FRAME);
			CHECK(4 + (size_t)n > R.c->inlen);
		}
		answer(&R, turn);
		CHECK(client_flush(R.c, turn) == 0);
		if (turn & 1)
			drain(&R);      /* a client slow to read its replies */
		if (eof_seen && R.c->count < AGENT_MAX_INFLIGHT) {
			/* what is left is exactly the unfinished tail */
			CHECK(R.c->inlen == stream.len - model);
			CHECK(R.c->inlen == 0 ||
			    memcmp(R.c->in, stream.p + model, R.c->inlen) == 0);
			break;
		}
		if (R.c->inlen != before_in || off != before_off ||
		    R.nreq != before_req || R.got.len != before_got)
			stall = 0;
		CHECK(++stall < 1000);
	}

	/* answer everything still in flight; every reply arrives, in order */
	while (R.c->count > 0 || (client_events(R.c) & POLLOUT)) {
		if (R.c->count > 0 && !R.c->slots[R.c->head].done)
			complete(&R, R.c->slots[R.c->head].req);
		CHECK(client_flush(R.c, turn) == 0);
		drain(&R);
	}
	drain(&R);
	CHECK(R.got.len == R.expect.len &&
	    (R.got.len == 0 || memcmp(R.got.p, R.expect.p, R.got.len) == 0));

	client_free(R.c);               /* closes sv[0] */
	close(sv[1]);
	free(R.off);
	wb_free(&R.expect);
	wb_free(&R.got);
	wb_free(&stream);
	return 0;
}
