/*
 * engine.h - the engine under both hostile peers (hostile_monitor.c
 * plays a compromised monitor to policy, hostile_policy.c a compromised
 * policy to the keyholder): find the programs under test, start them with
 * spawn() as monitor/children.c does, send one datagram at a time, read and
 * scan every reply, judge how a process ended and start it again, and
 * damage a valid message every way the wire allows. What differs between
 * the two (which processes, their base state, what a reply may be, how an
 * answer is awaited) each harness gives in its struct engine_ops.
 * Header-only: each harness is one program. Trusts nothing it reads from
 * its peer.
 */
#ifndef KEYWARD_TESTS_ENGINE_H
#define KEYWARD_TESTS_ENGINE_H

#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "wire/auditor.h"
#include "wire/broker.h"
#include "wire/keyholder.h"
#include "wire/monitor.h"
#include "ipc/spawn.h"
#include "wire/msg.h"
#include "wire/prompter.h"
#include "keys/sshkey.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/wire.h"
#include "tests/hostile/secrets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPLY_WAIT_MS   15000   /* RSA, scrypt under ASan: slow, not so slow */
#define MAX_HANGS       3       /* then give up: it stopped answering */
#define EXIT_WAIT_MS    20000   /* for a process whose peer went away */
#define ENG_MAX_PROCS   2       /* policy and keyholder, or keyholder alone */
#define RBUF_LEN        (2 * IPC_MAX_MSG)

/* ------------------------------------------------------------ the keys */

/* A key with its public blob and plain private encoding (doc/protocol.md §4.2, §4.4),
 * both with their strings recorded for the wire checks. */
struct ukey {
	struct testkey k;
	struct tb pub, priv;
	uint64_t id;                    /* its keyholder id (hostile_policy) */
	char name[32];                  /* and its comment when added */
};

/* Every private component goes to the leak scan, under the key's name. */
static inline void
ukey_gen(struct ukey *u, enum key_kind kind, size_t bits, const char *name)
{
	testkey_gen(&u->k, kind, bits);
	tb_init(&u->pub);
	tk_pub(&u->pub, &u->k);
	tb_init(&u->priv);
	tk_priv(&u->priv, &u->k);
	tk_check(&u->pub.w, "public blob");
	tk_check(&u->priv.w, "private encoding");
	snprintf(u->name, sizeof(u->name), "%s", name);
	secrets_add_key(&u->k, name);
}

static inline struct slice
pub_of(const struct ukey *u)
{
	return tb_slice(&u->pub);
}

/* ------------------------------------------------ what the harness gives */

enum outcome {
	O_REPLY = 1,            /* the request was answered (in R) */
	O_NONE,                 /* no answer, the process alive */
	O_EXIT,                 /* it exited cleanly: failed closed */
	O_CRASH,                /* a signal or a bad status */
	O_HANG,                 /* no answer in time */
	O_TOOBIG,               /* the kernel would not take the datagram */
};

struct engine_ops {
	/* Start the processes (eng_spawn each, then eng_started) and give
	 * them the harness's base state. */
	void (*start)(void);
	/* A reply that came with a header (h) and its payload (r still at
	 * the payload's start): count and judge it; st has counted it. */
	void (*scan)(const struct msg_hdr *h, struct rd *r, size_t n);
	/* Send a damaged message: m[0..n) names request req (0 when the
	 * header is cut: whole_header 0) and should be answered as the
	 * vmsg's expect says. */
	enum outcome (*wire_send)(const uint8_t *m, size_t n, uint32_t req,
	    int whole_header, int expect);
	/* After the trailing-byte case (may be NULL). */
	void (*wire_trailing)(const uint8_t *msg, enum outcome o);
};

/* ------------------------------------------------------ state, counters */

static const struct engine_ops *E;

static struct {
	unsigned long replies, bytes, signatures;
	unsigned long forbidden;        /* signatures nobody may have */
	unsigned long leaks;            /* private bytes in a reply */
	unsigned long malformed;        /* replies that do not decode */
	unsigned long duplicates;       /* two answers to one request */
	unsigned long unasked;          /* answers to nothing we asked */
	unsigned long starts, clean_exits, bad_exits, hangs;
} st;

static const char *cur_case = "start-up";

static struct eng_proc {
	const char *name;
	char path[PATH_MAX];
	pid_t pid;
} P[ENG_MAX_PROCS];
static int nproc;

static struct {
	int fd;                         /* our end of the first process's pair */
	unsigned gen;                   /* bumped at every start */
} S = { -1, 0 };

static int logfd = -1;
static uint8_t *rbuf;

/* The answer to the request last sent. */
static struct {
	int got;
	uint8_t type;
	uint32_t req, conn;
	uint8_t status;
	uint8_t *p;             /* the whole datagram */
	size_t n;
} R;

static uint32_t next_req = 1000;

static inline uint32_t
req_new(void)
{
	return ++next_req;
}

static inline uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------- the processes */

/* The programs named, from argv[1], else $KEYWARD_BUILD, else ./build;
 * their stderr and stdout to $HOSTILE_LOG (else /dev/null), away from
 * our TAP. */
static inline void
eng_init(int argc, char **argv, const struct engine_ops *ops,
    const char *const names[])
{
	const char *dir = argc > 1 ? argv[1] : getenv("KEYWARD_BUILD");
	const char *log = getenv("HOSTILE_LOG");

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	E = ops;
	if (dir == NULL || *dir == '\0')
		dir = "build";
	for (nproc = 0; names[nproc] != NULL; nproc++) {
		struct eng_proc *p = &P[nproc];
		if (nproc == ENG_MAX_PROCS)
			abort();
		p->name = names[nproc];
		p->pid = -1;
		snprintf(p->path, sizeof(p->path), "%s/%s", dir, p->name);
		if (access(p->path, X_OK) != 0) {
			printf("Bail out! no %s in %s\n", p->name, dir);
			exit(1);
		}
	}
	logfd = open(log != NULL && *log != '\0' ? log : "/dev/null",
	    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	printf("# programs from %s; their log: %s\n", dir, log ? log : "/dev/null");
	if ((rbuf = malloc(RBUF_LEN)) == NULL)
		abort();
}

static inline void
eng_pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		printf("Bail out! socketpair: %s\n", strerror(errno));
		exit(1);
	}
	chan_setup_fd(sv[0]);
	chan_setup_fd(sv[1]);
}

struct eng_exec {
	const char *path;
	char *const *argv;
};

/* In the child spawn() made: the program under test, by its full path
 * (spawn's .exec finds a helper beside the running program, and these
 * run from the build directory, not beside the harness). */
static inline void
eng_exec(void *arg)
{
	const struct eng_exec *x = arg;

	execv(x->path, x->argv);
	_exit(127);
}

/* Process i with fd a at 3 and b (if >= 0) at 4, started by spawn() as
 * the monitor starts it; its stdout and stderr to the log. */
static inline void
eng_spawn(int i, char *const argv[], int a, int b)
{
	struct eng_exec x = { P[i].path, argv };

	fflush(stdout);
	P[i].pid = spawn(&(struct spawn){ .fds = { a, b }, .nfds = b >= 0 ? 2 : 1,
	    .stdout_fd = logfd, .stderr_fd = logfd, .run = eng_exec, .arg = &x });
	if (P[i].pid < 0) {
		printf("Bail out! spawn: %s\n", strerror(errno));
		exit(1);
	}
}

/* All spawned; fd is our end. */
static inline void
eng_started(int fd)
{
	S.fd = fd;
	S.gen++;
	st.starts++;
}

static inline void
eng_start(void)
{
	E->start();
}

/* 0: exited 0 or 255 (fail closed); -1: anything else, said why. */
static inline int
eng_reap_one(struct eng_proc *p)
{
	uint64_t end = mono_ms() + EXIT_WAIT_MS, now;
	int status = 0, pfd = pidfd_open(p->pid, 0);
	pid_t r;

	/* Woken by its exit (its pidfd becomes readable), not by a clock:
	 * this runs at every one of a run's many restarts. Without a pidfd,
	 * a 2 ms poll. */
	while ((r = waitpid(p->pid, &status, WNOHANG)) == 0 &&
	    (now = mono_ms()) < end) {
		struct pollfd w = { pfd, POLLIN, 0 };
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		if (pfd >= 0)
			(void)poll(&w, 1, (int)(end - now));
		else
			nanosleep(&ts, NULL);
	}
	if (pfd >= 0)
		close(pfd);
	if (r == 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &status, 0);
		printf("# %s did not exit after its peer went away (case: %s)\n",
		    p->name, cur_case);
		return -1;
	}
	if (r != p->pid)
		return -1;
	if (WIFSIGNALED(status)) {
		printf("# %s KILLED BY SIGNAL %d (%s) (case: %s)\n", p->name,
		    WTERMSIG(status), strsignal(WTERMSIG(status)), cur_case);
		return -1;
	}
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 &&
	    WEXITSTATUS(status) != 255)) {
		printf("# %s exited with status %d (a sanitizer report?) (case: %s)\n",
		    p->name, WEXITSTATUS(status), cur_case);
		return -1;
	}
	return 0;
}

/* Our end closed (that is how the peer ends them): collect every
 * process, judge how they ended. */
static inline int
eng_reap_all(void)
{
	int bad = 0;

	if (S.fd >= 0)
		close(S.fd);
	S.fd = -1;
	for (int i = 0; i < nproc; i++) {
		bad |= eng_reap_one(&P[i]) != 0;
		P[i].pid = -1;
	}
	if (bad) {
		st.bad_exits++;
		return -1;
	}
	st.clean_exits++;
	return 0;
}

static inline void
eng_kill_all(void)
{
	for (int i = 0; i < nproc; i++)
		if (P[i].pid > 0)
			kill(P[i].pid, SIGKILL);
	if (S.fd >= 0)
		close(S.fd);
	S.fd = -1;
	for (int i = 0; i < nproc; i++) {
		if (P[i].pid > 0)
			waitpid(P[i].pid, NULL, 0);
		P[i].pid = -1;
	}
}

/* A fresh start with the base state; how the last one ended. */
static inline int
eng_restart(void)
{
	int r = eng_reap_all();

	eng_start();
	return r;
}

/* Our peer hung up: how did it end? Then start again. */
static inline enum outcome
eng_gone(void)
{
	int clean = eng_reap_all() == 0;

	eng_start();
	return clean ? O_EXIT : O_CRASH;
}

/* No answer in time: counted, killed, started again; bail out after
 * MAX_HANGS. */
static inline enum outcome
eng_hang(void)
{
	printf("# %s did not answer within %d ms (case: %s)\n", P[0].name,
	    REPLY_WAIT_MS, cur_case);
	if (++st.hangs >= MAX_HANGS) {
		printf("Bail out! %d requests were never answered\n", MAX_HANGS);
		exit(1);
	}
	eng_kill_all();
	eng_start();
	return O_HANG;
}

/* ------------------------------------------------------------- the wire */

/* 0 sent, 1 too big for the kernel, -1 the peer is gone. */
static inline int
send_raw(const uint8_t *p, size_t n)
{
	ssize_t r;

	do {
		r = send(S.fd, p, n, MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r == (ssize_t)n)
		return 0;
	return r < 0 && errno == EMSGSIZE ? 1 : -1;
}

/* Every reply: counted, scanned for key bytes, decoded by the harness. */
static inline void
eng_scan(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct rd r;

	st.replies++;
	st.bytes += n;
	st.leaks += secrets_scan(p, n, cur_case);
	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0) {
		st.malformed++;
		printf("# malformed reply of %zu bytes (case: %s)\n", n, cur_case);
		return;
	}
	E->scan(&h, &r, n);
}

/* One reply into rbuf, inspected: 1, or 0 at end, -1 on EOF. */
static inline int
eng_recv(uint64_t end, size_t *n)
{
	for (;;) {
		struct pollfd pfd = { S.fd, POLLIN, 0 };
		uint64_t now = mono_ms();
		ssize_t r;
		if (now >= end)
			return 0;
		if (poll(&pfd, 1, (int)(end - now)) <= 0)
			continue;
		do {
			r = recv(S.fd, rbuf, RBUF_LEN, MSG_DONTWAIT);
		} while (r < 0 && errno == EINTR);
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (r <= 0)
			return -1;
		eng_scan(rbuf, (size_t)r);
		*n = (size_t)r;
		return 1;
	}
}

/* Keep the reply in rbuf as R. */
static inline void
eng_take(size_t n)
{
	free(R.p);
	if ((R.p = malloc(n)) == NULL)
		abort();
	memcpy(R.p, rbuf, n);
	R.n = n;
	R.got = 1;
	R.type = rbuf[0];
	R.req = n >= 5 ? get_be32(rbuf + 1) : 0;
	R.conn = n >= 9 ? get_be32(rbuf + 5) : 0;
	R.status = n >= 10 ? rbuf[9] : 0xff;
}

static inline void
m_begin(struct tb *t, uint8_t type, uint32_t req, uint32_t conn)
{
	tb_init(t);
	tb_u8(t, type);
	tb_u32(t, req);
	tb_u32(t, conn);
}

/* ------------------------------------------------------------- judging */

static inline int
is_status(enum outcome o, uint8_t status)
{
	return o == O_REPLY && R.type == MSG_R_STATUS && R.n == 10 &&
	    R.status == status;
}

/* Refused, or failed closed. */
static inline int
refused(enum outcome o)
{
	return is_status(o, ST_FAIL) || o == O_EXIT;
}

static inline const char *
outcome_name(enum outcome o)
{
	static char buf[64];

	switch (o) {
	case O_REPLY:
		snprintf(buf, sizeof(buf), "reply type %u status %u", R.type,
		    R.type == MSG_R_STATUS ? R.status : 0);
		return buf;
	case O_NONE: return "no reply";
	case O_EXIT: return "clean exit";
	case O_CRASH: return "CRASH";
	case O_HANG: return "HANG";
	case O_TOOBIG: return "datagram too big to send";
	}
	return "?";
}

/* The answer in R is a signature by k over data with algorithm alg. */
static inline int
sig_good(enum outcome o, const struct ukey *k, struct slice data,
    enum sig_alg alg)
{
	struct pubkey pk;
	struct msg_hdr h;
	struct slice b;
	enum sig_alg got = SIG_NONE;
	struct rd r;

	if (o != O_REPLY || R.type != MSG_R_SIGNATURE)
		return 0;
	rd_init(&r, R.p, R.n);
	if (msg_hdr_decode(&r, &h) != 0 || msg_string_read(&r, &b) != 0 ||
	    key_parse_public(pub_of(k), &pk, NULL) != 0)
		return 0;
	return sig_verify(&pk, b, data, &got) == 0 && got == alg;
}

/* A damaged message answered as expect says: the status expect, or
 * (expect < 0) no answer; failing closed is always right. */
static inline int
eng_judge(enum outcome o, int expect)
{
	if (o == O_EXIT)
		return 1;
	if (expect < 0)
		return o == O_NONE;
	return is_status(o, (uint8_t)expect);
}

/* ------------------------------------------------- every damaged copy */

/* A valid message, with its strings recorded, and how a damaged copy
 * must be answered. */
struct vmsg {
	const char *name;
	struct tb t;
	int expect;             /* ST_FAIL, ST_EXT_FAIL, or -1: no answer */
};

/*
 * Which prefixes of a message eng_wire_one cuts it to. Every one, unless
 * HOSTILE_WIRE_STRIDE=N (N > 1) is in the environment: make check's
 * second pass, on the sanitizer build, sets it to 16 (mk/tests.mk), as
 * the plain pass before it has cut every message to every length. Then
 * a cut deep inside a string that holds no other -- more than
 * WIRE_EDGE bytes from both ends of its bytes, where every cut takes the
 * decoder the same way (the string's length runs past what is left) --
 * is made at every Nth length only. The header, every length field,
 * the first and last WIRE_EDGE bytes of each string and every byte
 * outside a string's bytes are cut at each time.
 */
#define WIRE_EDGE 2

static inline size_t
wire_stride(void)
{
	const char *e = getenv("HOSTILE_WIRE_STRIDE");
	long n = e != NULL ? strtol(e, NULL, 10) : 1;

	return n > 1 && n < 4096 ? (size_t)n : 1;
}

static inline int
wire_cut_here(const struct tb *t, const uint8_t *p, size_t len, size_t n,
    size_t stride)
{
	if (stride <= 1 || n % stride == 0)
		return 1;
	for (int i = 0; i < t->n; i++) {
		size_t a = t->pos[i] + 4, e;
		int leaf = 1;

		if (a > len)
			continue;
		e = a + get_be32(p + t->pos[i]);
		for (int j = i + 1; j < t->n && leaf; j++)
			leaf = t->parent[j] != i;
		if (leaf && e <= len && n > a + WIRE_EDGE && n + WIRE_EDGE < e)
			return 0;
	}
	return 1;
}

/* Every prefix (or those wire_cut_here picks), a trailing byte, every
 * string length absurd: one test point each. Each copy carries its own
 * request id. */
static inline void
eng_wire_one(struct vmsg *v)
{
	static const uint32_t huge[] = { 0xffffffffU, 0xfffffffeU,
	    0x80000000U, 0x7fffffffU, 0x00ffffffU };
	const size_t nhuge = sizeof(huge) / sizeof(huge[0]);
	const uint8_t *p = v->t.w.p;
	size_t len = v->t.w.len, badn = (size_t)-1, nexit = 0, ncut = 0;
	size_t stride = wire_stride();
	uint8_t *m = malloc(len + 1);
	enum outcome bado = O_NONE, o;
	int bad = -1;
	uint32_t badval = 0;
	char what[160];

	if (m == NULL)
		abort();
	/* Every prefix: the header's (the process exits: fail closed), then
	 * the payload's (refused). */
	for (size_t n = 1; n < len; n++) {
		int whole = n >= IPC_HEADER_LEN;
		if (!wire_cut_here(&v->t, p, len, n, stride))
			continue;
		ncut++;
		snprintf(what, sizeof(what), "%s truncated to %zu bytes", v->name, n);
		cur_case = what;
		memcpy(m, p, n);
		if (n >= 5)
			put_be32(m + 1, req_new());
		o = E->wire_send(m, n, n >= 5 ? get_be32(m + 1) : 0, whole,
		    v->expect);
		if (o == O_EXIT)
			nexit++;
		if ((whole ? !eng_judge(o, v->expect) : o != O_EXIT) &&
		    badn == (size_t)-1) {
			badn = n;
			bado = o;
		}
	}
	ok(badn == (size_t)-1, "wire: %s: each of %zu truncations refused or "
	    "failed closed (%zu exits)%s", v->name, ncut, nexit, ncut < len - 1 ?
	    " (HOSTILE_WIRE_STRIDE: the strings' insides sampled)" : "");
	if (badn != (size_t)-1)
		printf("#   truncated to %zu bytes: %s\n", badn, outcome_name(bado));

	snprintf(what, sizeof(what), "%s with a trailing byte", v->name);
	cur_case = what;
	memcpy(m, p, len);
	m[len] = 0;
	put_be32(m + 1, req_new());
	o = E->wire_send(m, len + 1, get_be32(m + 1), 1, v->expect);
	ok(eng_judge(o, v->expect), "wire: %s: a trailing byte: refused (%s)",
	    v->name, outcome_name(o));
	if (E->wire_trailing != NULL)
		E->wire_trailing(p, o);

	/* Every string length, top level and nested. */
	o = O_NONE;
	for (int i = 0; i < v->t.n && bad < 0; i++) {
		size_t at = v->t.pos[i];
		size_t lim = tb_limit(&v->t, p, len, i);
		for (size_t j = 0; j <= nhuge; j++) {
			uint32_t val = j < nhuge ? huge[j] :
			    (uint32_t)(lim - (at + 4) + 1);
			snprintf(what, sizeof(what), "%s, length at %zu set to 0x%x",
			    v->name, at, val);
			cur_case = what;
			memcpy(m, p, len);
			put_be32(m + at, val);
			put_be32(m + 1, req_new());
			o = E->wire_send(m, len, get_be32(m + 1), 1, v->expect);
			if (!eng_judge(o, v->expect)) {
				bad = i;
				badval = val;
				break;
			}
		}
	}
	if (v->t.n > 0)
		ok(bad < 0, "wire: %s: each of %d string lengths set to "
		    "0xffffffff, 0xfffffffe, 2^31, 2^31-1, 2^24-1 and one past "
		    "its buffer: refused", v->name, v->t.n);
	if (bad >= 0)
		printf("#   length at offset %zu = 0x%x: %s\n", v->t.pos[bad],
		    badval, outcome_name(o));
	free(m);
}

/* The counters every run ends with: one test point each. */
static inline void
eng_summary(void)
{
	printf("# %lu replies (%lu bytes), %lu signatures; %lu starts, %lu clean "
	    "exits\n", st.replies, st.bytes, st.signatures, st.starts,
	    st.clean_exits);
	ok(st.leaks == 0, "no reply carried a byte sequence of any private key "
	    "(%zu components scanned, %lu leaks)", nsecrets, st.leaks);
}

#endif
