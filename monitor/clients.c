/*
 * clients.c - the monitor's clients: accepting them, taking their
 * requests one per client per round, writing their replies, and the
 * budgets (ipc/limits.h) on what they make the agent hold. A spent
 * budget stops taking requests from whoever holds the most; only a
 * client that makes no progress is closed.
 */
#include "ipc/clock.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "wire/monitor.h"
#include "monitor/whois.h"
#include "monitor/monitor.h"
#include "monitor/proto.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ------------------------------------------------ what clients hold */

static size_t
big_of(const struct client *c)
{
	return c->big != NULL ? c->incap : 0;
}

/* Keep M.held and M.big_in equal to the sums over all clients: call
 * with what the client held before an operation on it. */
static void
account(const struct client *c, size_t held_before, size_t big_before)
{
	M.held = M.held - held_before + client_held(c);
	M.big_in = M.big_in - big_before + big_of(c);
}

/* The flight table: open addressing on the request id, which never is 0
 * and is unique among the MONITOR_MAX_INFLIGHT requests in flight. */
static void
flight_add(uint32_t req, size_t bytes, int add)
{
	size_t i = req % FLIGHT_SLOTS;

	while (M.flight[i].req != 0)
		i = (i + 1) % FLIGHT_SLOTS;
	M.flight[i] = (struct flight){ req, (uint32_t)bytes, add };
	M.inflight++;
	M.inflight_bytes += bytes;
	M.inflight_adds += add != 0;
}

static void
flight_done(uint32_t req)
{
	size_t i = req % FLIGHT_SLOTS, j;

	for (size_t n = 0; M.flight[i].req != req; n++, i = (i + 1) % FLIGHT_SLOTS)
		if (M.flight[i].req == 0 || n == FLIGHT_SLOTS)
			peer_broke("keyward-policy", "an answer to request %u, which is "
			    "not in flight", req);
	M.inflight--;
	M.inflight_bytes -= M.flight[i].bytes;
	M.inflight_adds -= M.flight[i].add != 0;
	M.flight[i].req = 0;
	/* Close the gap: move up every later entry of the run that could
	 * not sit in its own place (deletion in linear probing). */
	for (j = (i + 1) % FLIGHT_SLOTS; M.flight[j].req != 0; j = (j + 1) % FLIGHT_SLOTS) {
		size_t home = M.flight[j].req % FLIGHT_SLOTS;
		/* it may move to i if i lies (cyclically) in [home, j) */
		if ((i + FLIGHT_SLOTS - home) % FLIGHT_SLOTS <
		    (j + FLIGHT_SLOTS - home) % FLIGHT_SLOTS) {
			M.flight[i] = M.flight[j];
			M.flight[j].req = 0;
			i = j;
		}
	}
}

/* Is the client waiting on its own peer (partial frame, unsent reply)? */
int
clients_waiting(const struct client *c)
{
	const uint8_t *p;
	size_t len;

	return client_unsent(c) > 0 ||
	    (c->inlen > 0 && client_frame((struct client *)c, &p, &len) == 0);
}

static void
drop_client(size_t i)
{
	struct client *c = M.clients[i];

	M.held -= client_held(c);
	M.big_in -= big_of(c);
	msg_begin(&M.ipc, MSG_CLOSE, 0, c->id);
	monitor_send(&M.ipc);
	whois_forget(c);
	client_free(c);
	M.clients[i] = M.clients[--M.nclients];
	if (M.rr > M.nclients)
		M.rr = 0;
}

void
clients_sweep(void)
{
	for (size_t i = M.nclients; i-- > 0;)
		if (M.clients[i]->dead)
			drop_client(i);
}

void
clients_flush(struct client *c, uint64_t now)
{
	size_t h, b;

	if (client_unsent(c) == 0 && (c->count == 0 || !c->slots[c->head].done))
		return;                 /* nothing to write */
	h = client_held(c);
	b = big_of(c);
	if (client_flush(c, now) != 0)
		c->dead = 1;
	account(c, h, b);
	if (clients_waiting(c))
		M.watch = 1;
}

/* ------------------------------------------------ accepting */

/*
 * Connections counted per peer pid, for shedding: open addressing over
 * twice the connection limit, so one pass over the clients counts them
 * all and one more picks the candidate (linear in the clients; a count
 * per client by another pass over all of them was quadratic, and the
 * loop asks at every round while the agent is full). A slot is empty
 * unless it carries the current pass's generation: nothing to clear.
 */
struct pidcount {
	pid_t pid;
	uint32_t n;
	uint32_t gen;
};
static struct pidcount *pid_tab;
static size_t pid_tab_size;             /* a power of two */
static uint32_t pid_gen;

static struct pidcount *
pid_count(pid_t pid)
{
	size_t i = ((uint32_t)pid * 2654435761U) & (pid_tab_size - 1);

	while (pid_tab[i].gen == pid_gen && pid_tab[i].pid != pid)
		i = (i + 1) & (pid_tab_size - 1);
	if (pid_tab[i].gen != pid_gen)
		pid_tab[i] = (struct pidcount){ pid, 0, pid_gen };
	return &pid_tab[i];
}

static void
pid_count_all(void)
{
	if (pid_tab == NULL) {
		for (pid_tab_size = 2; pid_tab_size < 2 * M.maxclients;)
			pid_tab_size <<= 1;
		if ((pid_tab = calloc(pid_tab_size, sizeof(*pid_tab))) == NULL)
			fatal("out of memory");
	}
	if (++pid_gen == 0) {           /* wrapped: old stamps could match */
		memset(pid_tab, 0, pid_tab_size * sizeof(*pid_tab));
		pid_gen = 1;
	}
	for (size_t i = 0; i < M.nclients; i++)
		if (!M.clients[i]->dead)
			pid_count(M.clients[i]->pid)->n++;
}

/*
 * At the connection limit with no one idle: the peer process holding the
 * most connections, if it holds CLIENT_SHED_MIN or more, gives one up.
 * Every forwarded channel of one ssh -A comes from that ssh process (its
 * SO_PEERCRED pid), so a forwarded host that opens every slot is one
 * relay holding them all, and the user's own clients (one connection a
 * process) are never shed while a relay holds more than they do. Of the
 * relay's connections, one with nothing in flight goes first, then the
 * one quiet longest. Reads the counts of pid_count_all. Returns the
 * index, or M.nclients when none.
 */
static size_t
shed_candidate(void)
{
	size_t best = M.nclients, most = 0;

	for (size_t i = 0; i < M.nclients; i++) {
		const struct client *c = M.clients[i];
		size_t n;

		if (c->dead)
			continue;
		n = pid_count(c->pid)->n;
		if (n < CLIENT_SHED_MIN || n < most)
			continue;
		if (n > most || best == M.nclients ||
		    (c->count == 0) > (M.clients[best]->count == 0) ||
		    ((c->count == 0) == (M.clients[best]->count == 0) &&
		    c->last_ms < M.clients[best]->last_ms)) {
			best = i;
			most = n;
		}
	}
	return best;
}

int
clients_sheddable(void)
{
	pid_count_all();
	return shed_candidate() != M.nclients;
}

/*
 * At the connection limit with someone idle (nothing in flight, nothing
 * buffered, quiet for CLIENT_EVICT_IDLE_MS): of the idle, one of the peer
 * holding the most connections, then the one idle longest. A flood of
 * idle connections from many processes must not lock out the agent's
 * owner; from one, the flood's own go first, not a lone client of the
 * user's that holds its connection open between two requests (ssh waits
 * on the server between its LIST and its SIGN). Reads the counts of
 * pid_count_all. Returns the index, or M.nclients when none.
 */
static size_t
idle_candidate(uint64_t now)
{
	size_t best = M.nclients, most = 0;

	for (size_t i = 0; i < M.nclients; i++) {
		const struct client *c = M.clients[i];
		size_t n;

		if (c->dead || c->count != 0 || c->inlen != 0 ||
		    client_unsent(c) != 0 || now - c->last_ms < CLIENT_EVICT_IDLE_MS)
			continue;
		n = pid_count(c->pid)->n;
		if (best == M.nclients || n > most ||
		    (n == most && c->last_ms < M.clients[best]->last_ms)) {
			best = i;
			most = n;
		}
	}
	return best;
}

/*
 * Room for a newcomer at the connection limit: from the peer holding the
 * most connections (shed_candidate) unless someone idle is of a peer
 * holding as many -- so a lone client is closed for being idle only when
 * no peer holds CLIENT_SHED_MIN or more, and never while a relay holds
 * more than it does. 0, or -1 when no one can make room.
 */
static int
make_room(uint64_t now)
{
	size_t s, i, ns;

	pid_count_all();
	s = shed_candidate();
	i = idle_candidate(now);
	ns = s != M.nclients ? pid_count(M.clients[s]->pid)->n : 0;

	if (i != M.nclients && pid_count(M.clients[i]->pid)->n >= ns) {
		log_info("connection %u closed: idle, and %zu connections are "
		    "open (the limit)", M.clients[i]->id, M.nclients);
		drop_client(i);
		return 0;
	}
	if (s == M.nclients)
		return -1;
	log_info("connection %u closed: its peer (pid %d) holds the most "
	    "connections, and %zu are open (the limit)", M.clients[s]->id,
	    (int)M.clients[s]->pid, M.nclients);
	drop_client(s);
	return 0;
}

/* A waiting client's pidfd is an fd like its socket: a flood of clients
 * that connect and vanish must not run the monitor out of them. */
int
clients_full(void)
{
	return M.nclients + M.whoisq.nfds >= M.maxclients;
}

void
clients_accept(uint64_t now, int listen_fd, uint32_t sock)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct msg_open m;
	struct client *c;
	int fd, pidfd, gone;

	if (clients_full() && make_room(now) != 0) {
		M.evictable = 0;
		return;
	}
	if ((fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		log_error("getsockopt(SO_PEERCRED): %m");
		close(fd);
		return;
	}
	if (cred.uid != 0 && cred.uid != M.uid) {
		log_error("uid mismatch: peer euid %u != uid %u; connection closed",
		    (unsigned)cred.uid, (unsigned)M.uid);
		close(fd);
		return;
	}
	/* Hold the caller's process before its pid can be reused. */
	pidfd = whois_pidfd(fd, cred.pid, &gone);
	if (++M.next_conn == 0)
		M.next_conn = 1;        /* 0 means "no connection" */
	if ((c = client_new(fd, M.next_conn, cred.uid, cred.pid)) == NULL) {
		if (pidfd >= 0)
			close(pidfd);
		close(fd);
		return;
	}
	c->last_ms = now;
	c->sock = sock;
	M.clients[M.nclients++] = c;
	m.uid = cred.uid;
	m.pid = (uint32_t)cred.pid;
	m.sock = sock;
	msg_begin(&M.ipc, MSG_OPEN, 0, c->id);
	msg_open_encode(&M.ipc, &m);
	monitor_send(&M.ipc);
	log_debug("connection %u from uid %u pid %d on socket %s", c->id,
	    (unsigned)cred.uid, (int)cred.pid,
	    sock == 0 ? "main" : M.named.s[sock - 1].name);
	whois_start(c, pidfd, gone, now);
}

/* ------------------------------------------------ requests */

/* May this client's next request go to policy now? Policy must know
 * who the caller is first (whois.c), then: its own pipeline,
 * a lock or unlock still in flight on it (judged first: doc/protocol.md §5.8), a
 * reader that does not read, and the agent-wide budgets. */
static int
may_dispatch(const struct client *c)
{
	if (c->dead || c->whois.state != WHOIS_DONE ||
	    c->count >= AGENT_MAX_INFLIGHT || c->fences > 0 ||
	    client_unsent(c) > 0)
		return 0;
	if (M.inflight >= MONITOR_MAX_INFLIGHT || chan_busy(&M.policy))
		return 0;
	/* Over budget, those holding more than their share wait. */
	return M.held <= MONITOR_REPLY_BUDGET ||
	    client_held(c) * M.nclients <= M.held;
}

/* Does this request fit the agent-wide budgets of what is at policy?
 * (One request is always taken when nothing is in flight.) */
static int
fits(const uint8_t *p, size_t len)
{
	if (M.inflight > 0 && M.inflight_bytes + len > MONITOR_INFLIGHT_BYTES)
		return 0;
	return !(proto_flags(p[0]) & PROTO_ADD) || M.inflight_adds < MONITOR_MAX_ADDS;
}

/* Is the message to policy in w a session-bind, one that parsed or not? */
static int
bind_request(const struct wb *w)
{
	struct msg_hdr h;
	struct rd r;

	rd_init(&r, w->p, w->len);
	return msg_hdr_decode(&r, &h) == 0 &&
	    (h.type == MSG_BIND || h.type == MSG_BIND_BAD);
}

/* Take one request from the client. 1 taken, 0 none ready (or it must
 * wait for a budget). */
static int
dispatch_one(struct client *c)
{
	const uint8_t *p;
	size_t len, h = client_held(c), b = big_of(c);
	struct slot *s;
	int r;

	if ((r = client_frame(c, &p, &len)) == 0)
		return 0;
	if (r < 0) {
		log_info("connection %u: broken frame; closed", c->id);
		c->dead = 1;
		return 0;
	}
	if (!fits(p, len))
		return 0;
	if (++M.next_req == 0)
		M.next_req = 1;
	s = client_slot(c, M.next_req);
	if (listcache_answer(c, p, len, s)) {
		client_done(c, s);
	} else if (proto_request(p, len, M.next_req, c->id, &M.ipc, &M.reply)) {
		if (bind_request(&M.ipc))
			c->bind_tried = 1;
		if (proto_flags(p[0]) & PROTO_FENCE) {
			s->fence = 1;
			c->fences++;
		}
		monitor_send(&M.ipc);
		flight_add(M.next_req, len, (proto_flags(p[0]) & PROTO_ADD) != 0);
	} else {
		wb_bytes(&s->reply, M.reply.p, M.reply.len);
		client_done(c, s);
	}
	client_consume(c, len);
	account(c, h, b);
	return 1;
}

/* Round-robin: every client that may gets one request a round, until no
 * one has a request ready or a budget is spent. */
size_t
clients_dispatch(void)
{
	size_t taken = 0, n = M.nclients, last = n;
	int any;

	do {
		any = 0;
		for (size_t k = 0; k < n; k++) {
			size_t i = (M.rr + k) % n;
			if (may_dispatch(M.clients[i]) && dispatch_one(M.clients[i])) {
				any = 1;
				taken++;
				last = i;
			}
		}
	} while (any);
	/* The next round starts after the last client served, so a budget
	 * spent part-way through a round cannot favour the same few. */
	if (last < n)
		M.rr = (last + 1) % n;
	return taken;
}

/* A frame longer than the inline buffer needs a larger one, from the
 * agent-wide input budget; without it the client is not read. */
void
clients_grant_input(struct client *c)
{
	size_t need = client_need(c), h, b;

	if (need == 0 || M.big_in + need > MONITOR_INPUT_BUDGET)
		return;
	h = client_held(c);
	b = big_of(c);
	if (client_grow(c) != 0)
		return;
	account(c, h, b);
}

static struct client *
find_client(uint32_t id)
{
	for (size_t i = 0; i < M.nclients; i++)
		if (M.clients[i]->id == id)
			return M.clients[i];
	return NULL;
}

void
clients_reply(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct client *c;
	struct slot *s;
	struct rd r;
	size_t held;

	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0)
		peer_broke("keyward-policy", "a message of %zu bytes with no header",
		    n);
	if (listcache_from_policy(&h, &r))
		return;
	if (h.conn == 0)
		return;                 /* our own request (SIGUSR1) */
	flight_done(h.req);
	if ((c = find_client(h.conn)) == NULL ||
	    (s = client_find_slot(c, h.req)) == NULL)
		return;                 /* the client has gone meanwhile */
	held = client_held(c);
	if (proto_reply(&h, &r, &s->reply) != 0)
		peer_broke("keyward-policy", "a malformed reply of type %u", h.type);
	client_done(c, s);
	account(c, held, big_of(c));
	/* A client with this one request in flight (ssh-add, ssh) has its
	 * answer written now, not after policy's channel is read dry: that
	 * read is one more syscall in its wait. A pipeline's replies still
	 * leave together, at the top of the loop. */
	if (c->count == 1)
		clients_flush(c, clock_mono_ms());
}

/* Once a second at most: close clients that stalled on their own side,
 * and see whether an idle one could make room at the connection limit. */
void
clients_scan(uint64_t now)
{
	if (now < M.next_scan_ms)
		return;
	M.next_scan_ms = now + 1000;
	M.watch = 0;
	M.evictable = 0;
	for (size_t i = 0; i < M.nclients; i++) {
		struct client *c = M.clients[i];
		if (c->dead)
			continue;
		if (!clients_waiting(c)) {
			if (c->count == 0 && c->inlen == 0 &&
			    now - c->last_ms >= CLIENT_EVICT_IDLE_MS)
				M.evictable = 1;
			continue;
		}
		if (c->inlen > 0 && c->frame_ms != 0 &&
		    now - c->frame_ms >= CLIENT_FRAME_MS) {
			log_info("connection %u closed: a frame not finished in "
			    "%d s", c->id, CLIENT_FRAME_MS / 1000);
			c->dead = 1;
			continue;
		}
		if (now - c->last_ms >= CLIENT_STALL_MS) {
			log_info("connection %u closed: no progress for %d s with %s",
			    c->id, CLIENT_STALL_MS / 1000, client_unsent(c) > 0 ?
			    "replies it does not read" : "a frame it does not finish");
			c->dead = 1;
			continue;
		}
		M.watch = 1;
	}
	clients_sweep();
}
