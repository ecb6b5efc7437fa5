/*
 * test_userauth.c - the data a constrained key may sign: userauth_parse
 * field by field (doc/protocol.md §8.7), then the checks of a sign request in their
 * order (doc/protocol.md §8.6 step 3) through sign_permitted, on connections bound with
 * real session-binds, for the identity of the worked example (doc/protocol.md §8.11); and
 * the purpose a sign request's data is given once (policy/purpose.c).
 */
#include "policy/hop.h"
#include "policy/purpose.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/tap.h"

#include <openssl/evp.h>

#define NOW ((time_t)1800000000)
#define HB "publickey-hostbound-v00@openssh.com"

/* ------------------------------------------------------------------ keys */

enum { SCYLLA, CHARYBDIS, NHOSTS };
static const char *const host_names[NHOSTS] = { "scylla", "charybdis" };
static struct testkey hosts[NHOSTS];

/* Identities in the agent, and the keys a request may name. */
enum {
	SAME = 0,               /* the data names the requested key */
	ID_ED25519, ID_RSA, ID_ECDSA, ID_CERT, ID_OTHER,
	K_RSA_LEADING_ZERO,     /* ID_RSA with e written as 00 01 00 01 */
	K_GARBAGE,
	NIDS
};
static struct testkey ed, rsa, ecdsa, other, ca;
static struct wb blob[NIDS];

static void
make_keys(void)
{
	struct certspec c;

	for (int i = 0; i < NHOSTS; i++)
		testkey_gen(&hosts[i], KEY_ED25519, 2048);
	testkey_gen(&ed, KEY_ED25519, 2048);
	testkey_gen(&rsa, KEY_RSA, 2048);
	testkey_gen(&ecdsa, KEY_ECDSA_P256, 2048);
	testkey_gen(&other, KEY_ED25519, 2048);
	testkey_gen(&ca, KEY_ED25519, 2048);
	for (int i = 0; i < NIDS; i++)
		wb_init(&blob[i]);
	wb_bytes(&blob[ID_ED25519], ed.blob.p, ed.blob.len);
	wb_bytes(&blob[ID_RSA], rsa.blob.p, rsa.blob.len);
	wb_bytes(&blob[ID_ECDSA], ecdsa.blob.p, ecdsa.blob.len);
	wb_bytes(&blob[ID_OTHER], other.blob.p, other.blob.len);
	/* perseus' user certificate, loaded into the agent with its key */
	c = (struct certspec){ .key = &ed, .ca = &ca, .type = 1,
	    .principals = (const char *const[]){ "perseus", NULL },
	    .valid_after = 0, .valid_before = UINT64_MAX };
	tk_cert_bytes(&c, &blob[ID_CERT]);
	/* The same RSA key with a redundant leading zero in e: doc/protocol.md §2 accepts
	 * it and doc/protocol.md §4.5 makes it the same key. */
	{
		struct rd r;
		struct slice name, e, n;
		rd_init(&r, rsa.blob.p, rsa.blob.len);
		if (rd_string(&r, &name) != 0 || rd_string(&r, &e) != 0 ||
		    rd_string(&r, &n) != 0)
			tk_die("RSA blob");
		wb_slice(&blob[K_RSA_LEADING_ZERO], name);
		wb_u32(&blob[K_RSA_LEADING_ZERO], (uint32_t)e.len + 1);
		wb_u8(&blob[K_RSA_LEADING_ZERO], 0);
		wb_bytes(&blob[K_RSA_LEADING_ZERO], e.p, e.len);
		wb_slice(&blob[K_RSA_LEADING_ZERO], n);
	}
	wb_cstring(&blob[K_GARBAGE], "ssh-ed25519");
	wb_cstring(&blob[K_GARBAGE], "short");
	for (int i = 1; i < NIDS; i++)
		tk_check(&blob[i], "identity blob");
}

/* ----------------------------------------------------- the request to sign */

enum sidmode { SID_LAST = 0, SID_EMPTY, SID_OTHER_BYTES, SID_SHORTER, SID_LONGER,
    SID_FIRST };
enum hkmode { HK_NONE = 0, HK_LAST, HK_FIRST, HK_GARBAGE };

#define HAS_SIG(v) .has_sig = (v) + 1       /* 0 in a row: 1 on the wire */
#define LONG_A_THEN_B "(319 x 'a', then 'b')"
#define LONG_A "(400 x 'a')"

/* Zero fields are a well-formed publickey request from medea. */
struct req {
	int key;                        /* the key the data names; SAME */
	enum sidmode sid;
	int msg;                        /* 0: 50 */
	const char *user;               /* NULL: "medea" */
	size_t user_len;                /* for users with a NUL byte in them */
	const char *service;            /* NULL: "ssh-connection" */
	const char *method;             /* NULL: "publickey" */
	int has_sig;                    /* HAS_SIG(v); 0: 1 */
	const char *pkalg;              /* NULL: the key's own type name */
	enum hkmode hostkey;
	const char *trail;              /* bytes after everything */
};

static void
key_type_name(struct slice b, char *out, size_t n)
{
	struct rd r;
	struct slice name;

	rd_init(&r, b.p, b.len);
	if (rd_string(&r, &name) != 0)
		tk_die("key blob");
	snprintf(out, n, "%.*s", (int)name.len, (const char *)name.p);
}

/* The data for a request q, made for identity id on connection C. */
static void
req_write(struct wb *w, const struct req *q, int id, const struct bindings *C)
{
	uint8_t sid[200], user[420];
	const struct binding *last = C->n ? &C->b[C->n - 1] : NULL;
	const struct binding *first = C->n ? &C->b[0] : NULL;
	struct slice keyb = wb_slice_of(&blob[q->key == SAME ? id : q->key]);
	char pkalg[64];
	struct tua u = {
		.msg = (uint8_t)(q->msg ? q->msg : 50),
		.user = q->user ? q->user : "medea",
		.service = q->service ? q->service : "ssh-connection",
		.method = q->method ? q->method : "publickey",
		.has_sig = (uint8_t)(q->has_sig ? q->has_sig - 1 : 1),
		.key = keyb,
	};

	key_type_name(keyb, pkalg, sizeof(pkalg));
	u.pkalg = q->pkalg ? q->pkalg : pkalg;
	if (q->user_len)
		u.user_raw = sl(q->user, q->user_len);
	if (q->user != NULL && (strcmp(q->user, LONG_A_THEN_B) == 0 ||
	    strcmp(q->user, LONG_A) == 0)) {
		size_t n = strcmp(q->user, LONG_A) == 0 ? 400 : 320;
		memset(user, 'a', n);
		if (n == 320)
			user[319] = 'b';
		u.user_raw = sl(user, n);
	}
	memset(sid, 0x77, sizeof(sid));
	switch (q->sid) {
	case SID_LAST:
		u.sid = last ? sl(last->sid, last->sidlen) : sl(sid, 32);
		break;
	case SID_EMPTY:
		u.sid = sl(sid, 0);
		break;
	case SID_OTHER_BYTES:
		memcpy(sid, last->sid, last->sidlen);
		sid[last->sidlen - 1] ^= 0x01;
		u.sid = sl(sid, last->sidlen);
		break;
	case SID_SHORTER:
		u.sid = sl(last->sid, last->sidlen - 1);
		break;
	case SID_LONGER:
		memcpy(sid, last->sid, last->sidlen);
		u.sid = sl(sid, last->sidlen + 1);
		break;
	case SID_FIRST:
		u.sid = sl(first->sid, first->sidlen);
		break;
	}
	switch (q->hostkey) {
	case HK_NONE:
		break;
	case HK_LAST:
		u.hostkey = sl(last->key, last->keylen);
		break;
	case HK_FIRST:
		u.hostkey = sl(first->key, first->keylen);
		break;
	case HK_GARBAGE:
		u.hostkey = wb_slice_of(&blob[K_GARBAGE]);
		break;
	}
	if (q->trail != NULL)
		u.trail = sl_str(q->trail);
	tua_write(w, &u);
}

/* ------------------------------------------------- doc/protocol.md §8.7 userauth_parse */

#define OK 1
#define REFUSED 0

static const struct {
	const char *what;
	int id;                         /* the requested identity */
	struct req q;
	int want;
} parse_rows[] = {
	/* what                                         identity     the request                                         result */
	{ "publickey request for the key",              ID_ED25519,  { 0 },                                              OK },
	{ "hostbound request for the key",              ID_ED25519,  { .method = HB, .hostkey = HK_LAST },               OK },
	{ "empty session id",                           ID_ED25519,  { .sid = SID_EMPTY },                               REFUSED },
	{ "message 51, not USERAUTH_REQUEST (50)",      ID_ED25519,  { .msg = 51 },                                      REFUSED },
	{ "empty user name",                            ID_ED25519,  { .user = "" },                                     OK },
	{ "user \"medea\" with a trailing NUL",         ID_ED25519,  { .user = "medea", .user_len = 6 },                 OK },
	{ "user with a NUL inside",                     ID_ED25519,  { .user = "me\0dea", .user_len = 6 },               REFUSED },
	{ "service ssh-userauth",                       ID_ED25519,  { .service = "ssh-userauth" },                      REFUSED },
	{ "service empty",                              ID_ED25519,  { .service = "" },                                  REFUSED },
	{ "method password",                            ID_ED25519,  { .method = "password" },                           REFUSED },
	{ "method hostbased",                           ID_ED25519,  { .method = "hostbased" },                          REFUSED },
	{ "method publickey-hostbound-v01@openssh.com", ID_ED25519,  { .method = "publickey-hostbound-v01@openssh.com",
	                                                               .hostkey = HK_LAST },                             REFUSED },
	{ "has_signature 0",                            ID_ED25519,  { HAS_SIG(0) },                                     REFUSED },
	{ "has_signature 2",                            ID_ED25519,  { HAS_SIG(2) },                                     REFUSED },
	{ "has_signature 255",                          ID_ED25519,  { HAS_SIG(255) },                                   REFUSED },
	{ "pkalg ssh-rsa for an Ed25519 key",           ID_ED25519,  { .pkalg = "ssh-rsa" },                             REFUSED },
	{ "pkalg of the certificate for a plain key",   ID_ED25519,  { .pkalg = "ssh-ed25519-cert-v01@openssh.com" },    REFUSED },
	{ "pkalg unknown",                              ID_ED25519,  { .pkalg = "ssh-ed448" },                           REFUSED },
	{ "pkalg ssh-rsa for an RSA key",               ID_RSA,      { .pkalg = "ssh-rsa" },                             OK },
	{ "pkalg rsa-sha2-256 counts as ssh-rsa",       ID_RSA,      { .pkalg = "rsa-sha2-256" },                        OK },
	{ "pkalg rsa-sha2-512 counts as ssh-rsa",       ID_RSA,      { .pkalg = "rsa-sha2-512" },                        OK },
	{ "pkalg rsa-sha2-256-cert-v01 for a plain RSA key", ID_RSA, { .pkalg = "rsa-sha2-256-cert-v01@openssh.com" },   REFUSED },
	{ "pkalg ssh-ed25519 for an RSA key",           ID_RSA,      { .pkalg = "ssh-ed25519" },                         REFUSED },
	{ "RSA key with a redundant leading zero",      ID_RSA,      { .key = K_RSA_LEADING_ZERO },                      OK },
	{ "pkalg ecdsa-sha2-nistp256 for a P-256 key",  ID_ECDSA,    { .pkalg = "ecdsa-sha2-nistp256" },                 OK },
	{ "pkalg ecdsa-sha2-nistp384: curve not compared", ID_ECDSA, { .pkalg = "ecdsa-sha2-nistp384" },                 OK },
	{ "pkalg ssh-ed25519 for a P-256 key",          ID_ECDSA,    { .pkalg = "ssh-ed25519" },                         REFUSED },
	{ "certificate identity, data names it",        ID_CERT,     { 0 },                                              OK },
	{ "certificate identity, pkalg ssh-ed25519",    ID_CERT,     { .pkalg = "ssh-ed25519" },                         REFUSED },
	{ "certificate identity, data names the plain key", ID_CERT, { .key = ID_ED25519 },                              REFUSED },
	{ "plain identity, data names its certificate (CertificateFile)",
	                                                ID_ED25519,  { .key = ID_CERT },                                 REFUSED },
	{ "the data names another key",                 ID_ED25519,  { .key = ID_OTHER },                                REFUSED },
	{ "the data's key does not decode",             ID_ED25519,  { .key = K_GARBAGE },                               REFUSED },
	{ "hostbound without a host key",               ID_ED25519,  { .method = HB },                                   REFUSED },
	{ "hostbound, host key does not decode",        ID_ED25519,  { .method = HB, .hostkey = HK_GARBAGE },            REFUSED },
	{ "publickey followed by a host key",           ID_ED25519,  { .hostkey = HK_LAST },                             REFUSED },
	{ "publickey, trailing byte",                   ID_ED25519,  { .trail = "x" },                                   REFUSED },
	{ "hostbound, trailing byte",                   ID_ED25519,  { .method = HB, .hostkey = HK_LAST, .trail = "x" }, REFUSED },
};

static void
chain_build(struct bindings *C, const char *spec);

static void
test_parse(void)
{
	struct bindings C;

	chain_build(&C, "scylla fwd, charybdis auth");
	for (size_t i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		const struct req *q = &parse_rows[i].q;
		struct userauth ua;
		struct wb data;
		int got;

		wb_init(&data);
		req_write(&data, q, parse_rows[i].id, &C);
		got = userauth_parse(wb_slice_of(&data),
		    wb_slice_of(&blob[parse_rows[i].id]), &ua) == 0;
		is_int(got, parse_rows[i].want, "doc/protocol.md §8.7 %s: %s", parse_rows[i].what,
		    parse_rows[i].want ? "a userauth request" : "not userauth");
		if (got && parse_rows[i].want) {
			const struct binding *last = &C.b[C.n - 1];
			const char *user = q->user ? q->user : "medea";
			ok(slice_eq(ua.session_id, sl(last->sid, last->sidlen)) &&
			    slice_eq_str(ua.user, user) &&
			    ua.hostbound == (q->method != NULL) &&
			    (!ua.hostbound ||
			    slice_eq(ua.hostkey, sl(last->key, last->keylen))),
			    "doc/protocol.md §8.7 %s: session id, user \"%s\", hostbound %d%s",
			    parse_rows[i].what, user, q->method != NULL,
			    q->method ? " and host key" : "");
		}
		wb_free(&data);
	}
	bindings_free(&C);
}

/* ---------------------------------------- doc/protocol.md §8.6 sign requests, in order */

static int
host_index(const char *name, size_t len)
{
	for (int i = 0; i < NHOSTS; i++)
		if (strlen(host_names[i]) == len && memcmp(host_names[i], name, len) == 0)
			return i;
	tk_die("unknown host in a test row");
	return -1;
}

/* "scylla fwd, charybdis auth", each a real session-bind. */
static void
chain_build(struct bindings *C, const char *spec)
{
	const char *p = spec;

	memset(C, 0, sizeof(*C));
	while (*p != '\0') {
		const char *sp = strchr(p, ' ');
		int h = host_index(p, (size_t)(sp - p));
		int fwd = strncmp(sp + 1, "fwd", 3) == 0;
		uint8_t sid[32];
		struct wb sig;
		const char *why;

		memset(sid, (int)(0x10 * (C->n + 1) + (unsigned)h), sizeof(sid));
		wb_init(&sig);
		tk_sign(&hosts[h], SIG_NONE, sl(sid, sizeof(sid)), &sig);
		C->attempted = 1;
		if ((why = bind_add(C, testkey_blob(&hosts[h]), sl(sid, sizeof(sid)),
		    wb_slice_of(&sig), fwd)) != NULL)
			ok(0, "setting up [%s]: %s", spec, why);
		wb_free(&sig);
		p = sp + 1 + (fwd ? 3 : 4);
		while (*p == ',' || *p == ' ')
			p++;
	}
}

#define TWO_HOPS "scylla fwd, charybdis auth"
#define ONE_HOP "scylla auth"
#define WORKED 0                /* perseus@scylla, scylla>medea@charybdis */
#define ENDS_IN_A 1             /* *a@scylla */

static const struct {
	const char *what;
	int ident;
	int id;
	const char *bindings;
	struct req q;
	const char *why;                /* NULL: it signs; else part of the rule */
} sign_rows[] = {
	/* what                                       identity  key         bindings  the request                                     refused for */
	{ "medea@charybdis via scylla, hostbound",    WORKED, ID_ED25519, TWO_HOPS, { .method = HB, .hostkey = HK_LAST },               NULL },
	{ "perseus@scylla, plain publickey on the first hop",
	                                              WORKED, ID_ED25519, ONE_HOP,  { .user = "perseus" },                              NULL },
	{ "perseus@scylla, hostbound",                WORKED, ID_ED25519, ONE_HOP,  { .user = "perseus", .method = HB, .hostkey = HK_LAST }, NULL },
	{ "3.1 a constrained key on an unbound connection",
	                                              WORKED, ID_ED25519, "",       { .user = "perseus" },                              "not bound" },
	{ "3.2 the request names another key",        WORKED, ID_ED25519, TWO_HOPS, { .key = ID_OTHER, .method = HB, .hostkey = HK_LAST }, "not an SSH authentication request" },
	{ "3.2 has_signature 2",                      WORKED, ID_ED25519, TWO_HOPS, { HAS_SIG(2), .method = HB, .hostkey = HK_LAST },    "not an SSH authentication request" },
	{ "3.2 service other than ssh-connection",    WORKED, ID_ED25519, TWO_HOPS, { .service = "ssh-userauth", .method = HB, .hostkey = HK_LAST }, "not an SSH authentication request" },
	{ "3.2 trailing byte",                        WORKED, ID_ED25519, TWO_HOPS, { .method = HB, .hostkey = HK_LAST, .trail = "\x01" }, "not an SSH authentication request" },
	{ "3.2 empty session id",                     WORKED, ID_ED25519, TWO_HOPS, { .sid = SID_EMPTY, .method = HB, .hostkey = HK_LAST }, "not an SSH authentication request" },
	{ "3.3 perseus@charybdis: user",              WORKED, ID_ED25519, TWO_HOPS, { .user = "perseus", .method = HB, .hostkey = HK_LAST }, "user" },
	{ "3.4 session id: same length, other bytes", WORKED, ID_ED25519, TWO_HOPS, { .sid = SID_OTHER_BYTES, .method = HB, .hostkey = HK_LAST }, "session id" },
	{ "3.4 session id: one byte shorter",         WORKED, ID_ED25519, TWO_HOPS, { .sid = SID_SHORTER, .method = HB, .hostkey = HK_LAST }, "session id" },
	{ "3.4 session id: one byte longer",          WORKED, ID_ED25519, TWO_HOPS, { .sid = SID_LONGER, .method = HB, .hostkey = HK_LAST }, "session id" },
	{ "3.4 session id of the first binding, not the last",
	                                              WORKED, ID_ED25519, TWO_HOPS, { .sid = SID_FIRST, .method = HB, .hostkey = HK_LAST }, "session id" },
	{ "3.5 plain publickey after a forwarding hop", WORKED, ID_ED25519, TWO_HOPS, { 0 },                                             "hostbound" },
	{ "3.6 host key is scylla's, last binding charybdis'",
	                                              WORKED, ID_ED25519, TWO_HOPS, { .method = HB, .hostkey = HK_FIRST },              "host key" },
	{ "3.6 host key does not decode",             WORKED, ID_ED25519, TWO_HOPS, { .method = HB, .hostkey = HK_GARBAGE },            "not an SSH authentication request" },
	{ "RSA identity, pkalg rsa-sha2-256",         WORKED, ID_RSA,     TWO_HOPS, { .pkalg = "rsa-sha2-256", .method = HB, .hostkey = HK_LAST }, NULL },
	{ "RSA identity, pkalg rsa-sha2-512",         WORKED, ID_RSA,     TWO_HOPS, { .pkalg = "rsa-sha2-512", .method = HB, .hostkey = HK_LAST }, NULL },
	{ "certificate identity, data names it",      WORKED, ID_CERT,    TWO_HOPS, { .method = HB, .hostkey = HK_LAST },               NULL },
	{ "plain identity, certificate in the data (doc/protocol.md §8.7 CertificateFile)",
	                                              WORKED, ID_ED25519, TWO_HOPS, { .key = ID_CERT, .method = HB, .hostkey = HK_LAST }, "not an SSH authentication request" },
	{ "user of 400 bytes matching *a",            ENDS_IN_A, ID_ED25519, ONE_HOP, { .user = LONG_A },                              NULL },
	{ "user of 320 bytes ending in b, against *a: checked whole",
	                                              ENDS_IN_A, ID_ED25519, ONE_HOP, { .user = LONG_A_THEN_B },                       "user" },
};

static void
ident_build(struct dest_set *d, int which)
{
	struct tspec sk = { testkey_blob(&hosts[SCYLLA]), 0 };
	struct tspec ck = { testkey_blob(&hosts[CHARYBDIS]), 0 };
	struct thop origin = { NULL, NULL, { NULL, 0 }, NULL, 0 };
	struct thop from_scylla = { NULL, "scylla", { NULL, 0 }, &sk, 1 };
	struct thop perseus_scylla = { "perseus", "scylla", { NULL, 0 }, &sk, 1 };
	struct thop a_scylla = { "*a", "scylla", { NULL, 0 }, &sk, 1 };
	struct thop medea_charybdis = { "medea", "charybdis", { NULL, 0 }, &ck, 1 };
	const char *why = NULL;
	struct wb w;

	wb_init(&w);
	if (which == WORKED) {
		tconstraint_write(&w, &origin, &perseus_scylla, sl(NULL, 0), sl(NULL, 0));
		tconstraint_write(&w, &from_scylla, &medea_charybdis, sl(NULL, 0),
		    sl(NULL, 0));
	} else {
		tconstraint_write(&w, &origin, &a_scylla, sl(NULL, 0), sl(NULL, 0));
	}
	tk_check(&w, "constraint list");
	if (dest_set_build(d, wb_slice_of(&w), &why) != 0)
		tk_die(why ? why : "dest_set_build");
	wb_free(&w);
}

static void
test_sign(void)
{
	struct dest_set I[2];

	ident_build(&I[WORKED], WORKED);
	ident_build(&I[ENDS_IN_A], ENDS_IN_A);
	for (size_t i = 0; i < sizeof(sign_rows) / sizeof(sign_rows[0]); i++) {
		struct bindings C;
		struct wb data;
		struct purpose pu;
		char user[AGENT_MAX_USER_PATTERN + 64];   /* as policy/sign.c */
		const char *rule;
		size_t hop;

		chain_build(&C, sign_rows[i].bindings);
		wb_init(&data);
		req_write(&data, &sign_rows[i].q, sign_rows[i].id, &C);
		purpose_decide(&pu, wb_slice_of(&data),
		    wb_slice_of(&blob[sign_rows[i].id]));
		rule = sign_permitted(&I[sign_rows[i].ident], &C, &pu, NOW, &hop,
		    user, sizeof(user));
		purpose_free(&pu);
		if (sign_rows[i].why == NULL) {
			ok(rule == NULL, "doc/protocol.md §8.6 %s [%s]: signs", sign_rows[i].what,
			    sign_rows[i].bindings);
		} else {
			ok(rule != NULL && strstr(rule, sign_rows[i].why) != NULL,
			    "doc/protocol.md §8.6 %s [%s]: refused (\"...%s...\")", sign_rows[i].what,
			    sign_rows[i].bindings, sign_rows[i].why);
		}
		if ((rule == NULL) != (sign_rows[i].why == NULL) ||
		    (rule != NULL && strstr(rule, sign_rows[i].why) == NULL))
			printf("#   rule: %s\n", rule ? rule : "(none: it would sign)");
		wb_free(&data);
		bindings_free(&C);
	}
	dest_set_free(&I[WORKED]);
	dest_set_free(&I[ENDS_IN_A]);
}

/* ---------------------------------------------------------------- SSHSIG */

/* An SSHSIG blob as ssh-keygen -Y sign sends it to the agent: the magic
 * (6 bytes, no length), then four strings; PROTOCOL.sshsig. */
enum sshsig_shape { SS_GOOD, SS_NUL_END, SS_NO_MAGIC, SS_SHORT_MAGIC, SS_EMPTY_NS,
	SS_NUL_IN_NS, SS_TRUNCATED, SS_TRAILING, SS_MISSING_HASH };

static const struct {
	const char *name;
	enum sshsig_shape shape;
	const char *ns;
	int want;               /* 0 parses, -1 refused */
} sshsig_rows[] = {
	{ "git namespace, as git commit -S sends it", SS_GOOD, "git", 0 },
	{ "file namespace, as ssh-keygen -Y sign -n file", SS_GOOD, "file", 0 },
	{ "a namespace with a trailing NUL is text (doc/protocol.md §2)", SS_NUL_END, "x@example.com", 0 },
	{ "no SSHSIG magic: other data", SS_NO_MAGIC, "git", -1 },
	{ "magic cut short", SS_SHORT_MAGIC, "git", -1 },
	{ "empty namespace: not SSHSIG", SS_EMPTY_NS, "", -1 },
	{ "NUL inside the namespace", SS_NUL_IN_NS, "g\0t", -1 },
	{ "hash string cut short", SS_TRUNCATED, "git", -1 },
	{ "bytes after the hash", SS_TRAILING, "git", -1 },
	{ "no hash string at all", SS_MISSING_HASH, "git", -1 },
};

static void
test_sshsig(void)
{
	for (size_t i = 0; i < sizeof(sshsig_rows) / sizeof(sshsig_rows[0]); i++) {
		const char *ns = sshsig_rows[i].ns;
		enum sshsig_shape sh = sshsig_rows[i].shape;
		uint8_t hash[64] = { 1, 2, 3 };
		struct slice got = { NULL, 0 };
		struct wb w;
		int r;

		wb_init(&w);
		wb_bytes(&w, sh == SS_NO_MAGIC ? "SSHSIH" : "SSHSIG",
		    sh == SS_SHORT_MAGIC ? 4 : 6);
		if (sh != SS_SHORT_MAGIC) {
			wb_string(&w, ns, sh == SS_NUL_IN_NS ? 3 :
			    strlen(ns) + (sh == SS_NUL_END));
			wb_string(&w, "", 0);
			wb_cstring(&w, "sha512");
			if (sh != SS_MISSING_HASH)
				wb_string(&w, hash, sizeof(hash));
			if (sh == SS_TRUNCATED)
				w.len -= 5;
			if (sh == SS_TRAILING)
				wb_u8(&w, 0);
		}
		r = sshsig_parse(wb_slice_of(&w), &got);
		is_int(r, sshsig_rows[i].want, "sshsig: %s", sshsig_rows[i].name);
		if (r == 0)
			ok(got.len == strlen(ns) && memcmp(got.p, ns, got.len) == 0,
			    "sshsig: %s: the namespace is \"%s\"", sshsig_rows[i].name, ns);
		wb_free(&w);
	}
}

/* ------------------------------------------- the purpose, decided once */

enum pshape { P_LOGIN, P_HOSTBOUND, P_HOSTBOUND_RSA0, P_OTHER_KEY, P_SSHSIG,
    P_BYTES };

static const struct {
	const char *what;
	enum pshape shape;
	enum purpose_kind want;
} purpose_rows[] = {
	{ "publickey login with the key", P_LOGIN, PURPOSE_LOGIN },
	{ "hostbound login with the key", P_HOSTBOUND, PURPOSE_LOGIN },
	{ "hostbound login, RSA host key with e 00 01 00 01", P_HOSTBOUND_RSA0,
	  PURPOSE_LOGIN },
	{ "login naming another key", P_OTHER_KEY, PURPOSE_OTHER },
	{ "SSHSIG blob, namespace git", P_SSHSIG, PURPOSE_SSHSIG },
	{ "other bytes", P_BYTES, PURPOSE_OTHER },
};

static void
test_purpose(void)
{
	struct bindings C;
	uint8_t md[PURPOSE_SHA256_LEN], want_md[32];
	unsigned int mdn = 0;

	chain_build(&C, ONE_HOP);
	for (size_t i = 0; i < sizeof(purpose_rows) / sizeof(purpose_rows[0]); i++) {
		enum pshape sh = purpose_rows[i].shape;
		const char *what = purpose_rows[i].what;
		struct slice hk = { NULL, 0 };
		struct purpose pu;
		struct wb data;
		struct tua u = { sl(C.b[0].sid, C.b[0].sidlen), 50, "perseus",
		    { NULL, 0 }, "ssh-connection", sh == P_LOGIN ? "publickey" : HB,
		    1, "ssh-ed25519", wb_slice_of(&blob[ID_ED25519]), { NULL, 0 },
		    { NULL, 0 } };

		wb_init(&data);
		if (sh == P_HOSTBOUND)
			hk = testkey_blob(&hosts[SCYLLA]);
		else if (sh == P_HOSTBOUND_RSA0)
			hk = wb_slice_of(&blob[K_RSA_LEADING_ZERO]);
		else if (sh == P_OTHER_KEY) {
			hk = testkey_blob(&hosts[SCYLLA]);
			u.key = wb_slice_of(&blob[ID_OTHER]);
		}
		u.hostkey = hk;
		if (sh == P_SSHSIG)
			tsshsig_write(&data, "git");
		else if (sh == P_BYTES)
			wb_bytes(&data, "\0\0\0\4abcd", 8);
		else
			tua_write(&data, &u);
		purpose_decide(&pu, wb_slice_of(&data), wb_slice_of(&blob[ID_ED25519]));
		is_int(pu.kind, purpose_rows[i].want, "purpose: %s", what);
		if (pu.kind == PURPOSE_LOGIN) {
			ok(slice_eq_str(pu.ua.user, "perseus") &&
			    pu.ua.hostbound == (sh != P_LOGIN),
			    "purpose: %s: its user and method kept", what);
			/* the host key as the bindings hold it: canonical */
			ok(slice_eq(wb_slice_of(&pu.hostkey), sh == P_HOSTBOUND ?
			    testkey_blob(&hosts[SCYLLA]) : sh == P_HOSTBOUND_RSA0 ?
			    wb_slice_of(&blob[ID_RSA]) : (struct slice){ NULL, 0 }),
			    "purpose: %s: its host key, canonical", what);
			is_str(purpose_unverified(&pu, NULL), "no client connection",
			    "purpose: %s: no client, not verified", what);
			if (sh == P_HOSTBOUND_RSA0)
				is_str(purpose_unverified(&pu, &C), "the request's host "
				    "key is not the host the connection is bound to",
				    "purpose: %s: another host than the bound one", what);
			else
				ok(purpose_unverified(&pu, &C) == NULL,
				    "purpose: %s: verified against [%s]", what, ONE_HOP);
		}
		if (pu.kind == PURPOSE_SSHSIG)
			ok(slice_eq_str(pu.ns, "git"), "purpose: %s: the namespace", what);
		ok(purpose_sha256(&pu, md) == 0 && EVP_Digest(data.p, data.len,
		    want_md, &mdn, EVP_sha256(), NULL) == 1 &&
		    memcmp(md, want_md, sizeof(md)) == 0,
		    "purpose: %s: the SHA-256 of the whole data", what);
		purpose_free(&pu);
		wb_free(&data);
	}
	bindings_free(&C);
}

int
main(void)
{
	make_keys();
	test_parse();
	test_sign();
	test_sshsig();
	test_purpose();
	for (int i = 0; i < NIDS; i++)
		wb_free(&blob[i]);
	for (int i = 0; i < NHOSTS; i++)
		testkey_free(&hosts[i]);
	testkey_free(&ed);
	testkey_free(&rsa);
	testkey_free(&ecdsa);
	testkey_free(&other);
	testkey_free(&ca);
	return done_testing();
}
