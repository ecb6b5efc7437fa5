/*
 * hostile_policy.c - a compromised policy, as a TAP test (issue 5,
 * "Prove"). It starts keyward-keyholder alone, as monitor/spawn.c does
 * (fd 3 = its end of a SEQPACKET pair sized by chan_setup_fd), and sends
 * it what a compromised policy could: KH_ADD with halves that do not
 * belong together, certificates, truncated and oversized fields; KH_SIGN
 * with ids never given, every algorithm byte against every key kind, huge
 * data, pipelined on one connection ahead of another's; KH_DELETE,
 * KH_WIPE and KH_LOCK followed by signing; FIDO keys, which it must never
 * sign with, and KH_SK_MATERIAL; every type byte. A compromised policy may get signatures from every loaded key
 * (DESIGN.md, "Trust, stated plainly"), but never a private key byte.
 *
 * The keyholder answers every request it can decode exactly once; a
 * header it cannot decode makes it exit (255: fail closed). Death by a
 * signal (SIGSEGV, SIGABRT, SIGSYS) or another status (a sanitizer) is a
 * failure; the keyholder is then restarted with the base keys.
 *
 *   hostile_policy [BUILD_DIR]      (else $KEYWARD_BUILD, else ./build)
 *   HOSTILE_LOG=FILE                its stderr (default /dev/null)
 */
#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/msg.h"
#include "ipc/sshkey.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"
#include "tests/tools/secrets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/rand.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPLY_WAIT_MS 15000             /* scrypt under ASan is slow, not this slow */
#define MAX_HANGS    3                  /* then give up: it stopped answering */

struct ukey {
	struct testkey k;
	struct tb pub, priv;
	uint64_t id;            /* its keyholder id in the base state */
	char name[24];
};

enum { K_ED, K_P256, K_P384, K_P521, K_RSA, NBASE };
static struct ukey U[NBASE];
static struct ukey O_ED, O_P256, O_RSA; /* other keys, for mismatched halves */
static struct ukey SK_ED, SK_P256;      /* FIDO keys: a key handle, no key */

static void
ukey_gen(struct ukey *u, enum key_kind kind, size_t bits, const char *name,
    uint64_t id)
{
	testkey_gen(&u->k, kind, bits);
	tb_init(&u->pub);
	tk_pub(&u->pub, &u->k);
	tb_init(&u->priv);
	tk_priv(&u->priv, &u->k);
	if (u->pub.w.err || u->priv.w.err)
		abort();
	u->id = id;
	snprintf(u->name, sizeof(u->name), "%s", name);
	secrets_add_key(&u->k, name);
}

/* ---------------------------------------------------------------- checks */

static struct {
	unsigned long replies, bytes, signatures, leaks, malformed, unasked;
	unsigned long starts, clean_exits, bad_exits, hangs;
} st;
static const char *cur_case = "start-up";

static void
inspect(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct msg_status ms;
	struct msg_blob mb;
	struct msg_sk_material skm;
	struct rd r;
	int bad;

	st.replies++;
	st.bytes += n;
	st.leaks += secrets_scan(p, n, cur_case);
	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0)
		bad = 1;
	else if (h.type == MSG_R_STATUS)
		bad = msg_status_decode(&r, &ms) != 0;
	else if (h.type == MSG_R_SIGNATURE)
		bad = msg_blob_decode(&r, &mb) != 0, st.signatures++;
	else if (h.type == MSG_R_SK_MATERIAL)
		bad = msg_sk_material_decode(&r, &skm) != 0;
	else
		bad = 1;
	if (bad || h.conn != 0) {
		st.malformed++;
		printf("# malformed reply of %zu bytes, type %u (case: %s)\n", n,
		    n ? p[0] : 0, cur_case);
	}
}

/* ---------------------------------------------------------- the process */

static char keyholder_path[PATH_MAX];
static int logfd = -1;
static struct { pid_t pid; int fd; unsigned gen; } S = { -1, -1, 0 };
static uint8_t *rbuf;
#define RBUF_LEN (2 * IPC_MAX_MSG)

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void setup_base(void);

static void
start(void)
{
	int pk[2];
	char *argv[] = { "keyward-keyholder", "debug", NULL };

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pk) != 0) {
		printf("Bail out! socketpair: %s\n", strerror(errno));
		exit(1);
	}
	chan_setup_fd(pk[0]);
	chan_setup_fd(pk[1]);
	fflush(stdout);
	if ((S.pid = fork()) < 0) {
		printf("Bail out! fork: %s\n", strerror(errno));
		exit(1);
	}
	if (S.pid == 0) {
		/* spawn.c's start() and place_fds() for a single fd (stdout to
		 * the log too, away from our TAP) */
		int ta;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
			_exit(127);
		if (logfd >= 0 && (dup2(logfd, STDERR_FILENO) < 0 ||
		    dup2(logfd, STDOUT_FILENO) < 0))
			_exit(127);
		if ((ta = fcntl(pk[1], F_DUPFD_CLOEXEC, 10)) < 0 || dup2(ta, 3) != 3)
			_exit(127);
		close_range(4, ~0U, 0);
		execv(keyholder_path, argv);
		_exit(127);
	}
	close(pk[1]);
	S.fd = pk[0];
	S.gen++;
	st.starts++;
	setup_base();
}

static int
reap(void)
{
	uint64_t end = mono_ms() + 20000;
	int status = 0;
	pid_t r;

	if (S.fd >= 0)
		close(S.fd);
	S.fd = -1;
	while ((r = waitpid(S.pid, &status, WNOHANG)) == 0 && mono_ms() < end) {
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (r == 0) {
		kill(S.pid, SIGKILL);
		waitpid(S.pid, &status, 0);
		printf("# keyward-keyholder did not exit when policy went away "
		    "(case: %s)\n", cur_case);
		st.bad_exits++;
		return -1;
	}
	S.pid = -1;
	if (WIFSIGNALED(status)) {
		printf("# keyward-keyholder KILLED BY SIGNAL %d (%s) (case: %s)\n",
		    WTERMSIG(status), strsignal(WTERMSIG(status)), cur_case);
		st.bad_exits++;
		return -1;
	}
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 &&
	    WEXITSTATUS(status) != 255)) {
		printf("# keyward-keyholder exited with status %d (a sanitizer "
		    "report?) (case: %s)\n", WEXITSTATUS(status), cur_case);
		st.bad_exits++;
		return -1;
	}
	st.clean_exits++;
	return 0;
}

/* ------------------------------------------------------------ exchanges */

enum outcome { O_REPLY = 1, O_EXIT, O_CRASH, O_HANG, O_TOOBIG };

static struct {
	uint8_t type, status;
	uint32_t req;
	uint8_t *p;
	size_t n;
} R;

static uint32_t next_req = 100;

static uint32_t
req_new(void)
{
	return ++next_req;
}

static int
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

/* One reply: 1, or 0 on timeout, -1 on EOF. */
static int
recv_one(uint64_t end, size_t *n)
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
		inspect(rbuf, (size_t)r);
		*n = (size_t)r;
		return 1;
	}
}

static enum outcome
gone(void)
{
	int clean = reap() == 0;

	start();
	return clean ? O_EXIT : O_CRASH;
}

/* Send p and wait for the answer to req. */
static enum outcome
xact_raw(const uint8_t *p, size_t len, uint32_t req)
{
	uint64_t end;
	size_t n;
	int r;

	if (S.fd < 0)
		start();
	if ((r = send_raw(p, len)) == 1)
		return O_TOOBIG;
	end = mono_ms() + REPLY_WAIT_MS;
	for (;;) {
		if ((r = recv_one(end, &n)) < 0)
			return gone();
		if (r == 0) {
			printf("# keyholder did not answer within %d ms (case: %s)\n",
			    REPLY_WAIT_MS, cur_case);
			if (++st.hangs >= MAX_HANGS) {
				printf("Bail out! %d requests were never answered\n",
				    MAX_HANGS);
				exit(1);
			}
			kill(S.pid, SIGKILL);
			(void)reap();
			start();
			return O_HANG;
		}
		if (n < IPC_HEADER_LEN || get_be32(rbuf + 1) != req) {
			st.unasked++;
			printf("# an answer nobody asked for (request %u) (case: %s)\n",
			    n >= 5 ? get_be32(rbuf + 1) : 0, cur_case);
			continue;
		}
		free(R.p);
		if ((R.p = malloc(n)) == NULL)
			abort();
		memcpy(R.p, rbuf, n);
		R.n = n;
		R.type = rbuf[0];
		R.req = req;
		R.status = n >= 10 ? rbuf[9] : 0xff;
		return O_REPLY;
	}
}

static enum outcome
run(struct tb *t)
{
	enum outcome o;

	if (t->w.err)
		abort();
	o = xact_raw(t->w.p, t->w.len, get_be32(t->w.p + 1));
	tb_free(t);
	return o;
}

static void
m_begin(struct tb *t, uint8_t type, uint32_t req)
{
	tb_init(t);
	tb_u8(t, type);
	tb_u32(t, req);
	tb_u32(t, 0);
}

static void
m_add(struct tb *t, uint64_t id, const struct tb *priv)
{
	m_begin(t, MSG_KH_ADD, req_new());
	tb_u64(t, id);
	tb_string_of(t, priv);
}

static void
m_sign(struct tb *t, uint64_t id, uint8_t alg, struct slice data)
{
	m_begin(t, MSG_KH_SIGN, req_new());
	tb_u64(t, id);
	tb_u8(t, alg);
	tb_string(t, data.p, data.len);
}

static void
m_delete(struct tb *t, uint64_t id)
{
	m_begin(t, MSG_KH_DELETE, req_new());
	tb_u64(t, id);
}

static void
m_pass(struct tb *t, uint8_t type, struct slice pass)
{
	m_begin(t, type, req_new());
	tb_string(t, pass.p, pass.len);
}

static int
is_status(enum outcome o, uint8_t status)
{
	return o == O_REPLY && R.type == MSG_R_STATUS && R.n == 10 &&
	    R.status == status;
}

static int
refused(enum outcome o)
{
	return is_status(o, ST_FAIL) || o == O_EXIT;
}

static const char *
outcome_name(enum outcome o)
{
	static char buf[64];

	switch (o) {
	case O_REPLY:
		snprintf(buf, sizeof(buf), "reply type %u status %u", R.type,
		    R.type == MSG_R_STATUS ? R.status : 0);
		return buf;
	case O_EXIT: return "clean exit";
	case O_CRASH: return "CRASH";
	case O_HANG: return "HANG";
	case O_TOOBIG: return "datagram too big to send";
	}
	return "?";
}

static enum outcome
do_add(uint64_t id, const struct tb *priv)
{
	struct tb t;

	m_add(&t, id, priv);
	return run(&t);
}

static enum outcome
do_sign(uint64_t id, uint8_t alg, struct slice data)
{
	struct tb t;

	m_sign(&t, id, alg, data);
	return run(&t);
}

static enum outcome
do_simple(uint8_t type)
{
	struct tb t;

	m_begin(&t, type, req_new());
	return run(&t);
}

static enum outcome
do_pass(uint8_t type, struct slice pass)
{
	struct tb t;

	m_pass(&t, type, pass);
	return run(&t);
}

/* The answer is a signature by k over data with algorithm alg. */
static int
sig_good(enum outcome o, const struct ukey *k, struct slice data,
    enum sig_alg alg)
{
	struct pubkey pk;
	struct msg_hdr h;
	struct msg_blob b;
	enum sig_alg got = SIG_NONE;
	struct rd r;

	if (o != O_REPLY || R.type != MSG_R_SIGNATURE)
		return 0;
	rd_init(&r, R.p, R.n);
	if (msg_hdr_decode(&r, &h) != 0 || msg_blob_decode(&r, &b) != 0 ||
	    key_parse_public(tb_slice(&k->pub), &pk, NULL) != 0)
		return 0;
	return sig_verify(&pk, b.blob, data, &got) == 0 && got == alg;
}

static enum sig_alg
natural_alg(enum key_kind kind)
{
	return kind == KEY_RSA ? SIG_RSA_SHA512 : sig_alg_for(kind, 0);
}

static struct slice
sl_data(void)
{
	return sl_str("data policy wants signed");
}

/* Every base key signs with its own algorithm. */
static int
base_signs(void)
{
	for (int i = 0; i < NBASE; i++) {
		enum sig_alg a = natural_alg(U[i].k.kind);
		if (!sig_good(do_sign(U[i].id, (uint8_t)a, sl_data()), &U[i],
		    sl_data(), a))
			return 0;
	}
	return 1;
}

static void
setup_base(void)
{
	const char *was = cur_case;

	cur_case = "adding the base keys";
	for (int i = 0; i < NBASE; i++)
		if (!is_status(do_add(U[i].id, &U[i].priv), ST_OK)) {
			printf("Bail out! the keyholder (%s) refuses base key %s\n",
			    keyholder_path, U[i].name);
			exit(1);
		}
	cur_case = was;
}

/* ================================================================ cases */

static void
t_positive(void)
{
	cur_case = "positive";
	for (int i = 0; i < NBASE; i++) {
		enum sig_alg a = natural_alg(U[i].k.kind);
		ok(sig_good(do_sign(U[i].id, (uint8_t)a, sl_data()), &U[i], sl_data(),
		    a), "positive: %s (id %llu) signs with %s", U[i].name,
		    (unsigned long long)U[i].id, sig_alg_name(a));
	}
}

static void
t_algs(void)
{
	cur_case = "every algorithm byte";
	for (int i = 0; i < NBASE; i++) {
		int wrong = 0, signed_ok = 0, fits = 0;
		for (int alg = 0; alg < 256; alg++) {
			enum outcome o = do_sign(U[i].id, (uint8_t)alg, sl_data());
			if (sig_alg_fits((enum sig_alg)alg, U[i].k.kind)) {
				fits++;
				if (sig_good(o, &U[i], sl_data(), (enum sig_alg)alg))
					signed_ok++;
				else
					wrong++;
			} else if (!refused(o)) {
				wrong++;
				printf("#   alg %d: %s\n", alg, outcome_name(o));
			}
		}
		ok(wrong == 0 && signed_ok == fits && fits > 0, "algs: %s: of 256 "
		    "algorithm bytes exactly the %d that fit sign, each verified; "
		    "the others are refused", U[i].name, fits);
	}
}

static void
t_ids(void)
{
	static const uint64_t ids[] = { 0, 6, 7, 42, 1000, 0xffffffffULL,
	    0x100000000ULL, 0x8000000000000000ULL, 0xfffffffffffffffeULL,
	    0xffffffffffffffffULL };
	int served = 0;
	uint64_t rnd;
	size_t tried = 0;

	cur_case = "ids never given";

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		int held = 0;
		for (int k = 0; k < NBASE; k++)
			held |= U[k].id == ids[i];
		for (int k = 0; k < NBASE && !held; k++, tried++) {
			enum sig_alg a = natural_alg(U[k].k.kind);
			if (!refused(do_sign(ids[i], (uint8_t)a, sl_data())))
				served++;
		}
	}
	for (int i = 0; i < 1000; i++) {
		RAND_bytes((uint8_t *)&rnd, sizeof(rnd));
		if (rnd >= 1 && rnd <= NBASE + 10)
			continue;
		if (!refused(do_sign(rnd, (uint8_t)(1 + i % 7), sl_data())))
			served++;
	}
	ok(served == 0, "ids: %zu requests for edge ids not held (2^32-1, 2^32, "
	    "2^63, 2^64-2, ...) with every key's algorithm and 1000 random ids: "
	    "none signs (%d did)", tried, served);
}

/* Private encodings whose halves do not belong together. */
static void
t_mismatch(void)
{
	struct tb p;
	uint8_t k64[64], buf[1100];
	struct {
		const char *what;
		struct tb t;
		int base;       /* the base key whose id it tries to replace */
	} bad[12];
	size_t n = 0;

	cur_case = "mismatched halves";
	/* Ed25519: another key's seed with this public half. */
	bad[n].what = "Ed25519, the seed of another key";
	bad[n].base = K_ED;
	tb_init(&bad[n].t);
	tb_cstring(&bad[n].t, "ssh-ed25519");
	tb_string(&bad[n].t, U[K_ED].k.a.b, 32);
	memcpy(k64, O_ED.k.seed.b, 32);
	memcpy(k64 + 32, U[K_ED].k.a.b, 32);
	tb_string(&bad[n++].t, k64, 64);
	bad[n].what = "Ed25519, k's public half differs from A";
	bad[n].base = K_ED;
	tb_init(&bad[n].t);
	tb_cstring(&bad[n].t, "ssh-ed25519");
	tb_string(&bad[n].t, U[K_ED].k.a.b, 32);
	memcpy(k64, U[K_ED].k.seed.b, 32);
	memcpy(k64 + 32, O_ED.k.a.b, 32);
	tb_string(&bad[n++].t, k64, 64);
	bad[n].what = "Ed25519, A of another key, k of this one";
	bad[n].base = K_ED;
	tb_init(&bad[n].t);
	tb_cstring(&bad[n].t, "ssh-ed25519");
	tb_string(&bad[n].t, O_ED.k.a.b, 32);
	memcpy(k64, U[K_ED].k.seed.b, 32);
	memcpy(k64 + 32, U[K_ED].k.a.b, 32);
	tb_string(&bad[n++].t, k64, 64);
	/* ECDSA */
	bad[n].what = "ECDSA P-256, d of another key";
	bad[n].base = K_P256;
	tb_init(&bad[n].t);
	tb_cstring(&bad[n].t, "ecdsa-sha2-nistp256");
	tb_cstring(&bad[n].t, "nistp256");
	tb_string(&bad[n].t, U[K_P256].k.q.b, U[K_P256].k.q.len);
	tb_mpint(&bad[n++].t, O_P256.k.d.b, O_P256.k.d.len);
	bad[n].what = "ECDSA P-256, a point off the curve";
	bad[n].base = K_P256;
	memcpy(buf, U[K_P256].k.q.b, U[K_P256].k.q.len);
	buf[U[K_P256].k.q.len - 1] ^= 1;
	tb_init(&bad[n].t);
	tb_cstring(&bad[n].t, "ecdsa-sha2-nistp256");
	tb_cstring(&bad[n].t, "nistp256");
	tb_string(&bad[n].t, buf, U[K_P256].k.q.len);
	tb_mpint(&bad[n++].t, U[K_P256].k.d.b, U[K_P256].k.d.len);
	bad[n].what = "ECDSA, a P-256 key named nistp384";
	bad[n].base = K_P384;
	tb_init(&bad[n].t);
	tb_cstring(&bad[n].t, "ecdsa-sha2-nistp384");
	tb_cstring(&bad[n].t, "nistp384");
	tb_string(&bad[n].t, U[K_P256].k.q.b, U[K_P256].k.q.len);
	tb_mpint(&bad[n++].t, U[K_P256].k.d.b, U[K_P256].k.d.len);
	bad[n].what = "ECDSA, d = 0";
	bad[n].base = K_P256;
	tb_init(&bad[n].t);
	tb_cstring(&bad[n].t, "ecdsa-sha2-nistp256");
	tb_cstring(&bad[n].t, "nistp256");
	tb_string(&bad[n].t, U[K_P256].k.q.b, U[K_P256].k.q.len);
	tb_mpint(&bad[n++].t, NULL, 0);
	/* RSA: n e d iqmp p q */
	for (int v = 0; v < 4; v++) {
		const struct testkey *k = &U[K_RSA].k, *o = &O_RSA.k;
		static const char *const what[] = { "RSA, p of another key",
		    "RSA, d changed in one bit", "RSA, iqmp changed in one bit",
		    "RSA, e of 65539 with this n" };
		bad[n].what = what[v];
		bad[n].base = K_RSA;
		tb_init(&bad[n].t);
		tb_cstring(&bad[n].t, "ssh-rsa");
		tb_mpint(&bad[n].t, k->n.b, k->n.len);
		if (v == 3) {
			uint8_t e[3] = { 0x01, 0x00, 0x03 };
			tb_mpint(&bad[n].t, e, 3);
		} else {
			tb_mpint(&bad[n].t, k->e.b, k->e.len);
		}
		memcpy(buf, k->rd.b, k->rd.len);
		if (v == 1)
			buf[k->rd.len - 1] ^= 0x02;
		tb_mpint(&bad[n].t, buf, k->rd.len);
		memcpy(buf, k->iqmp.b, k->iqmp.len);
		if (v == 2)
			buf[k->iqmp.len - 1] ^= 0x02;
		tb_mpint(&bad[n].t, buf, k->iqmp.len);
		if (v == 0)
			tb_mpint(&bad[n].t, o->p.b, o->p.len);
		else
			tb_mpint(&bad[n].t, k->p.b, k->p.len);
		tb_mpint(&bad[n++].t, k->pq.b, k->pq.len);
	}
	for (size_t i = 0; i < n; i++) {
		int b = bad[i].base;
		enum sig_alg a = natural_alg(U[b].k.kind);
		ok(refused(do_add(777, &bad[i].t)), "mismatch: KH_ADD of %s as a new "
		    "id: refused", bad[i].what);
		ok(refused(do_sign(777, (uint8_t)a, sl_data())), "mismatch: ... and "
		    "that id cannot sign");
		ok(refused(do_add(U[b].id, &bad[i].t)), "mismatch: KH_ADD of it over "
		    "%s's id: refused", U[b].name);
		ok(sig_good(do_sign(U[b].id, (uint8_t)a, sl_data()), &U[b], sl_data(),
		    a), "mismatch: ... and %s's id still signs with %s", U[b].name,
		    U[b].name);
		tb_free(&bad[i].t);
	}
	/* The certificate form: policy hands over plain keys only. */
	{
		struct certspec cs = { .key = &U[K_ED].k, .ca = &O_ED.k, .type = 1,
		    .nprincipals = 1 };
		tb_init(&p);
		tk_priv_cert(&p, &cs);
		ok(refused(do_add(778, &p)), "mismatch: KH_ADD of a certificate "
		    "encoding: refused");
		tb_free(&p);
	}
	/* Not a key at all. */
	tb_init(&p);
	tb_cstring(&p, "ssh-dss");
	for (int i = 0; i < 5; i++)
		tb_mpint(&p, U[K_RSA].k.p.b, i == 1 ? 20 : 128);
	ok(refused(do_add(779, &p)), "mismatch: KH_ADD of an ssh-dss key: refused");
	tb_free(&p);
	tb_init(&p);
	ok(refused(do_add(780, &p)), "mismatch: KH_ADD with an empty key: refused");
	tb_free(&p);
}

/* Every prefix, a trailing byte, every string length absurd. */
struct vmsg {
	const char *name;
	struct tb t;
	int expect;             /* the answer to a damaged one */
};

static void
t_wire_one(struct vmsg *v)
{
	const uint8_t *p = v->t.w.p;
	size_t len = v->t.w.len, badn = (size_t)-1, nexit = 0;
	uint8_t *m = malloc(len + 1);
	enum outcome bado = O_REPLY, o;
	char what[160];

	if (m == NULL)
		abort();
	for (size_t n = 1; n < len; n++) {
		snprintf(what, sizeof(what), "%s truncated to %zu bytes", v->name, n);
		cur_case = what;
		memcpy(m, p, n);
		if (n >= 5)
			put_be32(m + 1, req_new());
		o = xact_raw(m, n, n >= 5 ? get_be32(m + 1) : 0);
		if (o == O_EXIT)
			nexit++;
		if ((n < IPC_HEADER_LEN ? o != O_EXIT : !(is_status(o,
		    (uint8_t)v->expect) || o == O_EXIT)) && badn == (size_t)-1) {
			badn = n;
			bado = o;
		}
	}
	ok(badn == (size_t)-1, "wire: %s: each of %zu truncations refused or "
	    "failed closed (%zu exits)", v->name, len - 1, nexit);
	if (badn != (size_t)-1)
		printf("#   truncated to %zu bytes: %s\n", badn, outcome_name(bado));

	snprintf(what, sizeof(what), "%s with a trailing byte", v->name);
	cur_case = what;
	memcpy(m, p, len);
	m[len] = 0;
	put_be32(m + 1, req_new());
	o = xact_raw(m, len + 1, get_be32(m + 1));
	ok(is_status(o, (uint8_t)v->expect) || o == O_EXIT, "wire: %s: a trailing "
	    "byte: refused (%s)", v->name, outcome_name(o));

	if (v->t.n > 0) {
		static const uint32_t huge[] = { 0xffffffffU, 0xfffffffeU,
		    0x80000000U, 0x7fffffffU, 0x00ffffffU };
		int bad = -1;
		uint32_t badval = 0;
		for (int i = 0; i < v->t.n && bad < 0; i++) {
			size_t at = v->t.pos[i];
			size_t lim = tb_limit(&v->t, p, len, i);
			for (size_t j = 0; j <= sizeof(huge) / sizeof(huge[0]); j++) {
				uint32_t val = j < sizeof(huge) / sizeof(huge[0]) ? huge[j] :
				    (uint32_t)(lim - (at + 4) + 1);
				snprintf(what, sizeof(what), "%s, length at %zu set to 0x%x",
				    v->name, at, val);
				cur_case = what;
				memcpy(m, p, len);
				put_be32(m + at, val);
				put_be32(m + 1, req_new());
				o = xact_raw(m, len, get_be32(m + 1));
				if (!(is_status(o, (uint8_t)v->expect) || o == O_EXIT)) {
					bad = i;
					badval = val;
					break;
				}
			}
		}
		ok(bad < 0, "wire: %s: each of %d string lengths set to 0xffffffff, "
		    "0xfffffffe, 2^31, 2^31-1, 2^24-1 and one past its buffer: "
		    "refused", v->name, v->t.n);
		if (bad >= 0)
			printf("#   length at offset %zu = 0x%x: %s\n", v->t.pos[bad],
			    badval, outcome_name(o));
	}
	free(m);
}

static void
t_wire(void)
{
	struct vmsg v[8];
	size_t n = 0;

	v[n].name = "KH_ADD (Ed25519, new id)";
	v[n].expect = ST_FAIL;
	m_add(&v[n++].t, 900, &O_ED.priv);
	v[n].name = "KH_ADD (RSA-1024, new id)";
	v[n].expect = ST_FAIL;
	m_add(&v[n++].t, 901, &O_RSA.priv);
	v[n].name = "KH_ADD (P-256, over a base id)";
	v[n].expect = ST_FAIL;
	m_add(&v[n++].t, U[K_P256].id, &O_P256.priv);
	v[n].name = "KH_SIGN";
	v[n].expect = ST_FAIL;
	m_sign(&v[n++].t, U[K_ED].id, SIG_ED25519, sl_data());
	v[n].name = "KH_DELETE";
	v[n].expect = ST_FAIL;
	m_delete(&v[n++].t, U[K_P384].id);
	v[n].name = "KH_WIPE";
	v[n].expect = ST_FAIL;
	m_begin(&v[n++].t, MSG_KH_WIPE, req_new());
	v[n].name = "KH_LOCK";
	v[n].expect = ST_FAIL;
	m_pass(&v[n++].t, MSG_KH_LOCK, sl_str("hostile passphrase"));
	v[n].name = "KH_UNLOCK";
	v[n].expect = ST_FAIL;
	m_pass(&v[n++].t, MSG_KH_UNLOCK, sl_str("hostile passphrase"));

	cur_case = "a zero-length datagram";
	{
		unsigned gen = S.gen;
		enum outcome o = xact_raw((const uint8_t *)"", 0, 0);
		ok(o == O_EXIT && S.gen != gen, "wire: a zero-length datagram: the "
		    "keyholder fails closed (%s)", outcome_name(o));
	}
	for (size_t i = 0; i < n; i++) {
		t_wire_one(&v[i]);
		tb_free(&v[i].t);
	}
	cur_case = "wire: afterwards";
	ok(base_signs(), "wire: afterwards every base key still signs (no damaged "
	    "DELETE, WIPE, LOCK or ADD took effect)");
	ok(refused(do_sign(900, SIG_ED25519, sl_data())) &&
	    refused(do_sign(901, SIG_RSA_SHA512, sl_data())) &&
	    !sig_good(do_sign(U[K_P256].id, SIG_ECDSA_P256, sl_data()), &O_P256,
	    sl_data(), SIG_ECDSA_P256), "wire: no damaged KH_ADD added or replaced "
	    "a key");
}

static void
t_types(void)
{
	static const uint8_t garbage[16] = { 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5,
	    0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5 };

	for (int pass = 0; pass < 2; pass++) {
		unsigned bad = 0, nunknown = 0;
		for (int type = 0; type < 256; type++) {
			struct tb t;
			enum outcome o;
			char what[64];
			snprintf(what, sizeof(what), "type %d, %s payload", type,
			    pass ? "16-byte garbage" : "empty");
			cur_case = what;
			m_begin(&t, (uint8_t)type, req_new());
			if (pass)
				tb_raw(&t, garbage, sizeof(garbage));
			o = run(&t);
			switch (type) {
			case MSG_KH_WIPE:
				if (!pass) {
					ok(is_status(o, ST_OK), "types: %s: KH_WIPE done", what);
					ok(refused(do_sign(U[K_ED].id, SIG_ED25519, sl_data())),
					    "types: ... and nothing signs after it");
					setup_base();
					break;
				}
				/* FALLTHROUGH */
			case MSG_KH_ADD:
			case MSG_KH_SIGN:
			case MSG_KH_DELETE:
			case MSG_KH_LOCK:
			case MSG_KH_UNLOCK:
			case MSG_KH_SK_MATERIAL:
				ok(refused(o), "types: %s: refused (%s)", what,
				    outcome_name(o));
				break;
			default:
				nunknown++;
				if (!refused(o)) {
					bad++;
					printf("#   %s: %s\n", what, outcome_name(o));
				}
				break;
			}
		}
		ok(bad == 0, "types: all %u other types (monitor, prompter, reply "
		    "types included) with %s payload: refused with a failure (%u "
		    "not)", nunknown, pass ? "a garbage" : "an empty", bad);
	}
	cur_case = "types: afterwards";
	ok(base_signs(), "types: afterwards every base key signs");
}

static enum outcome
do_sk_material(uint64_t id)
{
	struct tb t;

	m_begin(&t, MSG_KH_SK_MATERIAL, req_new());
	tb_u64(&t, id);
	return run(&t);
}

/* The answer is exactly the material of FIDO key u. */
static int
material_of(enum outcome o, const struct ukey *u)
{
	struct msg_sk_material m;
	struct msg_hdr h;
	struct rd r;

	if (o != O_REPLY || R.type != MSG_R_SK_MATERIAL)
		return 0;
	rd_init(&r, R.p, R.n);
	return msg_hdr_decode(&r, &h) == 0 && msg_sk_material_decode(&r, &m) == 0 &&
	    m.alg == key_sk_alg(u->k.kind) && m.flags == u->k.skflags &&
	    slice_eq(m.application, (struct slice){ u->k.app.b, u->k.app.len }) &&
	    slice_eq(m.key_handle, (struct slice){ u->k.kh.b, u->k.kh.len });
}

/* FIDO keys: held sealed, never signed with (whatever the algorithm
 * byte), their material for one key at a time, only while unlocked, only
 * for a FIDO key, and only for a well-formed request. */
static void
t_sk(void)
{
	const struct ukey *sk[] = { &SK_ED, &SK_P256 };
	struct tb t;
	int served = 0;

	cur_case = "fido";
	for (size_t i = 0; i < 2; i++)
		ok(is_status(do_add(sk[i]->id, &sk[i]->priv), ST_OK), "fido: KH_ADD of "
		    "%s", sk[i]->name);
	for (size_t i = 0; i < 2; i++)
		for (int alg = 0; alg <= SIG_SK_ED25519 + 1; alg++)
			if (!refused(do_sign(sk[i]->id, (uint8_t)alg, sl_data())))
				served++;
	ok(served == 0, "fido: KH_SIGN of a FIDO key refused for every algorithm "
	    "byte, its own included (%d served)", served);
	for (size_t i = 0; i < 2; i++)
		ok(material_of(do_sk_material(sk[i]->id), sk[i]), "fido: KH_SK_MATERIAL "
		    "of %s: its algorithm, application, flags and key handle",
		    sk[i]->name);
	ok(refused(do_sk_material(U[K_ED].id)), "fido: KH_SK_MATERIAL of an "
	    "Ed25519 key: refused");
	ok(refused(do_sk_material(U[K_RSA].id)), "fido: KH_SK_MATERIAL of an RSA "
	    "key: refused");
	ok(refused(do_sk_material(4242)), "fido: KH_SK_MATERIAL of an id never "
	    "given: refused");
	m_begin(&t, MSG_KH_SK_MATERIAL, req_new());
	tb_u64(&t, SK_ED.id);
	tb_u8(&t, 0);
	ok(refused(run(&t)), "fido: KH_SK_MATERIAL with a byte after the id: refused");
	m_begin(&t, MSG_KH_SK_MATERIAL, req_new());
	tb_u32(&t, 0);
	ok(refused(run(&t)), "fido: KH_SK_MATERIAL with half an id: refused");
	ok(is_status(do_pass(MSG_KH_LOCK, sl_str("pw")), ST_OK), "fido: KH_LOCK");
	ok(refused(do_sk_material(SK_ED.id)), "fido: locked, KH_SK_MATERIAL refused");
	ok(is_status(do_pass(MSG_KH_UNLOCK, sl_str("pw")), ST_OK), "fido: KH_UNLOCK");
	ok(material_of(do_sk_material(SK_P256.id), &SK_P256), "fido: unlocked, the "
	    "material is the same again");
	for (size_t i = 0; i < 2; i++) {
		m_delete(&t, sk[i]->id);
		(void)run(&t);
	}
	ok(refused(do_sk_material(SK_ED.id)), "fido: deleted, KH_SK_MATERIAL "
	    "refused");
	ok(base_signs(), "fido: afterwards every base key signs");
}

static void
t_data(void)
{
	uint8_t *data = malloc(IPC_MAX_MSG + 16);
	size_t max;
	enum outcome o;

	if (data == NULL)
		abort();
	RAND_bytes(data, IPC_MAX_MSG + 16);
	cur_case = "huge data";
	o = do_sign(U[K_ED].id, SIG_ED25519, sl(data, AGENT_MAX_FRAME));
	ok(sig_good(o, &U[K_ED], sl(data, AGENT_MAX_FRAME), SIG_ED25519),
	    "data: 256 KiB signed by Ed25519 (%s)", outcome_name(o));
	o = do_sign(U[K_RSA].id, SIG_RSA_SHA256, sl(data, AGENT_MAX_FRAME));
	ok(sig_good(o, &U[K_RSA], sl(data, AGENT_MAX_FRAME), SIG_RSA_SHA256),
	    "data: 256 KiB signed by RSA (%s)", outcome_name(o));
	max = IPC_MAX_MSG - IPC_HEADER_LEN - 8 - 1 - 4;
	o = do_sign(U[K_P521].id, SIG_ECDSA_P521, sl(data, max));
	ok(sig_good(o, &U[K_P521], sl(data, max), SIG_ECDSA_P521), "data: a "
	    "KH_SIGN datagram of exactly %d bytes signed (%s)", IPC_MAX_MSG,
	    outcome_name(o));
	o = do_sign(U[K_P256].id, SIG_ECDSA_P256, sl(NULL, 0));
	ok(sig_good(o, &U[K_P256], sl(NULL, 0), SIG_ECDSA_P256), "data: empty "
	    "data signed (%s)", outcome_name(o));
	{
		unsigned gen = S.gen;
		o = do_sign(U[K_ED].id, SIG_ED25519, sl(data, max + 1));
		ok((o == O_EXIT && S.gen != gen) || o == O_TOOBIG, "data: a datagram "
		    "of %d bytes: the keyholder fails closed (%s)", IPC_MAX_MSG + 1,
		    outcome_name(o));
	}
	free(data);
}

static void
t_delete_wipe(void)
{
	struct tb t;
	enum outcome o;

	cur_case = "delete";
	m_delete(&t, U[K_P384].id);
	ok(is_status(run(&t), ST_OK), "delete: KH_DELETE of the P-384 key");
	ok(refused(do_sign(U[K_P384].id, SIG_ECDSA_P384, sl_data())), "delete: "
	    "... it no longer signs");
	m_delete(&t, U[K_P384].id);
	o = run(&t);
	ok(o == O_REPLY && R.type == MSG_R_STATUS, "delete: deleting it again "
	    "is answered (%s)", outcome_name(o));
	m_delete(&t, 0xfffffffffffffffeULL);
	o = run(&t);
	ok(o == O_REPLY && R.type == MSG_R_STATUS, "delete: deleting an id never "
	    "given is answered (%s)", outcome_name(o));
	ok(sig_good(do_sign(U[K_P521].id, SIG_ECDSA_P521, sl_data()), &U[K_P521],
	    sl_data(), SIG_ECDSA_P521), "delete: the other keys still sign");
	ok(is_status(do_add(U[K_P384].id, &U[K_P384].priv), ST_OK) &&
	    sig_good(do_sign(U[K_P384].id, SIG_ECDSA_P384, sl_data()), &U[K_P384],
	    sl_data(), SIG_ECDSA_P384), "delete: added again, it signs again");

	cur_case = "wipe";
	ok(is_status(do_simple(MSG_KH_WIPE), ST_OK), "wipe: KH_WIPE");
	{
		int served = 0;
		for (int i = 0; i < NBASE; i++)
			for (int alg = 1; alg <= SIG_RSA_SHA512; alg++)
				if (!refused(do_sign(U[i].id, (uint8_t)alg, sl_data())))
					served++;
		ok(served == 0, "wipe: afterwards no id signs with any algorithm "
		    "(%d did)", served);
	}
	setup_base();
	ok(base_signs(), "wipe: the keys added again sign");
}

static void
t_lock(void)
{
	uint8_t *big = malloc(AGENT_MAX_FRAME);
	enum outcome o;
	int served;

	if (big == NULL)
		abort();
	cur_case = "lock";
	ok(refused(do_pass(MSG_KH_UNLOCK, sl_str("pw"))), "lock: KH_UNLOCK while "
	    "unlocked: refused");
	ok(refused(do_pass(MSG_KH_LOCK, sl(NULL, 0))), "lock: KH_LOCK with an "
	    "empty passphrase: refused");
	ok(is_status(do_pass(MSG_KH_LOCK, sl_str("pw")), ST_OK), "lock: KH_LOCK");
	served = 0;
	for (int i = 0; i < NBASE; i++)
		if (!refused(do_sign(U[i].id, (uint8_t)natural_alg(U[i].k.kind),
		    sl_data())))
			served++;
	ok(served == 0, "lock: locked, no key signs (%d did)", served);
	ok(refused(do_add(950, &O_ED.priv)), "lock: KH_ADD while locked: refused");
	ok(refused(do_pass(MSG_KH_LOCK, sl_str("pw2"))), "lock: KH_LOCK again: "
	    "refused");
	ok(refused(do_pass(MSG_KH_UNLOCK, sl_str("pW"))), "lock: KH_UNLOCK with "
	    "a wrong passphrase: refused");
	ok(refused(do_sign(U[K_ED].id, SIG_ED25519, sl_data())), "lock: ... still "
	    "locked");
	ok(refused(do_pass(MSG_KH_UNLOCK, sl(NULL, 0))), "lock: KH_UNLOCK with an "
	    "empty passphrase: refused");
	ok(is_status(do_pass(MSG_KH_UNLOCK, sl_str("pw")), ST_OK), "lock: "
	    "KH_UNLOCK with the passphrase");
	ok(base_signs(), "lock: unlocked, every key signs again");
	ok(refused(do_sign(950, SIG_ED25519, sl_data())), "lock: the key offered "
	    "while locked was not added");

	/* A 256 KiB passphrase. */
	memset(big, 'p', AGENT_MAX_FRAME);
	o = do_pass(MSG_KH_LOCK, sl(big, AGENT_MAX_FRAME));
	ok(is_status(o, ST_OK), "lock: KH_LOCK with a 256 KiB passphrase (%s)",
	    outcome_name(o));
	ok(refused(do_pass(MSG_KH_UNLOCK, sl(big, AGENT_MAX_FRAME - 1))),
	    "lock: ... KH_UNLOCK with one byte less: refused");
	ok(is_status(do_pass(MSG_KH_UNLOCK, sl(big, AGENT_MAX_FRAME)), ST_OK),
	    "lock: ... KH_UNLOCK with it");

	/* Deleting and wiping while locked, then unlocking. */
	ok(is_status(do_pass(MSG_KH_LOCK, sl_str("pw")), ST_OK), "lock: locked "
	    "again");
	{
		struct tb t;
		m_delete(&t, U[K_P521].id);
		o = run(&t);
		ok(o == O_REPLY && R.type == MSG_R_STATUS, "lock: KH_DELETE while "
		    "locked: answered (%s)", outcome_name(o));
	}
	ok(is_status(do_pass(MSG_KH_UNLOCK, sl_str("pw")), ST_OK), "lock: "
	    "unlocked after a delete");
	ok(refused(do_sign(U[K_P521].id, SIG_ECDSA_P521, sl_data())), "lock: the "
	    "key deleted while locked is gone");
	ok(sig_good(do_sign(U[K_RSA].id, SIG_RSA_SHA256, sl_data()), &U[K_RSA],
	    sl_data(), SIG_RSA_SHA256), "lock: the others sign");
	ok(is_status(do_pass(MSG_KH_LOCK, sl_str("pw")), ST_OK) &&
	    is_status(do_simple(MSG_KH_WIPE), ST_OK), "lock: locked and wiped");
	o = do_pass(MSG_KH_UNLOCK, sl_str("pw"));
	ok(o == O_REPLY && R.type == MSG_R_STATUS, "lock: KH_UNLOCK of a wiped "
	    "store answered (%s)", outcome_name(o));
	ok(refused(do_sign(U[K_ED].id, SIG_ED25519, sl_data())), "lock: nothing "
	    "signs after the wipe");
	if (o == O_REPLY && R.status != ST_OK)
		(void)do_pass(MSG_KH_UNLOCK, sl_str("pw"));
	setup_base();
	ok(base_signs(), "lock: the keys added again sign");
	free(big);
}

/* Many requests at once, a lock in the middle of them. */
static void
t_pipeline(void)
{
	enum { NB = 40, NA = 40 };
	uint32_t first, lockreq = 0, last;
	int answers[NB + NA + 1], extra = 0, after_signed = 0, before_bad = 0;
	struct tb t;
	size_t n;

	cur_case = "pipelined signatures around a lock";
	memset(answers, 0, sizeof(answers));
	first = next_req + 1;
	for (int i = 0; i < NB + NA + 1; i++) {
		if (i == NB) {
			m_pass(&t, MSG_KH_LOCK, sl_str("pipe"));
			lockreq = get_be32(t.w.p + 1);
		} else {
			int k = i % NBASE;
			m_sign(&t, U[k].id, (uint8_t)natural_alg(U[k].k.kind), sl_data());
		}
		if (send_raw(t.w.p, t.w.len) != 0)
			break;
		tb_free(&t);
	}
	last = next_req;
	for (int got = 0; got < NB + NA + 1;) {
		int r = recv_one(mono_ms() + REPLY_WAIT_MS, &n);
		uint32_t req;
		if (r <= 0)
			break;
		req = get_be32(rbuf + 1);
		if (req < first || req > last || answers[req - first]++) {
			extra++;
			continue;
		}
		got++;
		if (req > lockreq && rbuf[0] == MSG_R_SIGNATURE)
			after_signed++;
		if (req < lockreq && rbuf[0] != MSG_R_SIGNATURE)
			before_bad++;
	}
	{
		int missing = 0;
		for (int i = 0; i < NB + NA + 1; i++)
			missing += answers[i] == 0;
		ok(missing == 0 && extra == 0, "pipeline: %d requests sent at once, "
		    "each answered exactly once (%d missing, %d extra)", NB + NA + 1,
		    missing, extra);
	}
	ok(after_signed == 0, "pipeline: none of the %d signatures asked for "
	    "after KH_LOCK was made (%d were)", NA, after_signed);
	if (before_bad)
		printf("# %d of the signatures asked for before KH_LOCK failed (in "
		    "flight while the keys were re-sealed)\n", before_bad);
	ok(is_status(do_pass(MSG_KH_UNLOCK, sl_str("pipe")), ST_OK) && base_signs(),
	    "pipeline: unlocked, every key signs");
}

/* Collect the answers to requests first..last: the place (from 1) at
 * which the answer to want came, or 0 if one is missing or is not a
 * signature. */
static int
answer_position(uint32_t first, uint32_t last, uint32_t want)
{
	int pos = 0, got = 0, n_ok = 0;
	size_t n;

	while (got < (int)(last - first + 1)) {
		uint32_t req;
		if (recv_one(mono_ms() + REPLY_WAIT_MS, &n) <= 0)
			return 0;
		req = get_be32(rbuf + 1);
		if (req < first || req > last)
			continue;
		got++;
		n_ok += rbuf[0] == MSG_R_SIGNATURE;
		if (req == want)
			pos = got;
	}
	return n_ok == got ? pos : 0;
}

/* Issue 13: one connection's pipelined signatures, or a big RSA key,
 * do not hold up another's. The header's conn field names the client
 * connection (policy's id; any value, 0 included). The signatures piped
 * in are by an RSA key just over KEYHOLDER_FAST_RSA_BITS, in the lane
 * with one worker. */
static void
t_fair(void)
{
	enum { NS = 8 };
	static struct ukey big;         /* the leak scan keeps pointers into it */
	uint32_t first, last;
	struct tb t;
	int pos;

	cur_case = "connections in turn";
	ukey_gen(&big, KEY_RSA, KEYHOLDER_FAST_RSA_BITS + 64, "rsa-slow", 4242);
	if (!is_status(do_add(big.id, &big.priv), ST_OK)) {
		ok(0, "fair: an RSA-%d key is added", KEYHOLDER_FAST_RSA_BITS + 64);
		return;
	}
	/* stopped while we send, so that all arrive at once, however this
	 * test is scheduled */
	kill(S.pid, SIGSTOP);
	first = next_req + 1;
	for (int i = 0; i <= NS; i++) {
		m_sign(&t, big.id, SIG_RSA_SHA512, sl_data());
		put_be32(t.w.p + 5, i < NS ? 0 : 9);
		send_raw(t.w.p, t.w.len);
		tb_free(&t);
	}
	last = next_req;
	kill(S.pid, SIGCONT);
	pos = answer_position(first, last, last);
	ok(pos > 0 && pos <= 1 + KEYHOLDER_SLOW_WORKERS, "fair: after %d RSA-%d "
	    "signatures piped in on connection 0, connection 9's is answered "
	    "among the first %d (answer %d)", NS, KEYHOLDER_FAST_RSA_BITS + 64,
	    1 + KEYHOLDER_SLOW_WORKERS, pos);

	cur_case = "big RSA keys in their own lane";
	kill(S.pid, SIGSTOP);
	first = next_req + 1;
	for (int i = 0; i <= NS; i++) {
		if (i < NS)
			m_sign(&t, big.id, SIG_RSA_SHA512, sl_data());
		else
			m_sign(&t, U[K_ED].id, SIG_ED25519, sl_data());
		put_be32(t.w.p + 5, 7);
		send_raw(t.w.p, t.w.len);
		tb_free(&t);
	}
	last = next_req;
	kill(S.pid, SIGCONT);
	pos = answer_position(first, last, last);
	ok(pos > 0 && pos <= 1 + KEYHOLDER_SLOW_WORKERS, "lane: after %d RSA-%d "
	    "signatures on connection 7, its Ed25519 one is answered among the "
	    "first %d (answer %d)", NS, KEYHOLDER_FAST_RSA_BITS + 64,
	    1 + KEYHOLDER_SLOW_WORKERS, pos);
	m_delete(&t, big.id);
	ok(is_status(run(&t), ST_OK), "fair: the big key is deleted");
}

/* ================================================================= main */

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("KEYWARD_BUILD");
	const char *log = getenv("HOSTILE_LOG");

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (dir == NULL || *dir == '\0')
		dir = "build";
	snprintf(keyholder_path, sizeof(keyholder_path), "%s/keyward-keyholder", dir);
	if (access(keyholder_path, X_OK) != 0) {
		printf("Bail out! no keyward-keyholder in %s\n", dir);
		return 1;
	}
	logfd = open(log != NULL && *log != '\0' ? log : "/dev/null",
	    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	printf("# keyholder from %s; its log: %s\n", dir, log ? log : "/dev/null");
	if ((rbuf = malloc(RBUF_LEN)) == NULL)
		abort();

	ukey_gen(&U[K_ED], KEY_ED25519, 0, "ed25519", 1);
	ukey_gen(&U[K_P256], KEY_ECDSA_P256, 0, "nistp256", 2);
	ukey_gen(&U[K_P384], KEY_ECDSA_P384, 0, "nistp384", 3);
	ukey_gen(&U[K_P521], KEY_ECDSA_P521, 0, "nistp521", 0xffffffffffffffffULL);
	ukey_gen(&U[K_RSA], KEY_RSA, 2048, "rsa2048", 0);
	ukey_gen(&O_ED, KEY_ED25519, 0, "other-ed25519", 0);
	ukey_gen(&O_P256, KEY_ECDSA_P256, 0, "other-nistp256", 0);
	ukey_gen(&O_RSA, KEY_RSA, 1024, "other-rsa1024", 0);
	ukey_gen(&SK_ED, KEY_SK_ED25519, 0, "sk-ed25519", 301);
	ukey_gen(&SK_P256, KEY_SK_ECDSA_P256, 0, "sk-nistp256", 302);

	start();
	t_positive();
	t_algs();
	t_ids();
	t_mismatch();
	t_data();
	t_delete_wipe();
	t_lock();
	t_sk();
	t_pipeline();
	t_fair();
	t_types();
	t_wire();

	cur_case = "the end";
	ok(base_signs(), "end: every base key signs");
	ok(reap() == 0, "end: closing policy's end: the keyholder exits cleanly");
	printf("# %lu replies (%lu bytes), %lu signatures; %lu starts, %lu clean "
	    "exits\n", st.replies, st.bytes, st.signatures, st.starts,
	    st.clean_exits);
	ok(st.leaks == 0, "no reply carried a byte sequence of any private key "
	    "(%zu components scanned, %lu leaks)", nsecrets, st.leaks);
	ok(st.bad_exits == 0 && st.hangs == 0, "the keyholder never died by a "
	    "signal, a sanitizer or a hang (%lu bad exits, %lu hangs)",
	    st.bad_exits, st.hangs);
	ok(st.malformed == 0 && st.unasked == 0, "every reply was well-formed and "
	    "answered a request (%lu malformed, %lu unasked)", st.malformed,
	    st.unasked);
	return done_testing();
}
