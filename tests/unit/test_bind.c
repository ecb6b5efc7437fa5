/*
 * test_bind.c - session-bind@openssh.com, doc/protocol.md §7.2 steps 2-7 (bind_add;
 * the caller marks the connection attempted first) and the per-connection
 * state of doc/protocol.md §7.3, with real host keys signing real session ids.
 */
#include "policy/hop.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/tap.h"

/* Host keys as a server offers them in its first key exchange. */
enum {
	SCYLLA,                 /* Ed25519 */
	CHARYBDIS,              /* Ed25519 */
	P256, P384, P521, RSA2048,
	SCYLLA_CERT,            /* scylla's key, certified by the CA */
	BROKEN_CERT,            /* the same, CA signature broken */
	DSS,                    /* "ssh-dss": a type keyward refuses */
	GARBAGE,
	OFF_CURVE,              /* nistp256 point not on the curve */
	NHOSTS
};

static const char *const host_names[NHOSTS] = {
	"scylla", "charybdis", "nistp256", "nistp384", "nistp521", "rsa",
	"scylla-cert", "broken-cert", "ssh-dss", "garbage", "off-curve",
};

static struct testkey keys[RSA2048 + 1];    /* SCYLLA .. RSA2048 */
static struct testkey ca, stranger, rsa_stranger;
static struct wb blobs[NHOSTS];

/* The key that signs the session id for each host key. */
static const struct testkey *
signer(int host)
{
	switch (host) {
	case SCYLLA_CERT:
	case BROKEN_CERT:
	case DSS:
	case GARBAGE:
		return &keys[SCYLLA];
	case OFF_CURVE:
		return &keys[P256];
	default:
		return &keys[host];
	}
}

static void
make_blobs(void)
{
	static const enum key_kind kinds[] = {
		KEY_ED25519, KEY_ED25519, KEY_ECDSA_P256, KEY_ECDSA_P384,
		KEY_ECDSA_P521, KEY_RSA,
	};
	uint8_t q[65], m[128];

	for (int i = SCYLLA; i <= RSA2048; i++) {
		testkey_gen(&keys[i], kinds[i], 2048);
		wb_init(&blobs[i]);
		wb_bytes(&blobs[i], keys[i].blob.p, keys[i].blob.len);
	}
	testkey_gen(&ca, KEY_ED25519, 2048);
	testkey_gen(&stranger, KEY_ED25519, 2048);
	testkey_gen(&rsa_stranger, KEY_RSA, 2048);
	for (int i = SCYLLA_CERT; i <= BROKEN_CERT; i++) {
		struct certspec c = {
			.key = &keys[SCYLLA], .ca = &ca, .type = 2,
			.principals = (const char *const[]){ "scylla", NULL },
			.valid_after = 0, .valid_before = UINT64_MAX,
			.corrupt_signature = i == BROKEN_CERT,
		};
		wb_init(&blobs[i]);
		tk_cert_bytes(&c, &blobs[i]);
	}
	memset(m, 0x5a, sizeof(m));
	wb_init(&blobs[DSS]);
	wb_cstring(&blobs[DSS], "ssh-dss");
	for (int i = 0; i < 4; i++)
		wb_mpint(&blobs[DSS], m, i == 1 ? 20 : sizeof(m));
	wb_init(&blobs[GARBAGE]);
	wb_cstring(&blobs[GARBAGE], "not a key at all");
	/* structurally an uncompressed nistp256 point, but off the curve */
	memcpy(q, keys[P256].q.b, sizeof(q));
	q[64] ^= 0x01;
	wb_init(&blobs[OFF_CURVE]);
	wb_cstring(&blobs[OFF_CURVE], "ecdsa-sha2-nistp256");
	wb_cstring(&blobs[OFF_CURVE], "nistp256");
	wb_string(&blobs[OFF_CURVE], q, sizeof(q));
	for (int i = 0; i < NHOSTS; i++)
		tk_check(&blobs[i], host_names[i]);
}

/* How the signature over the session id is made. */
enum sigmode {
	GOOD,                   /* the host's key, its usual algorithm */
	RSA_SHA1, RSA_SHA256, RSA_SHA512,
	FLIPPED,                /* one bit of the signature flipped */
	OTHER_KEY,              /* a good signature by some other key */
	OTHER_RSA_KEY,          /* ... by an RSA2048 key, for a non-RSA2048 host */
	OTHER_SID,              /* the host's signature over another id */
	EMPTY_SIG,
};

#define AUTH 0
#define FWD 1

struct bindop {
	int host;
	size_t sidlen;
	uint8_t fill;           /* the session id: sidlen bytes of this */
	enum sigmode sig;
	int fwd;
};

static const char *
do_bind(struct bindings *C, const struct bindop *op)
{
	uint8_t sid[256], other[256];
	struct wb sig;
	const char *why;

	memset(sid, op->fill, op->sidlen);
	memset(other, op->fill ^ 0xff, op->sidlen);
	wb_init(&sig);
	switch (op->sig) {
	case GOOD:
		tk_sign(signer(op->host), SIG_NONE, sl(sid, op->sidlen), &sig);
		break;
	case RSA_SHA1:
		tk_sign(signer(op->host), SIG_RSA_SHA1, sl(sid, op->sidlen), &sig);
		break;
	case RSA_SHA256:
		tk_sign(signer(op->host), SIG_RSA_SHA256, sl(sid, op->sidlen), &sig);
		break;
	case RSA_SHA512:
		tk_sign(signer(op->host), SIG_RSA_SHA512, sl(sid, op->sidlen), &sig);
		break;
	case FLIPPED:
		tk_sign(signer(op->host), SIG_NONE, sl(sid, op->sidlen), &sig);
		sig.p[sig.len - 1] ^= 0x01;
		break;
	case OTHER_KEY:
		tk_sign(&stranger, SIG_NONE, sl(sid, op->sidlen), &sig);
		break;
	case OTHER_RSA_KEY:
		tk_sign(&rsa_stranger, SIG_NONE, sl(sid, op->sidlen), &sig);
		break;
	case OTHER_SID:
		tk_sign(signer(op->host), SIG_NONE, sl(other, op->sidlen), &sig);
		break;
	case EMPTY_SIG:
		break;
	}
	C->attempted = 1;               /* the caller's step 1 */
	why = bind_add(C, wb_slice_of(&blobs[op->host]), sl(sid, op->sidlen),
	    wb_slice_of(&sig), op->fwd);
	wb_free(&sig);
	return why;
}

#define OK 1
#define REFUSED 0

static const struct {
	const char *what;
	struct bindop before[2];
	size_t nbefore;
	struct bindop op;
	int want;
	size_t n_after;
} rows[] = {
	/* what                                         bindings before                  the session-bind                      result  n */
	{ "Ed25519 host key, authentication bind",      { { 0 } }, 0,                    { SCYLLA, 32, 1, GOOD, AUTH },        OK,      1 },
	{ "Ed25519 host key, forwarding bind",          { { 0 } }, 0,                    { SCYLLA, 32, 1, GOOD, FWD },         OK,      1 },
	{ "ECDSA nistp256 host key",                    { { 0 } }, 0,                    { P256, 32, 1, GOOD, AUTH },          OK,      1 },
	{ "ECDSA nistp384 host key, 48-byte id",        { { 0 } }, 0,                    { P384, 48, 1, GOOD, AUTH },          OK,      1 },
	{ "ECDSA nistp521 host key, 64-byte id",        { { 0 } }, 0,                    { P521, 64, 1, GOOD, AUTH },          OK,      1 },
	{ "RSA host key, rsa-sha2-512 signature",       { { 0 } }, 0,                    { RSA2048, 32, 1, RSA_SHA512, AUTH },     OK,      1 },
	{ "RSA host key, rsa-sha2-256 signature",       { { 0 } }, 0,                    { RSA2048, 32, 1, RSA_SHA256, AUTH },     OK,      1 },
	{ "RSA host key, ssh-rsa (SHA-1) signature",    { { 0 } }, 0,                    { RSA2048, 32, 1, RSA_SHA1, AUTH },       OK,      1 },
	{ "host certificate, signed by its CA",         { { 0 } }, 0,                    { SCYLLA_CERT, 32, 1, GOOD, AUTH },   OK,      1 },
	{ "host certificate, CA signature broken",      { { 0 } }, 0,                    { BROKEN_CERT, 32, 1, GOOD, AUTH },   REFUSED, 0 },
	{ "bad signature (one bit flipped)",            { { 0 } }, 0,                    { SCYLLA, 32, 1, FLIPPED, AUTH },     REFUSED, 0 },
	{ "bad RSA signature",                          { { 0 } }, 0,                    { RSA2048, 32, 1, FLIPPED, AUTH },        REFUSED, 0 },
	{ "bad ECDSA signature",                        { { 0 } }, 0,                    { P256, 32, 1, FLIPPED, AUTH },       REFUSED, 0 },
	{ "signature by another key",                   { { 0 } }, 0,                    { SCYLLA, 32, 1, OTHER_KEY, AUTH },   REFUSED, 0 },
	{ "RSA signature for an Ed25519 host key",      { { 0 } }, 0,                    { SCYLLA, 32, 1, OTHER_RSA_KEY, AUTH }, REFUSED, 0 },
	{ "signature over another session id",          { { 0 } }, 0,                    { SCYLLA, 32, 1, OTHER_SID, AUTH },   REFUSED, 0 },
	{ "empty signature",                            { { 0 } }, 0,                    { SCYLLA, 32, 1, EMPTY_SIG, AUTH },   REFUSED, 0 },
	{ "session id of 32 bytes",                     { { 0 } }, 0,                    { SCYLLA, 32, 1, GOOD, AUTH },        OK,      1 },
	{ "session id of 48 bytes",                     { { 0 } }, 0,                    { SCYLLA, 48, 1, GOOD, AUTH },        OK,      1 },
	{ "session id of 64 bytes",                     { { 0 } }, 0,                    { SCYLLA, 64, 1, GOOD, AUTH },        OK,      1 },
	{ "session id of 128 bytes",                    { { 0 } }, 0,                    { SCYLLA, 128, 1, GOOD, AUTH },       OK,      1 },
	{ "session id of 129 bytes",                    { { 0 } }, 0,                    { SCYLLA, 129, 1, GOOD, AUTH },       REFUSED, 0 },
	{ "host key of type ssh-dss",                   { { 0 } }, 0,                    { DSS, 32, 1, GOOD, AUTH },           REFUSED, 0 },
	{ "host key that is garbage",                   { { 0 } }, 0,                    { GARBAGE, 32, 1, GOOD, AUTH },       REFUSED, 0 },
	{ "host key point not on its curve",            { { 0 } }, 0,                    { OFF_CURVE, 32, 1, GOOD, AUTH },     REFUSED, 0 },
	{ "duplicate: same id, same key, forwarding",   { { SCYLLA, 32, 1, GOOD, FWD } }, 1, { SCYLLA, 32, 1, GOOD, FWD },      OK,      1 },
	{ "duplicate of a forwarding bind, flag 0",     { { SCYLLA, 32, 1, GOOD, FWD } }, 1, { SCYLLA, 32, 1, GOOD, AUTH },     OK,      1 },
	{ "duplicate certificate bind",                 { { SCYLLA_CERT, 32, 1, GOOD, FWD } }, 1, { SCYLLA_CERT, 32, 1, GOOD, FWD }, OK, 1 },
	{ "same id, different host key",                { { SCYLLA, 32, 1, GOOD, FWD } }, 1, { CHARYBDIS, 32, 1, GOOD, AUTH },  REFUSED, 1 },
	{ "same id, the plain key of a bound certificate", { { SCYLLA_CERT, 32, 1, GOOD, FWD } }, 1, { SCYLLA, 32, 1, GOOD, AUTH }, REFUSED, 1 },
	{ "same host key, different id (two connections)", { { SCYLLA, 32, 1, GOOD, FWD } }, 1, { SCYLLA, 32, 2, GOOD, AUTH },   OK,      2 },
	{ "same id prefix, different length",           { { SCYLLA, 32, 1, GOOD, FWD } }, 1, { CHARYBDIS, 48, 1, GOOD, AUTH },  OK,      2 },
	{ "forwarding, then authentication",            { { SCYLLA, 32, 1, GOOD, FWD } }, 1, { CHARYBDIS, 32, 2, GOOD, AUTH },  OK,      2 },
	{ "bind after an authentication binding",       { { SCYLLA, 32, 1, GOOD, AUTH } }, 1, { CHARYBDIS, 32, 2, GOOD, FWD },  REFUSED, 1 },
	{ "duplicate of an authentication binding",     { { SCYLLA, 32, 1, GOOD, AUTH } }, 1, { SCYLLA, 32, 1, GOOD, AUTH },    REFUSED, 1 },
	{ "failed bind after good ones keeps them",     { { SCYLLA, 32, 1, GOOD, FWD }, { CHARYBDIS, 32, 2, GOOD, FWD } }, 2,
	                                                                                 { P256, 32, 3, FLIPPED, AUTH },       REFUSED, 2 },
	{ "broken certificate after a forwarding bind", { { SCYLLA, 32, 1, GOOD, FWD } }, 1, { BROKEN_CERT, 32, 2, GOOD, AUTH }, REFUSED, 1 },
};

static void
test_rows(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct bindop *op = &rows[i].op;
		struct bindings C;
		const char *why;
		int setup = 1;

		memset(&C, 0, sizeof(C));
		for (size_t j = 0; j < rows[i].nbefore; j++)
			if (do_bind(&C, &rows[i].before[j]) != NULL)
				setup = 0;
		if (!setup)
			ok(0, "doc/protocol.md §7.2 %s: bindings before could not be made", rows[i].what);
		why = do_bind(&C, op);
		is_int(why == NULL, rows[i].want, "doc/protocol.md §7.2 %s: %s", rows[i].what,
		    rows[i].want ? "SUCCESS" : "refused");
		if ((why == NULL) != rows[i].want)
			printf("#   bind_add said: %s\n", why ? why : "(success)");
		is_int(C.n, rows[i].n_after, "doc/protocol.md §7.2 %s: %zu binding(s) after",
		    rows[i].what, rows[i].n_after);
		if (why == NULL && C.n == rows[i].nbefore + 1) {
			const struct binding *b = &C.b[C.n - 1];
			uint8_t sid[256];
			memset(sid, op->fill, op->sidlen);
			ok(b->keylen == blobs[op->host].len &&
			    memcmp(b->key, blobs[op->host].p, b->keylen) == 0,
			    "doc/protocol.md §7.2 %s: records the host key as sent", rows[i].what);
			ok(b->sidlen == op->sidlen && memcmp(b->sid, sid, op->sidlen) == 0,
			    "doc/protocol.md §7.2 %s: records the session id", rows[i].what);
			is_int(b->forwarding != 0, op->fwd, "doc/protocol.md §7.2 %s: records is_forwarding %d",
			    rows[i].what, op->fwd);
		}
		ok(C.attempted, "doc/protocol.md §7.2 %s: the connection stays bind-attempted",
		    rows[i].what);
		bindings_free(&C);
	}
}

/* doc/protocol.md §6.8: 16 bindings per connection; the 17th fails, leaving 16. */
static void
test_limit(void)
{
	struct bindings C;
	int all = 1;

	memset(&C, 0, sizeof(C));
	for (int i = 0; i < AGENT_MAX_BINDINGS; i++) {
		struct bindop op = { i % 2 ? SCYLLA : CHARYBDIS, 32, (uint8_t)(0x40 + i),
		    GOOD, FWD };
		if (do_bind(&C, &op) != NULL)
			all = 0;
	}
	ok(all, "doc/protocol.md §7.2 16 forwarding binds: all SUCCESS");
	is_int(C.n, 16, "doc/protocol.md §7.2 16 forwarding binds: 16 bindings");
	struct bindop op17 = { P256, 32, 0x99, GOOD, AUTH };
	ok(do_bind(&C, &op17) != NULL, "doc/protocol.md §7.2 the 17th bind: refused");
	is_int(C.n, 16, "doc/protocol.md §7.2 the 17th bind: 16 bindings left");
	struct bindop dup = { CHARYBDIS, 32, 0x40, GOOD, FWD };
	ok(do_bind(&C, &dup) == NULL,
	    "doc/protocol.md §7.2 a duplicate of the first after 16: SUCCESS (step 5 before 6)");
	is_int(C.n, 16, "doc/protocol.md §7.2 a duplicate of the first after 16: nothing added");
	bindings_free(&C);
	is_int(C.n, 0, "bindings_free: no binding left");
}

int
main(void)
{
	make_blobs();
	test_rows();
	test_limit();
	for (int i = 0; i < NHOSTS; i++)
		wb_free(&blobs[i]);
	for (int i = SCYLLA; i <= RSA2048; i++)
		testkey_free(&keys[i]);
	testkey_free(&ca);
	testkey_free(&stranger);
	testkey_free(&rsa_stranger);
	return done_testing();
}
