/*
 * hostile_policy.c - a compromised policy, as a TAP test. It starts
 * keyward-keyholder alone, as monitor/children.c does
 * (fd 3 = its end of a SEQPACKET pair sized by chan_setup_fd), and sends
 * it what a compromised policy could: KH_ADD with halves that do not
 * belong together, certificates, truncated and oversized fields; KH_SIGN
 * with ids never given, every algorithm byte against every key kind, huge
 * data, pipelined on one connection ahead of another's; KH_DELETE,
 * KH_WIPE and KH_LOCK followed by signing; FIDO keys, which it must never
 * sign with, and KH_SK_MATERIAL; every type byte. A compromised policy may get signatures from every loaded key
 * (doc/design.md, "Trust, stated plainly"), but never a private key byte.
 *
 * The keyholder answers every request it can decode exactly once; a
 * message it cannot decode whole, or of a type policy never sends, makes
 * it exit (255: fail closed, ipc/sibling.h). Death by a
 * signal (SIGSEGV, SIGABRT, SIGSYS) or another status (a sanitizer) is a
 * failure; the keyholder is then restarted with the base keys. The
 * engine (starting, reaping, the wire damage) is tests/hostile/engine.h.
 *
 *   hostile_policy [BUILD_DIR]      (else $KEYWARD_BUILD, else ./build)
 *   HOSTILE_LOG=FILE                its stderr (default /dev/null)
 */
#include "tests/hostile/engine.h"

#include <openssl/rand.h>

enum { K_ED, K_P256, K_P384, K_P521, K_RSA, NBASE };
static struct ukey U[NBASE];
static struct ukey O_ED, O_P256, O_RSA; /* other keys, for mismatched halves */
static struct ukey SK_ED, SK_P256;      /* FIDO keys: a key handle, no key */

static void
kh_key(struct ukey *u, enum key_kind kind, size_t bits, const char *name,
    uint64_t id)
{
	ukey_gen(u, kind, bits, name);
	u->id = id;
}

/* Every reply is a status or a signature for the connection 0 policy
 * names in its own requests. */
static void
scan(const struct msg_hdr *h, struct rd *r, size_t n)
{
	struct msg_status ms;
	struct slice mb;
	struct msg_sk_material skm;
	int bad;

	if (h->type == MSG_R_STATUS)
		bad = msg_status_decode(r, &ms) != 0;
	else if (h->type == MSG_R_SIGNATURE)
		bad = msg_string_read(r, &mb) != 0, st.signatures++;
	else if (h->type == MSG_R_SK_MATERIAL)
		bad = msg_sk_material_decode(r, &skm) != 0;
	else if (h->type == MSG_R_PUBKEY)
		bad = msg_string_read(r, &mb) != 0;
	else
		bad = 1;
	if (bad || h->conn != 0) {
		st.malformed++;
		printf("# malformed reply of %zu bytes, type %u (case: %s)\n", n,
		    h->type, cur_case);
	}
}

/* ---------------------------------------------------------- the process */

static void setup_base(void);

static void
start(void)
{
	int pk[2];
	char *argv[] = { "keyward-keyholder", "debug", NULL };

	eng_pair(pk);
	eng_spawn(0, argv, pk[1], -1);
	close(pk[1]);
	eng_started(pk[0]);
	setup_base();
}

/* ------------------------------------------------------------ exchanges */

/* Send p and wait for the answer to req. */
static enum outcome
xact_raw(const uint8_t *p, size_t len, uint32_t req)
{
	uint64_t end;
	size_t n;
	int r;

	if (S.fd < 0)
		eng_start();
	if ((r = send_raw(p, len)) == 1)
		return O_TOOBIG;
	end = mono_ms() + REPLY_WAIT_MS;
	for (;;) {
		if ((r = eng_recv(end, &n)) < 0)
			return eng_gone();
		if (r == 0)
			return eng_hang();
		if (n < IPC_HEADER_LEN || get_be32(rbuf + 1) != req) {
			st.unasked++;
			printf("# an answer nobody asked for (request %u) (case: %s)\n",
			    n >= 5 ? get_be32(rbuf + 1) : 0, cur_case);
			continue;
		}
		eng_take(n);
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

static enum outcome
wire_send(const uint8_t *m, size_t n, uint32_t req, int whole_header,
    int expect)
{
	return xact_raw(m, n, req);
}

static const struct engine_ops ops = {
	.start = start,
	.scan = scan,
	.wire_send = wire_send,
};

static void
m_add(struct tb *t, uint64_t id, const struct tb *priv)
{
	m_begin(t, MSG_KH_ADD, req_new(), 0);
	tb_u64(t, id);
	tb_string_of(t, priv);
}

static void
m_sign(struct tb *t, uint64_t id, uint8_t alg, struct slice data)
{
	m_begin(t, MSG_KH_SIGN, req_new(), 0);
	tb_u64(t, id);
	tb_u8(t, alg);
	tb_string(t, data.p, data.len);
}

static void
m_delete(struct tb *t, uint64_t id)
{
	m_begin(t, MSG_KH_DELETE, req_new(), 0);
	tb_u64(t, id);
}

static void
m_pass(struct tb *t, uint8_t type, struct slice pass)
{
	m_begin(t, type, req_new(), 0);
	tb_string(t, pass.p, pass.len);
}

static enum outcome
do_add(uint64_t id, const struct tb *priv)
{
	struct tb t;

	m_add(&t, id, priv);
	return run(&t);
}

/* Accepted: the keyholder answers with the public key it derived, which
 * must be pub (what policy would compare it with). */
static int
added(enum outcome o, const struct tb *pub)
{
	struct msg_hdr h;
	struct slice b;
	struct rd r;

	if (o != O_REPLY || R.type != MSG_R_PUBKEY)
		return 0;
	rd_init(&r, R.p, R.n);
	return msg_hdr_decode(&r, &h) == 0 && msg_string_read(&r, &b) == 0 &&
	    slice_eq(b, tb_slice(pub));
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

	m_begin(&t, type, req_new(), 0);
	return run(&t);
}

static enum outcome
do_pass(uint8_t type, struct slice pass)
{
	struct tb t;

	m_pass(&t, type, pass);
	return run(&t);
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
		enum sig_alg a = tk_default_alg(U[i].k.kind);
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
		if (!added(do_add(U[i].id, &U[i].priv), &U[i].pub)) {
			printf("Bail out! the keyholder (%s) refuses base key %s\n",
			    P[0].path, U[i].name);
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
		enum sig_alg a = tk_default_alg(U[i].k.kind);
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
			enum sig_alg a = tk_default_alg(U[k].k.kind);
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
	struct tb p, t;
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
		enum sig_alg a = tk_default_alg(U[b].k.kind);
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
	/* The certificate form, as a client sends it: kept plain, answered
	 * with the certificate policy compares with the one it judged. */
	{
		struct certspec cs = { .key = &U[K_ED].k, .ca = &O_ED.k, .type = 1,
		    .nprincipals = 1 };
		struct tb cert;
		tb_init(&cert);
		tk_cert(&cert, &cs);
		tb_init(&p);
		tk_priv_cert(&p, &cs);
		ok(added(do_add(778, &p), &cert), "mismatch: KH_ADD of a certificate "
		    "encoding: answered with the certificate");
		ok(sig_good(do_sign(778, SIG_ED25519, sl_data()), &U[K_ED],
		    sl_data(), SIG_ED25519), "mismatch: ... its key signs");
		m_delete(&t, 778);
		ok(is_status(run(&t), ST_OK), "mismatch: ... deleted");
		tb_free(&p);
		tb_free(&cert);
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
	m_begin(&v[n++].t, MSG_KH_WIPE, req_new(), 0);
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
		eng_wire_one(&v[i]);
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
			m_begin(&t, (uint8_t)type, req_new(), 0);
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

	m_begin(&t, MSG_KH_SK_MATERIAL, req_new(), 0);
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
		ok(added(do_add(sk[i]->id, &sk[i]->priv), &sk[i]->pub), "fido: KH_ADD "
		    "of %s, answered with its public key", sk[i]->name);
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
	m_begin(&t, MSG_KH_SK_MATERIAL, req_new(), 0);
	tb_u64(&t, SK_ED.id);
	tb_u8(&t, 0);
	ok(run(&t) == O_EXIT, "fido: KH_SK_MATERIAL with a byte after the id: "
	    "the keyholder ends (a broken policy)");
	m_begin(&t, MSG_KH_SK_MATERIAL, req_new(), 0);
	tb_u32(&t, 0);
	ok(run(&t) == O_EXIT, "fido: KH_SK_MATERIAL with half an id: the "
	    "keyholder ends");
	/* restarted with the base keys only */
	for (size_t i = 0; i < 2; i++)
		ok(added(do_add(sk[i]->id, &sk[i]->priv), &sk[i]->pub), "fido: "
		    "KH_ADD of %s again", sk[i]->name);
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
	ok(added(do_add(U[K_P384].id, &U[K_P384].priv), &U[K_P384].pub) &&
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
		if (!refused(do_sign(U[i].id, (uint8_t)tk_default_alg(U[i].k.kind),
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
			m_sign(&t, U[k].id, (uint8_t)tk_default_alg(U[k].k.kind), sl_data());
		}
		if (send_raw(t.w.p, t.w.len) != 0)
			break;
		tb_free(&t);
	}
	last = next_req;
	for (int got = 0; got < NB + NA + 1;) {
		int r = eng_recv(mono_ms() + REPLY_WAIT_MS, &n);
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
		if (eng_recv(mono_ms() + REPLY_WAIT_MS, &n) <= 0)
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

enum { NS = 8 };                /* RSA signatures piped in ahead */

/* NS signatures by big on connection cbig, then one by last on clast
 * (with alg), all sent while the keyholder is stopped, so that all
 * arrive at once however this test is scheduled: the place of the last
 * one's answer (answer_position). */
static int
piped_behind(const struct ukey *big, uint32_t cbig, const struct ukey *last,
    enum sig_alg alg, uint32_t clast)
{
	uint32_t first;
	struct tb t;

	kill(P[0].pid, SIGSTOP);
	first = next_req + 1;
	for (int i = 0; i <= NS; i++) {
		if (i < NS)
			m_sign(&t, big->id, SIG_RSA_SHA512, sl_data());
		else
			m_sign(&t, last->id, (uint8_t)alg, sl_data());
		put_be32(t.w.p + 5, i < NS ? cbig : clast);
		send_raw(t.w.p, t.w.len);
		tb_free(&t);
	}
	kill(P[0].pid, SIGCONT);
	return answer_position(first, next_req, next_req);
}

/* A hostile client cannot stall another: one connection's pipelined
 * signatures, or a big RSA key, do not hold up another's. The header's
 * conn field names the client connection (policy's id; any value, 0
 * included). The signatures piped in are by an RSA key just over KEYHOLDER_FAST_RSA_BITS, in the lane
 * with one worker. */
static void
t_fair(void)
{
	static struct ukey big;         /* the leak scan keeps pointers into it */
	struct tb t;
	int pos;

	cur_case = "connections in turn";
	kh_key(&big, KEY_RSA, KEYHOLDER_FAST_RSA_BITS + 64, "rsa-slow", 4242);
	if (!added(do_add(big.id, &big.priv), &big.pub)) {
		ok(0, "fair: an RSA-%d key is added", KEYHOLDER_FAST_RSA_BITS + 64);
		return;
	}
	pos = piped_behind(&big, 0, &big, SIG_RSA_SHA512, 9);
	ok(pos > 0 && pos <= 1 + KEYHOLDER_SLOW_WORKERS, "fair: after %d RSA-%d "
	    "signatures piped in on connection 0, connection 9's is answered "
	    "among the first %d (answer %d)", NS, KEYHOLDER_FAST_RSA_BITS + 64,
	    1 + KEYHOLDER_SLOW_WORKERS, pos);

	cur_case = "big RSA keys in their own lane";
	pos = piped_behind(&big, 7, &U[K_ED], SIG_ED25519, 7);
	ok(pos > 0 && pos <= 1 + KEYHOLDER_SLOW_WORKERS, "lane: after %d RSA-%d "
	    "signatures on connection 7, its Ed25519 one is answered among the "
	    "first %d (answer %d)", NS, KEYHOLDER_FAST_RSA_BITS + 64,
	    1 + KEYHOLDER_SLOW_WORKERS, pos);
	m_delete(&t, big.id);
	ok(is_status(run(&t), ST_OK), "fair: the big key is deleted");
}

/* ================================================================= main */

/* HOSTILE_POLICY_CASES: "fair" runs the fairness cases alone (t_fair,
 * which counts in which order the keyholder's workers answer, so its
 * file runs alone in make check), "others" every case but those (they
 * count no order or time: their file runs beside the others); unset or
 * anything else, every case. The end checks run in each. */
enum cases { CASES_ALL, CASES_FAIR, CASES_OTHERS };

static enum cases
cases_wanted(void)
{
	const char *e = getenv("HOSTILE_POLICY_CASES");

	if (e != NULL && strcmp(e, "fair") == 0)
		return CASES_FAIR;
	if (e != NULL && strcmp(e, "others") == 0)
		return CASES_OTHERS;
	return CASES_ALL;
}

int
main(int argc, char **argv)
{
	static const char *const progs[] = { "keyward-keyholder", NULL };
	enum cases cases = cases_wanted();

	eng_init(argc, argv, &ops, progs);
	kh_key(&U[K_ED], KEY_ED25519, 0, "ed25519", 1);
	kh_key(&U[K_P256], KEY_ECDSA_P256, 0, "nistp256", 2);
	kh_key(&U[K_P384], KEY_ECDSA_P384, 0, "nistp384", 3);
	kh_key(&U[K_P521], KEY_ECDSA_P521, 0, "nistp521", 0xffffffffffffffffULL);
	kh_key(&U[K_RSA], KEY_RSA, 2048, "rsa2048", 0);
	kh_key(&O_ED, KEY_ED25519, 0, "other-ed25519", 0);
	kh_key(&O_P256, KEY_ECDSA_P256, 0, "other-nistp256", 0);
	kh_key(&O_RSA, KEY_RSA, 1024, "other-rsa1024", 0);

	kh_key(&SK_ED, KEY_SK_ED25519, 0, "sk-ed25519", 301);
	kh_key(&SK_P256, KEY_SK_ECDSA_P256, 0, "sk-nistp256", 302);

	eng_start();
	if (cases != CASES_FAIR) {
		t_positive();
		t_algs();
		t_ids();
		t_mismatch();
		t_data();
		t_delete_wipe();
		t_lock();
		t_sk();
		t_pipeline();
	}
	if (cases != CASES_OTHERS)
		t_fair();
	if (cases != CASES_FAIR) {
		t_types();
		t_wire();
	}

	cur_case = "the end";
	ok(base_signs(), "end: every base key signs");
	ok(eng_reap_all() == 0, "end: closing policy's end: the keyholder exits "
	    "cleanly");
	eng_summary();
	ok(st.bad_exits == 0 && st.hangs == 0, "the keyholder never died by a "
	    "signal, a sanitizer or a hang (%lu bad exits, %lu hangs)",
	    st.bad_exits, st.hangs);
	ok(st.malformed == 0 && st.unasked == 0, "every reply was well-formed and "
	    "answered a request (%lu malformed, %lu unasked)", st.malformed,
	    st.unasked);
	return done_testing();
}
