/*
 * test_ruling.c - the rules applied to requests (policy/ruling.c): what a
 * request is taken to be (caller, origin, purpose, destination), that a
 * remembered yes covers exactly its key, caller, purpose and destination,
 * that it ends with its time, a lock (rules_forget) or new rules, and that
 * the approvals kept stay within RULES_MAX_REMEMBERED; on a named socket
 *, that its default deny is where the rules end, and that a
 * yes stays on the socket it was given on.
 */
#include "policy/audit.h"
#include "policy/dispatch.h"
#include "policy/ruling.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"

#include <unistd.h>

static struct policy P;
static struct identity id;
static struct conn conn;
static struct testkey key, host1, host2;

/* The rules' word on data, its purpose decided as h_sign decides it. */
static void
judge_data(struct slice data, struct ruling *r)
{
	struct purpose pu;

	purpose_decide(&pu, data, (struct slice){ id.blob, id.blob_len });
	ruling_judge(&P, &id, &conn, &pu, r);
	purpose_free(&pu);
}

static void
load(const char *text)
{
	struct rules_err err;
	struct ruleset *rs;

	if (rules_parse("t", text, strlen(text), &rs, &err) != 0)
		tk_die(err.msg);
	rules_free(P.rules);
	P.rules = rs;
	rules_forget(&P);
}

static void
sshsig(struct tb *t, const char *ns)
{
	tb_init(t);
	tb_raw(t, "SSHSIG", 6);
	tb_cstring(t, ns);
	tb_cstring(t, "");
	tb_cstring(t, "sha512");
	tb_string(t, "0123456789abcdef0123456789abcdef", 32);
}

/* The action for data (a C string: "other"; else an SSHSIG namespace),
 * with *remembered set. */
static enum rule_action
judge(const char *ns, int *remembered, size_t *line)
{
	struct ruling r;
	struct tb t;
	struct slice data;

	if (ns == NULL) {
		data = (struct slice){ (const uint8_t *)"other data", 10 };
		judge_data(data, &r);
	} else {
		sshsig(&t, ns);
		judge_data(wb_slice_of(&t.w), &r);
		tb_free(&t);
	}
	if (remembered != NULL)
		*remembered = r.remembered;
	if (line != NULL)
		*line = r.line;
	ruling_free(&r);
	return r.action;
}

/* Say yes to what the rules ask for this request. */
static void
approve(const char *ns)
{
	struct ruling r;
	struct tb t;

	sshsig(&t, ns);
	judge_data(wb_slice_of(&t.w), &r);
	ruling_remember(&P, &r);
	ruling_free(&r);
	tb_free(&t);
}

static void
bind_to(const struct testkey *h, int forwarding)
{
	struct slice b = testkey_blob(h);
	struct binding *x = &conn.bind.b[conn.bind.n++];

	if ((x->key = malloc(b.len)) == NULL)
		tk_die("malloc");
	memcpy(x->key, b.p, b.len);
	x->keylen = b.len;
	x->forwarding = forwarding;
	/* each binding's session id: "sid" and its index */
	x->sidlen = (size_t)snprintf((char *)x->sid, sizeof(x->sid), "sid%zu",
	    conn.bind.n - 1);
	conn.bind.attempted = 1;
}

static void
unbind(void)
{
	bindings_free(&conn.bind);
	memset(&conn.bind, 0, sizeof(conn.bind));
}

/* A userauth request for the key (RFC 4252 §7; hostbound: OpenSSH's
 * publickey-hostbound-v00 with hostkey h) in session sid. */
static void
login_data(struct tb *t, const char *sid, const char *user,
    const struct testkey *h)
{
	struct slice kb = testkey_blob(&key);

	tb_init(t);
	tb_cstring(t, sid);
	tb_u8(t, 50);
	tb_cstring(t, user);
	tb_cstring(t, "ssh-connection");
	tb_cstring(t, h != NULL ? "publickey-hostbound-v00@openssh.com" :
	    "publickey");
	tb_u8(t, 1);
	tb_cstring(t, "ssh-ed25519");
	tb_string(t, kb.p, kb.len);
	if (h != NULL) {
		struct slice hb = testkey_blob(h);
		tb_string(t, hb.p, hb.len);
	}
}

/* The action for a login, with *remembered; yes: say yes to it. */
static enum rule_action
judge_login(const char *sid, const char *user, const struct testkey *h,
    int *remembered, int yes)
{
	struct ruling r;
	struct tb t;

	login_data(&t, sid, user, h);
	judge_data(wb_slice_of(&t.w), &r);
	if (remembered != NULL)
		*remembered = r.remembered;
	if (yes)
		ruling_remember(&P, &r);
	ruling_free(&r);
	tb_free(&t);
	return r.action;
}

/* Other data d: the action, *remembered; yes: say yes to it. */
static enum rule_action
judge_other(const char *d, int *remembered, int yes)
{
	struct ruling r;

	judge_data((struct slice){ (const uint8_t *)d, strlen(d) }, &r);
	if (remembered != NULL)
		*remembered = r.remembered;
	if (yes)
		ruling_remember(&P, &r);
	ruling_free(&r);
	return r.action;
}

static size_t
nremembered(void)
{
	size_t n = 0;

	for (int i = 0; i < 2 * RULES_MAX_REMEMBERED; i++) {
		char ns[32];
		int rem;
		snprintf(ns, sizeof(ns), "ns%d", i);
		if (judge(ns, &rem, NULL) == RULE_CONFIRM && rem)
			n++;
	}
	return n;
}

int
main(void)
{
	char fp[FP_TEXT_MAX], text[512];
	struct slice b;
	int rem;
	size_t line;

	testkey_gen(&key, KEY_ED25519, 0);
	testkey_gen(&host1, KEY_ED25519, 0);
	testkey_gen(&host2, KEY_ED25519, 0);
	b = testkey_blob(&key);
	id.blob = (uint8_t *)b.p;
	id.blob_len = b.len;
	id.kind = KEY_ED25519;
	id.comment = "prod-key";
	if (fingerprint(b, "sha256", fp, sizeof(fp)) != 0)
		tk_die("fingerprint");
	conn.id = 1;
	conn.caller.status = PEER_OK;
	conn.caller.exe = "/usr/bin/ssh";
	conn.caller.nanc = 1;
	conn.caller.anc[0].exe = "/usr/bin/bash";

	/* --- no rules: allow, nothing remembered */
	is_int(judge(NULL, &rem, &line), RULE_ALLOW, "no rules: allow");
	is_int(line, 0, "no rules: no rule's line");

	/* --- what the request is taken to be */
	snprintf(text, sizeof(text), "deny key %s purpose sshsig namespace file\n"
	    "allow key %s purpose sshsig\n", fp, fp);
	load(text);
	is_int(judge("file", NULL, &line), RULE_DENY, "sshsig namespace file: denied");
	is_int(line, 1, "... by line 1");
	is_int(judge("git", NULL, &line), RULE_ALLOW, "sshsig namespace git: allowed");
	is_int(line, 2, "... by line 2");
	is_int(judge(NULL, NULL, &line), RULE_ALLOW, "other data: no rule matches");
	is_int(line, 0, "... so no line");

	load("deny caller /usr/bin/python3*\nconfirm caller /usr/bin/ssh ancestor /usr/bin/bash\n");
	is_int(judge(NULL, NULL, NULL), RULE_CONFIRM, "ssh under bash: confirm");
	conn.caller.exe = "/usr/bin/python3.11";
	is_int(judge(NULL, NULL, NULL), RULE_DENY, "python: denied");
	conn.caller.exe = NULL;         /* not read */
	is_int(judge(NULL, NULL, NULL), RULE_ALLOW,
	    "an unknown caller is \"\": neither rule matches it");
	load("deny caller *\n");
	is_int(judge(NULL, NULL, NULL), RULE_DENY, "an unknown caller matches *");
	conn.caller.exe = "/usr/bin/ssh";

	/* --- origin: no bind, ssh's own login bind, forwarded, failed bind */
	load("deny origin forwarded\nallow origin local\n");
	is_int(judge(NULL, NULL, &line), RULE_ALLOW, "no session-bind: local");
	bind_to(&host1, 0);
	is_int(judge(NULL, NULL, &line), RULE_ALLOW, "one login binding: local");
	unbind();
	bind_to(&host1, 1);
	is_int(judge(NULL, NULL, NULL), RULE_DENY, "a forwarding binding: forwarded");
	bind_to(&host2, 0);
	is_int(judge(NULL, NULL, NULL), RULE_DENY, "two bindings: forwarded");
	unbind();
	conn.bind.attempted = 1;
	is_int(judge(NULL, NULL, NULL), RULE_DENY,
	    "a session-bind that failed: forwarded (keyward cannot tell)");
	unbind();

	/* --- via: a host without a name is its SHA256 fingerprint */
	if (fingerprint(testkey_blob(&host1), "sha256", fp, sizeof(fp)) != 0)
		tk_die("fingerprint");
	snprintf(text, sizeof(text), "deny origin forwarded via %s\n", fp);
	load(text);
	bind_to(&host1, 1);
	is_int(judge(NULL, NULL, NULL), RULE_DENY, "via the first host's fingerprint");
	unbind();
	bind_to(&host2, 1);
	is_int(judge(NULL, NULL, NULL), RULE_ALLOW, "another host: not via it");
	unbind();

	/* --- remembered approvals */
	load("confirm remember=1 caller /usr/bin/ssh\nconfirm caller /usr/bin/scp\n");
	is_int(judge("git", &rem, NULL), RULE_CONFIRM, "remember: asks");
	is_int(rem, 0, "... nothing remembered yet");
	approve("git");
	judge("git", &rem, NULL);
	is_int(rem, 1, "after a yes: remembered");
	judge("file", &rem, NULL);
	is_int(rem, 0, "another namespace: not remembered");
	judge(NULL, &rem, NULL);
	is_int(rem, 0, "another purpose: not remembered");
	id.blob_len--;                  /* another key, as far as the memo goes */
	judge("git", &rem, NULL);
	is_int(rem, 0, "another key: not remembered");
	id.blob_len++;
	conn.caller.exe = "/usr/bin/scp";
	judge("git", &rem, NULL);
	is_int(rem, 0, "a rule without remember=: never remembered");
	conn.caller.exe = "/usr/bin/ssh";
	rules_forget(&P);
	judge("git", &rem, NULL);
	is_int(rem, 0, "after a lock (rules_forget): asked again");
	approve("git");
	sleep(2);
	judge("git", &rem, NULL);
	is_int(rem, 0, "after remember= has passed: asked again");
	approve("git");
	load("confirm remember=1 caller /usr/bin/ssh\n");
	judge("git", &rem, NULL);
	is_int(rem, 0, "after new rules: asked again");

	/* --- what a forwarded server cannot choose */
	{
		char hfp[FP_TEXT_MAX], h2fp[FP_TEXT_MAX];

		if (fingerprint(testkey_blob(&host1), "sha256", hfp, sizeof(hfp)) != 0 ||
		    fingerprint(testkey_blob(&host2), "sha256", h2fp, sizeof(h2fp)) != 0)
			tk_die("fingerprint");
		if (fingerprint(b, "sha256", fp, sizeof(fp)) != 0)
			tk_die("fingerprint");
		/* 1: the git example, through ssh started by git */
		snprintf(text, sizeof(text), "allow key %s ancestor /usr/bin/git "
		    "purpose sshsig namespace git\ndeny key %s\n", fp, fp);
		load(text);
		conn.caller.exe = "/usr/bin/ssh";
		conn.caller.anc[0].exe = "/usr/bin/git";
		is_int(judge("git", NULL, &line), RULE_ALLOW,
		    "git example: local, under git: allowed");
		bind_to(&host1, 1);
		is_int(judge("git", NULL, &line), RULE_DENY,
		    "git example: forwarded through git's ssh: denied");
		is_int(line, 2, "... by the deny, line 2");
		load("deny ancestor /usr/bin/git\n");
		is_int(judge("git", NULL, NULL), RULE_DENY,
		    "a deny on ancestor still holds on the relay's ancestors");
		load("deny caller /usr/bin/python3\nconfirm caller /usr/bin/ssh\n");
		is_int(judge("git", NULL, &line), RULE_CONFIRM,
		    "forwarded: a deny on another caller does not hold; a "
		    "confirm on the relay asks, where the rest would allow");
		load("confirm caller /usr/bin/ssh\ndeny\n");
		is_int(judge("git", NULL, &line), RULE_DENY,
		    "forwarded: a confirm on the relay never stands in for a deny");
		load("deny caller *,!/usr/bin/ssh\n");
		is_int(judge("git", NULL, NULL), RULE_ALLOW,
		    "forwarded: \"every program but ssh\" is judged on the relay");
		unbind();
		conn.caller.anc[0].exe = "/usr/bin/bash";

		/* 3: an unverified login is to an unknown host, as an
		 * unknown user */
		snprintf(text, sizeof(text), "allow key %s purpose login host %s "
		    "user deploy\ndeny key %s\n", fp, h2fp, fp);
		load(text);
		bind_to(&host1, 1);
		bind_to(&host2, 0);
		is_int(judge_login("sid1", "deploy", &host2, NULL, 0), RULE_ALLOW,
		    "a verified hostbound login to host2 as deploy: allowed");
		is_int(judge_login("sid1", "deploy", NULL, NULL, 0), RULE_DENY,
		    "a plain login after a forwarding hop (unverified): denied");
		is_int(judge_login("other", "deploy", &host2, NULL, 0), RULE_DENY,
		    "a hostbound login to host2 in another session: denied");
		unbind();
		bind_to(&host1, 1);
		is_int(judge_login("x", "deploy", &host2, NULL, 0), RULE_DENY,
		    "a login that names host2 on a connection bound to host1 only: denied");
		unbind();
		snprintf(text, sizeof(text), "deny key %s purpose login host %s\n",
		    fp, h2fp);
		load(text);
		bind_to(&host1, 1);
		is_int(judge_login("x", "deploy", NULL, NULL, 0), RULE_DENY,
		    "deny host: an unverified login may be to that host: denied");
		unbind();

		/* 4: via rests on the first binding */
		snprintf(text, sizeof(text), "allow origin forwarded via %s\ndeny\n",
		    h2fp);
		load(text);
		bind_to(&host2, 1);
		is_int(judge("git", NULL, NULL), RULE_ALLOW,
		    "allow via host2: the first binding is host2: allowed");
		unbind();
		bind_to(&host1, 1);
		bind_to(&host2, 1);
		is_int(judge("git", NULL, &line), RULE_DENY,
		    "allow via host2: host2 added after host1 (the server's claim): denied");
		unbind();
		snprintf(text, sizeof(text), "deny origin forwarded via %s\n", h2fp);
		load(text);
		bind_to(&host1, 1);
		bind_to(&host2, 1);
		is_int(judge("git", NULL, NULL), RULE_DENY,
		    "deny via host2: a later hop is enough");
		unbind();
		bind_to(&host1, 1);
		is_int(judge("git", NULL, NULL), RULE_ALLOW,
		    "deny via host2: a path through host1 alone is not denied");
		unbind();

		/* 2: a remembered yes is keyed by origin and first binding */
		load("confirm remember=1h\n");
		approve("git");
		judge("git", &rem, NULL);
		is_int(rem, 1, "a local yes: remembered locally");
		bind_to(&host1, 1);
		judge("git", &rem, NULL);
		is_int(rem, 0, "... never for a forwarded request");
		approve("git");
		judge("git", &rem, NULL);
		is_int(rem, 1, "a yes through host1: remembered through host1");
		unbind();
		bind_to(&host2, 1);
		judge("git", &rem, NULL);
		is_int(rem, 0, "... not through host2");
		unbind();
		bind_to(&host2, 1);
		bind_to(&host1, 1);
		judge("git", &rem, NULL);
		is_int(rem, 0, "... nor through host2 claiming host1 after it");
		unbind();
		bind_to(&host1, 1);
		judge_other("other data one", NULL, 1);
		judge_other("other data one", &rem, 0);
		is_int(rem, 1, "a yes for other data: remembered for those bytes");
		judge_other("other data two", &rem, 0);
		is_int(rem, 0, "... not for other bytes");
		bind_to(&host2, 0);
		judge_login("sid0", "deploy", NULL, NULL, 1);
		judge_login("sid0", "deploy", NULL, &rem, 0);
		is_int(rem, 1, "a yes for an unverified login: for those bytes");
		judge_login("sid9", "deploy", NULL, &rem, 0);
		is_int(rem, 0, "... not for the same user in another session");
		judge_login("sid1", "deploy", &host2, NULL, 1);
		judge_login("sid1", "deploy", &host2, &rem, 0);
		is_int(rem, 1, "a yes for a verified login: remembered");
		judge_login("sid1", "root", &host2, &rem, 0);
		is_int(rem, 0, "... not for another user");
		unbind();
		rules_forget(&P);
	}

	/* --- a named socket's default deny is where the rules
	 * end (rules_query.fallback): a rule that cannot tell weighs
	 * against it as against a last deny */
	load("socket deploy manage\nconfirm caller /usr/bin/ssh\n");
	conn.sock = 1;
	id.sock = 0;
	is_int(judge("git", NULL, &line), RULE_CONFIRM,
	    "deploy, local ssh: the confirm rule matches: confirm");
	is_int(line, 2, "... by line 2");
	bind_to(&host1, 1);
	is_int(judge("git", NULL, &line), RULE_DENY,
	    "deploy, forwarded: a confirm whose caller cannot tell never "
	    "stands in for the socket's default deny");
	is_int(line, 0, "... no rule's line: the socket's default");
	conn.sock = 0;
	is_int(judge("git", NULL, &line), RULE_CONFIRM,
	    "main, forwarded: the same confirm asks, where the default allows");
	is_int(line, 2, "... by line 2");
	conn.sock = 1;
	id.sock = 1;
	is_int(judge("git", NULL, &line), RULE_CONFIRM,
	    "deploy, forwarded, for a key added through deploy (default "
	    "allow): the confirm asks");
	id.sock = 0;
	load("socket deploy\nconfirm caller /usr/bin/ssh socket deploy\n");
	is_int(judge("git", NULL, &line), RULE_DENY,
	    "confirm caller ssh socket deploy, forwarded on deploy: denied");
	unbind();
	is_int(judge("git", NULL, &line), RULE_CONFIRM,
	    "... local on deploy: confirm");
	bind_to(&host1, 1);
	load("socket deploy\nconfirm caller /usr/bin/ssh\ndeny caller /usr/bin/scp\n");
	is_int(judge("git", NULL, &line), RULE_DENY,
	    "deploy, forwarded, a later deny that does not match either: the "
	    "default deny still holds");
	load("socket deploy\nconfirm caller /usr/bin/ssh\nallow\n");
	is_int(judge("git", NULL, &line), RULE_CONFIRM,
	    "deploy, forwarded, before a last allow: the confirm asks");
	is_int(line, 2, "... by line 2");
	unbind();

	/* a remembered yes stays on its socket */
	load("socket deploy\nconfirm remember=1h\n");
	conn.sock = 0;
	approve("git");
	judge("git", &rem, NULL);
	is_int(rem, 1, "a yes on main: remembered on main");
	conn.sock = 1;
	is_int(judge("git", &rem, NULL), RULE_CONFIRM, "on deploy: asks");
	is_int(rem, 0, "... the yes given on main does not count there");
	approve("git");
	judge("git", &rem, NULL);
	is_int(rem, 1, "a yes on deploy: remembered on deploy");
	conn.sock = 0;
	rules_forget(&P);
	approve("git");
	conn.sock = 1;
	judge("git", &rem, NULL);
	is_int(rem, 0, "... and a yes on main alone still not on deploy");
	conn.sock = 0;
	rules_forget(&P);

	/* --- bounded */
	load("confirm remember=1h caller /usr/bin/ssh\n");
	for (int i = 0; i < 2 * RULES_MAX_REMEMBERED; i++) {
		char ns[32];
		snprintf(ns, sizeof(ns), "ns%d", i);
		approve(ns);
	}
	is_int(nremembered(), RULES_MAX_REMEMBERED,
	    "approvals kept: the newest, within RULES_MAX_REMEMBERED");
	judge("ns0", &rem, NULL);
	is_int(rem, 0, "the oldest was forgotten first");
	judge("ns511", &rem, NULL);
	is_int(rem, 1, "the newest is kept");

	/* --- a yes covers only what the rule that asked tested: one given
	 * under "ancestor git" does not answer another remember= rule for
	 * the same program run outside git */
	rules_forget(&P);
	load("confirm remember=8h ancestor /usr/bin/git caller /usr/bin/ssh\n"
	    "confirm remember=8h caller /usr/bin/ssh\n");
	conn.caller.nanc = 1;
	conn.caller.anc[0].exe = "/usr/bin/git";
	approve("git");
	judge("git", &rem, &line);
	is_int(rem, 1, "a yes under the git rule answers the same request");
	conn.caller.anc[0].exe = "/usr/bin/bash";
	is_int(judge("git", &rem, &line), RULE_CONFIRM, "outside git the "
	    "second rule asks");
	is_int(line, 2, "... the second rule");
	is_int(rem, 0, "... and the yes the first rule kept does not answer it");

	/* --- a refused session-bind: the origin is unknown for good, no
	 * later binding anchors the connection, no remembered yes counts */
	rules_forget(&P);
	load("confirm remember=1h caller /usr/bin/ssh\n");
	bind_to(&host1, 1);
	approve("git");
	judge("git", &rem, NULL);
	is_int(rem, 1, "forwarded from host1: a yes is remembered");
	bind_refused(&conn.bind);
	is_int(judge("git", &rem, NULL), RULE_CONFIRM, "after a refused bind "
	    "the rule still asks");
	is_int(rem, 0, "... and the yes given before does not answer");
	approve("git");
	judge("git", &rem, NULL);
	is_int(rem, 0, "... nor one given after it");
	unbind();
	load("allow origin forwarded via *\ndeny\n");
	bind_refused(&conn.bind);
	is_int(judge("git", NULL, NULL), RULE_DENY, "[refused]: \"allow origin "
	    "forwarded via *\" cannot tell");
	unbind();
	load("allow origin local\ndeny\n");
	bind_refused(&conn.bind);
	is_int(judge("git", NULL, NULL), RULE_DENY, "[refused]: \"allow origin "
	    "local\" cannot tell");
	unbind();
	load("deny origin forwarded\nallow\n");
	bind_to(&host1, 0);
	is_int(judge("git", NULL, NULL), RULE_ALLOW, "an authentication binding "
	    "alone is local");
	bind_refused(&conn.bind);
	is_int(judge("git", NULL, NULL), RULE_DENY, "[good, refused]: \"deny "
	    "origin forwarded\" holds");
	unbind();
	conn.caller.nanc = 0;

	rules_forget(&P);
	rules_free(P.rules);
	testkey_free(&key);
	testkey_free(&host1);
	testkey_free(&host2);
	return done_testing();
}
