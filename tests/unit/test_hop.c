/*
 * test_hop.c - the decision procedure of doc/protocol.md §8, clause by clause:
 * hop_matches (doc/protocol.md §8.2), hop_permitted and path_permitted (doc/protocol.md §8.3, §8.4,
 * §8.5; wmatch, doc/protocol.md §8.1, is test_match.c's) and the worked example of doc/protocol.md §8.11 row by row, with
 * real host keys, real session-binds and real userauth data.
 */
#include "policy/hop.h"
#include "policy/purpose.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/tap.h"

#include <openssl/rand.h>

#define NOW ((time_t)1800000000)
#define FOREVER UINT64_MAX

/* ------------------------------------------------------ the hosts and keys */

enum { SCYLLA, CHARYBDIS, ELSEWHERE, OTHER, CA, CA2, RSACA, ECCA, NKEYS };

static const struct {
	const char *name;
	enum key_kind kind;
} key_names[NKEYS] = {
	[SCYLLA] = { "scylla", KEY_ED25519 },
	[CHARYBDIS] = { "charybdis", KEY_ECDSA_P256 },
	[ELSEWHERE] = { "elsewhere", KEY_ED25519 },
	[OTHER] = { "other", KEY_ED25519 },
	[CA] = { "ca", KEY_ED25519 },
	[CA2] = { "ca2", KEY_ED25519 },
	[RSACA] = { "rsaca", KEY_RSA },
	[ECCA] = { "ecca", KEY_ECDSA_P384 },
};

static struct testkey keys[NKEYS];
static struct testkey user_key;            /* perseus' ~/.ssh/id_ed25519 */

static int
host_index(const char *name, size_t len)
{
	for (int i = 0; i < NKEYS; i++)
		if (strlen(key_names[i].name) == len &&
		    memcmp(key_names[i].name, name, len) == 0)
			return i;
	tk_die("unknown host in a test row");
	return -1;
}

/* ---------------------------------------------------- doc/protocol.md §8.2 hop_matches */

enum {
	K_SCYLLA, K_OTHER,
	C_VALID, C_STARTS_NOW, C_ENDS_NOW, C_FOREVER, C_EXPIRED, C_NOT_YET,
	C_USER, C_NO_PRINCIPALS, C_OTHER_PRINCIPAL, C_TWO_PRINCIPALS, C_WILDCARD,
	C_LITERAL, C_CRITICAL, C_RSA_SHA1, C_RSA_SHA256, C_RSA_SHA512, C_ECDSA_CA,
	C_CA2, NSUBJECTS
};

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Certificates of scylla's host key; valid_after/before relative to NOW. */
static const struct {
	int subject;
	int ca;
	enum sig_alg alg;
	uint32_t type;
	const char *const *principals;
	int64_t after, before;          /* FOREVER as before: INT64_MAX */
	const char *critical;
} cert_rows[] = {
	{ C_VALID,           CA,    SIG_NONE,       2, P("scylla"),        -3600, 3600, NULL },
	{ C_STARTS_NOW,      CA,    SIG_NONE,       2, P("scylla"),        0,     3600, NULL },
	{ C_ENDS_NOW,        CA,    SIG_NONE,       2, P("scylla"),        -3600, 0,    NULL },
	{ C_FOREVER,         CA,    SIG_NONE,       2, P("scylla"),        -3600, INT64_MAX, NULL },
	{ C_EXPIRED,         CA,    SIG_NONE,       2, P("scylla"),        -7200, -1,   NULL },
	{ C_NOT_YET,         CA,    SIG_NONE,       2, P("scylla"),        1,     7200, NULL },
	{ C_USER,            CA,    SIG_NONE,       1, P("scylla"),        -3600, 3600, NULL },
	{ C_NO_PRINCIPALS,   CA,    SIG_NONE,       2, NULL,               -3600, 3600, NULL },
	{ C_OTHER_PRINCIPAL, CA,    SIG_NONE,       2, P("charybdis"),     -3600, 3600, NULL },
	{ C_TWO_PRINCIPALS,  CA,    SIG_NONE,       2, P("charybdis", "scylla"), -3600, 3600, NULL },
	{ C_WILDCARD,        CA,    SIG_NONE,       2, P("*.example.com"), -3600, 3600, NULL },
	{ C_LITERAL,         CA,    SIG_NONE,       2, P("a.example.com"), -3600, 3600, NULL },
	{ C_CRITICAL,        CA,    SIG_NONE,       2, P("scylla"),        -3600, 3600, "force-command" },
	{ C_RSA_SHA1,        RSACA, SIG_RSA_SHA1,   2, P("scylla"),        -3600, 3600, NULL },
	{ C_RSA_SHA256,      RSACA, SIG_RSA_SHA256, 2, P("scylla"),        -3600, 3600, NULL },
	{ C_RSA_SHA512,      RSACA, SIG_RSA_SHA512, 2, P("scylla"),        -3600, 3600, NULL },
	{ C_ECDSA_CA,        ECCA,  SIG_NONE,       2, P("scylla"),        -3600, 3600, NULL },
	{ C_CA2,             CA2,   SIG_NONE,       2, P("scylla"),        -3600, 3600, NULL },
};

static struct wb subjects[NSUBJECTS];

static void
make_subjects(void)
{
	wb_init(&subjects[K_SCYLLA]);
	wb_bytes(&subjects[K_SCYLLA], keys[SCYLLA].blob.p, keys[SCYLLA].blob.len);
	wb_init(&subjects[K_OTHER]);
	wb_bytes(&subjects[K_OTHER], keys[OTHER].blob.p, keys[OTHER].blob.len);
	for (size_t i = 0; i < sizeof(cert_rows) / sizeof(cert_rows[0]); i++) {
		struct certspec c = {
			.key = &keys[SCYLLA], .ca = &keys[cert_rows[i].ca],
			.ca_alg = cert_rows[i].alg, .type = cert_rows[i].type,
			.principals = cert_rows[i].principals,
			.valid_after = (uint64_t)(NOW + cert_rows[i].after),
			.valid_before = cert_rows[i].before == INT64_MAX ? FOREVER :
			    (uint64_t)(NOW + cert_rows[i].before),
			.critical = cert_rows[i].critical,
		};
		wb_init(&subjects[cert_rows[i].subject]);
		tk_cert_bytes(&c, &subjects[cert_rows[i].subject]);
	}
}

#define PLAIN 0
#define IS_CA 1

static const struct {
	const char *what;
	int K;
	const char *host;               /* the hop's hostname; NULL: none */
	struct { int key, is_ca; } spec[2];
	size_t nspec;
	int want;
} match_rows[] = {
	/* host key K          K                  hop hostname     key specs                          match? */
	{ "plain key, plain spec holding it",
	  K_SCYLLA, "scylla", { { SCYLLA, PLAIN } }, 1, 1 },
	{ "other plain key, plain spec",
	  K_OTHER, "scylla", { { SCYLLA, PLAIN } }, 1, 0 },
	{ "plain key, second plain spec holds it",
	  K_SCYLLA, "scylla", { { OTHER, PLAIN }, { SCYLLA, PLAIN } }, 2, 1 },
	{ "plain key, CA spec of its CA",
	  K_SCYLLA, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "plain key, CA spec holding the very key",
	  K_SCYLLA, "scylla", { { SCYLLA, IS_CA } }, 1, 0 },
	{ "plain key, hostname does not matter",
	  K_SCYLLA, "charybdis", { { SCYLLA, PLAIN } }, 1, 1 },
	{ "host certificate, plain spec holding the very certified key",
	  C_VALID, "scylla", { { SCYLLA, PLAIN } }, 1, 0 },
	{ "host certificate, plain spec holding the CA key",
	  C_VALID, "scylla", { { CA, PLAIN } }, 1, 0 },
	{ "host certificate, CA spec: valid",
	  C_VALID, "scylla", { { CA, IS_CA } }, 1, 1 },
	{ "host certificate, valid_after = now",
	  C_STARTS_NOW, "scylla", { { CA, IS_CA } }, 1, 1 },
	{ "host certificate, valid_before = now",
	  C_ENDS_NOW, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "host certificate, valid forever",
	  C_FOREVER, "scylla", { { CA, IS_CA } }, 1, 1 },
	{ "host certificate, expired",
	  C_EXPIRED, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "host certificate, not yet valid",
	  C_NOT_YET, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "user certificate (type 1)",
	  C_USER, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "host certificate, no principals",
	  C_NO_PRINCIPALS, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "host certificate, principal not matching",
	  C_OTHER_PRINCIPAL, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "host certificate, second principal matching",
	  C_TWO_PRINCIPALS, "scylla", { { CA, IS_CA } }, 1, 1 },
	{ "principal *.example.com, host a.example.com",
	  C_WILDCARD, "a.example.com", { { CA, IS_CA } }, 1, 1 },
	{ "principal *.example.com, host example.com",
	  C_WILDCARD, "example.com", { { CA, IS_CA } }, 1, 0 },
	{ "principal a.example.com, host *.example.com (principal is the pattern)",
	  C_LITERAL, "*.example.com", { { CA, IS_CA } }, 1, 0 },
	{ "host certificate, critical option present",
	  C_CRITICAL, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "CA signature ssh-rsa (SHA-1)",
	  C_RSA_SHA1, "scylla", { { RSACA, IS_CA } }, 1, 0 },
	{ "CA signature rsa-sha2-256",
	  C_RSA_SHA256, "scylla", { { RSACA, IS_CA } }, 1, 1 },
	{ "CA signature rsa-sha2-512",
	  C_RSA_SHA512, "scylla", { { RSACA, IS_CA } }, 1, 1 },
	{ "CA signature ecdsa-sha2-nistp384",
	  C_ECDSA_CA, "scylla", { { ECCA, IS_CA } }, 1, 1 },
	{ "certificate by another CA",
	  C_CA2, "scylla", { { CA, IS_CA } }, 1, 0 },
	{ "certificate, first CA spec fails, second is its CA",
	  C_CA2, "scylla", { { CA, IS_CA }, { CA2, IS_CA } }, 2, 1 },
	{ "certificate, CA key given as a plain spec",
	  C_VALID, "scylla", { { CA, PLAIN } }, 1, 0 },
	{ "hop with no hostname, certificate",
	  C_VALID, NULL, { { CA, IS_CA } }, 1, 0 },
};

static void
test_hop_matches(void)
{
	for (size_t i = 0; i < sizeof(match_rows) / sizeof(match_rows[0]); i++) {
		struct hopkey specs[2];
		struct hop h = { NULL, (char *)match_rows[i].host, specs,
		    match_rows[i].nspec };
		for (size_t j = 0; j < match_rows[i].nspec; j++) {
			const struct testkey *k = &keys[match_rows[i].spec[j].key];
			specs[j] = (struct hopkey){ k->blob.p, k->blob.len,
			    match_rows[i].spec[j].is_ca };
		}
		is_int(hop_matches(wb_slice_of(&subjects[match_rows[i].K]), &h, NOW),
		    match_rows[i].want, "doc/protocol.md §8.2 %s: %s", match_rows[i].what,
		    match_rows[i].want ? "match" : "no match");
	}
	/* validity is checked against the clock of the check (step 2) */
	struct hopkey ca = { keys[CA].blob.p, keys[CA].blob.len, 1 };
	struct hop h = { NULL, "scylla", &ca, 1 };
	is_int(hop_matches(wb_slice_of(&subjects[C_VALID]), &h, NOW + 3600), 0,
	    "doc/protocol.md §8.2 a valid certificate no longer matches an hour later");
	is_int(hop_matches(wb_slice_of(&subjects[C_NOT_YET]), &h, NOW + 1), 1,
	    "doc/protocol.md §8.2 a not-yet-valid certificate matches once it is");
	is_int(hop_matches(sl_str("garbage"), &h, NOW), 0,
	    "doc/protocol.md §8.2 a host key that does not decode matches nothing");
}

/* ---------------------------------------- identities, as ssh-add -h says */

#define ID(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define UNCONSTRAINED NULL

/* One -h SPEC: "[from>][user@]to" (doc/protocol.md §9), with each host's own key. */
static void
constraint_from_spec(struct wb *w, const char *spec)
{
	const char *gt = strchr(spec, '>'), *to = gt ? gt + 1 : spec;
	const char *at = strchr(to, '@');
	char user[300] = "", fromhost[64] = "", tohost[64];
	struct tspec fk = { { NULL, 0 }, 0 }, tk;
	int fi = -1, ti;

	if (gt != NULL) {
		snprintf(fromhost, sizeof(fromhost), "%.*s", (int)(gt - spec), spec);
		fi = host_index(spec, (size_t)(gt - spec));
		fk.blob = testkey_blob(&keys[fi]);
	}
	if (at != NULL) {
		snprintf(user, sizeof(user), "%.*s", (int)(at - to), to);
		to = at + 1;
	}
	snprintf(tohost, sizeof(tohost), "%s", to);
	ti = host_index(to, strlen(to));
	tk.blob = testkey_blob(&keys[ti]);
	tk.is_ca = 0;
	struct thop from = { NULL, fi >= 0 ? fromhost : NULL, { NULL, 0 },
	    &fk, fi >= 0 ? 1 : 0 };
	struct thop tohop = { user[0] ? user : NULL, tohost, { NULL, 0 }, &tk, 1 };
	tconstraint_write(w, &from, &tohop, sl(NULL, 0), sl(NULL, 0));
}

static void
ident_build(struct dest_set *d, const char *const *specs)
{
	const char *why = NULL;
	struct wb w;

	memset(d, 0, sizeof(*d));
	if (specs == NULL)
		return;                 /* unconstrained: no constraint at all */
	wb_init(&w);
	for (size_t i = 0; specs[i] != NULL; i++)
		constraint_from_spec(&w, specs[i]);
	tk_check(&w, "constraint list");
	if (dest_set_build(d, wb_slice_of(&w), &why) != 0) {
		fprintf(stderr, "dest_set_build: %s\n", why ? why : "?");
		tk_die("test identity refused");
	}
	wb_free(&w);
}

/* Session id of binding i on a connection, "to" host h. */
static void
sid_for(uint8_t sid[32], size_t i, int h)
{
	memset(sid, (int)(0x10 * (i + 1) + (unsigned)h), 32);
}

/* Bindings written as doc/protocol.md's tables write them: "scylla fwd,
 * charybdis auth"; "" is a local unbound connection, "failed" one whose
 * only session-bind failed. With via_bind each one is a real session-bind
 * (signed by the host, through bind_add); without, the chain is written
 * as recorded, so path_permitted can be shown chains bind_add refuses to
 * build (an authentication binding that is not the last). */
static void
chain_build(struct bindings *C, const char *spec, int via_bind)
{
	const char *p = spec;

	memset(C, 0, sizeof(*C));
	if (strcmp(spec, "failed") == 0) {
		C->attempted = 1;
		return;
	}
	while (*p != '\0') {
		const char *sp = strchr(p, ' ');
		int h, fwd;
		uint8_t sid[32];
		struct wb sig;
		const char *why;

		if (sp == NULL)
			tk_die("binding without a mode");
		h = host_index(p, (size_t)(sp - p));
		fwd = strncmp(sp + 1, "fwd", 3) == 0;
		if (!fwd && strncmp(sp + 1, "auth", 4) != 0)
			tk_die("binding mode is neither fwd nor auth");
		sid_for(sid, C->n, h);
		if (!via_bind) {
			struct binding *b = &C->b[C->n++];
			if ((b->key = malloc(keys[h].blob.len)) == NULL)
				tk_die("out of memory");
			memcpy(b->key, keys[h].blob.p, keys[h].blob.len);
			b->keylen = keys[h].blob.len;
			memcpy(b->sid, sid, 32);
			b->sidlen = 32;
			b->forwarding = fwd;
			C->attempted = 1;
			goto next;
		}
		wb_init(&sig);
		tk_sign(&keys[h], SIG_NONE, sl(sid, 32), &sig);
		C->attempted = 1;
		why = bind_add(C, testkey_blob(&keys[h]), sl(sid, 32),
		    wb_slice_of(&sig), fwd);
		wb_free(&sig);
		if (why != NULL)
			ok(0, "setting up [%s]: bind refused: %s", spec, why);
next:
		p = sp + 1 + (fwd ? 3 : 4);
		while (*p == ',' || *p == ' ')
			p++;
	}
}

/* ------------------------------------- doc/protocol.md §8.3 / §8.4 / §8.5 path_permitted */

static const struct {
	const char *what;
	const char *const *ident;
	const char *bindings;
	const char *user;               /* NULL: ANY (listing, remove, re-add) */
	int want;
} path_rows[] = {
	/* doc/protocol.md §8.4 step 1: no constraint, no restriction */
	{ "doc/protocol.md §8.4 step 1: unconstrained, local unbound, listing",
	  UNCONSTRAINED, "", NULL, 1 },
	{ "doc/protocol.md §8.4 step 1: unconstrained, failed bind, listing",
	  UNCONSTRAINED, "failed", NULL, 1 },
	{ "doc/protocol.md §8.4 step 1: unconstrained, [charybdis auth] as root",
	  UNCONSTRAINED, "charybdis auth", "root", 1 },
	{ "doc/protocol.md §8.4 step 1: unconstrained, [scylla fwd] signing",
	  UNCONSTRAINED, "scylla fwd", "root", 1 },
	{ "doc/protocol.md §8.4 step 1: unconstrained, [scylla auth, charybdis auth]",
	  UNCONSTRAINED, "scylla auth, charybdis auth", NULL, 1 },
	/* step 2: a failed bind hides constrained keys */
	{ "doc/protocol.md §8.4 step 2: attempted and n = 0, listing",
	  ID("perseus@scylla"), "failed", NULL, 0 },
	{ "doc/protocol.md §8.4 step 2: attempted and n = 0, as perseus",
	  ID("perseus@scylla"), "failed", "perseus", 0 },
	/* step 3: local, unbound */
	{ "doc/protocol.md §8.4 step 3: n = 0, local, listing",
	  ID("perseus@scylla"), "", NULL, 1 },
	{ "doc/protocol.md §8.4 step 3: n = 0, local, as perseus",
	  ID("perseus@scylla"), "", "perseus", 1 },
	/* step 4: the walk */
	{ "doc/protocol.md §8.4 step 4: auth binding not last: [scylla auth, charybdis auth]",
	  ID("scylla", "scylla>charybdis"), "scylla auth, charybdis auth", NULL, 0 },
	{ "doc/protocol.md §8.4 step 4: auth binding not last: [scylla auth, charybdis fwd]",
	  ID("scylla", "scylla>charybdis", "charybdis>elsewhere"),
	  "scylla auth, charybdis fwd", NULL, 0 },
	{ "doc/protocol.md §8.4 step 4: sign through a forwarding last binding: [scylla fwd] as perseus",
	  ID("perseus@scylla", "scylla>charybdis"), "scylla fwd", "perseus", 0 },
	{ "doc/protocol.md §8.4 step 4: the same, listing",
	  ID("perseus@scylla", "scylla>charybdis"), "scylla fwd", NULL, 1 },
	{ "doc/protocol.md §8.4 step 4: user at the final hop only: [scylla fwd, charybdis auth] as medea",
	  ID("perseus@scylla", "scylla>medea@charybdis"),
	  "scylla fwd, charybdis auth", "medea", 1 },
	{ "doc/protocol.md §8.4 step 4: the intermediate hop's user is not the final one's: as perseus",
	  ID("perseus@scylla", "scylla>medea@charybdis"),
	  "scylla fwd, charybdis auth", "perseus", 0 },
	{ "doc/protocol.md §8.4 step 4: final hop user checked: [scylla auth] as medea",
	  ID("perseus@scylla", "scylla>medea@charybdis"), "scylla auth", "medea", 0 },
	{ "doc/protocol.md §8.3 step 3: empty user pattern = any user: as root",
	  ID("scylla"), "scylla auth", "root", 1 },
	{ "doc/protocol.md §8.3 step 3: empty user pattern = any user: as \"\"",
	  ID("scylla"), "scylla auth", "", 1 },
	{ "doc/protocol.md §8.3 step 3: med*@scylla as medea",    ID("med*@scylla"), "scylla auth", "medea", 1 },
	{ "doc/protocol.md §8.3 step 3: med*@scylla as medusa",   ID("med*@scylla"), "scylla auth", "medusa", 1 },
	{ "doc/protocol.md §8.3 step 3: med*@scylla as med",      ID("med*@scylla"), "scylla auth", "med", 1 },
	{ "doc/protocol.md §8.3 step 3: med*@scylla as perseus",  ID("med*@scylla"), "scylla auth", "perseus", 0 },
	{ "doc/protocol.md §8.3 step 3: med*@scylla as Medea",    ID("med*@scylla"), "scylla auth", "Medea", 0 },
	{ "doc/protocol.md §8.3 step 3: ?edea@scylla as medea",   ID("?edea@scylla"), "scylla auth", "medea", 1 },
	{ "doc/protocol.md §8.3 step 3: ?edea@scylla as edea",    ID("?edea@scylla"), "scylla auth", "edea", 0 },
	{ "doc/protocol.md §8.3 step 3: ?edea@scylla as mmedea",  ID("?edea@scylla"), "scylla auth", "mmedea", 0 },
	{ "doc/protocol.md §8.3 step 3: users ignored when listing: medea@scylla",
	  ID("medea@scylla"), "scylla auth", NULL, 1 },
	{ "doc/protocol.md §8.3 step 1: ORIGIN needs an origin constraint",
	  ID("charybdis>scylla"), "scylla auth", NULL, 0 },
	{ "doc/protocol.md §8.3 step 1: from-hop must hold the previous host's key",
	  ID("scylla", "elsewhere>charybdis"), "scylla fwd, charybdis auth", "medea", 0 },
	{ "doc/protocol.md §8.3 step 2: to-hop must hold the host's key",
	  ID("scylla"), "charybdis auth", NULL, 0 },
	/* step 5: the beyond rule */
	{ "doc/protocol.md §8.4 step 5: [scylla fwd] listing, only origin>scylla",
	  ID("perseus@scylla"), "scylla fwd", NULL, 0 },
	{ "doc/protocol.md §8.4 step 5: [scylla auth] listing, only origin>scylla",
	  ID("perseus@scylla"), "scylla auth", NULL, 1 },
	{ "doc/protocol.md §8.4 step 5: [scylla fwd] listing, with scylla>charybdis",
	  ID("perseus@scylla", "scylla>medea@charybdis"), "scylla fwd", NULL, 1 },
	{ "doc/protocol.md §8.4 step 5: [scylla fwd] listing, onward hop from another host",
	  ID("perseus@scylla", "charybdis>elsewhere"), "scylla fwd", NULL, 0 },
	{ "doc/protocol.md §8.4 step 5: [scylla fwd, charybdis fwd] listing, nothing from charybdis",
	  ID("scylla", "scylla>medea@charybdis"), "scylla fwd, charybdis fwd", NULL, 0 },
	{ "doc/protocol.md §8.4 step 5: [scylla fwd, charybdis fwd] listing, charybdis>elsewhere",
	  ID("scylla", "scylla>charybdis", "charybdis>elsewhere"),
	  "scylla fwd, charybdis fwd", NULL, 1 },
	/* doc/protocol.md §8.3: different hops, different constraints */
	{ "doc/protocol.md §8.3 three hops, three constraints",
	  ID("scylla", "scylla>charybdis", "charybdis>elsewhere"),
	  "scylla fwd, charybdis fwd, elsewhere auth", "medea", 1 },
	{ "doc/protocol.md §8.3 second of two origin constraints permits medea",
	  ID("perseus@scylla", "medea@scylla"), "scylla auth", "medea", 1 },
	{ "doc/protocol.md §8.3 missing middle constraint",
	  ID("scylla", "charybdis>elsewhere"),
	  "scylla fwd, charybdis fwd, elsewhere auth", "medea", 0 },
	{ "doc/protocol.md §8.3 cycle scylla>charybdis>scylla without charybdis>scylla",
	  ID("scylla", "scylla>charybdis"),
	  "scylla fwd, charybdis fwd, scylla auth", NULL, 0 },
	{ "doc/protocol.md §8.3 cycle scylla>charybdis>scylla with charybdis>scylla",
	  ID("scylla", "scylla>charybdis", "charybdis>scylla"),
	  "scylla fwd, charybdis fwd, scylla auth", NULL, 1 },
	/* doc/protocol.md §8.5 listing table */
	{ "doc/protocol.md §8.5 [scylla auth] needs origin>scylla",
	  ID("charybdis"), "scylla auth", NULL, 0 },
	{ "doc/protocol.md §8.5 [scylla fwd, charybdis auth] origin>scylla and scylla>charybdis",
	  ID("scylla", "scylla>charybdis"), "scylla fwd, charybdis auth", NULL, 1 },
	{ "doc/protocol.md §8.5 [scylla fwd, charybdis auth] without scylla>charybdis",
	  ID("scylla", "scylla>elsewhere"), "scylla fwd, charybdis auth", NULL, 0 },
};

static void
test_path_permitted(void)
{
	for (size_t i = 0; i < sizeof(path_rows) / sizeof(path_rows[0]); i++) {
		struct dest_set I;
		struct bindings C;
		struct verdict v = { 0, NULL };
		int got;

		ident_build(&I, path_rows[i].ident);
		chain_build(&C, path_rows[i].bindings, 0);
		got = path_permitted(&I, &C, path_rows[i].user, NOW, &v);
		is_int(got, path_rows[i].want, "%s: %s", path_rows[i].what,
		    path_rows[i].want ? "permitted" : "denied");
		if (!got)
			ok(v.rule != NULL, "%s: the verdict names a rule",
			    path_rows[i].what);
		bindings_free(&C);
		dest_set_free(&I);
	}
}

/* hop_permitted alone: which constraint permits, ANY key and ANY user. */
static void
test_hop_permitted(void)
{
	static const struct {
		const char *what;
		int prev;               /* -1: ORIGIN */
		int K;                  /* -1: ANY */
		const char *user;       /* NULL: ANY */
		int want;
		size_t which;
	} rows[] = {
		{ "ORIGIN to scylla as perseus: c1",       -1, SCYLLA, "perseus", 1, 0 },
		{ "ORIGIN to scylla as medea",             -1, SCYLLA, "medea", 0, 0 },
		{ "ORIGIN to scylla, ANY user: c1",        -1, SCYLLA, NULL, 1, 0 },
		{ "ORIGIN to charybdis",                   -1, CHARYBDIS, NULL, 0, 0 },
		{ "scylla to charybdis as medea: c2",      SCYLLA, CHARYBDIS, "medea", 1, 1 },
		{ "scylla to charybdis as perseus",        SCYLLA, CHARYBDIS, "perseus", 0, 0 },
		{ "scylla to ANY, ANY user: c2",           SCYLLA, -1, NULL, 1, 1 },
		{ "scylla to ANY as medea: c2",            SCYLLA, -1, "medea", 1, 1 },
		{ "charybdis to ANY",                      CHARYBDIS, -1, NULL, 0, 0 },
		{ "ORIGIN to ANY, ANY user: c1",           -1, -1, NULL, 1, 0 },
	};
	struct dest_set I;

	ident_build(&I, ID("perseus@scylla", "scylla>medea@charybdis"));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct slice prev = rows[i].prev >= 0 ? testkey_blob(&keys[rows[i].prev]) :
		    sl(NULL, 0);
		struct slice K = rows[i].K >= 0 ? testkey_blob(&keys[rows[i].K]) :
		    sl(NULL, 0);
		size_t which = 99;
		int got = hop_permitted(&I, rows[i].prev >= 0 ? &prev : NULL, K,
		    rows[i].user, NOW, &which);
		is_int(got, rows[i].want, "doc/protocol.md §8.3 %s: %s", rows[i].what,
		    rows[i].want ? "permitted" : "denied");
		if (got && rows[i].want)
			is_int(which, rows[i].which, "doc/protocol.md §8.3 %s: by constraint %zu",
			    rows[i].what, rows[i].which);
	}
	is_str(dest_host_name(&I, testkey_blob(&keys[SCYLLA]), NOW), "scylla",
	    "dest_host_name: scylla's key is called scylla");
	is_str(dest_host_name(&I, testkey_blob(&keys[CHARYBDIS]), NOW), "charybdis",
	    "dest_host_name: charybdis' key is called charybdis");
	ok(dest_host_name(&I, testkey_blob(&keys[ELSEWHERE]), NOW) == NULL,
	    "dest_host_name: elsewhere's key has no name");
	dest_set_free(&I);
}

/* -------------------------------------------------- doc/protocol.md §8.11 worked example */

enum data { UA_HOSTBOUND, UA_PLAIN, UA_NO_BIND, SSHSIG, RANDOM };

#define NA 2            /* "—" in doc/protocol.md's table */

static const struct {
	const char *what;
	const char *bindings;
	int listed;
	int signs;              /* NA: doc/protocol.md has no answer; it must refuse */
	const char *user;
	enum data data;
	const char *why;        /* part of the refusal's rule */
} worked_rows[] = {
	/* what happens                          bindings seen          listed? signs? user    data          why not */
	{ "ssh perseus@scylla from home",        "scylla auth",           1,  1,  "perseus", UA_HOSTBOUND, NULL },
	{ "ssh perseus@scylla, sshd < 8.9 (first hop, plain publickey)",
	                                         "scylla auth",           1,  1,  "perseus", UA_PLAIN,     NULL },
	{ "ssh root@scylla from home",           "scylla auth",           1,  0,  "root",    UA_HOSTBOUND, "user" },
	{ "ssh perseus@charybdis from home",     "charybdis auth",        0,  NA, "perseus", UA_HOSTBOUND, "no constraint" },
	{ "on scylla after ssh -A perseus@scylla: ssh-add -l",
	                                         "scylla fwd",            1,  NA, "perseus", UA_HOSTBOUND, "forwarding" },
	{ "on scylla: ssh medea@charybdis",      "scylla fwd, charybdis auth", 1, 1, "medea", UA_HOSTBOUND, NULL },
	{ "on scylla: ssh medea@elsewhere",      "scylla fwd, elsewhere auth", 0, NA, "medea", UA_HOSTBOUND, "no constraint" },
	{ "on scylla: ssh -A medea@charybdis, then ssh-add -l on charybdis",
	                                         "scylla fwd, charybdis fwd", 0, NA, "medea", UA_HOSTBOUND, "forwarding" },
	{ "on scylla: ssh-keygen -Y sign with the key",
	                                         "scylla fwd",            NA, 0,  NULL,     SSHSIG,       "not an SSH authentication request" },
	{ "on scylla: an ssh older than 8.9 (sends no bind) to charybdis",
	                                         "scylla fwd",            1,  0,  "medea",   UA_NO_BIND,   "forwarding" },
	{ "charybdis runs an sshd older than 8.9 (plain publickey)",
	                                         "scylla fwd, charybdis auth", 1, 0, "medea", UA_PLAIN,  "hostbound" },
	{ "on home: ssh-add -T id_ed25519.pub",  "",                      NA, 0,  NULL,     RANDOM,       "not bound" },
};

/* What the client asks the agent to sign for a row. */
static void
worked_data(struct wb *w, const struct bindings *C, enum data kind,
    const char *user)
{
	const struct binding *last = C->n ? &C->b[C->n - 1] : NULL;
	uint8_t sid[32];
	struct tua u = {
		.msg = 50, .user = user, .service = "ssh-connection",
		.method = "publickey", .has_sig = 1, .pkalg = "ssh-ed25519",
		.key = testkey_blob(&user_key),
	};

	switch (kind) {
	case UA_HOSTBOUND:
		u.method = "publickey-hostbound-v00@openssh.com";
		u.hostkey = sl(last->key, last->keylen);
		/* FALLTHROUGH */
	case UA_PLAIN:
		u.sid = sl(last->sid, last->sidlen);
		tua_write(w, &u);
		break;
	case UA_NO_BIND:
		/* a new session to charybdis that nobody bound */
		memset(sid, 0xee, sizeof(sid));
		u.sid = sl(sid, sizeof(sid));
		tua_write(w, &u);
		break;
	case SSHSIG:
		tsshsig_write(w, "file");
		break;
	case RANDOM: {
		uint8_t r[1024];
		if (RAND_bytes(r, sizeof(r)) != 1)
			tk_die("RAND_bytes");
		wb_bytes(w, r, sizeof(r));
		break;
	}
	}
}

static void
test_worked_example(void)
{
	struct dest_set I;

	/* ssh-add -h "perseus@scylla" -h "scylla>medea@charybdis" id_ed25519 */
	ident_build(&I, ID("perseus@scylla", "scylla>medea@charybdis"));
	for (size_t i = 0; i < sizeof(worked_rows) / sizeof(worked_rows[0]); i++) {
		struct bindings C;
		struct verdict v;
		struct wb data;
		struct purpose pu;
		char user[AGENT_MAX_USER_PATTERN + 64];
		const char *rule;
		size_t hop;
		int want;

		chain_build(&C, worked_rows[i].bindings, 1);
		if (worked_rows[i].listed != NA)
			is_int(path_permitted(&I, &C, NULL, NOW, &v), worked_rows[i].listed,
			    "doc/protocol.md §8.11 %s [%s]: listed? %s", worked_rows[i].what,
			    worked_rows[i].bindings, worked_rows[i].listed ? "yes" : "no");
		wb_init(&data);
		worked_data(&data, &C, worked_rows[i].data, worked_rows[i].user);
		purpose_decide(&pu, wb_slice_of(&data), testkey_blob(&user_key));
		rule = sign_permitted(&I, &C, &pu, NOW, &hop, user, sizeof(user));
		purpose_free(&pu);
		want = worked_rows[i].signs == 1;
		is_int(rule == NULL, want, "doc/protocol.md §8.11 %s [%s]: signs? %s%s",
		    worked_rows[i].what, worked_rows[i].bindings, want ? "yes" : "no",
		    worked_rows[i].signs == NA ? " (— in the table)" : "");
		if ((rule == NULL) != want)
			printf("#   rule: %s\n", rule ? rule : "(none)");
		if (!want && worked_rows[i].why != NULL)
			ok(rule != NULL && strstr(rule, worked_rows[i].why) != NULL,
			    "doc/protocol.md §8.11 %s: refused because \"...%s...\"",
			    worked_rows[i].what, worked_rows[i].why);
		if (worked_rows[i].user != NULL && worked_rows[i].data != SSHSIG &&
		    C.n > 0)
			is_str(user, worked_rows[i].user, "doc/protocol.md §8.11 %s: the user is %s",
			    worked_rows[i].what, worked_rows[i].user);
		wb_free(&data);
		bindings_free(&C);
	}
	dest_set_free(&I);
}

int
main(void)
{
	for (int i = 0; i < NKEYS; i++)
		testkey_gen(&keys[i], key_names[i].kind, 2048);
	testkey_gen(&user_key, KEY_ED25519, 2048);
	make_subjects();

	test_hop_matches();
	test_hop_permitted();
	test_path_permitted();
	test_worked_example();

	for (int i = 0; i < NSUBJECTS; i++)
		wb_free(&subjects[i]);
	for (int i = 0; i < NKEYS; i++)
		testkey_free(&keys[i]);
	testkey_free(&user_key);
	return done_testing();
}
