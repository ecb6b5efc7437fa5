/*
 * bench.c - keyward side by side with OpenSSH's ssh-agent.
 *
 *   bench KW_SOCK KW_PID SA_SOCK SA_PID WORKDIR   the whole benchmark
 *   bench loop SOCK N [ed25519|p256|rsa]          N sequential signatures on
 *                                                 one connection (for perf
 *                                                 and strace -c on an agent)
 *   bench loop SOCK N add|list                    N adds of one key (each
 *                                                 then removed), N lists of
 *                                                 one key
 *   bench loop SOCK N add1|add10k                 the add one key p50 alone;
 *                                                 N rounds of 10,000 adds
 *
 * tests/bench/run.sh starts both agents and runs the first form. The client
 * speaks the agent protocol itself (doc/protocol.md §1: uint32 length + payload),
 * generates its keys with OpenSSL, adds them (doc/protocol.md §4.4, §5.4), signs (doc/protocol.md §5.3) and
 * verifies every signature it receives with OpenSSL; a signature that does
 * not verify stops the run. Verification happens after each timed window,
 * so it never counts in a figure.
 *
 * Every figure is measured against both agents, interleaved (the order
 * alternates every round), over several rounds in one run, on the same
 * keys. The table gives the median of the per-round figures, the ratio
 * keyward / ssh-agent of those medians, and the spread (min-max of the
 * per-round figures of each agent). Nothing here asserts a timing: the
 * target lines at the end only say met or missed.
 *
 * Where the time goes: for the sequential Ed25519 and P-256 signatures the
 * CPU time of every process of each agent's tree (all threads, from
 * /proc/PID/task/TID/schedstat) is taken before and after the loop and
 * given per signature; round 1 prints the per-process split. For syscall
 * counts, attach `strace -c -f -p PID` to each agent process while
 * `bench loop SOCK N` runs; for profiles, `perf record -p PID,...`.
 *
 * BENCH_QUICK=1 in the environment: fewer rounds and iterations (a few
 * minutes, most of them ssh-agent adding its 10,000 keys).
 * BENCH_ONLY=memory: the memory figures alone (idle, 64 open connections,
 * 1,000 keys; a few seconds), with their targets; none of the timed rounds.
 */
#include "ipc/buf.h"
#include "keys/sshkey.h"
#include "tests/hostile/client.h"
#include "tests/unit/testkeys.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Message numbers: tests/hostile/client.h. */

#define MAX_REPLY     (64u * 1024 * 1024)   /* we accept more than clients do */
#define DATA_LEN      150                   /* about a userauth request */
#define MAXROUNDS     16
#define WARMUP        20
#define NAGENTS       2
#define KW            0
#define SA            1

/* ------------------------------------------------------------ utilities */

static uint64_t t_begin;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((format(printf, 1, 2), noreturn)) static void
die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "bench: FATAL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

__attribute__((format(printf, 1, 2))) static void
progress(const char *fmt, ...)
{
	va_list ap;

	printf("[%6.1fs] ", (double)(now_ns() - t_begin) / 1e9);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

static void *
xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n ? n : 1)) == NULL)
		die("out of memory");
	return p;
}

static uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	ssize_t r;

	while (n > 0) {
		r = write(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write: %s", r < 0 ? strerror(errno) : "short write");
		b += r;
		n -= (size_t)r;
	}
}

/* Latencies in nanoseconds. */
struct vec {
	uint64_t *v;
	size_t n, cap;
};

static void
vec_push(struct vec *a, uint64_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 1024;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = x;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
vec_sort(struct vec *a)
{
	qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
}

/* Percentile of a sorted vector, in microseconds. */
static double
vec_pct_us(const struct vec *a, double p)
{
	size_t i;

	if (a->n == 0)
		return 0;
	i = (size_t)(p / 100.0 * (double)(a->n - 1) + 0.5);
	return (double)a->v[i] / 1e3;
}

static void
vec_free(struct vec *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median_of(const double *v, int n)
{
	double t[MAXROUNDS];

	if (n <= 0)
		return 0;
	memcpy(t, v, (size_t)n * sizeof(*t));
	qsort(t, (size_t)n, sizeof(*t), cmp_dbl);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* ------------------------------------------------------- configuration */

static struct {
	int quick;
	int memory_only;        /* BENCH_ONLY=memory */
	int rounds;             /* rounds of the latency/throughput phase */
	int scale_rounds;       /* rounds of the add/list phase */
	int seq_ed, seq_ec, seq_rsa;
	int connect_n;
	double conc_secs;
	int bound_n, bind_n;
	int floor_sign_n, floor_rtt_n;
	int list_reps;
	int sign10k_n;
	int small_n;            /* adds and lists of the one-key figures */
} cfg;

static void
config(void)
{
	const char *q = getenv("BENCH_QUICK"), *only = getenv("BENCH_ONLY");

	cfg.quick = q != NULL && *q != '\0' && strcmp(q, "0") != 0;
	if (only != NULL && *only != '\0') {
		if (strcmp(only, "memory") != 0)
			die("BENCH_ONLY=%s: only \"memory\" is known", only);
		cfg.memory_only = 1;
	}
	if (!cfg.quick) {
		cfg.rounds = 5;
		cfg.scale_rounds = 3;
		cfg.seq_ed = 2000;
		cfg.seq_ec = 2000;
		cfg.seq_rsa = 150;
		cfg.connect_n = 500;
		cfg.conc_secs = 0.6;
		cfg.bound_n = 500;
		cfg.bind_n = 100;
		cfg.floor_sign_n = 2000;
		cfg.floor_rtt_n = 5000;
		cfg.list_reps = 9;
		cfg.sign10k_n = 500;
		cfg.small_n = 400;
	} else {
		cfg.rounds = 2;
		cfg.scale_rounds = 1;
		cfg.seq_ed = 300;
		cfg.seq_ec = 300;
		cfg.seq_rsa = 30;
		cfg.connect_n = 100;
		cfg.conc_secs = 0.15;
		cfg.bound_n = 200;
		cfg.bind_n = 20;
		cfg.floor_sign_n = 300;
		cfg.floor_rtt_n = 1000;
		cfg.list_reps = 3;
		cfg.sign10k_n = 100;
		cfg.small_n = 100;
	}
}

/* --------------------------------------------------------------- agents */

struct agent {
	const char *name;
	const char *sock;
	pid_t pid;
};

static struct agent agents[NAGENTS];

/* ---------------------------------------------------------- connections */

struct conn {
	int fd;
	struct wb out;
	size_t mark;
	uint8_t *in;
	size_t incap;
	struct slice reply;     /* the last reply's payload, type byte first */
	const char *who;
};

static void
conn_init(struct conn *c, const char *who)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	wb_init(&c->out);
	c->incap = 64 * 1024;
	c->in = xmalloc(c->incap);
	c->who = who;
}

static int
unix_connect(const char *path)
{
	int fd = ac_connect(path, 0);

	if (fd < 0)
		die("connect %s: %s", path, strerror(errno));
	return fd;
}

static void
conn_connect(struct conn *c, const char *path)
{
	c->fd = unix_connect(path);
}

static void
conn_disconnect(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void
conn_free(struct conn *c)
{
	conn_disconnect(c);
	wb_free(&c->out);
	free(c->in);
}

static void
conn_begin(struct conn *c, uint8_t type)
{
	wb_reset(&c->out);
	c->mark = wb_begin_string(&c->out);
	wb_u8(&c->out, type);
}

/* Send the message built since conn_begin, read exactly one reply. The
 * exchange is strict request/reply, so a reply arriving with more bytes
 * than its frame is a protocol error. Returns the reply's type byte. */
static uint8_t
conn_call(struct conn *c)
{
	size_t have = 0;
	uint32_t n = 0;
	ssize_t r;

	wb_end_string(&c->out, c->mark);
	if (c->out.err)
		die("message too large");
	write_all(c->fd, c->out.p, c->out.len);
	for (;;) {
		r = read(c->fd, c->in + have, c->incap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("%s: read: %s", c->who, strerror(errno));
		if (r == 0)
			die("%s closed the connection", c->who);
		have += (size_t)r;
		if (have < 4)
			continue;
		n = get_be32(c->in);
		if (n == 0 || n > MAX_REPLY)
			die("%s: reply frame of %u bytes", c->who, n);
		if ((size_t)n + 4 > c->incap) {
			c->incap = (size_t)n + 4;
			c->in = xrealloc(c->in, c->incap);
		}
		if (have == (size_t)n + 4)
			break;
		if (have > (size_t)n + 4)
			die("%s: bytes after the reply", c->who);
	}
	c->reply.p = c->in + 4;
	c->reply.len = n;
	return c->in[4];
}

static void
expect_success(struct conn *c, const char *what)
{
	uint8_t t = conn_call(c);

	if (t != MSG_SUCCESS || c->reply.len != 1)
		die("%s: %s answered %u, not SUCCESS", what, c->who, t);
}

/* ----------------------------------------------------------------- keys */

struct bkey {
	enum key_kind kind;
	EVP_PKEY *pk;
	struct wb blob;         /* public blob (doc/protocol.md §4.2) */
	struct wb priv;         /* type name and private fields (doc/protocol.md §4.4) */
	const char *alg;        /* signature name we ask for */
	const EVP_MD *md;       /* NULL for Ed25519 */
	uint32_t flags;         /* sign request flags */
};

static void
key_gen(struct bkey *k, enum key_kind kind)
{
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	wb_init(&k->blob);
	wb_init(&k->priv);
	switch (kind) {
	case KEY_ED25519:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
		k->alg = "ssh-ed25519";
		break;
	case KEY_ECDSA_P256:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
		k->alg = "ecdsa-sha2-nistp256";
		k->md = EVP_sha256();
		break;
	case KEY_RSA:
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)3072);
		k->alg = "rsa-sha2-256";
		k->md = EVP_sha256();
		k->flags = SSH_AGENT_RSA_SHA2_256;
		break;
	default:
		die("key kind %d", kind);
	}
	if (k->pk == NULL)
		die("%s keygen", k->alg);
	testkey_encode(k->pk, kind, &k->blob, &k->priv);
}

static struct slice
key_blob(const struct bkey *k)
{
	return wb_slice_of(&k->blob);
}

/* In-process signature: the raw OpenSSL output (Ed25519: 64 bytes, ECDSA:
 * DER, RSA: modulus length). A fresh context each time, as an agent would. */
static size_t
inproc_sign(const struct bkey *k, const uint8_t *data, size_t dlen, uint8_t *out, size_t cap)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t len = cap;

	if (ctx == NULL || EVP_DigestSignInit(ctx, NULL, k->md, NULL, k->pk) != 1 ||
	    EVP_DigestSign(ctx, out, &len, data, dlen) != 1)
		die("in-process signature");
	EVP_MD_CTX_free(ctx);
	return len;
}

/* SSH signature blob (doc/protocol.md §4.6) of data, for the session-bind host key. */
static void
ssh_sign_ed25519(const struct bkey *k, const uint8_t *data, size_t dlen, struct wb *out)
{
	uint8_t sig[64];

	if (k->kind != KEY_ED25519 || inproc_sign(k, data, dlen, sig, sizeof(sig)) != 64)
		die("host key signature");
	wb_cstring(out, "ssh-ed25519");
	wb_string(out, sig, 64);
}

static int
verify_raw(const struct bkey *k, const uint8_t *data, size_t dlen, const uint8_t *sig, size_t slen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok;

	ok = ctx != NULL && EVP_DigestVerifyInit(ctx, NULL, k->md, NULL, k->pk) == 1 &&
	    EVP_DigestVerify(ctx, sig, slen, data, dlen) == 1;
	EVP_MD_CTX_free(ctx);
	return ok;
}

/* Does the SSH signature blob sig verify over data with k? */
static int
verify_sig(const struct bkey *k, const uint8_t *data, size_t dlen, struct slice sig)
{
	struct rd r, sub;
	struct slice name, raw, mr, ms;
	ECDSA_SIG *es;
	BIGNUM *br, *bs;
	unsigned char *der = NULL;
	int derlen, ok;

	rd_init(&r, sig.p, sig.len);
	if (rd_string(&r, &name) != 0 || !slice_eq_str(name, k->alg) ||
	    rd_string(&r, &raw) != 0 || rd_done(&r) != 0)
		return 0;
	switch (k->kind) {
	case KEY_ED25519:
		return raw.len == 64 && verify_raw(k, data, dlen, raw.p, raw.len);
	case KEY_RSA:
		return raw.len == 384 && verify_raw(k, data, dlen, raw.p, raw.len);
	case KEY_ECDSA_P256:
		rd_init(&sub, raw.p, raw.len);
		if (rd_mpint(&sub, &mr) != 0 || rd_mpint(&sub, &ms) != 0 || rd_done(&sub) != 0)
			return 0;
		es = ECDSA_SIG_new();
		br = BN_bin2bn(mr.p, (int)mr.len, NULL);
		bs = BN_bin2bn(ms.p, (int)ms.len, NULL);
		if (es == NULL || br == NULL || bs == NULL || ECDSA_SIG_set0(es, br, bs) != 1)
			die("ECDSA_SIG");
		derlen = i2d_ECDSA_SIG(es, &der);
		ok = derlen > 0 && verify_raw(k, data, dlen, der, (size_t)derlen);
		OPENSSL_free(der);
		ECDSA_SIG_free(es);
		return ok;
	default:
		return 0;
	}
}

/* ------------------------------------------------- signatures to verify */

/* Every signature received is kept with its data and verified after the
 * timed window it came from. */
struct sigstore {
	struct wb w;
	size_t n;
};

static void
store_init(struct sigstore *st)
{
	wb_init(&st->w);
	st->n = 0;
}

static void
store_add(struct sigstore *st, const uint8_t *data, size_t dlen, struct slice sig)
{
	wb_string(&st->w, data, dlen);
	wb_slice(&st->w, sig);
	if (st->w.err)
		die("signature store full");
	st->n++;
}

static void
store_verify(struct sigstore *st, const struct bkey *k, const char *who, const char *what)
{
	struct rd r;
	struct slice d, s;
	size_t i = 0;

	rd_init(&r, st->w.p, st->w.len);
	while (r.len > 0) {
		if (rd_string(&r, &d) != 0 || rd_string(&r, &s) != 0)
			die("signature store corrupt");
		if (!verify_sig(k, d.p, d.len, s))
			die("%s: %s: signature %zu of %zu (%s) DOES NOT VERIFY",
			    who, what, i, st->n, k->alg);
		i++;
	}
	wb_free(&st->w);
	st->n = 0;
}

/* The data signed by the plain tests: DATA_LEN bytes, unique per (client,
 * sequence number) so no two requests of a run sign the same bytes. */
static uint8_t data_base[DATA_LEN];

static void
make_data(uint8_t *d, uint32_t client, uint64_t seq)
{
	memcpy(d, data_base, DATA_LEN);
	put_be32(d, 32);                /* looks like string session_id */
	put_be32(d + 4, client);
	put_be32(d + 8, (uint32_t)(seq >> 32));
	put_be32(d + 12, (uint32_t)seq);
}

/* ------------------------------------------------------ agent requests */

static void
req_sign(struct conn *c, const struct bkey *k, const uint8_t *data, size_t dlen)
{
	conn_begin(c, MSG_SIGN);
	wb_slice(&c->out, key_blob(k));
	wb_string(&c->out, data, dlen);
	wb_u32(&c->out, k->flags);
}

/* The signature of a SIGN_RESPONSE just received (points into c->in). */
static struct slice
sign_reply(struct conn *c, uint8_t type)
{
	struct rd r;
	struct slice sig;
	uint8_t t;

	if (type != MSG_SIGN_RESPONSE)
		die("%s refused to sign (answer %u)", c->who, type);
	rd_init(&r, c->reply.p, c->reply.len);
	if (rd_u8(&r, &t) != 0 || rd_string(&r, &sig) != 0 || rd_done(&r) != 0)
		die("%s: malformed SIGN_RESPONSE", c->who);
	return sig;
}

static void
add_key(struct conn *c, const struct bkey *k, const char *comment)
{
	conn_begin(c, MSG_ADD);
	wb_bytes(&c->out, k->priv.p, k->priv.len);
	wb_cstring(&c->out, comment);
	expect_success(c, "add identity");
}

static void
remove_all(struct conn *c)
{
	conn_begin(c, MSG_REMOVE_ALL);
	expect_success(c, "remove all identities");
}

/* One list request: the number of entries returned (all parsed). */
static uint32_t
list_parse(struct conn *c, uint8_t type)
{
	struct rd r;
	struct slice b, cm;
	uint32_t n, i;
	uint8_t t;

	if (type != MSG_IDENTITIES)
		die("%s: list answered %u", c->who, type);
	rd_init(&r, c->reply.p, c->reply.len);
	if (rd_u8(&r, &t) != 0 || rd_u32(&r, &n) != 0)
		die("%s: malformed identities answer", c->who);
	for (i = 0; i < n; i++)
		if (rd_string(&r, &b) != 0 || rd_string(&r, &cm) != 0)
			die("%s: identities answer announces %u entries, has %u", c->who, n, i);
	if (rd_done(&r) != 0)
		die("%s: bytes after the identities", c->who);
	return n;
}

/* ------------------------------------------------------------- metrics */

struct metric {
	char name[80];
	const char *unit;
	int higher_better;
	double v[NAGENTS][MAXROUNDS];
	int n[NAGENTS];
};

static struct metric metrics[160];
static int nmetrics;

static struct metric *
metric_find(const char *name)
{
	int i;

	for (i = 0; i < nmetrics; i++)
		if (strcmp(metrics[i].name, name) == 0)
			return &metrics[i];
	return NULL;
}

__attribute__((format(printf, 5, 6))) static void
record(int agent, double value, const char *unit, int higher, const char *fmt, ...)
{
	struct metric *m;
	char name[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if ((m = metric_find(name)) == NULL) {
		if (nmetrics == (int)(sizeof(metrics) / sizeof(metrics[0])))
			die("too many metrics");
		m = &metrics[nmetrics++];
		snprintf(m->name, sizeof(m->name), "%s", name);
		m->unit = unit;
		m->higher_better = higher;
	}
	if (m->n[agent] < MAXROUNDS)
		m->v[agent][m->n[agent]++] = value;
}

static double
med(const char *name, int agent)
{
	struct metric *m = metric_find(name);

	return m == NULL ? -1 : median_of(m->v[agent], m->n[agent]);
}

static void
fmt_val(char *buf, size_t cap, double v, const char *unit)
{
	if (strcmp(unit, "us") == 0 && v >= 10000)
		snprintf(buf, cap, "%.2f ms", v / 1e3);
	else if (strcmp(unit, "us") == 0)
		snprintf(buf, cap, "%.1f us", v);
	else if (strcmp(unit, "ms") == 0)
		snprintf(buf, cap, "%.1f ms", v);
	else if (strcmp(unit, "KiB") == 0)
		snprintf(buf, cap, "%.0f KiB", v);
	else if (strcmp(unit, "B") == 0)
		snprintf(buf, cap, "%.0f B", v);
	else if (strcmp(unit, "sig/s") == 0)
		snprintf(buf, cap, "%.0f/s", v);
	else if (strcmp(unit, "x") == 0)
		snprintf(buf, cap, "%.3f", v);
	else
		snprintf(buf, cap, "%.0f %s", v, unit);
}

static void
fmt_spread(char *buf, size_t cap, const struct metric *m, int a)
{
	double lo, hi;
	char l[32], h[32];
	int i;

	if (m->n[a] == 0) {
		snprintf(buf, cap, "-");
		return;
	}
	lo = hi = m->v[a][0];
	for (i = 1; i < m->n[a]; i++) {
		lo = m->v[a][i] < lo ? m->v[a][i] : lo;
		hi = m->v[a][i] > hi ? m->v[a][i] : hi;
	}
	if (m->n[a] == 1) {
		snprintf(buf, cap, "(1 round)");
		return;
	}
	fmt_val(l, sizeof(l), lo, m->unit);
	fmt_val(h, sizeof(h), hi, m->unit);
	snprintf(buf, cap, "%s-%s", l, h);
}

static void
print_table(void)
{
	char kv[32], sv[32], ks[80], ss[80], ratio[16];
	double k, s;
	int i;

	printf("\n%-44s | %12s | %12s | %7s | spread keyward ; ssh-agent (min-max of rounds)\n",
	    "metric", "keyward", "ssh-agent", "ratio");
	for (i = 0; i < 44 + 3 + 12 + 3 + 12 + 3 + 7 + 3 + 48; i++)
		putchar('-');
	putchar('\n');
	for (i = 0; i < nmetrics; i++) {
		const struct metric *m = &metrics[i];

		k = median_of(m->v[KW], m->n[KW]);
		s = median_of(m->v[SA], m->n[SA]);
		if (m->n[KW])
			fmt_val(kv, sizeof(kv), k, m->unit);
		else
			snprintf(kv, sizeof(kv), "-");
		if (m->n[SA])
			fmt_val(sv, sizeof(sv), s, m->unit);
		else
			snprintf(sv, sizeof(sv), "-");
		if (m->n[KW] && m->n[SA] && s != 0)
			snprintf(ratio, sizeof(ratio), "%.3f", k / s);
		else
			snprintf(ratio, sizeof(ratio), "-");
		fmt_spread(ks, sizeof(ks), m, KW);
		fmt_spread(ss, sizeof(ss), m, SA);
		printf("%-44s | %12s | %12s | %7s | %s ; %s\n", m->name, kv, sv, ratio, ks, ss);
	}
}

/* Floor figures: one value per round, no agent. */
struct floorm {
	const char *name;
	double v[MAXROUNDS];
	int n;
};

static struct floorm floors[8];
static int nfloors;

static void
floor_record(const char *name, double us)
{
	int i;

	for (i = 0; i < nfloors; i++)
		if (strcmp(floors[i].name, name) == 0)
			break;
	if (i == nfloors) {
		floors[nfloors].name = name;
		nfloors++;
	}
	if (floors[i].n < MAXROUNDS)
		floors[i].v[floors[i].n++] = us;
}

static double
floor_med(const char *name)
{
	int i;

	for (i = 0; i < nfloors; i++)
		if (strcmp(floors[i].name, name) == 0)
			return median_of(floors[i].v, floors[i].n);
	return -1;
}

/* --------------------------------------------------------------- memory */

struct mem {
	double rss_kib, pss_kib;
	int nproc;
};

static void
smaps_add(pid_t pid, struct mem *m, const char *show)
{
	char path[64], line[256], comm[64] = "?";
	double rss = 0, pss = 0;
	FILE *f;
	long v;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(comm, sizeof(comm), f) != NULL)
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "Rss: %ld kB", &v) == 1)
			rss += (double)v;
		else if (sscanf(line, "Pss: %ld kB", &v) == 1)
			pss += (double)v;
	}
	fclose(f);
	m->rss_kib += rss;
	m->pss_kib += pss;
	m->nproc++;
	if (show != NULL)
		progress("  %-9s %s: pid %d %-16s RSS %6.0f KiB  PSS %6.0f KiB", show,
		    "idle", (int)pid, comm, rss, pss);
}

/* root and all its descendants (n of them, at most max). */
static int
tree_pids(pid_t root, pid_t *tree, int max)
{
	int nt = ac_tree_pids(root, tree, max);

	if (nt < 0)
		die("/proc: %s", strerror(errno));
	return nt;
}

/* RSS and PSS summed over root and all its descendants. */
static struct mem
tree_mem(pid_t root, const char *show)
{
	pid_t tree[64];
	struct mem m = { 0, 0, 0 };
	int i, nt = tree_pids(root, tree, 64);

	for (i = 0; i < nt; i++)
		smaps_add(tree[i], &m, show);
	return m;
}

/* CPU time of every process of an agent tree (all its threads), from
 * /proc/PID/task/TID/schedstat: time on CPU and time waiting to run. */
struct pcpu {
	pid_t pid;
	char comm[32];
	int threads;
	uint64_t run_ns, wait_ns;
	unsigned long vcs;              /* voluntary context switches */
};

struct tcpu {
	int n;
	struct pcpu p[64];
};

static void
tree_cpu(pid_t root, struct tcpu *t)
{
	char path[400], line[256];
	pid_t tree[64];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int i, nt = tree_pids(root, tree, 64);

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nt; i++) {
		struct pcpu *p = &t->p[t->n++];

		p->pid = tree[i];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)tree[i]);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(p->comm, sizeof(p->comm), f) != NULL)
				p->comm[strcspn(p->comm, "\n")] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/task", (int)tree[i]);
		if ((d = opendir(path)) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			unsigned long long run, wait;
			unsigned long v;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			p->threads++;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)tree[i],
			    de->d_name);
			if ((f = fopen(path, "r")) != NULL) {
				if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
					p->run_ns += run;
					p->wait_ns += wait;
				}
				fclose(f);
			}
			snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)tree[i],
			    de->d_name);
			if ((f = fopen(path, "r")) != NULL) {
				while (fgets(line, sizeof(line), f) != NULL)
					if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1)
						p->vcs += v;
				fclose(f);
			}
		}
		closedir(d);
	}
}

/* CPU per request of the whole tree between two snapshots; with show,
 * the per-process split as progress lines. */
static double
tree_cpu_per(const struct tcpu *a, const struct tcpu *b, int n, const char *show)
{
	double total = 0;
	int i, j;

	for (i = 0; i < b->n; i++) {
		const struct pcpu *q = &b->p[i];

		for (j = 0; j < a->n; j++)
			if (a->p[j].pid == q->pid)
				break;
		if (j == a->n)
			continue;
		total += (double)(q->run_ns - a->p[j].run_ns) / 1e3 / n;
		if (show != NULL && q->run_ns - a->p[j].run_ns > 0)
			progress("    %-9s %-16s pid %-6d %d thr: CPU %6.1f us, waited to run %5.1f us, "
			    "%.2f voluntary switches per %s", show,
			    q->comm, (int)q->pid, q->threads,
			    (double)(q->run_ns - a->p[j].run_ns) / 1e3 / n,
			    (double)(q->wait_ns - a->p[j].wait_ns) / 1e3 / n,
			    (double)(q->vcs - a->p[j].vcs) / n, "signature");
	}
	return total;
}

/* ----------------------------------------------------- the key material */

static struct bkey k_ed, k_ec, k_rsa;   /* the three signing keys */
static struct bkey k_host;              /* session-bind host key */
static struct bkey k_dest;              /* destination-constrained Ed25519 */
static struct bkey *pool;               /* 10,000 Ed25519 keys for scaling */
#define POOL_N 10000

static void
load_std_keys(int a)
{
	struct conn c;
	struct wb m;
	size_t mark;

	conn_init(&c, agents[a].name);
	conn_connect(&c, agents[a].sock);
	remove_all(&c);
	add_key(&c, &k_ed, "bench-ed25519");
	add_key(&c, &k_ec, "bench-p256");
	add_key(&c, &k_rsa, "bench-rsa3072");

	/* The constrained key (doc/protocol.md §6.6): origin -> "hostname" with k_host. */
	conn_begin(&c, MSG_ADD_CONSTRAINED);
	wb_bytes(&c.out, k_dest.priv.p, k_dest.priv.len);
	wb_cstring(&c.out, "bench-dest");
	wb_u8(&c.out, 255);
	wb_cstring(&c.out, "restrict-destination-v00@openssh.com");
	wb_init(&m);
	mark = wb_begin_string(&m);                 /* constraint_list */
	{
		size_t c1 = wb_begin_string(&m);    /* constraint */
		size_t h = wb_begin_string(&m);     /* from_hop: origin */

		wb_cstring(&m, "");
		wb_cstring(&m, "");
		wb_cstring(&m, "");
		wb_end_string(&m, h);
		h = wb_begin_string(&m);            /* to_hop */
		wb_cstring(&m, "");
		wb_cstring(&m, "hostname");
		wb_cstring(&m, "");
		wb_slice(&m, key_blob(&k_host));
		wb_u8(&m, 0);
		wb_end_string(&m, h);
		wb_cstring(&m, "");                 /* reserved */
		wb_end_string(&m, c1);
	}
	wb_end_string(&m, mark);
	wb_bytes(&c.out, m.p, m.len);
	wb_free(&m);
	expect_success(&c, "add destination-constrained identity");
	conn_free(&c);
}

/* ------------------------------------------------- sequential latency */

static void
seq_sign(int a, const struct bkey *k, int n, const char *label, int show)
{
	static struct tcpu before, after;
	struct conn c;
	struct sigstore st;
	struct vec lat = { 0 };
	uint8_t d[DATA_LEN];
	uint64_t t1, t2;
	uint8_t type;
	int i;

	conn_init(&c, agents[a].name);
	conn_connect(&c, agents[a].sock);
	store_init(&st);
	for (i = -WARMUP; i < n; i++) {
		make_data(d, 0, (uint64_t)(i + WARMUP));
		req_sign(&c, k, d, sizeof(d));
		t1 = now_ns();
		type = conn_call(&c);
		t2 = now_ns();
		store_add(&st, d, sizeof(d), sign_reply(&c, type));
		if (i >= 0)
			vec_push(&lat, t2 - t1);
		if (i == -1)
			tree_cpu(agents[a].pid, &before);
	}
	tree_cpu(agents[a].pid, &after);
	if (show)
		progress("  %s, sequential %s: CPU per signature, per process:", agents[a].name, label);
	record(a, tree_cpu_per(&before, &after, n, show ? agents[a].name : NULL), "us", 0,
	    "agent CPU per sign %s, all processes", label);
	conn_free(&c);
	store_verify(&st, k, agents[a].name, label);
	vec_sort(&lat);
	record(a, vec_pct_us(&lat, 50), "us", 0, "sign %s p50", label);
	record(a, vec_pct_us(&lat, 99), "us", 0, "sign %s p99", label);
	vec_free(&lat);
}

static void
connect_sign(int a, int n)
{
	struct conn c;
	struct sigstore st;
	struct vec lat = { 0 };
	uint8_t d[DATA_LEN];
	uint64_t t1;
	uint8_t type;
	int i;

	conn_init(&c, agents[a].name);
	store_init(&st);
	for (i = -WARMUP; i < n; i++) {
		make_data(d, 1, (uint64_t)(i + WARMUP));
		t1 = now_ns();
		conn_connect(&c, agents[a].sock);
		req_sign(&c, &k_ed, d, sizeof(d));
		type = conn_call(&c);
		conn_disconnect(&c);
		if (i >= 0)
			vec_push(&lat, now_ns() - t1);
		store_add(&st, d, sizeof(d), sign_reply(&c, type));
	}
	conn_free(&c);
	store_verify(&st, &k_ed, agents[a].name, "connect+sign+close");
	vec_sort(&lat);
	record(a, vec_pct_us(&lat, 50), "us", 0, "connect+sign+close ed25519 p50");
	record(a, vec_pct_us(&lat, 99), "us", 0, "connect+sign+close ed25519 p99");
	vec_free(&lat);
}

/* ------------------------------------------------------- concurrency */

struct worker {
	pthread_t th;
	int agent, id;
	const struct bkey *k;
	struct vec lat;
	uint64_t count;
	struct sigstore st;
};

static pthread_barrier_t g_bar;
static uint64_t g_deadline;

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct conn c;
	uint8_t d[DATA_LEN];
	uint64_t dl, t1, t2, seq;
	uint8_t type;

	conn_init(&c, agents[w->agent].name);
	conn_connect(&c, agents[w->agent].sock);
	store_init(&w->st);
	pthread_barrier_wait(&g_bar);
	dl = g_deadline;
	for (seq = 0;; seq++) {
		make_data(d, 100 + (uint32_t)w->id, seq);
		req_sign(&c, w->k, d, sizeof(d));
		if ((t1 = now_ns()) >= dl)
			break;
		type = conn_call(&c);
		t2 = now_ns();
		store_add(&w->st, d, sizeof(d), sign_reply(&c, type));
		if (t2 <= dl) {
			w->count++;
			vec_push(&w->lat, t2 - t1);
		}
	}
	conn_free(&c);
	return NULL;
}

static void
concurrent(int a, int nclients, double secs)
{
	struct worker *w = calloc((size_t)nclients, sizeof(*w));
	struct vec all = { 0 };
	uint64_t total = 0, mn = UINT64_MAX, mx = 0;
	size_t j;
	int i;

	if (w == NULL)
		die("out of memory");
	if (pthread_barrier_init(&g_bar, NULL, (unsigned)nclients + 1) != 0)
		die("pthread_barrier_init");
	for (i = 0; i < nclients; i++) {
		w[i].agent = a;
		w[i].id = i;
		w[i].k = &k_ed;
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) != 0)
			die("pthread_create");
	}
	g_deadline = now_ns() + (uint64_t)(secs * 1e9);
	pthread_barrier_wait(&g_bar);
	for (i = 0; i < nclients; i++)
		pthread_join(w[i].th, NULL);
	pthread_barrier_destroy(&g_bar);
	for (i = 0; i < nclients; i++) {
		store_verify(&w[i].st, &k_ed, agents[a].name, "concurrent sign");
		total += w[i].count;
		mn = w[i].count < mn ? w[i].count : mn;
		mx = w[i].count > mx ? w[i].count : mx;
		for (j = 0; j < w[i].lat.n; j++)
			vec_push(&all, w[i].lat.v[j]);
		vec_free(&w[i].lat);
	}
	vec_sort(&all);
	record(a, (double)total / secs, "sig/s", 1, "throughput %2d clients", nclients);
	record(a, vec_pct_us(&all, 50), "us", 0, "latency p50 %2d clients", nclients);
	record(a, vec_pct_us(&all, 99), "us", 0, "latency p99 %2d clients", nclients);
	if (nclients > 1)
		record(a, mx ? (double)mn / (double)mx : 0, "x", 1, "fairness %2d clients (fewest/most)", nclients);
	vec_free(&all);
	free(w);
}

/* ------------------------------------------------ destination-constrained */

static void
session_bind(struct conn *c, const uint8_t *sid, size_t sidlen)
{
	struct wb sig;

	wb_init(&sig);
	ssh_sign_ed25519(&k_host, sid, sidlen, &sig);
	conn_begin(c, MSG_EXTENSION);
	wb_cstring(&c->out, "session-bind@openssh.com");
	wb_slice(&c->out, key_blob(&k_host));
	wb_string(&c->out, sid, sidlen);
	wb_slice(&c->out, wb_slice_of(&sig));
	wb_u8(&c->out, 0);                  /* authentication, not forwarding */
	wb_free(&sig);
}

/* The hostbound userauth request of doc/protocol.md §8.7 that ssh asks the agent to sign. */
static void
userauth_data(struct wb *w, const uint8_t *sid, size_t sidlen, uint32_t seq, const struct bkey *k)
{
	char user[32];

	snprintf(user, sizeof(user), "user%08x", seq);
	wb_reset(w);
	wb_string(w, sid, sidlen);
	wb_u8(w, 50);
	wb_cstring(w, user);
	wb_cstring(w, "ssh-connection");
	wb_cstring(w, "publickey-hostbound-v00@openssh.com");
	wb_u8(w, 1);
	wb_cstring(w, k->alg);
	wb_slice(w, key_blob(k));
	wb_slice(w, key_blob(&k_host));
	if (w->err)
		die("userauth data");
}

static void
bound_sign(int a, int n)
{
	const struct bkey *keys[2] = { &k_ed, &k_dest };
	struct sigstore st[2];
	struct vec lat[2] = { { 0 }, { 0 } }, bind = { 0 };
	struct conn c;
	struct wb d;
	uint8_t sid[32], type;
	uint64_t t1, t2;
	int i, j, x;

	conn_init(&c, agents[a].name);
	wb_init(&d);

	/* session-bind itself: a host signature verified by the agent. */
	for (i = 0; i < cfg.bind_n; i++) {
		RAND_bytes(sid, sizeof(sid));
		conn_connect(&c, agents[a].sock);
		session_bind(&c, sid, sizeof(sid));
		t1 = now_ns();
		type = conn_call(&c);
		t2 = now_ns();
		if (type != MSG_SUCCESS)
			die("%s refused session-bind (answer %u)", c.who, type);
		vec_push(&bind, t2 - t1);
		conn_disconnect(&c);
	}

	/* Sanity: the constraint is in force, unbound it must be refused. */
	conn_connect(&c, agents[a].sock);
	RAND_bytes(sid, sizeof(sid));
	userauth_data(&d, sid, sizeof(sid), 0, &k_dest);
	req_sign(&c, &k_dest, d.p, d.len);
	if ((type = conn_call(&c)) != MSG_FAILURE)
		die("%s signed with a destination-constrained key on an unbound connection (answer %u)",
		    c.who, type);

	/* One bound connection; constrained and unconstrained alternate. */
	session_bind(&c, sid, sizeof(sid));
	expect_success(&c, "session-bind");
	store_init(&st[0]);
	store_init(&st[1]);
	for (i = -WARMUP; i < n; i++) {
		for (x = 0; x < 2; x++) {
			j = (i & 1) ^ x;
			userauth_data(&d, sid, sizeof(sid), (uint32_t)(i + WARMUP), keys[j]);
			req_sign(&c, keys[j], d.p, d.len);
			t1 = now_ns();
			type = conn_call(&c);
			t2 = now_ns();
			store_add(&st[j], d.p, d.len, sign_reply(&c, type));
			if (i >= 0)
				vec_push(&lat[j], t2 - t1);
		}
	}
	conn_free(&c);
	wb_free(&d);
	store_verify(&st[0], keys[0], agents[a].name, "bound sign, unconstrained");
	store_verify(&st[1], keys[1], agents[a].name, "bound sign, constrained");
	vec_sort(&bind);
	vec_sort(&lat[0]);
	vec_sort(&lat[1]);
	record(a, vec_pct_us(&bind, 50), "us", 0, "session-bind p50");
	record(a, vec_pct_us(&lat[0], 50), "us", 0, "bound sign unconstrained p50");
	record(a, vec_pct_us(&lat[1], 50), "us", 0, "bound sign constrained p50");
	record(a, vec_pct_us(&lat[1], 50) / vec_pct_us(&lat[0], 50), "x", 0,
	    "constrained / unconstrained p50");
	vec_free(&bind);
	vec_free(&lat[0]);
	vec_free(&lat[1]);
}

/* ------------------------------------------------------------- memory */

static void
memory_phase(int a)
{
	struct conn cs[64], c;
	struct mem m0, m1, m2;
	char comment[32];
	int i;

	m0 = tree_mem(agents[a].pid, agents[a].name);
	record(a, m0.nproc, "procs", 0, "processes in the agent tree");
	record(a, m0.rss_kib, "KiB", 0, "idle RSS, whole tree");
	record(a, m0.pss_kib, "KiB", 0, "idle PSS, whole tree");
	for (i = 0; i < 64; i++) {
		conn_init(&cs[i], agents[a].name);
		conn_connect(&cs[i], agents[a].sock);
		conn_begin(&cs[i], MSG_REQ_IDENTITIES);
		list_parse(&cs[i], conn_call(&cs[i]));
	}
	m1 = tree_mem(agents[a].pid, NULL);
	record(a, m1.rss_kib, "KiB", 0, "64 open connections RSS");
	record(a, m1.pss_kib, "KiB", 0, "64 open connections PSS");
	for (i = 0; i < 64; i++)
		conn_free(&cs[i]);

	conn_init(&c, agents[a].name);
	conn_connect(&c, agents[a].sock);
	m1 = tree_mem(agents[a].pid, NULL);
	for (i = 0; i < 1000; i++) {
		snprintf(comment, sizeof(comment), "k%d", i);
		add_key(&c, &pool[i], comment);
	}
	m2 = tree_mem(agents[a].pid, NULL);
	record(a, (m2.rss_kib - m1.rss_kib) * 1024 / 1000, "B", 0, "per key RSS (1,000 keys)");
	record(a, (m2.pss_kib - m1.pss_kib) * 1024 / 1000, "B", 0, "per key PSS (1,000 keys)");
	remove_all(&c);
	conn_free(&c);
}

/* ------------------------------------------------- one key: add, list */

/* The small figures a user meets every day: one ADD of one key into an
 * empty agent (ssh-add after login), and a LIST with that one key loaded
 * (every ssh that starts), each a single request on an open connection. */
static void
small_phase(int a)
{
	struct conn c;
	struct vec add = { 0 }, list = { 0 };
	uint64_t t1, t2;
	uint8_t type;
	int i;

	conn_init(&c, agents[a].name);
	conn_connect(&c, agents[a].sock);
	remove_all(&c);
	for (i = -WARMUP; i < cfg.small_n; i++) {
		conn_begin(&c, MSG_ADD);
		wb_bytes(&c.out, pool[0].priv.p, pool[0].priv.len);
		wb_cstring(&c.out, "one");
		t1 = now_ns();
		expect_success(&c, "add identity");
		t2 = now_ns();
		if (i >= 0)
			vec_push(&add, t2 - t1);
		remove_all(&c);
	}
	add_key(&c, &pool[0], "one");
	for (i = -WARMUP; i < cfg.small_n; i++) {
		conn_begin(&c, MSG_REQ_IDENTITIES);
		t1 = now_ns();
		type = conn_call(&c);
		t2 = now_ns();
		if (list_parse(&c, type) != 1)
			die("%s: the one-key list is not one key", c.who);
		if (i >= 0)
			vec_push(&list, t2 - t1);
	}
	remove_all(&c);
	vec_sort(&add);
	vec_sort(&list);
	record(a, vec_pct_us(&add, 50), "us", 0, "add one key (one request) p50");
	record(a, vec_pct_us(&list, 50), "us", 0, "list with one key p50");
	vec_free(&add);
	vec_free(&list);
	conn_free(&c);
}

/* --------------------------------------------------------- add / list */

static void
scale_phase(int a, int round)
{
	static const int marks[] = { 1, 100, 1000, 10000 };
	struct conn c;
	struct sigstore st;
	struct vec lat = { 0 };
	uint64_t t_add = 0, t1, t2, last1000 = 0;
	uint8_t d[DATA_LEN], type;
	char comment[32];
	uint32_t got = 0;
	size_t replylen = 0;
	int i, m = 0, r;

	conn_init(&c, agents[a].name);
	conn_connect(&c, agents[a].sock);
	remove_all(&c);
	for (i = 0; i < POOL_N; i++) {
		snprintf(comment, sizeof(comment), "k%d", i);
		conn_begin(&c, MSG_ADD);
		wb_bytes(&c.out, pool[i].priv.p, pool[i].priv.len);
		wb_cstring(&c.out, comment);
		t1 = now_ns();
		expect_success(&c, "add identity");
		t2 = now_ns();
		t_add += t2 - t1;
		if (i >= POOL_N - 1000)
			last1000 += t2 - t1;
		if (m >= (int)(sizeof(marks) / sizeof(marks[0])) || i + 1 != marks[m])
			continue;
		record(a, (double)t_add / 1e6, "ms", 0, "add %5d keys (from empty)", marks[m]);
		/* ssh-agent's first 10,000 adds run on a heap still growing and
		 * are slower than later rounds that reuse it: show round 1 alone. */
		if (round == 0 && marks[m] == POOL_N)
			record(a, (double)t_add / 1e6, "ms", 0, "add %5d keys, first round only", marks[m]);
		{
			struct vec l = { 0 };

			for (r = 0; r < cfg.list_reps; r++) {
				conn_begin(&c, MSG_REQ_IDENTITIES);
				t1 = now_ns();
				type = conn_call(&c);
				t2 = now_ns();
				got = list_parse(&c, type);
				replylen = c.reply.len;
				vec_push(&l, t2 - t1);
			}
			vec_sort(&l);
			record(a, vec_pct_us(&l, 50), "us", 0, "list  %5d keys loaded", marks[m]);
			record(a, got, "entries", 1, "list  %5d keys: entries returned", marks[m]);
			if (round == 0)
				progress("  %s: %d keys loaded, list returned %u entries (%zu bytes)",
				    agents[a].name, marks[m], got, replylen);
			vec_free(&l);
		}
		m++;
	}
	record(a, (double)last1000 / 1e3 / 1000, "us", 0, "add: per key, keys 9,001-10,000");

	/* Sign with the last key added (worst case for a linear search). */
	store_init(&st);
	for (i = -WARMUP; i < cfg.sign10k_n; i++) {
		make_data(d, 2, (uint64_t)(i + WARMUP));
		req_sign(&c, &pool[POOL_N - 1], d, sizeof(d));
		t1 = now_ns();
		type = conn_call(&c);
		t2 = now_ns();
		store_add(&st, d, sizeof(d), sign_reply(&c, type));
		if (i >= 0)
			vec_push(&lat, t2 - t1);
	}
	store_verify(&st, &pool[POOL_N - 1], agents[a].name, "sign with 10,000 keys");
	vec_sort(&lat);
	record(a, vec_pct_us(&lat, 50), "us", 0, "sign ed25519 p50, 10,000 keys loaded");
	vec_free(&lat);
	t1 = now_ns();
	remove_all(&c);
	record(a, (double)(now_ns() - t1) / 1e3, "us", 0, "remove all 10,000 keys");
	conn_free(&c);
}

/* ---------------------------------------------------------------- floor */

static pid_t kids[8];
static int nkids;

#define REQ_FRAME   218     /* a sign request of DATA_LEN bytes, framed */
#define REPLY_FRAME 92      /* an Ed25519 SIGN_RESPONSE, framed */

static int
unix_listen(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		die("socket path too long: %s", path);
	strcpy(sa.sun_path, path);
	unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 8) != 0)
		die("listen %s: %s", path, strerror(errno));
	return fd;
}

/* One frame from a stream into buf; 0 at EOF. */
static size_t
srv_read_frame(int fd, uint8_t *buf, size_t cap)
{
	size_t have = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		have += (size_t)r;
		if (have >= 4 && have >= 4 + (size_t)get_be32(buf))
			return have;
	}
}

static pid_t
fork_kid(void)
{
	pid_t p = fork();

	if (p < 0)
		die("fork: %s", strerror(errno));
	if (p > 0)
		kids[nkids++] = p;
	return p;
}

/* client <-> echo: one hop over a UNIX stream socket. */
static void
start_echo1(const char *path)
{
	uint8_t buf[4096];
	int ls = unix_listen(path), fd;

	if (fork_kid() == 0) {
		if ((fd = accept(ls, NULL, NULL)) < 0)
			_exit(1);
		memset(buf, 0x5a, sizeof(buf));
		put_be32(buf, REPLY_FRAME - 4);
		while (srv_read_frame(fd, buf, sizeof(buf)) > 0) {
			put_be32(buf, REPLY_FRAME - 4);
			if (write(fd, buf, REPLY_FRAME) != REPLY_FRAME)
				_exit(1);
		}
		_exit(0);
	}
	close(ls);
}

/* client -> A (stream) -> B -> C (SOCK_SEQPACKET pairs) and back; with
 * hops 2, B answers itself (the path of a list: monitor and policy). */
static void
start_echo(const char *path, int hops)
{
	uint8_t buf[4096];
	int ls = unix_listen(path), ab[2], bc[2], fd;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, ab) != 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, bc) != 0)
		die("socketpair: %s", strerror(errno));
	if (hops == 3 && fork_kid() == 0) {     /* C: the "keyholder" */
		close(ls), close(ab[0]), close(ab[1]), close(bc[0]);
		memset(buf, 0x5a, sizeof(buf));
		while (recv(bc[1], buf, sizeof(buf), 0) > 0)
			if (send(bc[1], buf, REPLY_FRAME - 4, 0) != REPLY_FRAME - 4)
				_exit(1);
		_exit(0);
	}
	if (fork_kid() == 0) {                  /* B: the "policy" */
		close(ls), close(ab[0]), close(bc[1]);
		while ((n = recv(ab[1], buf, sizeof(buf), 0)) > 0) {
			if (hops == 2) {
				if (send(ab[1], buf, REPLY_FRAME - 4, 0) != REPLY_FRAME - 4)
					_exit(1);
				continue;
			}
			if (send(bc[0], buf, (size_t)n, 0) != n ||
			    (n = recv(bc[0], buf, sizeof(buf), 0)) <= 0 ||
			    send(ab[1], buf, (size_t)n, 0) != n)
				_exit(1);
		}
		_exit(0);
	}
	if (fork_kid() == 0) {                  /* A: the "monitor" */
		close(ab[1]), close(bc[0]), close(bc[1]);
		if ((fd = accept(ls, NULL, NULL)) < 0)
			_exit(1);
		while ((n = (ssize_t)srv_read_frame(fd, buf, sizeof(buf))) > 0) {
			if (send(ab[0], buf + 4, (size_t)n - 4, 0) != n - 4 ||
			    (n = recv(ab[0], buf + 4, sizeof(buf) - 4, 0)) <= 0)
				_exit(1);
			put_be32(buf, (uint32_t)n);
			if (write(fd, buf, (size_t)n + 4) != n + 4)
				_exit(1);
		}
		_exit(0);
	}
	close(ls), close(ab[0]), close(ab[1]), close(bc[0]), close(bc[1]);
}

static int fd_echo1 = -1, fd_echo2 = -1, fd_echo3 = -1;

static double
rtt_p50(int fd, int n)
{
	uint8_t req[REQ_FRAME], rep[4096];
	struct vec lat = { 0 };
	uint64_t t1;
	double p;
	size_t got;
	int i;

	memset(req, 0xa5, sizeof(req));
	put_be32(req, REQ_FRAME - 4);
	for (i = -WARMUP; i < n; i++) {
		t1 = now_ns();
		write_all(fd, req, sizeof(req));
		got = srv_read_frame(fd, rep, sizeof(rep));
		if (got != REPLY_FRAME)
			die("echo server: reply of %zu bytes", got);
		if (i >= 0)
			vec_push(&lat, now_ns() - t1);
	}
	vec_sort(&lat);
	p = vec_pct_us(&lat, 50);
	vec_free(&lat);
	return p;
}

static void
floor_inproc(const struct bkey *k, int n, const char *name)
{
	uint8_t d[DATA_LEN], sig[512];
	struct vec lat = { 0 };
	uint64_t t1;
	size_t len;
	int i;

	for (i = -WARMUP; i < n; i++) {
		make_data(d, 3, (uint64_t)(i + WARMUP));
		t1 = now_ns();
		len = inproc_sign(k, d, sizeof(d), sig, sizeof(sig));
		if (i >= 0)
			vec_push(&lat, now_ns() - t1);
		if (!verify_raw(k, d, sizeof(d), sig, len))
			die("in-process %s signature does not verify", name);
	}
	vec_sort(&lat);
	floor_record(name, vec_pct_us(&lat, 50));
	vec_free(&lat);
}

static void
floor_round(void)
{
	floor_inproc(&k_ed, cfg.floor_sign_n, "in-process sign ed25519 p50");
	floor_inproc(&k_ec, cfg.floor_sign_n, "in-process sign p256 p50");
	floor_inproc(&k_rsa, cfg.floor_sign_n / 10, "in-process sign rsa3072 p50");
	floor_record("UNIX round trip, 1 hop p50", rtt_p50(fd_echo1, cfg.floor_rtt_n));
	floor_record("UNIX round trip, 2 hops p50", rtt_p50(fd_echo2, cfg.floor_rtt_n));
	floor_record("UNIX round trip, 3 hops p50", rtt_p50(fd_echo3, cfg.floor_rtt_n));
}

static void
stop_kids(void)
{
	int i;

	if (fd_echo1 >= 0)
		close(fd_echo1);
	if (fd_echo2 >= 0)
		close(fd_echo2);
	if (fd_echo3 >= 0)
		close(fd_echo3);
	for (i = 0; i < nkids; i++) {
		kill(kids[i], SIGTERM);
		waitpid(kids[i], NULL, 0);
	}
	nkids = 0;
}

/* -------------------------------------------------------------- targets */

static int n_met, n_missed;

__attribute__((format(printf, 3, 4))) static void
target(int met, double fig, const char *fmt, ...)
{
	va_list ap;

	printf("  %-7s ", met ? "met" : "MISSED");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%.3f)\n", fig);
	if (met)
		n_met++;
	else
		n_missed++;
}

static double
ratio_of(const char *name)
{
	double k = med(name, KW), s = med(name, SA);

	return s > 0 ? k / s : -1;
}

/* The memory targets, the whole list's and BENCH_ONLY=memory's. */
static void
print_memory_targets(void)
{
	double r;

	r = ratio_of("per key PSS (1,000 keys)");
	target(r <= 0.25, r, "memory per key (PSS) <= 0.25");
	r = ratio_of("per key RSS (1,000 keys)");
	target(r <= 0.25, r, "memory per key (RSS) <= 0.25");
	r = ratio_of("idle PSS, whole tree");
	target(r <= 1.5, r, "idle PSS of the whole tree <= 1.5");
	r = ratio_of("64 open connections PSS");
	target(r <= 1.5, r, "PSS of the whole tree with 64 clients <= 1.5");
}

static void
print_targets(void)
{
	static const int lv[] = { 4, 16, 64 };
	char name[80];
	double r, floor;
	size_t i;

	printf("\nfloor (same run, median of rounds):\n");
	for (i = 0; i < (size_t)nfloors; i++) {
		double lo = floors[i].v[0], hi = floors[i].v[0];
		int j;

		for (j = 1; j < floors[i].n; j++) {
			lo = floors[i].v[j] < lo ? floors[i].v[j] : lo;
			hi = floors[i].v[j] > hi ? floors[i].v[j] : hi;
		}
		printf("  %-36s %9.1f us   (rounds %.1f-%.1f)\n", floors[i].name,
		    median_of(floors[i].v, floors[i].n), lo, hi);
	}
	floor = floor_med("in-process sign ed25519 p50") + floor_med("UNIX round trip, 3 hops p50");
	printf("  %-36s %9.1f us   keyward ed25519 p50 = %.2f x floor; ssh-agent = %.2f x in-process\n",
	    "floor ed25519 (in-process + 3 hops)", floor, med("sign ed25519 p50", KW) / floor,
	    med("sign ed25519 p50", SA) / floor_med("in-process sign ed25519 p50"));
	printf("  %-36s %9s      ssh-agent p256 = %.2f x in-process; keyward = %.2f x in-process\n",
	    "", "", med("sign p256 p50", SA) / floor_med("in-process sign p256 p50"),
	    med("sign p256 p50", KW) / floor_med("in-process sign p256 p50"));
	/* What the process split costs the small requests: a list crosses
	 * the monitor and policy (2 hops), an add policy and the keyholder
	 * too (3); ssh-agent answers both in one (1 hop). */
	printf("  %-36s %9s      keyward = %.2f x 2 hops; ssh-agent = %.2f x 1 hop\n",
	    "list with one key p50", "", med("list with one key p50", KW) /
	    floor_med("UNIX round trip, 2 hops p50"), med("list with one key p50", SA) /
	    floor_med("UNIX round trip, 1 hop p50"));
	printf("  %-36s %9s      keyward = %.2f x 3 hops; ssh-agent = %.2f x 1 hop\n",
	    "add one key (one request) p50", "", med("add one key (one request) p50", KW) /
	    floor_med("UNIX round trip, 3 hops p50"), med("add one key (one request) p50", SA) /
	    floor_med("UNIX round trip, 1 hop p50"));

	printf("\ntargets (keyward / ssh-agent, same run; never asserted):\n");
	r = ratio_of("sign ed25519 p50");
	target(r <= 0.5, r, "sequential sign p50 ed25519 <= 0.5");
	r = ratio_of("sign p256 p50");
	target(r <= 0.5, r, "sequential sign p50 ecdsa p256 <= 0.5");
	r = ratio_of("sign rsa3072 p50");
	target(r <= 1.05, r, "sequential sign p50 rsa3072 <= 1.05");
	r = med("sign ed25519 p50", KW) / floor;
	target(r <= 1.5, r, "keyward ed25519 p50 <= 1.5 x floor");
	for (i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
		snprintf(name, sizeof(name), "throughput %2d clients", lv[i]);
		r = ratio_of(name);
		target(r >= 2.0, r, "throughput %d clients >= 2.0", lv[i]);
		snprintf(name, sizeof(name), "fairness %2d clients (fewest/most)", lv[i]);
		r = med(name, KW);
		target(r >= 0.9, r, "keyward fairness %d clients >= 0.9", lv[i]);
	}
	r = ratio_of("add 10000 keys (from empty)");
	target(r <= 0.1, r, "add 10,000 keys <= 0.1 (first round alone: %.3f)",
	    ratio_of("add 10000 keys, first round only"));
	r = ratio_of("list  10000 keys loaded");
	target(r <= 0.5, r, "list 10,000 keys <= 0.5 (entries: keyward %.0f, ssh-agent %.0f)",
	    med("list  10000 keys: entries returned", KW), med("list  10000 keys: entries returned", SA));
	r = ratio_of("sign ed25519 p50, 10,000 keys loaded");
	target(r <= 0.5, r, "sign with 10,000 keys loaded <= 0.5");
	r = ratio_of("add one key (one request) p50");
	target(r <= 1.0, r, "add one key (one request) <= 1.0");
	r = ratio_of("list with one key p50");
	target(r <= 1.0, r, "list with one key <= 1.0");
	print_memory_targets();
	r = med("constrained / unconstrained p50", KW);
	target(r <= 1.10, r, "keyward constrained sign <= 1.10 x unconstrained");
	printf("  %d met, %d missed\n", n_met, n_missed);
}

/* ------------------------------------------------------------ loop mode */

/* add1: the "add one key" figure alone, as small_phase takes it: N adds
 * into an empty agent, each timed, each followed by an untimed remove
 * all; prints the p50. add10k: N rounds of the scale phase's adds (10,000
 * keys from empty, then a remove all), prints the median total. */
static int
loop_add(struct conn *c, const struct bkey *k, int bulk, long n)
{
	struct vec v = { 0 };
	struct bkey *keys = NULL;
	char comment[32];
	uint64_t t1, t2, sum;
	long i;
	int j;

	if (bulk) {
		keys = xmalloc(POOL_N * sizeof(*keys));
		for (j = 0; j < POOL_N; j++)
			key_gen(&keys[j], KEY_ED25519);
	}
	remove_all(c);
	for (i = 0; i < n; i++) {
		sum = 0;
		for (j = 0; j < (bulk ? POOL_N : 1); j++) {
			const struct bkey *x = bulk ? &keys[j] : k;

			snprintf(comment, sizeof(comment), "k%d", j);
			conn_begin(c, MSG_ADD);
			wb_bytes(&c->out, x->priv.p, x->priv.len);
			wb_cstring(&c->out, comment);
			t1 = now_ns();
			expect_success(c, "add identity");
			t2 = now_ns();
			sum += t2 - t1;
		}
		vec_push(&v, sum);
		remove_all(c);
	}
	vec_sort(&v);
	if (bulk)
		printf("%ld rounds of %d adds from empty, median %.1f ms\n", n,
		    POOL_N, vec_pct_us(&v, 50) / 1e3);
	else
		printf("%ld adds into an empty agent, p50 %.1f us\n", n,
		    vec_pct_us(&v, 50));
	vec_free(&v);
	free(keys);
	conn_free(c);
	return 0;
}

static int
loop_mode(int argc, char **argv)
{
	const char *alg = argc > 4 ? argv[4] : "ed25519";
	struct bkey k;
	struct conn c;
	uint8_t d[DATA_LEN], type;
	uint64_t t1;
	long n = atol(argv[3]), i;

	if (strcmp(alg, "p256") == 0)
		key_gen(&k, KEY_ECDSA_P256);
	else if (strcmp(alg, "rsa") == 0)
		key_gen(&k, KEY_RSA);
	else
		key_gen(&k, KEY_ED25519);
	RAND_bytes(data_base, sizeof(data_base));
	conn_init(&c, argv[2]);
	conn_connect(&c, argv[2]);
	if (strcmp(alg, "add1") == 0 || strcmp(alg, "add10k") == 0)
		return loop_add(&c, &k, alg[3] == '1' && alg[4] == '0', n);
	if (strcmp(alg, "add") == 0 || strcmp(alg, "list") == 0) {
		/* the one-key figures: N adds into an empty agent (each
		 * followed by a remove all), or N lists of one key */
		remove_all(&c);
		if (alg[0] == 'l')
			add_key(&c, &k, "bench-loop");
		fprintf(stderr, "bench loop: %s %ld times\n", alg, n);
		t1 = now_ns();
		for (i = 0; i < n; i++) {
			if (alg[0] == 'l') {
				conn_begin(&c, MSG_REQ_IDENTITIES);
				if (list_parse(&c, conn_call(&c)) != 1)
					die("the list is not one key");
				continue;
			}
			add_key(&c, &k, "bench-loop");
			remove_all(&c);
		}
		printf("%ld %s (%s), %.1f us each\n", n, alg, alg[0] == 'l' ?
		    "one key loaded" : "each with a remove all",
		    (double)(now_ns() - t1) / 1e3 / (double)n);
		conn_free(&c);
		return 0;
	}
	add_key(&c, &k, "bench-loop");
	/* A marker the strace/perf wrapper may wait for. */
	fprintf(stderr, "bench loop: key added, signing %ld times\n", n);
	t1 = now_ns();
	for (i = 0; i < n; i++) {
		make_data(d, 9, (uint64_t)i);
		req_sign(&c, &k, d, sizeof(d));
		type = conn_call(&c);
		if (!verify_sig(&k, d, sizeof(d), sign_reply(&c, type)))
			die("signature %ld does not verify", i);
	}
	printf("%ld signatures (%s), %.1f us each including client verification\n", n, alg,
	    (double)(now_ns() - t1) / 1e3 / (double)n);
	conn_free(&c);
	return 0;
}

/* ----------------------------------------------------------------- main */

static void
loadavg(char *buf, size_t cap)
{
	FILE *f = fopen("/proc/loadavg", "r");

	buf[0] = '\0';
	if (f != NULL) {
		if (fgets(buf, (int)cap, f) != NULL)
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

int
main(int argc, char **argv)
{
	static const int levels[] = { 1, 4, 16, 64 };
	char path[512], la[128];
	int r, i, j, a;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_begin = now_ns();
	if (argc >= 4 && strcmp(argv[1], "loop") == 0)
		return loop_mode(argc, argv);
	if (argc != 6) {
		fprintf(stderr, "usage: bench KW_SOCK KW_PID SA_SOCK SA_PID WORKDIR\n"
		    "       bench loop SOCK N [ed25519|p256|rsa|add|list|add1|add10k]\n");
		return 2;
	}
	config();
	agents[KW].name = "keyward";
	agents[KW].sock = argv[1];
	agents[KW].pid = (pid_t)atoi(argv[2]);
	agents[SA].name = "ssh-agent";
	agents[SA].sock = argv[3];
	agents[SA].pid = (pid_t)atoi(argv[4]);
	loadavg(la, sizeof(la));
	progress("keyward bench%s: %d rounds (add/list: %d), load average %s",
	    cfg.quick ? " (BENCH_QUICK)" : "", cfg.rounds, cfg.scale_rounds, la);

	/* The floor's echo servers, forked before any thread exists. */
	snprintf(path, sizeof(path), "%s/echo1.sock", argv[5]);
	start_echo1(path);
	fd_echo1 = unix_connect(path);
	snprintf(path, sizeof(path), "%s/echo2.sock", argv[5]);
	start_echo(path, 2);
	fd_echo2 = unix_connect(path);
	snprintf(path, sizeof(path), "%s/echo3.sock", argv[5]);
	start_echo(path, 3);
	fd_echo3 = unix_connect(path);

	progress("generating keys: ed25519, p256, rsa3072, host and constrained ed25519, %d ed25519",
	    POOL_N);
	RAND_bytes(data_base, sizeof(data_base));
	key_gen(&k_ed, KEY_ED25519);
	key_gen(&k_ec, KEY_ECDSA_P256);
	key_gen(&k_rsa, KEY_RSA);
	key_gen(&k_host, KEY_ED25519);
	key_gen(&k_dest, KEY_ED25519);
	pool = xmalloc(POOL_N * sizeof(*pool));
	for (i = 0; i < (cfg.memory_only ? 1000 : POOL_N); i++)
		key_gen(&pool[i], KEY_ED25519);

	progress("memory: fresh agents idle, 64 open connections, 1,000 keys");
	for (a = 0; a < NAGENTS; a++)
		memory_phase(a);
	if (cfg.memory_only) {
		stop_kids();
		print_table();
		printf("\ntargets (keyward / ssh-agent, same run; never asserted):\n");
		print_memory_targets();
		printf("  %d met, %d missed\n", n_met, n_missed);
		return 0;
	}
	progress("one key: add, list (%d rounds, interleaved)", cfg.rounds);
	for (r = 0; r < cfg.rounds; r++)
		for (j = 0; j < NAGENTS; j++)
			small_phase((r & 1) ? 1 - j : j);
	for (a = 0; a < NAGENTS; a++)
		load_std_keys(a);

	for (r = 0; r < cfg.rounds; r++) {
		loadavg(la, sizeof(la));
		progress("round %d/%d (load %s)", r + 1, cfg.rounds, la);
		floor_round();
		for (j = 0; j < NAGENTS; j++) {
			a = (r & 1) ? 1 - j : j;
			progress("  %-9s sequential sign ed25519 / p256 / rsa3072", agents[a].name);
			seq_sign(a, &k_ed, cfg.seq_ed, "ed25519", r == 0);
			seq_sign(a, &k_ec, cfg.seq_ec, "p256", r == 0);
			seq_sign(a, &k_rsa, cfg.seq_rsa, "rsa3072", 0);
			progress("  %-9s connect + sign + close", agents[a].name);
			connect_sign(a, cfg.connect_n);
			progress("  %-9s session-bind, bound sign constrained / unconstrained",
			    agents[a].name);
			bound_sign(a, cfg.bound_n);
		}
		for (i = 0; i < (int)(sizeof(levels) / sizeof(levels[0])); i++)
			for (j = 0; j < NAGENTS; j++) {
				a = ((r + i) & 1) ? 1 - j : j;
				progress("  %-9s %2d concurrent clients, %.2f s", agents[a].name,
				    levels[i], cfg.conc_secs);
				concurrent(a, levels[i], cfg.conc_secs);
			}
	}
	for (r = 0; r < cfg.scale_rounds; r++)
		for (j = 0; j < NAGENTS; j++) {
			a = (r & 1) ? 1 - j : j;
			loadavg(la, sizeof(la));
			progress("add/list round %d/%d: %s, adding 1 .. %d keys (load %s)", r + 1,
			    cfg.scale_rounds, agents[a].name, POOL_N, la);
			scale_phase(a, r);
		}
	stop_kids();

	loadavg(la, sizeof(la));
	progress("done; every signature verified; load average %s", la);
	print_table();
	print_targets();
	return 0;
}
