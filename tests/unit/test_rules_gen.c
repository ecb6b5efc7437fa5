/*
 * test_rules_gen.c - random rules files and random local or forwarded
 * requests, each judged twice: by keyward (rules_parse, then ruling_judge
 * on a connection with real session bindings and real userauth or SSHSIG
 * data) and by a small reference model written from keyward(5) alone
 * (below, "the model"), which must agree on every action and every
 * remembered yes. The model matches patterns with fnmatch(3), not wmatch,
 * and decides by trying every way a forwarded server could have chosen
 * what keyward cannot verify ("worlds"), taking the strictest answer, not
 * by rules_decide's single pass.
 *
 * Sockets (keyward(5) SOCKETS): each file declares up to three named
 * sockets, some "manage"; rules may carry a "socket LIST" clause; each
 * request comes in on main or on a declared socket, for a key added on
 * main or through a manage socket. The model also says which keys a
 * socket lists, and checks that no socket signs with a key it does not
 * list. A request is sometimes replayed on another socket, so that a
 * remembered yes meets the same request elsewhere: it must not count.
 *
 * Session-binds (keyward(5) FORWARDED REQUESTS): each connection gets a
 * random sequence of binds made the way h_bind takes them (bind_session):
 * good ones signed by real host keys, and hostile ones -- a host key
 * keyward cannot read, a bad signature, a session id over 128 bytes, a
 * chain of 17, a session id bound to another key, anything after an
 * authentication binding. The model says which are taken; after any
 * refused bind the origin is unknown for good: every origin, via, caller
 * and ancestor clause cannot tell, no login is verified and no
 * remembered yes counts.
 *
 * Runs for RULES_GEN_SECONDS (default 20; make stress runs it longer);
 * RULES_GEN_SEED replays a run (the seed is printed).
 */
#include "policy/audit.h"
#include "policy/dispatch.h"
#include "policy/ruling.h"
#include "rules/scope.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"

#include <fnmatch.h>
#include <time.h>

static struct policy P;
static struct identity id;
static struct conn conn;
static struct testkey key, hk[3];

/* The rules' word on data, its purpose decided as h_sign decides it. */
static void
judge_data(struct slice data, struct ruling *r)
{
	struct purpose pu;

	purpose_decide(&pu, data, (struct slice){ id.blob, id.blob_len });
	ruling_judge(&P, &id, &conn, &pu, r);
	purpose_free(&pu);
}
static char keyfp[FP_TEXT_MAX], hostfp[3][FP_TEXT_MAX];
static uint64_t rng;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

/* ------------------------------------------------------------ the model */

#define MAXPAT 3
#define MAXRULES 5

struct mlist {
	const char *pat[MAXPAT];        /* with a leading '!' when negated */
	int n;                          /* 0: the clause is absent */
};

struct mrule {
	int action;                     /* RULE_ALLOW, RULE_CONFIRM, RULE_DENY */
	int remember;
	const char *fp;
	struct mlist comment, caller, ancestor, via, user, host, ns, socket;
	int origin;                     /* 0 any, 1 local, 2 forwarded */
	int purpose;                    /* 0 any, 1 login, 2 sshsig, 3 other */
};

/* What the model knows of a request, in keyward(5)'s words. */
struct mreq {
	const char *fp, *comment;
	const char *exe;                /* "" when unknown */
	const char *anc[2];
	int nanc;
	int forwarded;
	int unknown;                    /* a bind was refused: origin unknown */
	int first_known;                /* the first binding is a forwarding one */
	const char *hops[AGENT_MAX_BINDINGS];   /* names of the forwarding bindings */
	int nhops;
	int purpose;                    /* 1 login, 2 sshsig, 3 other */
	int verified;
	const char *user, *host, *ns;
	/* what a remembered yes is kept under */
	int first_key;                  /* index of the first binding's host key, -1 */
	char data[128];
	int sock;                       /* came in on: 0 main, i the i-th declared */
	const char *sockname;           /* "main" or the declared name */
	int added_on;                   /* the key was added through this socket */
};

/* The sockets the current file declares (SOCKETS), in file order. */
#define MAXSOCK 3
static const char *decl[MAXSOCK];
static int manage[MAXSOCK], ndecl;

enum { NO, YES, MAYBE };

/* keyward(5) PATTERNS: no negated pattern matches, some other one does. */
static int
m_list(const struct mlist *l, const char *s)
{
	int got = 0;

	for (int i = 0; i < l->n; i++) {
		int neg = l->pat[i][0] == '!';
		if (fnmatch(l->pat[i] + neg, s, 0) != 0)
			continue;
		if (neg)
			return 0;
		got = 1;
	}
	return got;
}

static int
and3(int a, int b)
{
	if (a == NO || b == NO)
		return NO;
	return a == MAYBE || b == MAYBE ? MAYBE : YES;
}

static int
m_rule(const struct mrule *r, const struct mreq *q)
{
	int v = YES, any;

	if (r->fp != NULL && strcmp(r->fp, q->fp) != 0)
		return NO;
	if (r->comment.n && !m_list(&r->comment, q->comment))
		return NO;
	/* socket: the user chose it, the server cannot */
	if (r->socket.n && !m_list(&r->socket, q->sockname))
		return NO;
	/* caller / ancestor: for a forwarded request those of the relay,
	 * whose match may or may not hold */
	if (r->caller.n)
		v = and3(v, !m_list(&r->caller, q->exe) ? NO :
		    q->forwarded ? MAYBE : YES);
	if (r->ancestor.n) {
		any = 0;
		for (int i = 0; i < q->nanc; i++)
			any |= m_list(&r->ancestor, q->anc[i]);
		v = and3(v, !any ? NO : q->forwarded ? MAYBE : YES);
	}
	if (r->origin != 0 && q->unknown)
		v = and3(v, MAYBE);     /* local or forwarded: cannot tell */
	else if (r->origin == 1 && q->forwarded)
		return NO;
	else if (r->origin == 2) {
		if (!q->forwarded)
			return NO;
		if (r->via.n) {
			/* holds on the first binding; later hosts, or a first
			 * one not known, may or may not be on the path */
			int w = NO;
			if (q->first_known && m_list(&r->via, q->hops[0]))
				w = YES;
			else if (!q->first_known)
				w = MAYBE;
			else
				for (int i = 1; i < q->nhops; i++)
					if (m_list(&r->via, q->hops[i]))
						w = MAYBE;
			v = and3(v, w);
		}
	}
	if (r->purpose != 0 && r->purpose != q->purpose)
		return NO;
	if (r->purpose == 1) {
		if (r->user.n)
			v = and3(v, !q->verified ? MAYBE :
			    m_list(&r->user, q->user) ? YES : NO);
		if (r->host.n)
			v = and3(v, !q->verified ? MAYBE :
			    m_list(&r->host, q->host) ? YES : NO);
	}
	if (r->purpose == 2 && r->ns.n && !m_list(&r->ns, q->ns))
		return NO;
	return v;
}

/* SOCKETS: where no rule matches, the main socket allows; a named one
 * refuses, but for a key added through it ("in that socket's scope"). */
static int
m_default(const struct mreq *q)
{
	if (q->sock == 0 || q->added_on == q->sock)
		return RULE_ALLOW;
	return RULE_DENY;
}

/* SOCKETS: main lists every key; a named socket the keys some rule
 * whose key and socket clauses match, allow or confirm, lets sign there,
 * unless a deny with only key and socket clauses that matches comes
 * first; a key added through it also where no rule decides. */
static int
m_listed(const struct mrule *rs, int n, const struct mreq *q)
{
	if (q->sock == 0)
		return 1;
	for (int i = 0; i < n; i++) {
		const struct mrule *r = &rs[i];
		int sure = r->caller.n == 0 && r->ancestor.n == 0 &&
		    r->origin == 0 && r->purpose == 0;
		if ((r->fp != NULL && strcmp(r->fp, q->fp) != 0) ||
		    (r->comment.n && !m_list(&r->comment, q->comment)) ||
		    (r->socket.n && !m_list(&r->socket, q->sockname)))
			continue;
		if (r->action != RULE_DENY)
			return 1;
		if (sure)
			return 0;
	}
	return q->added_on == q->sock;
}

/* How strict an answer is (SEMANTICS): deny, then confirm asking every
 * time, then confirm with remember=, then allow. */
static int
m_rank(const struct mrule *rs, int action, int who)
{
	if (action == RULE_DENY)
		return 3;
	if (action == RULE_CONFIRM)
		return who >= 0 && rs[who].remember ? 1 : 2;
	return 0;
}

/* SEMANTICS and FORWARDED REQUESTS: in every world (each rule that may
 * or may not match either matching or not), the first rule that matches
 * decides, no rule: the socket's default (m_default); the answer is the
 * strictest of all worlds. Of equally strict answers, the rule that
 * matches for certain (or the default) decides, else the first in the
 * file. */
static int
m_decide(const struct mrule *rs, int n, const struct mreq *q, int *by)
{
	int v[MAXRULES], best = -1, besta = 0, nmaybe = 0, sure = -1;

	for (int i = 0; i < n; i++)
		if ((v[i] = m_rule(&rs[i], q)) == MAYBE)
			nmaybe++;
	for (int i = 0; i < n && sure < 0; i++)
		if (v[i] == YES)
			sure = i;
	*by = -1;
	for (unsigned w = 0; w < (1u << nmaybe); w++) {
		int a = m_default(q), who = -1, rank;
		for (int i = 0, k = 0; i < n; i++) {
			int m = v[i] == YES;
			if (v[i] == MAYBE)
				m = (w >> k++) & 1;
			if (m) {
				a = rs[i].action;
				who = i;
				break;
			}
		}
		rank = m_rank(rs, a, who);
		if (rank > best || (rank == best && who != *by &&
		    (who == sure || (*by != sure && who < *by)))) {
			best = rank;
			besta = a;
			*by = who;
		}
	}
	return besta;
}

/* A remembered yes (SEMANTICS): the rule that asked, key, caller, origin
 * and first binding,
 * purpose, verified destination -- or, for other data and an unverified
 * login, the bytes -- and socket. elsewhere: the same but for the
 * socket, to count the yeses a request on another socket meets. */
struct mmemo {
	char elsewhere[512], text[512 + SOCKET_NAME_MAX + 2];
};

static void
m_memo(const struct mreq *q, int by, struct mmemo *m)
{
	const char *dest = "";
	char buf[256];

	if (q->purpose == 1 && q->verified)
		snprintf(buf, sizeof(buf), "user=%s host=%s", q->user, q->host),
		dest = buf;
	else if (q->purpose == 2)
		snprintf(buf, sizeof(buf), "ns=%s", q->ns), dest = buf;
	else
		snprintf(buf, sizeof(buf), "bytes=%s", q->data), dest = buf;
	snprintf(m->elsewhere, sizeof(m->elsewhere), "%d|%s|%s|%s|%d|%d|%s",
	    by, q->fp, q->exe, q->forwarded ? "fwd" : "local",
	    q->forwarded ? q->first_key : -1, q->purpose, dest);
	snprintf(m->text, sizeof(m->text), "%s|%s", m->elsewhere, q->sockname);
}

/* ------------------------------------------------------- the generator */

static const char *const exes[] = { "/usr/bin/ssh", "/usr/bin/git",
	"/usr/bin/python3", "/usr/bin/ssh-keygen", "" };
static const char *const users[] = { "root", "deploy", "git" };
static const char *const nss[] = { "git", "file", "ssh" };
static const char *const comments[] = { "prod-1", "k1" };

static void
gen_list(struct mlist *l, const char *const *pool, int npool)
{
	l->n = 1 + (int)rnd(MAXPAT);
	for (int i = 0; i < l->n; i++)
		l->pat[i] = pool[rnd((unsigned)npool)];
}

static char hostpat[3][2][FP_TEXT_MAX + 2];      /* fp, !fp */

static const char *const socknames[MAXSOCK] = { "deploy", "ci", "web-1" };
static const char *const socknot[MAXSOCK] = { "!deploy", "!ci", "!web-1" };

/* Up to MAXSOCK "socket" lines, in a random order, some with a path,
 * some manage. */
static void
gen_sockets(char *out, size_t n)
{
	int order[MAXSOCK] = { 0, 1, 2 };

	for (int i = MAXSOCK - 1; i > 0; i--) {
		int j = (int)rnd((unsigned)i + 1), x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	ndecl = (int)rnd(MAXSOCK + 1);
	for (int i = 0; i < ndecl; i++) {
		decl[i] = socknames[order[i]];
		manage[i] = (int)rnd(2);
		snprintf(out + strlen(out), n - strlen(out), "socket %s", decl[i]);
		if (rnd(2))
			snprintf(out + strlen(out), n - strlen(out),
			    " /run/gen/%s.sock", decl[i]);
		snprintf(out + strlen(out), n - strlen(out), "%s\n",
		    manage[i] ? " manage" : "");
	}
}

/* A socket list: declared names (a name without '*' or '?' must be), main,
 * wildcards that may match none. */
static void
gen_socklist(struct mlist *l)
{
	static const char *const wild[] = { "main", "*", "!main", "d*", "?i",
		"web-?" };
	const char *pool[sizeof(wild) / sizeof(wild[0]) + 3 * MAXSOCK];
	int np = 0;

	for (size_t i = 0; i < sizeof(wild) / sizeof(wild[0]); i++)
		pool[np++] = wild[i];
	for (int i = 0; i < ndecl; i++)
		for (int k = 0; k < MAXSOCK; k++)
			if (decl[i] == socknames[k]) {
				pool[np++] = socknames[k];
				pool[np++] = socknot[k];
				pool[np++] = socknames[k];  /* positive more often */
			}
	gen_list(l, pool, np);
}

static void
gen_rule(struct mrule *r)
{
	static const char *const exep[] = { "/usr/bin/ssh", "/usr/bin/*", "*",
		"/usr/bin/git", "/usr/bin/python3*", "!/usr/bin/ssh",
		"!/usr/bin/git" };
	static const char *const comp[] = { "prod*", "*", "k1", "!prod*" };
	static const char *const userp[] = { "root", "deploy", "*", "r*",
		"!root" };
	static const char *const nsp[] = { "git", "file", "*", "f*", "!git" };
	const char *hostp[9];

	for (int i = 0; i < 3; i++) {
		hostp[2 * i] = hostpat[i][0];
		hostp[2 * i + 1] = hostpat[i][1];
	}
	hostp[6] = "SHA256:*";
	hostp[7] = "*";
	hostp[8] = "!SHA256:*";
	memset(r, 0, sizeof(*r));
	r->action = 1 + (int)rnd(3);
	if (r->action == RULE_CONFIRM && rnd(2))
		r->remember = 3600;
	if (rnd(5) == 0)
		r->fp = rnd(3) ? keyfp : hostfp[0];     /* this key, or another */
	if (r->fp == NULL && rnd(4) == 0)       /* "key" is one clause */
		gen_list(&r->comment, comp, 4);
	if (rnd(3) == 0)
		gen_socklist(&r->socket);
	if (rnd(3) == 0)
		gen_list(&r->caller, exep, 7);
	if (rnd(4) == 0)
		gen_list(&r->ancestor, exep, 7);
	r->origin = (int)rnd(4) % 3;
	if (r->origin == 2 && rnd(2))
		gen_list(&r->via, hostp, 9);
	r->purpose = (int)rnd(5) % 4;
	if (r->purpose == 1 && rnd(2))
		gen_list(&r->user, userp, 5);
	if (r->purpose == 1 && rnd(2))
		gen_list(&r->host, hostp, 9);
	if (r->purpose == 2 && rnd(2))
		gen_list(&r->ns, nsp, 5);
}

static void
put_list(char *out, size_t n, const char *kw, const struct mlist *l)
{
	size_t o = strlen(out);

	if (l->n == 0)
		return;
	o += (size_t)snprintf(out + o, n - o, " %s ", kw);
	for (int i = 0; i < l->n && o < n; i++)
		o += (size_t)snprintf(out + o, n - o, "%s%s", i ? "," : "",
		    l->pat[i]);
}

static void
rule_text(const struct mrule *r, char *out, size_t n)
{
	static const char *const act[] = { "", "allow", "confirm", "deny" };
	static const char *const pur[] = { "any", "login", "sshsig", "other" };

	snprintf(out, n, "%s", act[r->action]);
	if (r->remember)
		snprintf(out + strlen(out), n - strlen(out), " remember=1h");
	if (r->fp)
		snprintf(out + strlen(out), n - strlen(out), " key %s", r->fp);
	put_list(out, n, "key comment", &r->comment);
	put_list(out, n, "socket", &r->socket);
	put_list(out, n, "caller", &r->caller);
	put_list(out, n, "ancestor", &r->ancestor);
	if (r->origin == 1)
		snprintf(out + strlen(out), n - strlen(out), " origin local");
	if (r->origin == 2) {
		snprintf(out + strlen(out), n - strlen(out), " origin forwarded");
		put_list(out, n, "via", &r->via);
	}
	if (r->purpose)
		snprintf(out + strlen(out), n - strlen(out), " purpose %s",
		    pur[r->purpose]);
	put_list(out, n, "user", &r->user);
	put_list(out, n, "host", &r->host);
	put_list(out, n, "namespace", &r->ns);
	snprintf(out + strlen(out), n - strlen(out), "\n");
}

/* The binds of one connection as the model takes them. */
struct mbinds {
	int host[AGENT_MAX_BINDINGS + 1], sid[AGENT_MAX_BINDINGS + 1];
	int fwd[AGENT_MAX_BINDINGS + 1];
	int n, failed;
};

enum bkind { B_GOOD, B_UNREADABLE_KEY, B_BAD_SIGNATURE, B_LONG_SID };

/* FORWARDED REQUESTS and the protocol's session-bind: after a refusal
 * nothing is taken; a bind keyward cannot check is refused; nothing after
 * an authentication binding; a session id bound to another key is
 * refused, to the same key it is a duplicate that adds nothing; at most
 * AGENT_MAX_BINDINGS. Returns whether it is taken. */
static int
m_bind(struct mbinds *m, enum bkind kind, int h, int sid, int fwd)
{
	if (m->failed || kind != B_GOOD)
		return !(m->failed = 1);
	for (int i = 0; i < m->n; i++) {
		if (!m->fwd[i] || (m->sid[i] == sid && m->host[i] != h))
			return !(m->failed = 1);
		if (m->sid[i] == sid)
			return 1;
	}
	if (m->n >= AGENT_MAX_BINDINGS)
		return !(m->failed = 1);
	m->host[m->n] = h;
	m->sid[m->n] = sid;
	m->fwd[m->n++] = fwd;
	return 1;
}

/* One session-bind through bind_session, as h_bind makes it. */
static int
bind_to(enum bkind kind, int h, int sid, int forwarding)
{
	static const char garbage[] = "\0\0\0\x10not a key at all";
	uint8_t sess[AGENT_MAX_SESSION_ID + 1];
	size_t idlen;
	struct wb sig;
	struct slice blob = testkey_blob(&hk[h]);
	const char *why;

	idlen = (size_t)snprintf((char *)sess, sizeof(sess), "sid%d", sid);
	if (kind == B_LONG_SID) {
		memset(sess, 's', sizeof(sess));
		idlen = sizeof(sess);
	}
	wb_init(&sig);
	tk_sign(&hk[h], SIG_NONE, (struct slice){ sess, idlen }, &sig);
	if (kind == B_BAD_SIGNATURE)
		sig.p[sig.len - 1] ^= 0x01;
	if (kind == B_UNREADABLE_KEY)
		blob = (struct slice){ (const uint8_t *)garbage, sizeof(garbage) - 1 };
	why = bind_session(&conn.bind, blob, (struct slice){ sess, idlen },
	    wb_slice_of(&sig), forwarding);
	wb_free(&sig);
	return why == NULL;
}

/* The request comes in on socket sock (0 main), for a key added through
 * added_on: conn, id and q say so. */
static void
set_socket(struct mreq *q, int sock, int added_on)
{
	q->sock = sock;
	q->sockname = sock == 0 ? "main" : decl[sock - 1];
	q->added_on = added_on;
	conn.sock = (uint32_t)sock;
	id.sock = (uint32_t)added_on;
}

/* A socket to come in on, and one a key was added through: main or a
 * manage socket (no other serves ssh-add). */
static void
gen_socket(struct mreq *q)
{
	int sock = (int)rnd((unsigned)ndecl + 1), added_on = 0;

	if (rnd(2)) {
		int s = 1 + (int)rnd((unsigned)ndecl + 1);
		if (s <= ndecl && manage[s - 1])
			added_on = s;
	}
	/* a key added through the socket it is used on, often enough */
	if (sock > 0 && manage[sock - 1] && rnd(3) == 0)
		added_on = sock;
	set_socket(q, sock, added_on);
}

/* A random connection and request: sets up conn and id, builds data,
 * fills q as keyward(5) describes it. */
static unsigned long bind_mismatch;

static void
gen_request(struct tb *t, struct mreq *q, int *bkey)
{
	int nops = (int)rnd(4), kind = (int)rnd(3), nb;
	struct mbinds mb = { .n = 0 };

	(void)bkey;
	bindings_free(&conn.bind);
	memset(&conn.bind, 0, sizeof(conn.bind));
	memset(q, 0, sizeof(*q));
	/* now and then a chain one longer than AGENT_MAX_BINDINGS */
	if (rnd(40) == 0)
		nops = AGENT_MAX_BINDINGS + 1;
	for (int i = 0; i < nops; i++) {
		int h = (int)rnd(3), fwd = (int)rnd(2), sid = (int)rnd(4);
		enum bkind bk = rnd(6) == 0 ? (enum bkind)(1 + rnd(3)) : B_GOOD;
		if (nops > AGENT_MAX_BINDINGS)
			fwd = 1, sid = i, bk = B_GOOD;
		if (bind_to(bk, h, sid, fwd) != m_bind(&mb, bk, h, sid, fwd) &&
		    bind_mismatch++ < 5)
			printf("# bind %d of %d (kind %d, host %d, sid %d, fwd %d): "
			    "keyward and the model disagree on whether it is "
			    "taken\n", i + 1, nops, bk, h, sid, fwd);
	}
	nb = mb.n;
	if ((size_t)nb != conn.bind.n || mb.failed != conn.bind.failed) {
		if (bind_mismatch++ < 5)
			printf("# keyward holds %zu bindings (failed %d), the model "
			    "%d (failed %d)\n", conn.bind.n, conn.bind.failed, nb,
			    mb.failed);
		nb = 0;
	}
	conn.caller.exe = (char *)PICK(exes);
	conn.caller.nanc = rnd(3);
	for (size_t i = 0; i < conn.caller.nanc; i++)
		conn.caller.anc[i].exe = (char *)PICK(exes);
	id.comment = (char *)PICK(comments);
	gen_socket(q);

	q->fp = keyfp;
	q->comment = id.comment;
	q->exe = conn.caller.exe;
	q->nanc = (int)conn.caller.nanc;
	for (int i = 0; i < q->nanc; i++)
		q->anc[i] = conn.caller.anc[i].exe;
	/* "through a forwarded agent: the connection's first session-bind
	 * says it is forwarded, or it carries more than one"; after a
	 * refused one, forwarded from a host nobody can name */
	q->unknown = mb.failed;
	q->forwarded = mb.failed || nb > 1 || (nb == 1 && mb.fwd[0]);
	q->first_known = !mb.failed && nb > 0 && mb.fwd[0];
	q->first_key = q->first_known ? mb.host[0] : -1;
	for (int i = 0; i < nb; i++)
		if (mb.fwd[i])
			q->hops[q->nhops++] = hostfp[mb.host[i]];

	tb_init(t);
	if (kind == 0) {                /* a login */
		struct slice kb = testkey_blob(&key);
		char sid[16];
		int hb = (int)rnd(2), h = (int)rnd(3);
		snprintf(sid, sizeof(sid), "sid%u", rnd(4));
		q->purpose = 1;
		q->user = PICK(users);
		tb_cstring(t, sid);
		tb_u8(t, 50);
		tb_cstring(t, q->user);
		tb_cstring(t, "ssh-connection");
		tb_cstring(t, hb ? "publickey-hostbound-v00@openssh.com" :
		    "publickey");
		tb_u8(t, 1);
		tb_cstring(t, "ssh-ed25519");
		tb_string(t, kb.p, kb.len);
		if (hb) {
			struct slice hkb = testkey_blob(&hk[h]);
			tb_string(t, hkb.p, hkb.len);
		}
		/* verified: the session id of the last binding; after a
		 * forwarding hop hostbound; a hostbound one names the last
		 * binding's host key; never after a refused bind */
		q->verified = !mb.failed && nb > 0 &&
		    atoi(sid + 3) == mb.sid[nb - 1] &&
		    (hb ? h == mb.host[nb - 1] : nb == 1);
		q->host = nb > 0 ? hostfp[mb.host[nb - 1]] : "";
		snprintf(q->data, sizeof(q->data), "login %s %s %d %d", sid,
		    q->user, hb, hb ? h : -1);   /* the bytes: h only if named */
	} else if (kind == 1) {         /* SSHSIG */
		q->purpose = 2;
		q->ns = PICK(nss);
		tb_raw(t, "SSHSIG", 6);
		tb_cstring(t, q->ns);
		tb_cstring(t, "");
		tb_cstring(t, "sha512");
		tb_string(t, "0123456789abcdef0123456789abcdef", 32);
	} else {
		q->purpose = 3;
		snprintf(q->data, sizeof(q->data), "other data %u", rnd(3));
		tb_raw(t, q->data, strlen(q->data));
	}
}

int
main(void)
{
	const char *env = getenv("RULES_GEN_SECONDS");
	double secs = env != NULL ? atof(env) : 20;
	struct mmemo memo[64];
	int nmemo, bkey[4];
	unsigned long runs = 0, bad = 0, seen[4][4] = { { 0 } }, recalled = 0,
	    fwd = 0, unverified = 0, named[2][4] = { { 0 } }, inscope = 0,
	    replays = 0, elsewhere = 0, unlisted = 0, badlist = 0, leak = 0,
	    unknown[4] = { 0 }, unknown_asked = 0;
	time_t end;
	struct slice b;

	env = getenv("RULES_GEN_SEED");
	rng = env != NULL ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
	if (rng == 0)
		rng = 1;
	printf("# RULES_GEN_SEED=%llu RULES_GEN_SECONDS=%g\n",
	    (unsigned long long)rng, secs);
	testkey_gen(&key, KEY_ED25519, 0);
	b = testkey_blob(&key);
	id.blob = (uint8_t *)b.p;
	id.blob_len = b.len;
	id.kind = KEY_ED25519;
	if (fingerprint(b, "sha256", keyfp, sizeof(keyfp)) != 0)
		tk_die("fingerprint");
	for (int i = 0; i < 3; i++) {
		testkey_gen(&hk[i], KEY_ED25519, 0);
		if (fingerprint(testkey_blob(&hk[i]), "sha256", hostfp[i],
		    sizeof(hostfp[i])) != 0)
			tk_die("fingerprint");
		memcpy(hostpat[i][0], hostfp[i], sizeof(hostfp[i]));
		hostpat[i][1][0] = '!';
		memcpy(hostpat[i][1] + 1, hostfp[i], sizeof(hostfp[i]));
	}
	conn.id = 1;
	conn.caller.status = PEER_OK;

	end = time(NULL) + (time_t)secs;
	while (time(NULL) < end || runs == 0) {
		struct mrule rs[MAXRULES];
		int n = (int)rnd(MAXRULES + 1), have = 0;
		char text[MAXRULES * 512 + 256] = "";
		struct ruleset *parsed;
		struct rules_err err;
		struct mreq q;
		struct tb t;

		gen_sockets(text, sizeof(text));
		for (int i = 0; i < n; i++) {
			gen_rule(&rs[i]);
			rule_text(&rs[i], text + strlen(text), sizeof(text) - strlen(text));
		}
		if (rules_parse("gen", text, strlen(text), &parsed, &err) != 0) {
			ok(0, "generated rules parse: %.200s", err.msg);
			printf("# %s", text);
			break;
		}
		rules_free(P.rules);
		P.rules = parsed;
		rules_forget(&P);
		nmemo = 0;
		for (int k = 0; k < 20; k++) {
			struct ruling r;
			struct mmemo m;
			int by, want, want_rem = 0, met = 0, listed, want_listed;

			if (have && ndecl > 0 && rnd(3) == 0) {
				/* the same request (key, caller, bindings,
				 * data) on another socket */
				set_socket(&q, (q.sock + 1 + (int)rnd((unsigned)ndecl)) %
				    (ndecl + 1), q.added_on);
				replays++;
			} else {
				if (have)
					tb_free(&t);
				gen_request(&t, &q, bkey);
				have = 1;
			}
			want = m_decide(rs, n, &q, &by);
			want_listed = m_listed(rs, n, &q);
			judge_data(wb_slice_of(&t.w), &r);
			listed = scope_may_list(P.rules, conn.sock, keyfp,
			    id.comment, id.sock);
			if (want == RULE_CONFIRM && by >= 0 && rs[by].remember &&
			    !q.unknown) {
				m_memo(&q, by, &m);
				for (int i = 0; i < nmemo; i++) {
					want_rem |= strcmp(memo[i].text, m.text) == 0;
					met |= strcmp(memo[i].elsewhere,
					    m.elsewhere) == 0;
				}
			}
			runs++;
			seen[q.forwarded][want]++;
			unknown[want] += q.unknown;
			unknown_asked += q.unknown && want == RULE_CONFIRM &&
			    by >= 0 && rs[by].remember;
			if (q.sock > 0)
				named[q.added_on == q.sock][want]++;
			inscope += q.sock > 0 && q.added_on == q.sock;
			fwd += q.forwarded;
			unverified += q.purpose == 1 && !q.verified;
			recalled += want_rem;
			elsewhere += met && !want_rem;
			unlisted += !want_listed;
			if (listed != want_listed && badlist++ < 5) {
				printf("# listing mismatch: keyward %d, model %d\n",
				    listed, want_listed);
				printf("# rules:\n%s", text);
				printf("# key comment=%s added on %d, listed on %d "
				    "(%s)\n", q.comment, q.added_on, q.sock,
				    q.sockname);
			}
			/* "a key it does not list is not signed with either" */
			if (r.action != RULE_DENY && !listed && leak++ < 5) {
				printf("# signs with a key it does not list:\n");
				printf("# rules:\n%s", text);
				printf("# key comment=%s added on %d, on %d (%s)\n",
				    q.comment, q.added_on, q.sock, q.sockname);
			}
			/* the deciding rule too: its remember= and its memo
			 * depend on which one it is (the socket lines come
			 * first, one a line) */
			if ((int)r.action != want || r.line != (by < 0 ? 0 :
			    (size_t)(ndecl + by + 1)) ||
			    (want == RULE_CONFIRM && r.remembered != want_rem)) {
				if (bad++ < 5) {
					printf("# mismatch: keyward %s%s by line %zu, "
					    "model %s%s by rule %d\n",
					    rules_action_name(r.action),
					    r.remembered ? " (remembered)" : "", r.line,
					    rules_action_name(want),
					    want_rem ? " (remembered)" : "", by);
					printf("# rules:\n%s", text);
					printf("# request: fwd=%d first=%d nhops=%d exe=%s "
					    "purpose=%d verified=%d user=%s host=%s ns=%s "
					    "data=%s socket=%d (%s) added_on=%d\n",
					    q.forwarded, q.first_known,
					    q.nhops, q.exe, q.purpose, q.verified,
					    q.user ? q.user : "-", q.host ? q.host : "-",
					    q.ns ? q.ns : "-", q.data, q.sock,
					    q.sockname, q.added_on);
				}
			}
			/* the user says yes to half the prompts a remember=
			 * rule asks */
			if (r.action == RULE_CONFIRM && !r.remembered && rnd(2)) {
				ruling_remember(&P, &r);
				if (want == RULE_CONFIRM && by >= 0 &&
				    rs[by].remember && !q.unknown && nmemo < 64)
					m_memo(&q, by, &memo[nmemo++]);
			}
			ruling_free(&r);
		}
		if (have)
			tb_free(&t);
	}
	printf("# %lu requests: %lu forwarded, %lu unverified logins, %lu "
	    "remembered, %lu on a named socket for a key added there, %lu "
	    "replayed on another socket, %lu met a yes given on another "
	    "socket, %lu on a socket that does not list the key\n", runs, fwd,
	    unverified, recalled, inscope, replays, elsewhere, unlisted);
	is_int(bad, 0, "keyward and the model of keyward(5) agree on %lu "
	    "random requests", runs);
	is_int(bind_mismatch, 0, "... and on which session-binds are taken");
	is_int(badlist, 0, "... and on which keys each socket lists");
	is_int(leak, 0, "... and no socket signs with a key it does not list");
	ok(runs >= 1000, "at least 1000 requests judged");
	for (int f = 0; f < 2; f++)
		for (int a = RULE_ALLOW; a <= RULE_DENY; a++)
			ok(seen[f][a] > 0, "the generator reached %s requests "
			    "that the model says %s", f ? "forwarded" : "local",
			    rules_action_name((enum rule_action)a));
	for (int s = 0; s < 2; s++)
		for (int a = RULE_ALLOW; a <= RULE_DENY; a++)
			ok(named[s][a] > 0, "... requests on a named socket for a "
			    "key added %s that the model says %s", s ? "there" :
			    "elsewhere", rules_action_name((enum rule_action)a));
	for (int a = RULE_ALLOW; a <= RULE_DENY; a++)
		ok(unknown[a] > 0, "... requests after a refused session-bind "
		    "that the model says %s", rules_action_name((enum rule_action)a));
	ok(unknown_asked > 0, "... and remember= prompts after a refused "
	    "session-bind (never remembered)");
	ok(recalled > 0, "... and remembered yeses");
	ok(elsewhere > 0, "... and yeses given on another socket, not used");
	ok(unlisted > 0, "... and keys a socket does not list");
	ok(unverified > 0, "... and unverified logins");
	bindings_free(&conn.bind);
	rules_forget(&P);
	rules_free(P.rules);
	testkey_free(&key);
	for (int i = 0; i < 3; i++)
		testkey_free(&hk[i]);
	return done_testing();
}
