/*
 * hostile_monitor.c - a compromised monitor, as a TAP test. It starts
 * keyward-policy and keyward-keyholder exactly as
 * monitor/children.c does (two SEQPACKET pairs, fd 3 and fd 4, buffers sized
 * by chan_setup_fd) and then speaks raw IPC to policy: requests for
 * connections that were never opened, replayed session-binds, forged
 * forwarding flags, constrained keys used where their constraints forbid,
 * key enumeration, every truncation and every string length made absurd,
 * every type byte, every field at its limit.
 *
 * After each hostile message policy must either answer as it should or
 * exit cleanly (status 0 or 255: fail closed); death by a signal (SIGSEGV,
 * SIGABRT, SIGSYS for a syscall outside the filter) or any other status (a
 * sanitizer report) is a failure, and the pair is restarted. Every byte
 * policy sends back is checked: well-formed replies only, no byte sequence
 * of any private key added, and no MSG_R_SIGNATURE for a request the
 * constraints forbid. Positive controls (a properly bound connection with
 * correct userauth data is served) keep the harness honest. The engine
 * (starting, reaping, the wire damage) is tests/hostile/engine.h.
 *
 *   hostile_monitor [BUILD_DIR]     (else $KEYWARD_BUILD, else ./build)
 *   HOSTILE_LOG=FILE                the helpers' stderr (default /dev/null)
 */
#include "wire/args.h"
#include "ipc/limits.h"
#include "tests/hostile/engine.h"

#include <openssl/rand.h>

#define PROBE_CONN   0x70000001U        /* the harness's own liveness probe */
#define ADMIN_CONN   0x70000002U        /* adds the base keys, counts them */
#define GRACE_MS     20                 /* after the barrier, for W_ANY */

/* ------------------------------------------------------------ the keys */

enum { K_ED, K_P256, K_P384, K_P521, K_RSA, K_D, K_D2, K_C, NBASE };
static struct ukey U[NBASE];            /* added after every (re)start */
static struct ukey HX, HY, HZ;          /* host keys: xhost, yhost, zhost */
static struct ukey CH[AGENT_MAX_BINDINGS]; /* a chain of 16 hosts */
static struct ukey E1, E2, E3, E4;      /* keys that are never held */
static struct tb d_list, d2_list;       /* K_D: origin->X; K_D2: +X->Y alice */

/* The barrier: the unconstrained Ed25519 key signs "barrier" for the
 * probe connection. */
static void
barrier_msg(uint8_t *buf, size_t *len, uint32_t req)
{
	struct wb w;

	wb_init(&w);
	msg_begin(&w, MSG_SIGN, req, PROBE_CONN);
	wb_slice(&w, pub_of(&U[K_ED]));
	wb_cstring(&w, "barrier");
	wb_u32(&w, 0);
	if (w.err || w.len > 256)
		abort();
	memcpy(buf, w.p, w.len);
	*len = w.len;
	wb_free(&w);
}

/* ------------------------------------------------- what came back: checks */

/* Requests whose answer may be a signature; every other one may not. */
static uint32_t *sig_allowed;
static size_t nallowed, capallowed;

static void
allow_sig(uint32_t req)
{
	if (nallowed == capallowed) {
		capallowed = capallowed ? capallowed * 2 : 64;
		if ((sig_allowed = realloc(sig_allowed, capallowed * 4)) == NULL)
			abort();
	}
	sig_allowed[nallowed++] = req;
}

static int
sig_is_allowed(uint32_t req)
{
	for (size_t i = 0; i < nallowed; i++)
		if (sig_allowed[i] == req)
			return 1;
	return 0;
}

static void
scan(const struct msg_hdr *h, struct rd *r, size_t n)
{
	struct msg_status ms;
	struct slice mb;
	struct msg_identities mi;
	struct msg_list_cache lc;
	int bad = 0;

	switch (h->type) {
	case MSG_R_STATUS:
		bad = msg_status_decode(r, &ms) != 0;
		break;
	case MSG_R_SIGNATURE:
		bad = msg_string_read(r, &mb) != 0;
		st.signatures++;
		if (!sig_is_allowed(h->req)) {
			st.forbidden++;
			printf("# FORBIDDEN SIGNATURE for request %u on connection %u "
			    "(case: %s)\n", h->req, h->conn, cur_case);
		}
		break;
	case MSG_R_IDENTITIES:
		bad = msg_identities_decode(r, &mi) != 0;
		break;
	case MSG_R_EXTENSIONS:
		bad = msg_string_read(r, &mb) != 0;
		break;
	case MSG_LIST_CACHE:            /* the list answer lent: no request's */
		bad = h->req != 0 || h->conn != 0 ||
		    msg_list_cache_decode(r, &lc) != 0;
		break;
	case MSG_LIST_STALE:
		bad = h->req != 0 || h->conn != 0 || msg_empty_decode(r) != 0;
		break;
	default:
		/* replies added after MSG_R_EXTENSIONS carry a blob */
		bad = h->type < MSG_R_EXTENSIONS || h->type >= MSG_R_STATUS + 16 ||
		    msg_string_read(r, &mb) != 0;
	}
	if (bad) {
		st.malformed++;
		printf("# malformed reply type %u (%zu bytes) (case: %s)\n", h->type,
		    n, cur_case);
	}
}

/* ---------------------------------------------------- the process pair */

enum { POLICY, KEYHOLDER };

static void setup_base(void);

static void
start_pair(void)
{
	int mp[2], pk[2];
	/* the argument lists keyward gives (wire/args.h; no -t, no audit) */
	static struct args_buf pb, kb;
	char **pargv = args_policy_encode(&(struct policy_args){ .debug = 1,
	    .fp_hash = "sha256", .default_lifetime = -1, .confirm_timeout = 60,
	    .audit = AUDIT_NONE, .providers = PROVIDERS_DEFAULT,
	    .restrict_websafe = 1, .websafe_allow = WEBSAFE_DEFAULT,
	    .touch_timeout = TOKEN_TOUCH_TIMEOUT_DEFAULT }, &pb);
	char **kargv = args_keyholder_encode(&(struct keyholder_args){ 1 }, &kb);

	eng_pair(mp);
	eng_pair(pk);
	eng_spawn(KEYHOLDER, kargv, pk[1], -1);
	eng_spawn(POLICY, pargv, mp[1], pk[0]);
	close(mp[1]);
	close(pk[0]);
	close(pk[1]);
	eng_started(mp[0]);
	setup_base();
}

/* --------------------------------------------------------- transactions */

enum want { W_REPLY, W_NONE, W_ANY };

/* Send one message whose header names req, then a probe (QUERY on the
 * probe connection): policy handles the monitor's messages in order, so
 * the probe's answer comes after any direct answer to ours. Answers that
 * go through the keyholder (signatures, adds) may come later: W_REPLY
 * waits for them; W_ANY, when nothing came before the probe, sends a
 * barrier (a SIGN on the probe connection, which goes to the keyholder
 * after anything ours made policy send there) and waits for it too. */
static enum outcome
xact_raw(const uint8_t *p, size_t n, uint32_t req, enum want want)
{
	uint8_t probe[IPC_HEADER_LEN], bmsg[256];
	uint32_t preq = req_new(), breq = 0;
	size_t blen, got;
	int probed = 0, barred = 0, rc;
	uint64_t end, grace = 0;

	R.got = 0;
	if (S.fd < 0)
		eng_start();
	rc = send_raw(p, n);
	if (rc == 1)
		return O_TOOBIG;
	if (rc == 0) {
		probe[0] = MSG_QUERY;
		put_be32(probe + 1, preq);
		put_be32(probe + 5, PROBE_CONN);
		(void)send_raw(probe, sizeof(probe));   /* EOF shows below */
	}
	end = mono_ms() + REPLY_WAIT_MS;
	for (;;) {
		if (probed && (R.got || want == W_NONE))
			return R.got ? O_REPLY : O_NONE;
		if (probed && want == W_ANY && breq == 0) {
			breq = req_new();
			allow_sig(breq);
			barrier_msg(bmsg, &blen, breq);
			(void)send_raw(bmsg, blen);
		}
		if (barred && grace == 0)
			grace = mono_ms() + GRACE_MS;
		rc = eng_recv(grace != 0 && grace < end ? grace : end, &got);
		if (rc < 0)
			return eng_gone();
		if (rc == 0 && grace != 0 && mono_ms() >= grace)
			return R.got ? O_REPLY : O_NONE;
		if (rc == 0)
			return eng_hang();
		if (got < IPC_HEADER_LEN)
			continue;
		if (get_be32(rbuf + 5) == PROBE_CONN && get_be32(rbuf + 1) == preq) {
			probed = 1;
		} else if (get_be32(rbuf + 5) == PROBE_CONN && breq != 0 &&
		    get_be32(rbuf + 1) == breq) {
			barred = 1;
		} else if (get_be32(rbuf + 1) == req) {
			if (R.got)
				st.duplicates++;
			else
				eng_take(got);
		}
	}
}

static enum outcome
xact(const struct tb *t, enum want want)
{
	const uint8_t *p = t->w.p;

	if (t->w.err)
		abort();
	return xact_raw(p, t->w.len, get_be32(p + 1), want);
}

/* --------------------------------------------------------- messages */

static uint32_t
hdr_req(const struct tb *t)
{
	return get_be32(t->w.p + 1);
}

static void
m_open(struct tb *t, uint32_t conn, uint32_t uid, uint32_t pid)
{
	m_begin(t, MSG_OPEN, req_new(), conn);
	tb_u32(t, uid);
	tb_u32(t, pid);
	tb_u32(t, 0);           /* the main socket */
}

static void
m_empty(struct tb *t, uint8_t type, uint32_t conn)
{
	m_begin(t, type, req_new(), conn);
}

static void
m_sign(struct tb *t, uint32_t conn, struct slice key, struct slice data,
    uint32_t flags, int may_sign)
{
	m_begin(t, MSG_SIGN, req_new(), conn);
	if (may_sign)
		allow_sig(hdr_req(t));
	tb_string(t, key.p, key.len);
	tb_string(t, data.p, data.len);
	tb_u32(t, flags);
}

/* The same with the key blob's own strings recorded (for the length and
 * truncation tests). */
static void
m_sign_k(struct tb *t, uint32_t conn, const struct ukey *k, struct slice data,
    uint32_t flags, int may_sign)
{
	m_begin(t, MSG_SIGN, req_new(), conn);
	if (may_sign)
		allow_sig(hdr_req(t));
	tb_string_of(t, &k->pub);
	tb_string(t, data.p, data.len);
	tb_u32(t, flags);
}

struct addopt {
	const char *comment;            /* NULL: the key's */
	int life;
	uint32_t lifetime;
	int confirm;
	const struct tb *dest;          /* constraint list with its strings */
	struct slice dest_raw;          /* or as bytes */
	const struct tb *priv;          /* NULL: the key's own encoding */
	const struct tb *pub;           /* NULL: the public key read in priv, as
	                                 * the monitor sends it */
};

static void
m_add(struct tb *t, uint32_t conn, const struct ukey *k, const struct addopt *o)
{
	static const struct addopt none;

	const struct tb *priv;
	struct privkey pk;
	struct wb pub;
	struct rd r;

	if (o == NULL)
		o = &none;
	priv = o->priv ? o->priv : &k->priv;
	wb_init(&pub);
	rd_init(&r, priv->w.p, priv->w.len);
	if (o->pub != NULL)
		wb_bytes(&pub, o->pub->w.p, o->pub->w.len);
	else if (key_parse_private(&r, &pk, NULL) == 0)
		key_write_public(&pub, &pk.pub);
	else
		wb_bytes(&pub, k->pub.w.p, k->pub.w.len);
	m_begin(t, MSG_ADD, req_new(), conn);
	tb_string(t, pub.p, pub.len);
	wb_free(&pub);
	tb_string_of(t, priv);
	tb_cstring(t, o->comment ? o->comment : k->name);
	tb_u8(t, o->life != 0);
	tb_u32(t, o->lifetime);
	tb_u8(t, o->confirm != 0);
	tb_u8(t, o->dest != NULL || o->dest_raw.p != NULL);
	if (o->dest != NULL)
		tb_string_of(t, o->dest);
	else
		tb_string(t, o->dest_raw.p, o->dest_raw.len);
	tb_u8(t, 0);                    /* no sk-provider */
	tb_u32(t, 0);
	tb_u8(t, 0);                    /* no associated certificates */
	tb_u8(t, 0);
	tb_u32(t, 0);
}

static void
m_blob(struct tb *t, uint8_t type, uint32_t conn, struct slice b)
{
	m_begin(t, type, req_new(), conn);
	tb_string(t, b.p, b.len);
}

/* The host's signature over sid (sig_make's "string name; string sig"
 * content), with its two strings recorded. */
static void
tb_hostsig(struct tb *t, const struct ukey *host, struct slice sid, int flip)
{
	struct wb s;
	struct slice name, sig;
	struct rd r;

	wb_init(&s);
	if (sig_make(host->k.pkey, tk_default_alg(host->k.kind), sid, &s) != 0)
		abort();
	if (flip)
		s.p[s.len - 1] ^= 0x01;
	rd_init(&r, s.p, s.len);
	if (rd_string(&r, &name) != 0 || rd_string(&r, &sig) != 0)
		abort();
	tb_begin(t);
	tb_string(t, name.p, name.len);
	tb_string(t, sig.p, sig.len);
	tb_end(t);
	wb_free(&s);
}

static void
m_bind(struct tb *t, uint32_t conn, const struct ukey *host, struct slice sid,
    int fwd, int flip)
{
	m_begin(t, MSG_BIND, req_new(), conn);
	tb_string_of(t, &host->pub);
	tb_string(t, sid.p, sid.len);
	tb_hostsig(t, host, sid, flip);
	tb_u8(t, (uint8_t)fwd);
}

/* --------------------------------------------- destination constraints */

static void
tb_hop(struct tb *t, const char *user, const char *host,
    const struct ukey *key)
{
	tb_begin(t);
	tb_cstring(t, user ? user : "");
	tb_cstring(t, host ? host : "");
	tb_string(t, "", 0);                    /* reserved */
	if (key != NULL) {
		tb_string_of(t, &key->pub);
		tb_u8(t, 0);                    /* is_ca */
	}
	tb_end(t);
}

/* One constraint: from (fhost, fkey) or the origin, to (thost, tkey). */
static void
tb_rule(struct tb *t, const char *fhost, const struct ukey *fkey,
    const char *tuser, const char *thost, const struct ukey *tkey)
{
	tb_begin(t);
	tb_hop(t, NULL, fhost, fkey);
	tb_hop(t, tuser, thost, tkey);
	tb_string(t, "", 0);
	tb_end(t);
}

/* ------------------------------------------------- userauth (doc/protocol.md §8.7) data */

static void
ua_make(struct wb *w, struct slice sid, const char *user, const struct ukey *k,
    const struct ukey *hostkey)
{
	struct tua u;

	memset(&u, 0, sizeof(u));
	u.sid = sid;
	u.msg = 50;
	u.user = user;
	u.service = "ssh-connection";
	u.method = hostkey ? "publickey-hostbound-v00@openssh.com" : "publickey";
	u.has_sig = 1;
	u.pkalg = tk_name(k->k.kind);
	u.key = pub_of(k);
	if (hostkey != NULL)
		u.hostkey = pub_of(hostkey);
	wb_reset(w);
	tua_write(w, &u);
}

struct sid {
	uint8_t b[AGENT_MAX_SESSION_ID + 8];
	size_t len;
};

static struct slice
sid_new(struct sid *s, size_t len)
{
	if (len > sizeof(s->b) || RAND_bytes(s->b, (int)len) != 1)
		abort();
	s->len = len;
	return sl(s->b, len);
}

static struct slice
sid_sl(const struct sid *s)
{
	return sl(s->b, s->len);
}

/* ----------------------------------------------------- little requests */

static uint32_t next_conn = 100;

/* A fresh client connection (policy never answers OPEN). */
static uint32_t
conn_open(void)
{
	struct tb t;
	uint32_t c = next_conn++;

	m_open(&t, c, 1000, 4242);
	if (xact(&t, W_NONE) != O_NONE)
		printf("# OPEN %u: policy did not stay up\n", c);
	tb_free(&t);
	return c;
}

static void
conn_close(uint32_t c)
{
	struct tb t;

	m_empty(&t, MSG_CLOSE, c);
	(void)xact(&t, W_NONE);
	tb_free(&t);
}

static int
refused_ext(enum outcome o)
{
	return is_status(o, ST_EXT_FAIL) || o == O_EXIT;
}

/* Send, free, return. */
static enum outcome
run(struct tb *t, enum want w)
{
	enum outcome o = xact(t, w);

	tb_free(t);
	return o;
}

static enum outcome
do_sign(uint32_t conn, const struct ukey *k, struct slice data, uint32_t flags,
    int may_sign)
{
	struct tb t;

	m_sign(&t, conn, pub_of(k), data, flags, may_sign);
	return run(&t, W_REPLY);
}

static enum outcome
do_bind(uint32_t conn, const struct ukey *host, struct slice sid, int fwd)
{
	struct tb t;

	m_bind(&t, conn, host, sid, fwd, 0);
	return run(&t, W_REPLY);
}

static enum outcome
do_add(uint32_t conn, const struct ukey *k, const struct addopt *o)
{
	struct tb t;

	m_add(&t, conn, k, o);
	return run(&t, W_REPLY);
}

static enum outcome
do_remove(uint32_t conn, const struct ukey *k)
{
	struct tb t;

	m_blob(&t, MSG_REMOVE, conn, pub_of(k));
	return run(&t, W_REPLY);
}

/* LIST on conn: -1 if refused, else the number of keys, *seen[i] set for
 * each base key listed (when seen is given). */
static int
list_keys(uint32_t conn, const struct ukey *k, int *listed)
{
	struct tb t;
	struct msg_hdr h;
	struct msg_identities mi;
	struct slice blob, comment;
	struct rd r, e;
	enum outcome o;

	m_empty(&t, MSG_LIST, conn);
	o = run(&t, W_REPLY);
	if (listed != NULL)
		*listed = 0;
	if (o != O_REPLY || R.type != MSG_R_IDENTITIES)
		return -1;
	rd_init(&r, R.p, R.n);
	if (msg_hdr_decode(&r, &h) != 0 || msg_identities_decode(&r, &mi) != 0)
		return -1;
	rd_init(&e, mi.entries.p, mi.entries.len);
	for (uint32_t i = 0; i < mi.n; i++) {
		if (rd_string(&e, &blob) != 0 || rd_string(&e, &comment) != 0)
			return -1;
		if (k != NULL && listed != NULL && slice_eq(blob, pub_of(k)))
			*listed = 1;
	}
	return (int)mi.n;
}

static int
is_listed(uint32_t conn, const struct ukey *k)
{
	int l;

	return list_keys(conn, k, &l) >= 0 && l;
}

/* The base state is intact: policy up, unlocked, every base key held. */
static int
base_intact(void)
{
	return list_keys(ADMIN_CONN, NULL, NULL) == NBASE;
}

static void
setup_base(void)
{
	struct tb t;
	const char *was = cur_case;

	cur_case = "setting up the base state";
	m_open(&t, PROBE_CONN, 0, 1);
	if (send_raw(t.w.p, t.w.len) != 0) {
		printf("Bail out! cannot talk to keyward-policy (%s)\n", P[POLICY].path);
		exit(1);
	}
	tb_free(&t);
	m_open(&t, ADMIN_CONN, 0, 1);
	if (run(&t, W_NONE) != O_NONE) {
		printf("Bail out! keyward-policy (%s) does not start\n", P[POLICY].path);
		exit(1);
	}
	for (int i = 0; i < NBASE; i++) {
		struct addopt o = { 0 };
		if (i == K_D)
			o.dest = &d_list;
		if (i == K_D2)
			o.dest = &d2_list;
		o.confirm = i == K_C;
		if (!is_status(do_add(ADMIN_CONN, &U[i], &o), ST_OK)) {
			printf("Bail out! base key %s cannot be added\n", U[i].name);
			exit(1);
		}
	}
	cur_case = was;
}

/* ============================================================== cases */

static void
t_positive(void)
{
	static const struct { int k; uint32_t flags; enum sig_alg alg; } plain[] = {
		{ K_ED, 0, SIG_ED25519 }, { K_P256, 0, SIG_ECDSA_P256 },
		{ K_P384, 0, SIG_ECDSA_P384 }, { K_P521, 0, SIG_ECDSA_P521 },
		{ K_RSA, 0, SIG_RSA_SHA1 },
		{ K_RSA, SSH_AGENT_RSA_SHA2_256, SIG_RSA_SHA256 },
		{ K_RSA, SSH_AGENT_RSA_SHA2_512, SIG_RSA_SHA512 },
		{ K_RSA, 0xffffffffU, SIG_RSA_SHA256 },
		{ K_ED, 0xffffffffU, SIG_ED25519 },
	};
	struct sid sx, sy, sx2;
	struct wb ua;
	uint32_t c;
	enum outcome o;

	cur_case = "positive controls";
	ok(base_intact(), "positive: all %d base keys are listed on an open "
	    "connection", NBASE);
	c = conn_open();
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		struct slice data = sl_str("data an unconstrained key may sign");
		o = do_sign(c, &U[plain[i].k], data, plain[i].flags, 1);
		ok(sig_good(o, &U[plain[i].k], data, plain[i].alg),
		    "positive: unconstrained %s, flags 0x%x: a valid %s signature",
		    U[plain[i].k].name, plain[i].flags, sig_alg_name(plain[i].alg));
	}

	/* K_D on a connection bound (authentication) to xhost. */
	wb_init(&ua);
	c = conn_open();
	ok(is_status(do_bind(c, &HX, sid_new(&sx, 32), 0), ST_OK),
	    "positive: session-bind to xhost accepted");
	ok(is_listed(c, &U[K_D]), "positive: the xhost-constrained key is listed "
	    "on the connection bound to xhost");
	ua_make(&ua, sid_sl(&sx), "perseus", &U[K_D], &HX);
	o = do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 1);
	ok(sig_good(o, &U[K_D], wb_slice_of(&ua), SIG_ED25519),
	    "positive: constrained key, bound to xhost, hostbound userauth for "
	    "that session: signed (%s)", outcome_name(o));
	ua_make(&ua, sid_sl(&sx), "perseus", &U[K_D], NULL);
	o = do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 1);
	ok(sig_good(o, &U[K_D], wb_slice_of(&ua), SIG_ED25519),
	    "positive: the same with plain publickey userauth (one hop): signed");

	/* K_D2 through xhost (forwarding) to yhost as alice. */
	c = conn_open();
	ok(is_status(do_bind(c, &HX, sid_new(&sx2, 32), 1), ST_OK) &&
	    is_status(do_bind(c, &HY, sid_new(&sy, 48), 0), ST_OK),
	    "positive: forwarding bind to xhost, then authentication bind to yhost");
	ua_make(&ua, sid_sl(&sy), "alice", &U[K_D2], &HY);
	o = do_sign(c, &U[K_D2], wb_slice_of(&ua), 0, 1);
	ok(sig_good(o, &U[K_D2], wb_slice_of(&ua), SIG_ECDSA_P256),
	    "positive: two-hop constrained key, alice at yhost via xhost: signed "
	    "(%s)", outcome_name(o));
	wb_free(&ua);
}

/* Requests naming connections policy never opened. */
static void
t_unopened(void)
{
	uint32_t closed = conn_open();
	const uint32_t ids[] = { 0, 4242, 0xffffffffU, closed };
	const char *names[] = { "0 (the monitor's own)", "4242 (never opened)",
	    "0xffffffff (never opened)", "a closed one" };
	struct sid s;
	struct wb ua;
	char what[160];

	conn_close(closed);
	wb_init(&ua);
	ua_make(&ua, sid_new(&s, 32), "perseus", &U[K_D], &HX);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct {
			const char *what;
			struct tb t;
			enum want w;
		} m[12];
		size_t n = 0;
		uint32_t c = ids[i];

		m[n].what = "LIST";
		m_empty(&m[n++].t, MSG_LIST, c);
		m[n].what = "SIGN (unconstrained key)";
		m_sign(&m[n++].t, c, pub_of(&U[K_ED]), sl_str("x"), 0, 0);
		m[n].what = "SIGN (constrained key, userauth data)";
		m_sign(&m[n++].t, c, pub_of(&U[K_D]), wb_slice_of(&ua), 0, 0);
		m[n].what = "ADD";
		m_add(&m[n++].t, c, &E1, NULL);
		m[n].what = "REMOVE";
		m_blob(&m[n++].t, MSG_REMOVE, c, pub_of(&U[K_ED]));
		m[n].what = "LOCK";
		m_blob(&m[n++].t, MSG_LOCK, c, sl_str("hostile"));
		m[n].what = "UNLOCK";
		m_blob(&m[n++].t, MSG_UNLOCK, c, sl_str("hostile"));
		m[n].what = "QUERY";
		m_empty(&m[n++].t, MSG_QUERY, c);
		m[n].what = "BIND";
		m_bind(&m[n++].t, c, &HX, sid_sl(&s), 0, 0);
		m[n].what = "BIND_BAD";
		m_empty(&m[n++].t, MSG_BIND_BAD, c);
		if (c != 0) {           /* conn 0: SIGUSR1's remove-all, allowed */
			m[n].what = "REMOVE_ALL";
			m_empty(&m[n++].t, MSG_REMOVE_ALL, c);
		}
		m[n].what = "CLOSE";
		m_empty(&m[n++].t, MSG_CLOSE, c);
		for (size_t j = 0; j < n; j++) {
			enum outcome o;
			int is_close = j == n - 1;
			snprintf(what, sizeof(what), "connection %s: %s", names[i],
			    m[j].what);
			cur_case = what;
			o = run(&m[j].t, W_ANY);
			if (is_close)
				ok(o == O_NONE || o == O_EXIT, "never opened: %s: no answer "
				    "(%s)", what, outcome_name(o));
			else
				ok(refused(o) || o == O_NONE, "never opened: %s: refused "
				    "(%s)", what, outcome_name(o));
		}
	}
	/* types the monitor's range has beyond BIND_BAD, on connection 4242 */
	{
		int bad = 0;
		for (int type = MSG_BIND_BAD + 1; type < MSG_KH_ADD; type++) {
			struct tb t;
			enum outcome o;
			snprintf(what, sizeof(what), "connection 4242: type %d", type);
			cur_case = what;
			m_empty(&t, (uint8_t)type, 4242);
			o = run(&t, W_ANY);
			if (!(refused(o) || o == O_NONE)) {
				bad++;
				printf("#   %s: %s\n", what, outcome_name(o));
			}
		}
		ok(bad == 0, "never opened: connection 4242, each type %d..31: "
		    "refused or ignored (%d not)", MSG_BIND_BAD + 1, bad);
	}
	cur_case = "after requests on unopened connections";
	ok(base_intact(), "never opened: afterwards every base key is still held "
	    "and the agent is not locked");
	ok(!is_listed(ADMIN_CONN, &E1), "never opened: the key ADDed on them was "
	    "not added");
	ok(list_keys(4242, NULL, NULL) < 0, "never opened: connection 4242 is "
	    "still not open");
	wb_free(&ua);
}

/* MSG_LISTED is the monitor's word that a connection got the list
 * answer: policy writes a record for it and answers nothing. Forged ones
 * (a generation never pushed, generation 0, a connection never opened,
 * bytes missing or left over) get no answer and change nothing. */
static void
t_listed(void)
{
	static const struct {
		const char *name;
		uint64_t gen;
		uint32_t n;
		int conn;               /* 0: an open one, 1: 4242 */
		int cut;                /* bytes left off (-1: one added) */
	} c[] = {
		{ "a generation never pushed", UINT64_MAX, 1, 0, 0 },
		{ "generation 0", 0, 1, 0, 0 },
		{ "a connection never opened", 1, 1, 1, 0 },
		{ "the count cut off", 1, 1, 0, 2 },
		{ "a byte more", 1, 1, 0, -1 },
	};
	uint32_t open = conn_open();
	int bad = 0;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct tb t;
		enum outcome o;

		cur_case = c[i].name;
		m_begin(&t, MSG_LISTED, req_new(), c[i].conn ? 4242 : open);
		tb_u64(&t, c[i].gen);
		tb_u32(&t, c[i].n);
		if (c[i].cut > 0)
			t.w.len -= (size_t)c[i].cut;
		else if (c[i].cut < 0)
			tb_u8(&t, 0);
		o = run(&t, W_NONE);
		if (o != O_NONE) {
			bad++;
			printf("#   MSG_LISTED, %s: %s\n", c[i].name, outcome_name(o));
		}
	}
	ok(bad == 0, "MSG_LISTED forged 5 ways: never answered (%d were)", bad);
	cur_case = "after forged MSG_LISTED";
	ok(base_intact(), "MSG_LISTED: afterwards every base key is still held "
	    "and the agent is not locked");
	ok(list_keys(open, NULL, NULL) == NBASE, "MSG_LISTED: the connection "
	    "still lists every base key");
}

static void
t_open_twice(void)
{
	struct tb t;
	struct sid s;
	struct wb ua;
	uint32_t c;
	enum outcome o;

	cur_case = "OPEN twice";
	wb_init(&ua);
	c = conn_open();
	m_open(&t, c, 0, 0);
	o = run(&t, W_NONE);
	ok(o == O_NONE, "OPEN twice: the second OPEN is not answered (%s)",
	    outcome_name(o));
	ok(list_keys(c, NULL, NULL) == NBASE, "OPEN twice: the connection still "
	    "works");

	/* A failed bind must survive a second OPEN. */
	c = conn_open();
	m_empty(&t, MSG_BIND_BAD, c);
	ok(refused_ext(run(&t, W_REPLY)), "OPEN twice: BIND_BAD answered "
	    "with an extension failure");
	ok(!is_listed(c, &U[K_D]), "OPEN twice: after a failed bind the "
	    "constrained key is not listed");
	m_open(&t, c, 0, 0);
	(void)run(&t, W_NONE);
	ok(!is_listed(c, &U[K_D]), "OPEN twice: ... nor after a second OPEN "
	    "(the failed bind was not forgotten)");
	ua_make(&ua, sid_new(&s, 32), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "OPEN twice: ... and it cannot sign there");

	/* A binding to another host must survive it too. */
	c = conn_open();
	ok(is_status(do_bind(c, &HY, sid_new(&s, 32), 0), ST_OK),
	    "OPEN twice: bind to yhost accepted");
	m_open(&t, c, 0, 0);
	(void)run(&t, W_NONE);
	ok(!is_listed(c, &U[K_D]), "OPEN twice: the xhost key stays hidden on "
	    "the yhost connection after a second OPEN");
	ua_make(&ua, sid_sl(&s), "perseus", &U[K_D], &HY);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "OPEN twice: ... and cannot sign for yhost");

	/* One CLOSE ends it: no second entry was left behind. */
	conn_close(c);
	ok(list_keys(c, NULL, NULL) < 0, "OPEN twice: after one CLOSE the "
	    "connection is gone (no duplicate entry)");

	m_open(&t, 0, 0, 0);
	(void)run(&t, W_NONE);
	ok(list_keys(0, NULL, NULL) < 0, "OPEN of connection 0 is refused: LIST "
	    "on 0 still fails");

	/* The socket a connection came in on is a number the rules give
	 * meaning to (rules/scope.h): one they do not declare opens
	 * nothing, and least of all the main socket's rights. */
	c = next_conn++;
	m_begin(&t, MSG_OPEN, req_new(), c);
	tb_u32(&t, 1000);
	tb_u32(&t, 4242);
	tb_u32(&t, 1);          /* no rules here: no socket 1 */
	o = run(&t, W_NONE);
	ok(o == O_NONE, "OPEN on an undeclared socket: not answered (%s)",
	    outcome_name(o));
	ok(list_keys(c, NULL, NULL) < 0, "OPEN on an undeclared socket: the "
	    "connection does not exist (LIST fails)");
	wb_free(&ua);
}

/* Replayed binds and forged forwarding flags (doc/protocol.md §7.2, §8.4). */
static void
t_replay(void)
{
	struct sid sa, sb, sf, sy;
	struct tb ta, t;
	struct wb ua;
	uint32_t a, b, f, g, h;
	enum outcome o;

	cur_case = "replayed session-bind";
	wb_init(&ua);
	a = conn_open();
	b = conn_open();
	m_bind(&ta, a, &HX, sid_new(&sa, 32), 0, 0);
	ok(is_status(xact(&ta, W_REPLY), ST_OK), "replay: bind to xhost on "
	    "connection A accepted");
	/* the same datagram, header changed to connection B */
	put_be32(ta.w.p + 1, req_new());
	put_be32(ta.w.p + 5, b);
	ok(is_status(xact(&ta, W_REPLY), ST_OK), "replay: A's bind replayed on "
	    "B is accepted (a valid signature: within the trust model)");
	ua_make(&ua, sid_new(&sb, 32), "perseus", &U[K_D], &HX);
	o = do_sign(b, &U[K_D], wb_slice_of(&ua), 0, 0);
	ok(refused(o), "replay: on B the xhost key cannot sign a session id "
	    "other than B's last binding (%s)", outcome_name(o));
	ok(refused_ext(do_bind(b, &HX, sid_sl(&sb), 0)), "replay: B cannot add "
	    "its own binding after the replayed authentication binding");
	o = do_sign(b, &U[K_D], wb_slice_of(&ua), 0, 0);
	ok(refused(o), "replay: ... so B's own session still cannot be signed "
	    "(%s)", outcome_name(o));

	/* Forged forwarding flag on a fresh bind. */
	cur_case = "forged forwarding flag";
	f = conn_open();
	ok(is_status(do_bind(f, &HX, sid_new(&sf, 32), 1), ST_OK),
	    "forged forwarding: bind to xhost with forwarding=1 accepted");
	ok(!is_listed(f, &U[K_D]), "forged forwarding: the origin->xhost key is "
	    "not listed (no constraint leads on from xhost)");
	ua_make(&ua, sid_sl(&sf), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(f, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "forged forwarding: hostbound userauth for that session refused (doc/protocol.md §8.4)");
	ua_make(&ua, sid_sl(&sf), "perseus", &U[K_D], NULL);
	ok(refused(do_sign(f, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "forged forwarding: plain publickey userauth refused too");
	ok(is_listed(f, &U[K_D2]), "forged forwarding: the key with an "
	    "xhost->yhost rule is listed (control)");
	ua_make(&ua, sid_sl(&sf), "alice", &U[K_D2], &HX);
	ok(refused(do_sign(f, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "forged forwarding: ... but cannot sign with a forwarding last hop");

	/* A's bind replayed with the flag flipped to forwarding. */
	g = conn_open();
	put_be32(ta.w.p + 1, req_new());
	put_be32(ta.w.p + 5, g);
	ta.w.p[ta.w.len - 1] = 1;
	ok(is_status(xact(&ta, W_REPLY), ST_OK), "forged forwarding: A's bind "
	    "replayed on G with forwarding=1 accepted (the flag is not signed)");
	ua_make(&ua, sid_sl(&sa), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(g, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "forged forwarding: on G, A's session cannot be signed");
	tb_free(&ta);

	/* Forwarding flag forged away: xhost as authentication, then yhost. */
	h = conn_open();
	ok(is_status(do_bind(h, &HX, sid_new(&sf, 32), 0), ST_OK),
	    "forged flag: bind to xhost as authentication accepted");
	ok(refused_ext(do_bind(h, &HY, sid_new(&sy, 32), 0)),
	    "forged flag: nothing may be bound after it (yhost refused)");
	ua_make(&ua, sid_sl(&sy), "alice", &U[K_D2], &HY);
	ok(refused(do_sign(h, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "forged flag: the two-hop key cannot sign for yhost");
	/* Both hops forwarding: the last is forwarding, so no signing. */
	h = conn_open();
	ok(is_status(do_bind(h, &HX, sid_new(&sf, 32), 1), ST_OK) &&
	    is_status(do_bind(h, &HY, sid_new(&sy, 32), 1), ST_OK),
	    "forged flag: xhost and yhost both bound as forwarding");
	ua_make(&ua, sid_sl(&sy), "alice", &U[K_D2], &HY);
	ok(refused(do_sign(h, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "forged flag: the two-hop key cannot sign with a forwarding last hop");
	m_empty(&t, MSG_CLOSE, h);
	(void)run(&t, W_NONE);
	wb_free(&ua);
}

/* A constrained key where its constraints forbid it. */
static void
t_constrained(void)
{
	struct sid sx, sy, so;
	struct wb ua, w;
	struct tb t;
	uint32_t c;
	char uname[300];

	wb_init(&ua);
	wb_init(&w);
	cur_case = "constrained key, unbound connection";
	c = conn_open();
	ua_make(&ua, sid_new(&sx, 32), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "constrained: no bind on the connection: refused");
	ok(refused(do_sign(c, &U[K_D], sl_str("plain data"), 0, 0)),
	    "constrained: no bind, not userauth data: refused");

	cur_case = "constrained key, BIND_BAD";
	c = conn_open();
	m_empty(&t, MSG_BIND_BAD, c);
	ok(refused_ext(run(&t, W_REPLY)), "constrained: BIND_BAD answered with "
	    "an extension failure");
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "constrained: after BIND_BAD: refused");
	ok(!is_listed(c, &U[K_D]), "constrained: after BIND_BAD: not listed");
	ok(is_listed(c, &U[K_ED]), "constrained: after BIND_BAD: unconstrained "
	    "keys are still listed (control)");
	ok(refused(do_remove(c, &U[K_D])), "constrained: after BIND_BAD the "
	    "hidden key cannot be removed");

	cur_case = "constrained key, bad bind signature";
	c = conn_open();
	m_bind(&t, c, &HX, sid_sl(&sx), 0, 1);
	ok(refused_ext(run(&t, W_REPLY)), "constrained: bind with a broken host "
	    "signature refused");
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "constrained: after the refused bind: cannot sign");
	/* xhost's key with yhost's signature over the session id */
	m_begin(&t, MSG_BIND, req_new(), conn_open());
	tb_string_of(&t, &HX.pub);
	sid_new(&so, 32);
	tb_string(&t, so.b, so.len);
	tb_hostsig(&t, &HY, sid_sl(&so), 0);
	tb_u8(&t, 0);
	ok(refused_ext(run(&t, W_REPLY)), "constrained: bind naming xhost signed "
	    "by yhost refused");

	cur_case = "constrained key, bound to another host";
	c = conn_open();
	ok(is_status(do_bind(c, &HY, sid_new(&sy, 32), 0), ST_OK),
	    "constrained: bind to yhost accepted");
	ua_make(&ua, sid_sl(&sy), "perseus", &U[K_D], &HY);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "constrained: bound to yhost, userauth for yhost: refused");
	ua_make(&ua, sid_sl(&sy), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "constrained: bound to yhost, userauth naming xhost: refused");
	ua_make(&ua, sid_sl(&sy), "perseus", &U[K_D], NULL);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "constrained: bound to yhost, plain publickey userauth: refused");
	ok(!is_listed(c, &U[K_D]), "constrained: bound to yhost: not listed");

	cur_case = "constrained key, wrong userauth data";
	c = conn_open();
	ok(is_status(do_bind(c, &HX, sid_new(&sx, 32), 0), ST_OK),
	    "constrained: bind to xhost accepted");
	{
		struct {
			const char *what;
			struct slice sid;
			const char *user, *service, *method, *pkalg;
			uint8_t msg, has_sig;
			const struct ukey *key, *host;
			struct slice trail;
		} bad[] = {
			{ "userauth for another key", sid_sl(&sx), "perseus", NULL, NULL,
			    NULL, 50, 1, &U[K_ED], &HX, { 0 } },
			{ "userauth for an unheld key", sid_sl(&sx), "perseus", NULL,
			    NULL, NULL, 50, 1, &E1, &HX, { 0 } },
			{ "hostbound userauth naming yhost", sid_sl(&sx), "perseus",
			    NULL, NULL, NULL, 50, 1, &U[K_D], &HY, { 0 } },
			{ "another session id", sid_new(&so, 32), "perseus", NULL,
			    NULL, NULL, 50, 1, &U[K_D], &HX, { 0 } },
			{ "the session id less its last byte", sl(sx.b, 31),
			    "perseus", NULL, NULL, NULL, 50, 1, &U[K_D], &HX, { 0 } },
			{ "the session id and one more byte", sl(sx.b, 33),
			    "perseus", NULL, NULL, NULL, 50, 1, &U[K_D], &HX, { 0 } },
			{ "a trailing byte", sid_sl(&sx), "perseus", NULL, NULL, NULL,
			    50, 1, &U[K_D], &HX, { (const uint8_t *)"", 1 } },
			{ "service ssh-userauth", sid_sl(&sx), "perseus", "ssh-userauth",
			    NULL, NULL, 50, 1, &U[K_D], &HX, { 0 } },
			{ "method password", sid_sl(&sx), "perseus", NULL, "password",
			    NULL, 50, 1, &U[K_D], &HX, { 0 } },
			{ "message type 51", sid_sl(&sx), "perseus", NULL, NULL, NULL,
			    51, 1, &U[K_D], &HX, { 0 } },
			{ "has_sig 0", sid_sl(&sx), "perseus", NULL, NULL, NULL, 50, 0,
			    &U[K_D], &HX, { 0 } },
			{ "pkalg ssh-rsa for an Ed25519 key", sid_sl(&sx), "perseus",
			    NULL, NULL, "ssh-rsa", 50, 1, &U[K_D], &HX, { 0 } },
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			struct tua u;
			memset(&u, 0, sizeof(u));
			u.sid = bad[i].sid;
			u.msg = bad[i].msg;
			u.user = bad[i].user;
			u.service = bad[i].service ? bad[i].service : "ssh-connection";
			u.method = bad[i].method ? bad[i].method :
			    "publickey-hostbound-v00@openssh.com";
			u.has_sig = bad[i].has_sig;
			u.pkalg = bad[i].pkalg ? bad[i].pkalg : tk_name(bad[i].key->k.kind);
			u.key = pub_of(bad[i].key);
			if (bad[i].host != NULL && strcmp(u.method, "password") != 0)
				u.hostkey = pub_of(bad[i].host);
			u.trail = bad[i].trail;
			wb_reset(&w);
			tua_write(&w, &u);
			ok(refused(do_sign(c, &U[K_D], wb_slice_of(&w), 0, 0)),
			    "constrained: bound to xhost, %s: refused", bad[i].what);
		}
	}
	wb_reset(&w);
	tsshsig_write(&w, "file");
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&w), 0, 0)),
	    "constrained: bound to xhost, an SSHSIG blob: refused");
	ok(refused(do_sign(c, &U[K_D], sl(NULL, 0), 0, 0)),
	    "constrained: bound to xhost, empty data: refused");
	/* A userauth request wrapped in more data, or a signature-sized blob. */
	ua_make(&ua, sid_sl(&sx), "perseus", &U[K_D], &HX);
	wb_reset(&w);
	wb_string(&w, ua.p, ua.len);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&w), 0, 0)),
	    "constrained: userauth data wrapped in a string: refused");
	/* the control: exactly that data is served on this connection */
	ok(sig_good(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 1), &U[K_D],
	    wb_slice_of(&ua), SIG_ED25519), "constrained: the correct userauth "
	    "data on the same connection is signed (control)");

	cur_case = "two-hop key, wrong user or hop";
	c = conn_open();
	ok(is_status(do_bind(c, &HX, sid_new(&sx, 32), 1), ST_OK) &&
	    is_status(do_bind(c, &HY, sid_new(&sy, 32), 0), ST_OK),
	    "two-hop: xhost (forwarding) then yhost bound");
	ua_make(&ua, sid_sl(&sy), "bob", &U[K_D2], &HY);
	ok(refused(do_sign(c, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "two-hop: user bob where only alice may log in: refused");
	memset(uname, 'a', sizeof(uname) - 1);
	uname[sizeof(uname) - 1] = '\0';
	ua_make(&ua, sid_sl(&sy), uname, &U[K_D2], &HY);
	ok(refused(do_sign(c, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "two-hop: a 299-byte user name: refused");
	ua_make(&ua, sid_sl(&sy), "alice", &U[K_D2], NULL);
	ok(refused(do_sign(c, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "two-hop: plain publickey after a forwarding hop: refused (doc/protocol.md §8.6 3.5)");
	ua_make(&ua, sid_sl(&sy), "alice", &U[K_D2], &HX);
	ok(refused(do_sign(c, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "two-hop: hostbound naming the forwarding host: refused");
	ua_make(&ua, sid_sl(&sx), "alice", &U[K_D2], &HX);
	ok(refused(do_sign(c, &U[K_D2], wb_slice_of(&ua), 0, 0)),
	    "two-hop: the first hop's session id: refused");
	ua_make(&ua, sid_sl(&sy), "alice", &U[K_D], &HY);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "two-hop: the origin->xhost key at yhost: refused");

	cur_case = "confirm key";
	ok(refused(do_sign(c, &U[K_C], sl_str("confirm me"), 0, 0)),
	    "confirm: the user says no (askpass fails): refused");

	cur_case = "locked agent";
	c = conn_open();
	ok(is_status(do_bind(c, &HX, sid_new(&sx, 32), 0), ST_OK),
	    "locked: bind to xhost accepted");
	{
		struct tb tl;
		m_blob(&tl, MSG_LOCK, c, sl_str("passphrase"));
		ok(is_status(run(&tl, W_REPLY), ST_OK), "locked: LOCK accepted");
	}
	ua_make(&ua, sid_sl(&sx), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "locked: the constrained key with correct userauth data: refused");
	ok(refused(do_sign(c, &U[K_ED], sl_str("x"), 0, 0)),
	    "locked: an unconstrained key: refused");
	ok(list_keys(c, NULL, NULL) == 0, "locked: LIST is empty");
	{
		struct tb tl;
		m_blob(&tl, MSG_UNLOCK, c, sl_str("passphrase"));
		ok(is_status(run(&tl, W_REPLY), ST_OK), "locked: UNLOCK accepted");
	}
	ok(base_intact(), "locked: afterwards all keys are back");
	wb_free(&ua);
	wb_free(&w);
}

/* The monitor names keys only by public blob: no id can be guessed. */
static void
t_enumerate(void)
{
	uint8_t rnd[600];
	uint32_t c = conn_open();
	int served = 0, n = 0;
	struct tb t;
	struct wb w;

	cur_case = "enumeration with random blobs";
	wb_init(&w);
	for (int i = 0; i < 300; i++, n++) {
		size_t len = 1 + (size_t)(i * 7 % 599);
		if (RAND_bytes(rnd, (int)len) != 1)
			abort();
		m_sign(&t, c, sl(rnd, len), sl_str("x"), 0, 0);
		if (!refused(run(&t, W_REPLY)))
			served++;
	}
	for (int i = 0; i < 300; i++, n++) {      /* well-formed Ed25519 blobs */
		if (RAND_bytes(rnd, 32) != 1)
			abort();
		wb_reset(&w);
		wb_cstring(&w, "ssh-ed25519");
		wb_string(&w, rnd, 32);
		m_sign(&t, c, wb_slice_of(&w), sl_str("x"), 0, 0);
		if (!refused(run(&t, W_REPLY)))
			served++;
	}
	for (int i = 0; i < 50; i++, n++) {       /* well-formed RSA blobs */
		uint8_t e = 3;
		if (RAND_bytes(rnd, 256) != 1)
			abort();
		rnd[0] |= 0x80;
		wb_reset(&w);
		wb_cstring(&w, "ssh-rsa");
		wb_mpint(&w, &e, 1);
		wb_mpint(&w, rnd, 256);
		m_sign(&t, c, wb_slice_of(&w), sl_str("x"), 0, 0);
		if (!refused(run(&t, W_REPLY)))
			served++;
	}
	for (int i = 0; i < 50; i++, n++) {       /* nistp256 "points" */
		if (RAND_bytes(rnd + 1, 64) != 1)
			abort();
		rnd[0] = 0x04;
		wb_reset(&w);
		wb_cstring(&w, "ecdsa-sha2-nistp256");
		wb_cstring(&w, "nistp256");
		wb_string(&w, rnd, 65);
		m_sign(&t, c, wb_slice_of(&w), sl_str("x"), 0, 0);
		if (!refused(run(&t, W_REPLY)))
			served++;
	}
	ok(served == 0, "enumeration: %d random key blobs (raw, Ed25519, RSA, "
	    "nistp256): none signs (%d did)", n, served);

	cur_case = "enumeration by flipping bytes of held blobs";
	served = 0;
	n = 0;
	for (int k = K_ED; k <= K_RSA; k++) {
		struct slice b = pub_of(&U[k]);
		uint8_t *m = malloc(b.len);
		if (m == NULL)
			abort();
		for (size_t i = 0; i < b.len; i++, n++) {
			memcpy(m, b.p, b.len);
			m[i] ^= 0x01;
			m_sign(&t, c, sl(m, b.len), sl_str("x"), 0, 0);
			if (!refused(run(&t, W_REPLY)))
				served++;
		}
		free(m);
	}
	ok(served == 0, "enumeration: each of %d one-bit changes of the held "
	    "keys' blobs: none signs (%d did)", n, served);

	cur_case = "enumeration: keys not held";
	ok(refused(do_sign(c, &E1, sl_str("x"), 0, 0)), "enumeration: a key "
	    "never added cannot sign");
	ok(is_status(do_add(ADMIN_CONN, &E2, NULL), ST_OK) &&
	    is_status(do_remove(ADMIN_CONN, &E2), ST_OK),
	    "enumeration: a key added and removed");
	ok(refused(do_sign(c, &E2, sl_str("x"), 0, 0)), "enumeration: the removed "
	    "key cannot sign (its keyholder id is not reachable)");
	{
		/* a certificate for the held Ed25519 key, by some CA */
		struct certspec cs = { .key = &U[K_ED].k, .ca = &E3.k, .type = 1,
		    .nprincipals = 1 };
		struct tb cert;
		tb_init(&cert);
		tk_cert(&cert, &cs);
		m_sign(&t, c, tb_slice(&cert), sl_str("x"), 0, 0);
		ok(refused(run(&t, W_REPLY)), "enumeration: a certificate of a held "
		    "plain key does not reach it");
		tb_free(&cert);
	}
	served = 0;
	for (int i = 0; i < 100; i++) {
		if (RAND_bytes(rnd, 32) != 1)
			abort();
		wb_reset(&w);
		wb_cstring(&w, "ssh-ed25519");
		wb_string(&w, rnd, 32);
		m_blob(&t, MSG_REMOVE, c, wb_slice_of(&w));
		if (!refused(run(&t, W_REPLY)))
			served++;
	}
	ok(served == 0 && base_intact(), "enumeration: 100 REMOVEs of random "
	    "keys: all refused, every key still held");
	wb_free(&w);
}

/* The connections the damaged messages name; opened again (and bound
 * again) after every restart, so a payload is never refused merely
 * because its connection went with the last pair. */
#define WIRE_C       0x60000001U        /* open */
#define WIRE_CB      0x60000002U        /* bound to xhost with wire_sid */
#define WIRE_CCLOSE  0x60000003U        /* open, for the damaged CLOSE */
static struct sid wire_sid;
static unsigned wire_gen;

static void
wire_prep(void)
{
	const uint32_t ids[] = { WIRE_C, WIRE_CB, WIRE_CCLOSE };

	while (wire_gen != S.gen) {
		wire_gen = S.gen;
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			struct tb t;
			m_open(&t, ids[i], 1000, 1);
			(void)run(&t, W_NONE);
		}
		if (!is_status(do_bind(WIRE_CB, &HX, sid_sl(&wire_sid), 0), ST_OK))
			printf("# wire: cannot bind connection %u again\n", WIRE_CB);
	}
}

/* A damaged copy: its connections ready once its header is whole. */
static enum outcome
wire_send(const uint8_t *m, size_t n, uint32_t req, int whole_header,
    int expect)
{
	if (whole_header)
		wire_prep();
	return xact_raw(m, n, req, expect < 0 ? W_NONE :
	    (whole_header ? W_REPLY : W_ANY));
}

static void
wire_trailing(const uint8_t *msg, enum outcome o)
{
	if (msg[0] == MSG_CLOSE)
		ok(o == O_EXIT || list_keys(WIRE_CCLOSE, NULL, NULL) >= 0,
		    "wire: CLOSE with a trailing byte did not close it");
}

static const struct engine_ops ops = {
	.start = start_pair,
	.scan = scan,
	.wire_send = wire_send,
	.wire_trailing = wire_trailing,
};

static void
t_wire(void)
{
	struct vmsg v[16];
	size_t n = 0;
	struct sid s;
	struct wb ua;
	struct tb rsa_tb;
	uint32_t c, cb, cclose;
	struct addopt ao = { .life = 1, .lifetime = 3600, .confirm = 1 };

	cur_case = "wire: set-up";
	wb_init(&ua);
	c = WIRE_C;
	cb = WIRE_CB;
	cclose = WIRE_CCLOSE;
	sid_new(&wire_sid, 32);
	wire_gen = 0;
	wire_prep();
	ok(list_keys(cb, &U[K_D], NULL) == NBASE, "wire: a connection bound to "
	    "xhost");
	ua_make(&ua, sid_sl(&wire_sid), "perseus", &U[K_D], &HX);
	tb_init(&rsa_tb);
	tb_rule(&rsa_tb, NULL, NULL, "alice", "zhost", &HZ);
	tb_rule(&rsa_tb, "zhost", &HZ, NULL, "xhost", &HX);
	ao.dest = &rsa_tb;

	v[n].name = "OPEN";
	v[n].expect = -1;
	m_open(&v[n++].t, 9999, 1000, 1);
	v[n].name = "CLOSE";
	v[n].expect = -1;
	m_empty(&v[n++].t, MSG_CLOSE, cclose);
	v[n].name = "LIST";
	v[n].expect = ST_FAIL;
	m_empty(&v[n++].t, MSG_LIST, c);
	v[n].name = "SIGN (unconstrained key)";
	v[n].expect = ST_FAIL;
	m_sign_k(&v[n++].t, c, &U[K_RSA], sl_str("data"), 4, 0);
	v[n].name = "SIGN (constrained key, userauth data, bound connection)";
	v[n].expect = ST_FAIL;
	m_sign_k(&v[n++].t, cb, &U[K_D], wb_slice_of(&ua), 0, 0);
	v[n].name = "ADD (Ed25519, lifetime, confirm, 2 destination rules)";
	v[n].expect = ST_FAIL;
	m_add(&v[n++].t, c, &E1, &ao);
	v[n].name = "ADD (RSA-1024)";
	v[n].expect = ST_FAIL;
	m_add(&v[n++].t, c, &E4, NULL);
	v[n].name = "REMOVE";
	v[n].expect = ST_FAIL;
	m_begin(&v[n].t, MSG_REMOVE, req_new(), c);
	tb_string_of(&v[n++].t, &U[K_P384].pub);
	v[n].name = "REMOVE_ALL";
	v[n].expect = ST_FAIL;
	m_empty(&v[n++].t, MSG_REMOVE_ALL, c);
	v[n].name = "LOCK";
	v[n].expect = ST_FAIL;
	m_blob(&v[n++].t, MSG_LOCK, c, sl_str("hostile passphrase"));
	v[n].name = "UNLOCK";
	v[n].expect = ST_FAIL;
	m_blob(&v[n++].t, MSG_UNLOCK, c, sl_str("hostile passphrase"));
	v[n].name = "QUERY";
	v[n].expect = ST_FAIL;
	m_empty(&v[n++].t, MSG_QUERY, c);
	v[n].name = "BIND";
	v[n].expect = ST_EXT_FAIL;
	m_bind(&v[n++].t, c, &HY, sid_new(&s, 64), 1, 0);
	v[n].name = "BIND_BAD";
	v[n].expect = ST_EXT_FAIL;
	m_empty(&v[n++].t, MSG_BIND_BAD, c);

	/* A zero-length datagram reads as EOF: policy must end, cleanly. */
	cur_case = "a zero-length datagram";
	{
		unsigned gen = S.gen;
		enum outcome o = xact_raw((const uint8_t *)"", 0, 0, W_ANY);
		ok((o == O_EXIT || o == O_NONE) && (o != O_EXIT || S.gen != gen),
		    "wire: a zero-length datagram: policy fails closed (%s)",
		    outcome_name(o));
	}
	for (size_t i = 0; i < n; i++) {
		eng_wire_one(&v[i]);
		tb_free(&v[i].t);
	}
	cur_case = "wire: afterwards";
	ok(base_intact(), "wire: afterwards every base key is held, the agent "
	    "unlocked");
	ok(!is_listed(ADMIN_CONN, &E1) && !is_listed(ADMIN_CONN, &E4),
	    "wire: no damaged ADD added a key");
	ok(list_keys(9999, NULL, NULL) < 0, "wire: no damaged OPEN opened a "
	    "connection");
	tb_free(&rsa_tb);
	wb_free(&ua);
}

/* Every value of the type byte. */
static void
t_types(void)
{
	static const uint8_t garbage[16] = { 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5,
	    0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5 };
	unsigned bad_unknown, n_unknown, bad_later, n_later;
	char what[96];

	for (int pass = 0; pass < 2; pass++) {
		bad_unknown = n_unknown = bad_later = n_later = 0;
		for (int type = 0; type < 256; type++) {
			uint32_t c = conn_open();
			struct tb t;
			enum outcome o;
			int good;
			snprintf(what, sizeof(what), "type %d, %s payload", type,
			    pass ? "16-byte garbage" : "empty");
			cur_case = what;
			m_empty(&t, (uint8_t)type, c);
			if (pass)
				tb_raw(&t, garbage, sizeof(garbage));
			o = run(&t, W_ANY);
			switch (type) {
			case MSG_OPEN:
			case MSG_CLOSE:
				good = o == O_NONE || o == O_EXIT;
				break;
			case MSG_LIST:
				good = pass ? refused(o) : (o == O_REPLY &&
				    R.type == MSG_R_IDENTITIES);
				break;
			case MSG_QUERY:
				good = pass ? refused(o) : (o == O_REPLY &&
				    R.type == MSG_R_EXTENSIONS);
				break;
			case MSG_REMOVE_ALL:
				good = pass ? refused(o) : is_status(o, ST_OK);
				break;
			case MSG_BIND:
			case MSG_BIND_BAD:
				good = refused_ext(o);
				break;
			case MSG_SIGN:
			case MSG_ADD:
			case MSG_REMOVE:
			case MSG_LOCK:
			case MSG_UNLOCK:
				good = refused(o);
				break;
			default:
				if (type > MSG_BIND_BAD && type < MSG_KH_ADD) {
					/* the monitor's range, types added after BIND_BAD:
					 * anything well-formed that is not a signature (a
					 * signature is counted as forbidden anyway) */
					n_later++;
					good = o == O_NONE || o == O_EXIT || (o == O_REPLY &&
					    R.type != MSG_R_SIGNATURE && (!pass ||
					    R.type == MSG_R_STATUS));
					if (!good) {
						bad_later++;
						printf("#   %s: %s\n", what, outcome_name(o));
					}
					break;
				}
				n_unknown++;
				good = o == O_NONE || o == O_EXIT;
				if (!good)
					bad_unknown++;
				if (type == MSG_KH_ADD || type == MSG_KH_SIGN ||
				    type == MSG_KH_DELETE || type == MSG_KH_WIPE ||
				    type == MSG_PROMPT || type == MSG_PROMPT_CANCEL ||
				    type == MSG_R_STATUS || type == MSG_R_SIGNATURE ||
				    type == MSG_R_IDENTITIES || type == MSG_R_EXTENSIONS)
					ok(good, "types: %s (a keyholder, prompter or reply "
					    "type) sent to policy: ignored (%s)", what,
					    outcome_name(o));
				break;
			}
			if (type >= MSG_OPEN && type <= MSG_BIND_BAD)
				ok(good, "types: %s: answered as it should (%s)", what,
				    outcome_name(o));
			if (type == MSG_REMOVE_ALL && !pass) {
				/* a compromised monitor may do that; start afresh */
				(void)eng_restart();
			} else if (type != MSG_CLOSE) {
				conn_close(c);
			}
		}
		ok(bad_unknown == 0, "types: all %u types outside the monitor's range "
		    "(0, 32..255) with %s payload: no answer, policy up or failed "
		    "closed (%u bad)", n_unknown, pass ? "a garbage" : "an empty",
		    bad_unknown);
		ok(bad_later == 0, "types: the %u other types of the monitor's range "
		    "(%d..31) with %s payload: %s, never a signature (%u bad)",
		    n_later, MSG_BIND_BAD + 1, pass ? "a garbage" : "an empty",
		    pass ? "refused or ignored" : "a well-formed answer or none",
		    bad_later);
	}
	cur_case = "types: afterwards";
	ok(base_intact(), "types: afterwards every base key is held");
}

/* Every field at its limits. */
static void
t_limits(void)
{
	struct sid s, sids[AGENT_MAX_BINDINGS + 1];
	struct wb ua, big;
	struct tb t, chain;
	uint32_t c;
	enum outcome o;
	size_t datalen;
	uint8_t *data;

	wb_init(&ua);
	wb_init(&big);

	cur_case = "limits: 256 KiB data";
	c = conn_open();
	if ((data = malloc(IPC_MAX_MSG + 8)) == NULL)
		abort();
	RAND_bytes(data, IPC_MAX_MSG + 8);
	o = do_sign(c, &U[K_ED], sl(data, AGENT_MAX_FRAME), 0, 1);
	ok(sig_good(o, &U[K_ED], sl(data, AGENT_MAX_FRAME), SIG_ED25519),
	    "limits: 256 KiB of data, Ed25519: signed (%s)", outcome_name(o));
	o = do_sign(c, &U[K_RSA], sl(data, AGENT_MAX_FRAME), 4, 1);
	ok(sig_good(o, &U[K_RSA], sl(data, AGENT_MAX_FRAME), SIG_RSA_SHA512),
	    "limits: 256 KiB of data, RSA: signed (%s)", outcome_name(o));
	/* a SIGN datagram of exactly IPC_MAX_MSG bytes */
	datalen = IPC_MAX_MSG - IPC_HEADER_LEN - 4 - pub_of(&U[K_P256]).len - 4 - 4;
	o = do_sign(c, &U[K_P256], sl(data, datalen), 0, 1);
	ok(sig_good(o, &U[K_P256], sl(data, datalen), SIG_ECDSA_P256),
	    "limits: a SIGN datagram of exactly %d bytes: signed (%s)",
	    IPC_MAX_MSG, outcome_name(o));
	/* one byte more than any message may be: fail closed */
	m_sign(&t, c, pub_of(&U[K_P256]), sl(data, datalen + 1), 0, 0);
	if (t.w.len != IPC_MAX_MSG + 1)
		abort();
	o = run(&t, W_ANY);
	ok(o == O_EXIT || refused(o) || o == O_TOOBIG, "limits: a datagram of %d "
	    "bytes: policy refuses or fails closed (%s)", IPC_MAX_MSG + 1,
	    outcome_name(o));
	c = conn_open();
	ok(is_status(do_bind(c, &HX, sid_new(&s, 32), 0), ST_OK),
	    "limits: a connection bound to xhost");
	ua_make(&ua, sid_sl(&s), "perseus", &U[K_D], &HX);
	wb_reset(&big);
	wb_bytes(&big, ua.p, ua.len);
	wb_bytes(&big, data, AGENT_MAX_FRAME - ua.len);
	o = do_sign(c, &U[K_D], wb_slice_of(&big), 0, 0);
	ok(refused(o), "limits: 256 KiB of data starting with a valid userauth "
	    "request, constrained key: refused (%s)", outcome_name(o));
	wb_reset(&big);
	{
		/* userauth with a user name filling 256 KiB */
		struct tua u;
		memset(&u, 0, sizeof(u));
		u.sid = sid_sl(&s);
		u.msg = 50;
		memset(data, 'u', AGENT_MAX_FRAME - 1024);
		u.user_raw = sl(data, AGENT_MAX_FRAME - 1024);
		u.service = "ssh-connection";
		u.method = "publickey-hostbound-v00@openssh.com";
		u.has_sig = 1;
		u.pkalg = "ssh-ed25519";
		u.key = pub_of(&U[K_D]);
		u.hostkey = pub_of(&HX);
		tua_write(&big, &u);
		o = do_sign(c, &U[K_D], wb_slice_of(&big), 0, 1);
		ok(o == O_REPLY || o == O_EXIT, "limits: userauth with a %d-byte "
		    "user name for a key allowed for any user: answered (%s)",
		    AGENT_MAX_FRAME - 1024, outcome_name(o));
		o = do_sign(c, &U[K_D2], wb_slice_of(&big), 0, 0);
		ok(refused(o), "limits: the same name for a key not bound there: "
		    "refused (%s)", outcome_name(o));
	}

	cur_case = "limits: session id of 128 and 129 bytes";
	c = conn_open();
	o = do_bind(c, &HX, sid_new(&s, AGENT_MAX_SESSION_ID + 1), 0);
	ok(refused_ext(o), "limits: a validly signed 129-byte session id: "
	    "refused (%s)", outcome_name(o));
	ua_make(&ua, sid_sl(&s), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "limits: ... and the constrained key cannot sign for it");
	c = conn_open();
	o = do_bind(c, &HX, sid_new(&s, AGENT_MAX_SESSION_ID), 0);
	ok(is_status(o, ST_OK), "limits: a 128-byte session id: accepted (%s)",
	    outcome_name(o));
	ua_make(&ua, sid_sl(&s), "perseus", &U[K_D], &HX);
	o = do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 1);
	ok(sig_good(o, &U[K_D], wb_slice_of(&ua), SIG_ED25519), "limits: ... and "
	    "userauth for it is signed (%s)", outcome_name(o));
	c = conn_open();
	o = do_bind(c, &HX, sid_new(&s, 0), 0);
	ok(o == O_REPLY || o == O_EXIT, "limits: an empty session id signed by "
	    "the host: answered (%s)", outcome_name(o));
	ua_make(&ua, sid_sl(&s), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "limits: ... userauth with an empty session id: refused");
	{
		struct tb tb0;
		c = conn_open();
		m_begin(&tb0, MSG_BIND, req_new(), c);
		tb_string(&tb0, NULL, 0);
		tb_string(&tb0, NULL, 0);
		tb_string(&tb0, NULL, 0);
		tb_u8(&tb0, 0);
		ok(refused_ext(run(&tb0, W_REPLY)), "limits: BIND with three empty "
		    "strings: refused");
	}

	cur_case = "limits: 16 and 17 bindings";
	tb_init(&chain);
	tb_rule(&chain, NULL, NULL, NULL, "ch0", &CH[0]);
	for (int i = 1; i < AGENT_MAX_BINDINGS; i++) {
		char from[16], to[16];
		snprintf(from, sizeof(from), "ch%d", i - 1);
		snprintf(to, sizeof(to), "ch%d", i);
		tb_rule(&chain, from, &CH[i - 1], NULL, to, &CH[i]);
	}
	{
		struct addopt ao = { .dest = &chain };
		ok(is_status(do_add(ADMIN_CONN, &E3, &ao), ST_OK), "limits: a key "
		    "allowed along a chain of 16 hosts added");
	}
	c = conn_open();
	{
		int all = 1;
		for (int i = 0; i < AGENT_MAX_BINDINGS; i++)
			all &= is_status(do_bind(c, &CH[i], sid_new(&sids[i], 32),
			    i < AGENT_MAX_BINDINGS - 1), ST_OK);
		ok(all, "limits: 15 forwarding bindings and an authentication one "
		    "accepted");
	}
	ua_make(&ua, sid_sl(&sids[15]), "perseus", &E3, &CH[15]);
	o = do_sign(c, &E3, wb_slice_of(&ua), 0, 1);
	ok(sig_good(o, &E3, wb_slice_of(&ua), SIG_ED25519), "limits: a userauth "
	    "request at the 16th host is signed (%s)", outcome_name(o));
	ua_make(&ua, sid_sl(&sids[14]), "perseus", &E3, &CH[14]);
	ok(refused(do_sign(c, &E3, wb_slice_of(&ua), 0, 0)), "limits: ... the "
	    "15th host's session is not");
	c = conn_open();
	{
		int all = 1;
		for (int i = 0; i < AGENT_MAX_BINDINGS; i++)
			all &= is_status(do_bind(c, &CH[i], sid_new(&sids[i], 32), 1),
			    ST_OK);
		ok(all, "limits: 16 forwarding bindings accepted");
	}
	o = do_bind(c, &HX, sid_new(&sids[16], 32), 0);
	ok(refused_ext(o), "limits: a 17th binding: refused (%s)",
	    outcome_name(o));
	ua_make(&ua, sid_sl(&sids[16]), "perseus", &U[K_D], &HX);
	ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
	    "limits: ... and nothing can sign for it");
	ok(list_keys(c, NULL, NULL) >= 0, "limits: LIST on the connection with 16 "
	    "bindings answers");
	ok(is_status(do_remove(ADMIN_CONN, &E3), ST_OK), "limits: the chain key "
	    "removed");
	tb_free(&chain);

	cur_case = "limits: 1024 and 1025 destination constraints";
	for (int nrules = AGENT_MAX_DEST_RULES; nrules <= AGENT_MAX_DEST_RULES + 1;
	    nrules++) {
		struct wb list;
		struct tspec spec = { pub_of(&HX), 0 };
		struct thop from = { 0 }, to = { 0 };
		char host[32];
		wb_init(&list);
		for (int i = 0; i < nrules; i++) {
			snprintf(host, sizeof(host), "host%d", i);
			to.host = host;
			to.keys = &spec;
			to.nkeys = 1;
			tconstraint_write(&list, &from, &to, sl(NULL, 0),
			    sl(NULL, 0));
		}
		tk_check(&list, "constraint list");
		struct addopt ao = { .dest_raw = wb_slice_of(&list) };
		o = do_add(ADMIN_CONN, &E1, &ao);
		if (nrules == AGENT_MAX_DEST_RULES) {
			ok(is_status(o, ST_OK), "limits: ADD with 1024 destination "
			    "constraints: accepted (%s)", outcome_name(o));
			c = conn_open();
			(void)do_bind(c, &HX, sid_new(&s, 32), 0);
			ua_make(&ua, sid_sl(&s), "perseus", &E1, &HX);
			o = do_sign(c, &E1, wb_slice_of(&ua), 0, 1);
			ok(sig_good(o, &E1, wb_slice_of(&ua), SIG_ED25519), "limits: ... "
			    "and it signs at xhost (%s)", outcome_name(o));
			c = conn_open();
			(void)do_bind(c, &HY, sid_new(&s, 32), 0);
			ua_make(&ua, sid_sl(&s), "perseus", &E1, &HY);
			ok(refused(do_sign(c, &E1, wb_slice_of(&ua), 0, 0)),
			    "limits: ... but not at yhost");
			ok(is_status(do_remove(ADMIN_CONN, &E1), ST_OK), "limits: ... "
			    "removed again");
		} else {
			ok(refused(o), "limits: ADD with 1025 destination constraints: "
			    "refused (%s)", outcome_name(o));
			ok(!is_listed(ADMIN_CONN, &E1), "limits: ... and not added");
		}
		wb_free(&list);
	}

	cur_case = "limits: RSA sizes and certificate principals";
	{
		uint8_t *mp = malloc(2 * AGENT_MAX_MPINT_BYTES), e[3] = { 1, 0, 1 };
		struct tb pv;
		struct ukey fake;
		if (mp == NULL)
			abort();
		memset(&fake, 0, sizeof(fake));
		snprintf(fake.name, sizeof(fake.name), "rsa-structure");
		for (int bits = AGENT_RSA_MAX_BITS; bits <= AGENT_RSA_MAX_BITS + 1;
		    bits++) {
			size_t nb = (size_t)(bits + 7) / 8;
			struct addopt ao = { 0 };
			RAND_bytes(mp, (int)nb);
			mp[0] = bits % 8 ? 0x01 : 0x80;        /* exactly bits long */
			tb_init(&pv);
			tb_cstring(&pv, "ssh-rsa");
			tb_mpint(&pv, mp, nb);
			tb_mpint(&pv, e, 3);
			tb_mpint(&pv, mp, nb);                 /* d */
			tb_mpint(&pv, mp, nb / 2);             /* iqmp */
			tb_mpint(&pv, mp, nb / 2);             /* p */
			tb_mpint(&pv, mp + nb / 2, nb / 2);    /* q */
			ao.priv = &pv;
			o = do_add(ADMIN_CONN, &fake, &ao);
			ok(refused(o), "limits: ADD of a %d-bit RSA key whose parts do "
			    "not fit together: refused (%s)", bits, outcome_name(o));
			tb_free(&pv);
		}
		free(mp);
	}
	o = do_add(ADMIN_CONN, &E4, NULL);
	ok(is_status(o, ST_OK), "limits: ADD of a 1024-bit RSA key: accepted (%s)",
	    outcome_name(o));
	ok(sig_good(do_sign(ADMIN_CONN, &E4, sl_str("x"), SSH_AGENT_RSA_SHA2_256,
	    1), &E4, sl_str("x"), SIG_RSA_SHA256), "limits: ... it signs");
	ok(is_status(do_remove(ADMIN_CONN, &E4), ST_OK), "limits: ... removed");
	for (unsigned np = AGENT_MAX_PRINCIPALS; np <= AGENT_MAX_PRINCIPALS + 1;
	    np++) {
		struct certspec cs = { .key = &E1.k, .ca = &E3.k, .type = 1,
		    .nprincipals = np };
		struct tb cert, pv;
		struct addopt ao = { 0 };
		tb_init(&cert);
		tk_cert(&cert, &cs);
		tb_init(&pv);
		tk_priv_cert(&pv, &cs);
		ao.priv = &pv;
		o = do_add(ADMIN_CONN, &E1, &ao);
		if (np <= AGENT_MAX_PRINCIPALS) {
			ok(is_status(o, ST_OK), "limits: ADD of a certificate with %u "
			    "principals: accepted (%s)", np, outcome_name(o));
			m_sign(&t, ADMIN_CONN, tb_slice(&cert), sl_str("x"), 0, 1);
			o = run(&t, W_REPLY);
			ok(sig_good(o, &E1, sl_str("x"), SIG_ED25519), "limits: ... the "
			    "certificate identity signs with its key (%s)",
			    outcome_name(o));
			m_blob(&t, MSG_REMOVE, ADMIN_CONN, tb_slice(&cert));
			ok(is_status(run(&t, W_REPLY), ST_OK), "limits: ... removed");
		} else {
			ok(refused(o), "limits: ADD of a certificate with %u principals: "
			    "refused (%s)", np, outcome_name(o));
			m_sign(&t, ADMIN_CONN, tb_slice(&cert), sl_str("x"), 0, 0);
			ok(refused(run(&t, W_REPLY)), "limits: ... it cannot sign");
		}
		tb_free(&cert);
		tb_free(&pv);
	}

	cur_case = "limits: other fields";
	{
		char *comment = malloc(AGENT_MAX_FRAME - 4096);
		struct addopt ao = { 0 };
		if (comment == NULL)
			abort();
		memset(comment, 'c', AGENT_MAX_FRAME - 4097);
		comment[AGENT_MAX_FRAME - 4097] = '\0';
		ao.comment = comment;
		o = do_add(ADMIN_CONN, &E2, &ao);
		ok(is_status(o, ST_OK), "limits: ADD with a %d-byte comment: "
		    "accepted (%s)", AGENT_MAX_FRAME - 4097, outcome_name(o));
		c = conn_open();
		o = do_sign(c, &E2, sl_str("x"), 0, 1);
		ok(sig_good(o, &E2, sl_str("x"), SIG_ED25519), "limits: ... it signs");
		ok(list_keys(c, NULL, NULL) >= 0, "limits: ... LIST still answers");
		ok(is_status(do_remove(ADMIN_CONN, &E2), ST_OK), "limits: ... "
		    "removed");
		free(comment);
	}
	{
		struct addopt ao = { .life = 1, .lifetime = 0xffffffffU };
		ok(is_status(do_add(ADMIN_CONN, &E2, &ao), ST_OK), "limits: ADD with "
		    "lifetime 0xffffffff: accepted");
		ok(is_status(do_remove(ADMIN_CONN, &E2), ST_OK), "limits: ... removed");
		ao.lifetime = 0;
		o = do_add(ADMIN_CONN, &E2, &ao);
		ok(o == O_REPLY, "limits: ADD with lifetime 0: answered (%s)",
		    outcome_name(o));
		ok(refused(do_sign(ADMIN_CONN, &E2, sl_str("x"), 0, 0)),
		    "limits: ... the key is gone at once: cannot sign");
	}
	{
		struct tb tl;
		memset(data, 'p', AGENT_MAX_FRAME);
		c = conn_open();
		m_blob(&tl, MSG_LOCK, c, sl(data, AGENT_MAX_FRAME));
		ok(is_status(run(&tl, W_REPLY), ST_OK), "limits: LOCK with a 256 KiB "
		    "passphrase: accepted");
		ok(refused(do_sign(c, &U[K_ED], sl_str("x"), 0, 0)), "limits: ... "
		    "locked: cannot sign");
		m_blob(&tl, MSG_UNLOCK, c, sl(data, AGENT_MAX_FRAME - 1));
		ok(refused(run(&tl, W_REPLY)), "limits: ... UNLOCK with one byte "
		    "less: refused");
		m_blob(&tl, MSG_UNLOCK, c, sl(data, AGENT_MAX_FRAME));
		ok(is_status(run(&tl, W_REPLY), ST_OK), "limits: ... UNLOCK with it: "
		    "accepted");
	}
	{
		struct tb to;
		m_open(&to, 0xffffffffU, 0xffffffffU, 0xffffffffU);
		(void)run(&to, W_NONE);
		ok(list_keys(0xffffffffU, NULL, NULL) == NBASE, "limits: connection "
		    "0xffffffff, uid and pid 0xffffffff: opened and usable");
		conn_close(0xffffffffU);
		/* request ids 0 and 0xffffffff are echoed */
		m_begin(&to, MSG_SIGN, 0, ADMIN_CONN);
		allow_sig(0);
		tb_string_of(&to, &U[K_ED].pub);
		tb_string(&to, "x", 1);
		tb_u32(&to, 0);
		o = run(&to, W_REPLY);
		ok(sig_good(o, &U[K_ED], sl_str("x"), SIG_ED25519) && R.req == 0 &&
		    R.conn == ADMIN_CONN, "limits: request id 0: answered, echoed");
		m_begin(&to, MSG_LIST, 0xffffffffU, ADMIN_CONN);
		o = run(&to, W_REPLY);
		ok(o == O_REPLY && R.type == MSG_R_IDENTITIES && R.req == 0xffffffffU,
		    "limits: request id 0xffffffff: answered, echoed");
	}
	/* Many requests at once, none answered twice or lost. */
	{
		uint32_t first = 0, answered = 0;
		int nreq = 64;
		c = conn_open();
		cur_case = "limits: 64 pipelined signatures";
		for (int i = 0; i < nreq; i++) {
			struct tb tp;
			m_sign(&tp, c, pub_of(&U[i % 2 ? K_ED : K_P256]), sl_str("pipe"),
			    0, 1);
			if (i == 0)
				first = hdr_req(&tp);
			(void)send_raw(tp.w.p, tp.w.len);
			tb_free(&tp);
		}
		while (answered < (uint32_t)nreq) {
			size_t r;
			if (eng_recv(mono_ms() + REPLY_WAIT_MS, &r) <= 0)
				break;
			if (r > 9 && rbuf[0] == MSG_R_SIGNATURE &&
			    get_be32(rbuf + 1) - first < (uint32_t)nreq)
				answered++;
		}
		ok(answered == (uint32_t)nreq, "limits: 64 pipelined signatures: all "
		    "answered (%u)", answered);
	}
	free(data);
	wb_free(&ua);
	wb_free(&big);
}

/* ADDs a compromised monitor could forge. */
static void
t_add_forged(void)
{
	struct tb p;
	uint8_t k64[64];
	enum outcome o;

	cur_case = "forged ADD: mismatched halves";
	/* Ed25519: the seed of another key with E1's public half. */
	tb_init(&p);
	tb_cstring(&p, "ssh-ed25519");
	tb_string(&p, E1.k.a.b, 32);
	memcpy(k64, U[K_ED].k.seed.b, 32);
	memcpy(k64 + 32, E1.k.a.b, 32);
	tb_string(&p, k64, 64);
	{
		struct addopt ao = { .priv = &p };
		o = do_add(ADMIN_CONN, &E1, &ao);
		ok(refused(o), "forged ADD: Ed25519 seed of another key: refused (%s)",
		    outcome_name(o));
	}
	tb_free(&p);
	/* Ed25519: A in k64 differs from the public A. */
	tb_init(&p);
	tb_cstring(&p, "ssh-ed25519");
	tb_string(&p, E1.k.a.b, 32);
	memcpy(k64, E1.k.seed.b, 32);
	memcpy(k64 + 32, U[K_ED].k.a.b, 32);
	tb_string(&p, k64, 64);
	{
		struct addopt ao = { .priv = &p };
		ok(refused(do_add(ADMIN_CONN, &E1, &ao)), "forged ADD: Ed25519 halves "
		    "of k disagree: refused");
	}
	tb_free(&p);
	/* ECDSA: the scalar of another P-256 key. */
	tb_init(&p);
	tb_cstring(&p, "ecdsa-sha2-nistp256");
	tb_cstring(&p, "nistp256");
	tb_string(&p, U[K_D2].k.q.b, U[K_D2].k.q.len);
	tb_mpint(&p, U[K_P256].k.d.b, U[K_P256].k.d.len);
	{
		struct addopt ao = { .priv = &p, .comment = "forged" };
		ok(refused(do_add(ADMIN_CONN, &U[K_D2], &ao)), "forged ADD: ECDSA d "
		    "of another key (re-adding a constrained key unconstrained): "
		    "refused");
	}
	tb_free(&p);
	/* RSA: p of another key; d off by one. */
	for (int v = 0; v < 2; v++) {
		uint8_t dd[1100];
		tb_init(&p);
		tb_cstring(&p, "ssh-rsa");
		tb_mpint(&p, E4.k.n.b, E4.k.n.len);
		tb_mpint(&p, E4.k.e.b, E4.k.e.len);
		memcpy(dd, E4.k.rd.b, E4.k.rd.len);
		if (v == 1)
			dd[E4.k.rd.len - 1] ^= 0x02;
		tb_mpint(&p, dd, E4.k.rd.len);
		tb_mpint(&p, E4.k.iqmp.b, E4.k.iqmp.len);
		if (v == 0)
			tb_mpint(&p, U[K_RSA].k.p.b, U[K_RSA].k.p.len);
		else
			tb_mpint(&p, E4.k.p.b, E4.k.p.len);
		tb_mpint(&p, E4.k.pq.b, E4.k.pq.len);
		struct addopt ao = { .priv = &p };
		ok(refused(do_add(ADMIN_CONN, &E4, &ao)), "forged ADD: RSA with %s: "
		    "refused", v ? "a wrong d" : "p of another key");
		tb_free(&p);
	}
	/* A well-formed private key under another key's public key: policy
	 * judges E2, the keyholder derives E1. */
	{
		struct addopt ao = { .priv = &E1.priv, .pub = &E2.pub };
		ok(refused(do_add(ADMIN_CONN, &E2, &ao)), "forged ADD: E1's private "
		    "key sent with E2's public key: refused");
		ok(!is_listed(ADMIN_CONN, &E2), "forged ADD: ... E2 is not listed");
		ok(refused(do_sign(ADMIN_CONN, &E2, sl_str("x"), 0, 0)) &&
		    refused(do_sign(ADMIN_CONN, &E1, sl_str("x"), 0, 0)),
		    "forged ADD: ... neither key signs");
	}
	ok(!is_listed(ADMIN_CONN, &E1) && !is_listed(ADMIN_CONN, &E2) &&
	    !is_listed(ADMIN_CONN, &E4) && base_intact(), "forged ADD: none of "
	    "them was added; the base keys are unchanged");
	/* The constrained key, re-added without constraints, from a
	 * connection where it is not visible. */
	{
		uint32_t c = conn_open();
		struct tb t;
		struct sid s;
		struct wb ua;
		m_empty(&t, MSG_BIND_BAD, c);
		(void)run(&t, W_REPLY);
		ok(refused(do_add(c, &U[K_D], NULL)), "forged ADD: re-adding the "
		    "constrained key unconstrained where it is hidden: refused");
		c = conn_open();
		(void)do_bind(c, &HY, sid_new(&s, 32), 0);
		wb_init(&ua);
		ua_make(&ua, sid_sl(&s), "perseus", &U[K_D], &HY);
		ok(refused(do_sign(c, &U[K_D], wb_slice_of(&ua), 0, 0)),
		    "forged ADD: ... it is still constrained (yhost refused)");
		wb_free(&ua);
	}
	/* A certificate whose CA signature is broken. */
	{
		struct certspec cs = { .key = &E1.k, .ca = &E3.k, .type = 1,
		    .nprincipals = 1, .corrupt_signature = 1 };
		struct addopt ao = { .priv = &p };
		tb_init(&p);
		tk_priv_cert(&p, &cs);
		ok(refused(do_add(ADMIN_CONN, &E1, &ao)), "forged ADD: a certificate "
		    "with a broken CA signature: refused");
		tb_free(&p);
	}
}

/* ============================================================== main */

int
main(int argc, char **argv)
{
	static const char *const progs[] = { "keyward-policy",
	    "keyward-keyholder", NULL };

	eng_init(argc, argv, &ops, progs);
	/* The prompter asks $SSH_ASKPASS; here the user always says no. */
	setenv("SSH_ASKPASS", "/bin/false", 1);
	setenv("SSH_ASKPASS_REQUIRE", "force", 1);

	ukey_gen(&U[K_ED], KEY_ED25519, 0, "ed25519");
	ukey_gen(&U[K_P256], KEY_ECDSA_P256, 0, "nistp256");
	ukey_gen(&U[K_P384], KEY_ECDSA_P384, 0, "nistp384");
	ukey_gen(&U[K_P521], KEY_ECDSA_P521, 0, "nistp521");
	ukey_gen(&U[K_RSA], KEY_RSA, 2048, "rsa2048");
	ukey_gen(&U[K_D], KEY_ED25519, 0, "xhost-only");
	ukey_gen(&U[K_D2], KEY_ECDSA_P256, 0, "alice-via-xhost");
	ukey_gen(&U[K_C], KEY_ED25519, 0, "confirm");
	ukey_gen(&E1, KEY_ED25519, 0, "never-held-1");
	ukey_gen(&E2, KEY_ED25519, 0, "never-held-2");
	ukey_gen(&E3, KEY_ED25519, 0, "never-held-3");
	ukey_gen(&E4, KEY_RSA, 1024, "never-held-rsa");
	ukey_gen(&HX, KEY_ED25519, 0, "xhost");
	ukey_gen(&HY, KEY_ECDSA_P256, 0, "yhost");
	ukey_gen(&HZ, KEY_RSA, 1024, "zhost");
	for (int i = 0; i < AGENT_MAX_BINDINGS; i++) {
		char name[16];
		snprintf(name, sizeof(name), "ch%d", i);
		ukey_gen(&CH[i], KEY_ED25519, 0, name);
	}
	tb_init(&d_list);
	tb_rule(&d_list, NULL, NULL, NULL, "xhost", &HX);
	tb_init(&d2_list);
	tb_rule(&d2_list, NULL, NULL, NULL, "xhost", &HX);
	tb_rule(&d2_list, "xhost", &HX, "alice", "yhost", &HY);

	eng_start();
	t_positive();
	t_unopened();
	t_open_twice();
	t_listed();
	t_replay();
	t_constrained();
	t_enumerate();
	t_add_forged();
	t_limits();
	t_types();
	t_wire();

	cur_case = "the end";
	ok(base_intact(), "end: policy is up with every base key");
	{
		int r = eng_reap_all();
		ok(r == 0, "end: closing the monitor's end: policy and keyholder exit "
		    "cleanly");
	}
	eng_summary();
	ok(st.forbidden == 0, "no signature was produced for a request the "
	    "constraints forbid (%lu)", st.forbidden);
	ok(st.bad_exits == 0 && st.hangs == 0, "policy and keyholder never died "
	    "by a signal, a sanitizer or a hang (%lu bad exits, %lu hangs)",
	    st.bad_exits, st.hangs);
	ok(st.malformed == 0 && st.duplicates == 0, "every reply was well-formed "
	    "and answered one request once (%lu malformed, %lu duplicates)",
	    st.malformed, st.duplicates);
	return done_testing();
}
