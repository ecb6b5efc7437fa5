/*
 * monitor.h - the monitor's one state struct, shared by its set-up
 * (setup.c), its loop (loop.c) and main.c. It holds no key.
 */
#ifndef KEYWARD_MONITOR_H
#define KEYWARD_MONITOR_H

#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "monitor/whoisq.h"
#include "monitor/client.h"
#include "monitor/options.h"
#include "monitor/sockets.h"
#include "monitor/children.h"
#include "monitor/listcache.h"

#include <stdint.h>
#include <sys/types.h>

/* A request at policy: what it costs the budgets until it is answered.
 * Kept by request id, so the count stays exact when its client has gone. */
struct flight {
	uint32_t req;           /* 0: a free entry */
	uint32_t bytes;
	int add;
};
#define FLIGHT_SLOTS (2 * MONITOR_MAX_INFLIGHT)

struct monitor {
	struct options opt;
	int listen_fd, activated, sig_fd;      /* activated: systemd's fd count */
	struct named_sockets named;     /* keyward(5) "socket" lines */
	struct chan policy;
	struct children kids;
	struct client **clients;
	size_t nclients, maxclients;
	size_t rr;              /* where the next dispatch round starts */
	size_t inflight;        /* requests at policy, all clients */
	size_t inflight_bytes, inflight_adds;
	struct flight flight[FLIGHT_SLOTS];
	size_t big_in;          /* bytes of granted large input buffers */
	size_t held;            /* client_held() summed over all clients */
	int watch;              /* some client may stall: check every second */
	int evictable;          /* an idle client may make room for a new one */
	uint64_t next_scan_ms;
	uint32_t next_conn, next_req;
	pid_t command_parent;
	uid_t uid;              /* ours: peers must be this uid or root */
	int quit, exit_status;
	int peer_fd;            /* to keyward-peer; -1: none, or gone (whois.c) */
	int peer_blocked;       /* a request waits for room on peer_fd */
	int nopidfd_warned;
	int test_no_peerpidfd;  /* test builds: no SO_PEERPIDFD (whois.c) */
	struct whoisq whoisq;   /* clients waiting for their caller (whois.c) */
	struct listcache lc;    /* policy's list answer (listcache.c) */
	struct wb ipc, reply;
	uint8_t rbuf[IPC_MAX_MSG + 1];
	char log_line[LOG_LINE_MAX];
	size_t log_len;
};

extern struct monitor M;

/* loop.c: serve clients until a signal or a dead child ends it, then
 * stop the children (the reapers remove the socket). */
void monitor_loop(void);
void monitor_shutdown(void);
void monitor_send(struct wb *w);        /* to policy; fatal if it is gone */

/* clients.c */
/* A client on listening socket sock (0 main, i the i-th named one). */
void clients_accept(uint64_t now, int fd, uint32_t sock);
void clients_scan(uint64_t now);
/* At the limit, is there a connection to shed for a new one? */
int clients_sheddable(void);        /* stalls, idle ones: once a second */
size_t clients_dispatch(void);          /* requests taken this round */
void clients_flush(struct client *c, uint64_t now);
void clients_grant_input(struct client *c);
void clients_reply(const uint8_t *p, size_t n);        /* from policy */
void clients_sweep(void);               /* close those marked dead */
int clients_waiting(const struct client *c);
/* At the connection limit: clients and the pidfds waiting ones hold. */
int clients_full(void);

#endif
