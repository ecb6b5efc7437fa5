/*
 * lib.h - the attack library of the hostile client (tests/hostile/attack):
 * what every attack family shares. A connection to the agent with framed
 * replies and time bounds (struct cl), the agent-protocol messages, the
 * keys (made here or loaded, encoded by tests/unit/testkeys.h), the TAP
 * output with its reference and keyward-only rules, the agent's process
 * tree (alive, memory, descriptors), the probe that times a well-behaved
 * client through every case, and the flood: many connections writing
 * pipelined requests at once.
 *
 * lib.c (settings, time, TAP, the agent's processes), conn.c (the client,
 * messages and keys) and probe.c (the probe, the flood) hold it. Each
 * family is a file named by what it attacks (floods.c, stalls.c,
 * connections.c, pipelines.c, unlock.c, bind.c, limits.c, prompts.c,
 * forwarded.c, soak.c); attack.c names every case and runs the one asked for.
 */
#ifndef KEYWARD_TESTS_HOSTILE_LIB_H
#define KEYWARD_TESTS_HOSTILE_LIB_H

#include "ipc/buf.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"
#include "tests/hostile/client.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* Message numbers: client.h, and one no agent knows. */
#define MSG_UNKNOWN          200
#define RSA_SHA2_256         0x02
#define AGENT_CONSTRAIN_CONFIRM 2

/* The bounds the issue names. */
#define PROBE_BOUND_MS       1000       /* worst probe answer, liveness */
#define PROBE_PERIOD_MS      100
#define SANITIZE_SCALE       3
/* Hard limit on one probe answer; beyond it the probe reconnects. */
#define PROBE_GIVEUP_MS      15000
#define PROBE_COMMENT        "probe@hostile"

/* Sizes more than one family uses. */
#define FRAME_MAX            (256 * 1024)
#define SIGN_FLOOD_DATA      (250 * 1024)

/* Set by attack.c's main from its arguments and environment. */
extern int scale;               /* SANITIZE_SCALE for sanitized or slow runs */
extern int reference;           /* -r: results are diagnostics only */
extern int stress;              /* HOSTILE_STRESS=1: longer windows */
extern const char *agent_name;  /* "keyward" or "ssh-agent" */
extern const char *sock_path;
extern pid_t agent_pid;
extern const char *keydir;      /* HOSTILE_KEYS: the RSA-8192 and -16384 keys */
extern uint64_t t_start;

/* ------------------------------------------------------------ utilities */

uint64_t now_ms(void);
void sleep_ms(unsigned ms);
__attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...);
void *xmalloc(size_t n);
int is_keyward(void);
int bound_ms(int ms);
/* The attack window, seconds: short for make check, longer for stress. */
uint64_t window_ms(unsigned quick_s);
void fmt_ms(char *buf, size_t cap, uint64_t ms);
unsigned sum_u(const unsigned *v, int n);
size_t sum_z(const size_t *v, int n);

/* ------------------------------------------------------------------ TAP */

__attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...);
/* A figure for the side-by-side table of the wrappers. */
__attribute__((format(printf, 2, 3))) void figure(const char *key, const char *fmt, ...);
__attribute__((format(printf, 2, 3))) int tap_ok(int pass, const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void tap_skip(const char *fmt, ...);
/* A bound that OpenSSH's agent may miss: asserted for keyward; for
 * ssh-agent a pass is a pass and a miss is a skip line that says so. */
__attribute__((format(printf, 3, 4))) void tap_bound(int pass, const char *figure_text,
    const char *fmt, ...);
void tap_keyward_only(const char *what);
/* The plan line; the exit status: 0, or 1 if a test failed. */
int tap_done(void);

/* --------------------------------------------------------------- agent */

int agent_alive(void);
/* VmRSS summed over the agent and every descendant, in KiB. */
long tree_rss_kib(int *nproc);
long agent_nofile(void);

/* ------------------------------------------------------------ a client */

struct cl {
	int fd;
	uint8_t *in;
	size_t have, cap, used;         /* used: bytes of the last frame returned */
	struct slice msg;               /* last reply's payload, type byte first */
};

#define R_EOF     (-1)
#define R_TIMEOUT (-2)
#define R_ERROR   (-3)

void cl_close(struct cl *c);
void cl_free(struct cl *c);
/* A non-blocking socket connected to the agent: 0, or -1 (errno set;
 * EAGAIN when the listener's backlog is full). */
int sock_connect(int *fdp);
/* Connect within timeout_ms (retrying while the backlog is full). */
int cl_connect(struct cl *c, int timeout_ms);
/* 0, -1 (closed) or -2 (timeout). */
int cl_send(struct cl *c, const void *p, size_t n, int timeout_ms);
/* The next reply frame within timeout_ms: its type byte, or R_*. */
int cl_recv(struct cl *c, int timeout_ms);
/* Send one message (a framed wb) and read one reply. */
int cl_call(struct cl *c, const struct wb *m, int timeout_ms);

/* ------------------------------------------------------------------ keys */

struct key {
	enum key_kind kind;             /* KEY_ED25519, KEY_ECDSA_P521 or KEY_RSA */
	EVP_PKEY *pk;
	struct wb blob;         /* public blob (doc/protocol.md §4.2) */
	struct wb priv;         /* type name and private fields (doc/protocol.md §4.4) */
	int bits;
};

struct key *key_new(enum key_kind kind);
struct key *key_load_rsa(const char *file);
void key_free(struct key *k);
struct slice blob_of(const struct key *k);
/* Does the SSH signature sig verify over data with k (Ed25519, or RSA
 * rsa-sha2-256 as every RSA request here asks)? */
int sig_verifies(const struct key *k, const uint8_t *data, size_t dlen, struct slice sig);
/* The SSH signature blob in a SIGN_RESPONSE payload. */
int sign_reply_sig(struct slice msg, struct slice *sig);
/* Count identities in an IDENTITIES payload and whether want is among
 * them: -1 if malformed. */
int list_has(struct slice msg, const struct key *want, int *found);

/* ---------------------------------------------------------- messages */

/* Messages are built framed: msg_begin ... msg_end. */
size_t msg_begin(struct wb *w, uint8_t type);
void msg_end(struct wb *w, size_t mark);
void msg_simple(struct wb *w, uint8_t type);
void msg_add(struct wb *w, const struct key *k, const char *comment);
void msg_sign(struct wb *w, const struct key *k, const uint8_t *data, size_t dlen);
void msg_remove(struct wb *w, const struct key *k);
void msg_pass(struct wb *w, uint8_t type, const void *pw, size_t n);
/* An ADD restricted to origin -> host with the given host keys (doc/protocol.md §6.6). */
void msg_add_dest(struct wb *w, const struct key *k, const char *comment, const char *host,
    struct key **hk, int nhk);
/* A session-bind to host (doc/protocol.md §6.8), its signature over a fresh random
 * session id -- or, forged, over other bytes. */
void msg_bind(struct wb *w, const struct key *host, int forwarding, int forged);

/* One request on a fresh connection: the reply type (or R_*); the
 * connection is kept in *keep if given. */
int call_once(const struct wb *m, int timeout_ms, struct cl *keep);
int add_key_wait(const struct key *k, const char *comment, int timeout_ms);
int add_key(const struct key *k, const char *comment);
/* LIST on a fresh connection: number of keys, -1 on no answer; *found
 * tells whether k is among them. */
int list_fresh(const struct key *k, int *found, int timeout_ms);

/* ---------------------------------------------------------------- probe */

extern struct key *probe_key;

/* What the probe measured in a case. The probe runs in a process of its
 * own (probe.c), which writes them in memory shared with this one;
 * probe_read and probe_stop copy them into the caller's struct probe. */
struct probe {
	int expect_keys;        /* 0: the agent may be locked (unlock guessing) */
	uint64_t worst_ms, worst_list_ms, worst_sign_ms;
	uint64_t worst_at_ms;   /* when the worst answer came, from t_start */
	int rounds, timeouts, wrong;
	uint64_t wrong_at_ms;   /* when the first wrong answer came, from t_start */
	char wrong_what[256];
	uint64_t first_keys_ms; /* first LIST that showed the probe key */
	pid_t pid;              /* the probe's process */
};

/* Forks the probe's process: once, before any thread is started. */
void probe_init(void);
void probe_start(struct probe *p, int expect_keys);
/* The figures so far, while the probe runs. */
void probe_read(struct probe *p);
void probe_stop(struct probe *p);
/* The checks every case ends with: alive, answered the probe within the
 * bound (and correctly), still holds the keys it was given. */
void check_common(const char *cs, struct probe *p, struct key **keep, int nkeep);

/* ---------------------------------------------------------------- flood */

/* N connections, each sending its bytes (non-blocking, as fast as the
 * agent takes them) and, unless noread, reading and counting reply frames;
 * until everything is written and want replies came on each, or the
 * deadline. */
struct flood {
	int n;
	int noread;
	unsigned want;                  /* replies per connection to wait for */
	struct cl *c;
	const uint8_t **out;
	size_t *outlen, *off;
	unsigned *replies, *success, *eof;
	uint64_t *first_success_ms;     /* when a SUCCESS came, 0 if none */
	struct wb *types;               /* reply types in order, per connection */
	int (*guard)(void *);           /* called every 50 ms; non-zero stops */
	void *guard_arg;
};

void flood_init(struct flood *f, int n);
/* Every connection sends the same bytes. */
void flood_same(struct flood *f, const struct wb *all);
int flood_connect(struct flood *f);
/* Runs until done or deadline (absolute ms); returns 1 if done. */
int flood_run(struct flood *f, uint64_t deadline);
void flood_close(struct flood *f);

/* ---------------------------------------------------------------- cases */

/* floods.c: work the agent is made to do */
void attack_flood_add(void);
void attack_flood_sign(void);
void attack_flood_big_rsa(void);
/* stalls.c: clients that do not keep up */
void attack_stall_readers(void);
void attack_stall_writers(void);
/* connections.c: descriptors */
void attack_connections(void);
void attack_connections_idle(void);
/* pipelines.c: many requests in one write */
void attack_pipeline_order(void);
void attack_pipeline_long(void);
/* unlock.c: the lock passphrase */
void attack_unlock_guessing(void);
/* bind.c: session-bind */
void attack_bind_failed(void);
/* limits.c: what the agent holds */
void attack_limits_keys(void);
/* prompts.c: confirm prompts from forwarded hosts */
void attack_prompts_one_host(void);
void attack_prompts_many_hosts(void);
/* forwarded.c: a forwarded host's keys */
void attack_planted_key(void);
void attack_forwarded_readd(void);
/* soak.c: all of the above again and again */
void attack_soak(void);

#endif
