/*
 * test_replynow.c - when the monitor writes a client's answer
 * (monitor/clients.c clients_reply): a client with one request in flight
 * (ssh-add, ssh) has it written as policy's reply is read, before the
 * monitor reads policy's channel again; a pipeline's answers still wait
 * and leave together, in order, in one write. Requests go through
 * clients_dispatch to a socket pair standing for policy, answers come
 * back through clients_reply, and the client's end is read as it would.
 */
#include "ipc/clock.h"
#include "monitor/client.h"
#include "monitor/monitor.h"
#include "tests/unit/tap.h"
#include "wire/monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int pol;                 /* policy's end of M.policy */
static int cli;                 /* the client's end of its connection */

static void
die(const char *what)
{
	perror(what);
	exit(1);
}
static void
setup(void)
{
	struct client *c;
	int sp[2], sc[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sc) != 0)
		die("socketpair");
	chan_init(&M.policy, sp[0]);
	pol = sp[1];
	cli = sc[1];
	wb_init(&M.ipc);
	M.peer_fd = -1;
	M.maxclients = 4;
	if ((M.clients = calloc(M.maxclients, sizeof(*M.clients))) == NULL ||
	    (c = client_new(sc[0], 1, getuid(), getpid())) == NULL)
		die("out of memory");
	c->whois.state = WHOIS_DONE;    /* its caller is known */
	M.clients[M.nclients++] = c;
}

/* The client sends n REMOVE_ALL requests (answered by a status) in one
 * write; the monitor reads and dispatches them. The request ids policy
 * got go to req[]; how many it got. */
static int
send_requests(int n, uint32_t *req)
{
	static const uint8_t frame[] = { 0, 0, 0, 1, 19 };
	uint8_t buf[IPC_MAX_MSG];
	struct msg_hdr h;
	struct rd r;
	ssize_t len;
	int got = 0;

	for (int i = 0; i < n; i++)
		if (write(cli, frame, sizeof(frame)) != (ssize_t)sizeof(frame))
			die("write");
	if (!client_read(M.clients[0]))
		die("client_read");
	clients_dispatch();
	while ((len = recv(pol, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		rd_init(&r, buf, (size_t)len);
		if (msg_hdr_decode(&r, &h) == 0 && h.type == MSG_REMOVE_ALL &&
		    got < n)
			req[got++] = h.req;
	}
	return got;
}

/* Policy's success for request req, as the monitor reads it. */
static void
answer(uint32_t req)
{
	struct wb w;

	wb_init(&w);
	msg_status_reply(&w, req, M.clients[0]->id, ST_OK);
	clients_reply(w.p, w.len);
	wb_free(&w);
}

/* What the client can read now, without waiting: its length. */
static ssize_t
client_has(uint8_t *buf, size_t cap)
{
	ssize_t n = recv(cli, buf, cap, MSG_DONTWAIT);

	return n < 0 ? 0 : n;
}

int
main(void)
{
	static const uint8_t ok1[] = { 0, 0, 0, 1, 6 };
	static const uint8_t ok2[] = { 0, 0, 0, 1, 6, 0, 0, 0, 1, 6 };
	uint8_t buf[64];
	uint32_t req[2];
	ssize_t n;

	setup();

	is_int(send_requests(1, req), 1, "one request: at policy");
	answer(req[0]);
	n = client_has(buf, sizeof(buf));
	ok(n == (ssize_t)sizeof(ok1) && memcmp(buf, ok1, sizeof(ok1)) == 0,
	    "its answer is written as policy's reply is read (%zd bytes)", n);
	is_int(M.clients[0]->count, 0, "nothing is left in flight");

	is_int(send_requests(2, req), 2, "a pipeline of two: both at policy");
	answer(req[0]);
	ok(client_has(buf, sizeof(buf)) == 0,
	    "the first answer waits for the rest of the pipeline");
	answer(req[1]);
	ok(client_has(buf, sizeof(buf)) == 0,
	    "the second too, until the loop writes them");
	clients_flush(M.clients[0], clock_mono_ms());
	n = client_has(buf, sizeof(buf));
	ok(n == (ssize_t)sizeof(ok2) && memcmp(buf, ok2, sizeof(ok2)) == 0,
	    "then both leave in one write, in order (%zd bytes)", n);

	is_int(send_requests(1, req), 1, "after the pipeline, one request");
	answer(req[0]);
	ok(client_has(buf, sizeof(buf)) == (ssize_t)sizeof(ok1),
	    "is answered at once again");

	return done_testing();
}
