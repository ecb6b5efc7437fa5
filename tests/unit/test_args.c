/*
 * test_args.c - the helpers' argument lists (wire/args.h) round-trip, and
 * every list keyward would not have written is refused whole; and spawn()
 * (ipc/spawn.h) gives a child exactly the fds it is given.
 */
#include "wire/args.h"
#include "ipc/limits.h"
#include "ipc/spawn.h"
#include "tests/unit/tap.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int
count(char **v)
{
	int n = 0;

	while (v[n] != NULL)
		n++;
	return n;
}

static void
policy_roundtrip(void)
{
	struct policy_args a = { 1, "sha256", 3600, 60, AUDIT_FD, 1,
	    "/usr/lib*/*,/opt/x/*", 1, 0, "ssh:*,web:example", 45, 1, 16 << 3,
	    "kw.audit-1", "/run/x/log", "/home/u/.keyward-audit.key", 1,
	    SESSION_LOCK_AGENT, SESSION_SUSPEND_LOCK, SESSION_NOTIFY_ALL, 900 }, b;
	struct args_buf buf;
	char **v = args_policy_encode(&a, &buf);

	ok(args_policy_decode(count(v), v, &b) == 0, "policy list decodes");
	ok(b.debug == 1 && strcmp(b.fp_hash, "sha256") == 0 &&
	    b.default_lifetime == 3600 && b.confirm_timeout == 60 &&
	    b.audit == AUDIT_FD && b.audit_sync == 1 &&
	    strcmp(b.providers, a.providers) == 0 &&
	    b.allow_remote_providers == 1 && b.restrict_websafe == 0 &&
	    strcmp(b.websafe_allow, a.websafe_allow) == 0 && b.touch_timeout == 45 &&
	    b.allow_remote_manage == 1 &&
	    b.audit_facility == 16 << 3 && strcmp(b.audit_tag, "kw.audit-1") == 0 &&
	    strcmp(b.audit_socket, "/run/x/log") == 0 &&
	    strcmp(b.audit_key, a.audit_key) == 0 && b.allow_remote_add == 1 &&
	    b.session_lock == SESSION_LOCK_AGENT &&
	    b.session_suspend == SESSION_SUSPEND_LOCK &&
	    b.session_notify == SESSION_NOTIFY_ALL && b.session_idle == 900,
	    "policy list round-trips every field");
	for (int l = 0; l < 3; l++) {
		a.session_lock = (enum session_lock_mode)l;
		a.session_notify = (enum session_notify_mode)(2 - l);
		a.session_suspend = (enum session_suspend_mode)(l & 1);
		a.session_idle = l * SESSION_IDLE_MAX_S / 2;
		v = args_policy_encode(&a, &buf);
		ok(args_policy_decode(count(v), v, &b) == 0 &&
		    b.session_lock == a.session_lock &&
		    b.session_notify == a.session_notify &&
		    b.session_suspend == a.session_suspend &&
		    b.session_idle == a.session_idle,
		    "policy list: session-lock=%s session-notify=%s "
		    "session-suspend=%s session-idle=%ld round-trip",
		    args_session_lock_words[l], args_session_notify_words[2 - l],
		    args_session_suspend_words[l & 1], a.session_idle);
	}
	a = (struct policy_args){ 0, "md5", -1, 1, AUDIT_NONE, 0,
	    PROVIDERS_DEFAULT, 0, 1, WEBSAFE_DEFAULT, 1, 0, 4 << 3, NULL, NULL, NULL, 0,
	    0, 0, 0, 0 };
	v = args_policy_encode(&a, &buf);
	ok(args_policy_decode(count(v), v, &b) == 0 && b.default_lifetime == -1 &&
	    b.audit == AUDIT_NONE && b.restrict_websafe == 1 &&
	    b.allow_remote_manage == 0 &&
	    strcmp(b.audit_tag, AUDIT_TAG_DEFAULT) == 0 &&
	    strcmp(b.audit_socket, AUDIT_SOCKET_DEFAULT) == 0 && b.audit_key == NULL,
	    "policy list with no lifetime and no audit");
}

/* One argument of a good list replaced: each must be refused. */
static void
policy_refusals(void)
{
	static const struct {
		int at;
		const char *bad;
	} rows[] = {
		{ 1, "verbose" }, { 2, "" }, { 3, "-2" }, { 3, "10x" },
		{ 3, "99999999999" }, { 4, "0" }, { 4, "86401" },
		{ 5, "file" }, { 6, "yes" },
		{ 8, "yes" }, { 9, "on" },
		{ 11, "0" }, { 11, "" }, { 11, "86401" }, { 12, "yes" }, { 12, "" },
		{ 13, "" }, { 13, "-8" }, { 13, "9" }, { 13, "192" },
		{ 14, "" }, { 14, "a b" }, { 14, "tag:" }, { 14, "x[1]" },
		{ 14, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" }, { 15, "dev/log" },
		{ 15, "" }, { 16, "" }, { 16, "key" }, { 17, "" }, { 17, "yes" },
		{ 18, "" }, { 18, "refuse" }, { 18, "forget" }, { 18, "LOCK" },
		{ 19, "" }, { 19, "refuse-forwarded" }, { 19, "ignore" },
		{ 20, "" }, { 20, "local" }, { 20, "lock" },
		{ 21, "" }, { 21, "-1" }, { 21, "86401" }, { 21, "15m" },
	};
	char *good[] = { "keyward-policy", "info", "sha256", "-1", "60", "none",
	    "nosync", PROVIDERS_DEFAULT, "local-providers", "restrict",
	    WEBSAFE_DEFAULT, "60", "local-manage", "32", "keyward-audit",
	    "/dev/log", "-", "local-add", "refuse-forwarded", "forget",
	    "forwarded", "0", NULL, NULL };
	struct policy_args b;

	ok(args_policy_decode(22, good, &b) == 0, "the good list decodes");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *v[23];
		memcpy(v, good, sizeof(v));
		v[rows[i].at] = (char *)rows[i].bad;
		ok(args_policy_decode(22, v, &b) != 0, "refused: arg %d = \"%s\"",
		    rows[i].at, rows[i].bad);
	}
	/* what ssh-agent takes: an empty list, a path with a blank */
	for (size_t i = 0; i < 4; i++) {
		static const struct { int at; const char *v; } takes[] = {
			{ 7, "" }, { 7, "/usr/lib/a b" }, { 10, "" },
			{ 10, "ssh:* x" },
		};
		char *v[23];
		memcpy(v, good, sizeof(v));
		v[takes[i].at] = (char *)takes[i].v;
		ok(args_policy_decode(22, v, &b) == 0, "taken: arg %d = \"%s\"",
		    takes[i].at, takes[i].v);
	}
	ok(args_policy_decode(21, good, &b) != 0, "refused: one argument short");
	good[22] = "extra";
	ok(args_policy_decode(23, good, &b) != 0, "refused: one argument more");
}

static void
small_lists(void)
{
	struct keyholder_args k;
	struct sk_args s;
	struct pkcs11_args p;
	struct peer_args pa;
	struct args_buf buf;
	char **v;

	v = args_keyholder_encode(&(struct keyholder_args){ 1 }, &buf);
	ok(args_keyholder_decode(count(v), v, &k) == 0 && k.debug == 1,
	    "keyholder list round-trips");
	ok(args_keyholder_decode(1, v, &k) != 0, "keyholder: no level refused");
	v = args_sk_encode(&(struct sk_args){ 0, "/usr/lib/x/p.so" }, &buf);
	ok(args_sk_decode(count(v), v, &s) == 0 && s.debug == 0 &&
	    strcmp(s.provider, "/usr/lib/x/p.so") == 0, "sk list round-trips");
	v = args_sk_encode(&(struct sk_args){ 1, "internal" }, &buf);
	ok(args_sk_decode(count(v), v, &s) == 0 && strcmp(s.provider, "internal") == 0,
	    "sk list with the internal provider");
	v = args_sk_encode(&(struct sk_args){ 1, "lib/p.so" }, &buf);
	ok(args_sk_decode(count(v), v, &s) != 0, "sk: a relative provider is refused");
	v = args_sk_encode(&(struct sk_args){ 1, "" }, &buf);
	ok(args_sk_decode(count(v), v, &s) != 0, "sk: an empty provider is refused");
	v = args_pkcs11_encode(&(struct pkcs11_args){ 1, "/usr/lib/softhsm/libsofthsm2.so" }, &buf);
	ok(args_pkcs11_decode(count(v), v, &p) == 0 && p.debug == 1 &&
	    strcmp(p.provider, "/usr/lib/softhsm/libsofthsm2.so") == 0 &&
	    strcmp(v[0], "keyward-pkcs11") == 0, "pkcs11 list round-trips");
	v = args_pkcs11_encode(&(struct pkcs11_args){ 0, "internal" }, &buf);
	ok(args_pkcs11_decode(count(v), v, &p) != 0, "pkcs11: \"internal\" is no PKCS#11 module");
	v = args_peer_encode(&(struct peer_args){ 1 }, &buf);
	ok(args_peer_decode(count(v), v, &pa) == 0 && pa.debug == 1 &&
	    strcmp(v[0], "keyward-peer") == 0, "peer list round-trips");
	v = args_peer_encode(&(struct peer_args){ 0 }, &buf);
	ok(args_peer_decode(count(v), v, &pa) == 0 && pa.debug == 0,
	    "peer list at level info");
	ok(args_peer_decode(1, v, &pa) != 0, "peer: no level refused");
	ok(args_peer_decode(3, (char *const[]){ "keyward-peer", "info", "x", NULL },
	    &pa) != 0, "peer: a second argument refused");
	ok(args_peer_decode(2, (char *const[]){ "keyward-peer", "loud", NULL },
	    &pa) != 0, "peer: an unknown level refused");
	v = args_pkcs11_encode(&(struct pkcs11_args){ 0, "lib/p.so" }, &buf);
	ok(args_pkcs11_decode(count(v), v, &p) != 0, "pkcs11: a relative provider is refused");
	v = args_pkcs11_encode(&(struct pkcs11_args){ 0, "" }, &buf);
	ok(args_pkcs11_decode(count(v), v, &p) != 0, "pkcs11: an empty provider is refused");
	v = args_pkcs11_encode(&(struct pkcs11_args){ 0, "/x.so" }, &buf);
	v[1] = "verbose";
	ok(args_pkcs11_decode(count(v), v, &p) != 0, "pkcs11: a bad log level is refused");
	ok(args_pkcs11_decode(2, v, &p) != 0, "pkcs11: no provider refused");
}

/* The child reports, through fd 3, which of 3..9 are open and whether
 * fd 4 is the file it was given. */
static void
report_fds(void *arg)
{
	const struct stat *want = arg;
	struct stat st;
	char r[8];

	for (int fd = 3; fd < 10; fd++)
		r[fd - 3] = fcntl(fd, F_GETFD) >= 0 ? 'o' : '-';
	r[7] = fstat(4, &st) == 0 && st.st_ino == want->st_ino &&
	    st.st_dev == want->st_dev ? 'y' : 'n';
	if (write(3, r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(1);
}

/* In the child: fd 0 is the file given as stdin_fd, nothing above 2. */
static void
report_stdin(void *arg)
{
	const struct stat *want = arg;
	struct stat st;
	char r = fstat(0, &st) == 0 && st.st_ino == want->st_ino &&
	    st.st_dev == want->st_dev ? 'y' : 'n';

	for (int fd = 3; fd < 10; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			r = 'x';
	if (write(1, &r, 1) != 1)
		_exit(1);
}

/* The prompter's askpass: stdin from a file, stdout a pipe, no fd above 2
 * (the parent's other fds, CLOEXEC or not, stay behind). */
static void
spawn_stdio(void)
{
	int p[2], in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int leak = open("/dev/null", O_RDONLY);         /* not CLOEXEC */
	struct stat want;
	char r = 0;
	pid_t pid;
	int st;

	ok(pipe(p) == 0 && in >= 0 && leak >= 0 && fstat(in, &want) == 0,
	    "set-up (stdio)");
	pid = spawn(&(struct spawn){ .stdin_fd = in, .stdout_fd = p[1],
	    .stderr_fd = -1, .run = report_stdin, .arg = &want });
	ok(pid > 0, "spawn started the child (stdio)");
	close(p[1]);
	if (read(p[0], &r, 1) != 1)
		r = '?';
	ok(r == 'y', "stdin_fd is the child's fd 0, stdout_fd its fd 1, and "
	    "nothing is open above 2 (%c)", r);
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the child exited 0");
	close(p[0]);
	close(in);
	close(leak);
}

static void
spawn_fds(void)
{
	int p[2], extra = open("/dev/null", O_RDONLY), file = open(".", O_RDONLY);
	struct stat want;
	char r[9] = { 0 };
	pid_t pid;
	int st;

	ok(pipe(p) == 0 && extra >= 0 && file >= 0 && fstat(file, &want) == 0,
	    "set-up");
	pid = spawn(&(struct spawn){ .fds = { p[1], file, -1 }, .nfds = 3,
	    .stdout_fd = -1, .stderr_fd = -1, .run = report_fds, .arg = &want });
	ok(pid > 0, "spawn started the child");
	close(p[1]);
	ok(read(p[0], r, 8) == 8, "the child reported");
	is_str(r, "oo-----y", "fds 3 and 4 placed, 5 closed, nothing else open");
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the child exited 0 when its function returned");
	ok(spawn(&(struct spawn){ .nfds = 1, .stdout_fd = -1, .stderr_fd = -1 }) < 0,
	    "neither exec nor run: refused");
	ok(spawn(&(struct spawn){ .nfds = SPAWN_MAX_FDS + 1, .stdout_fd = -1,
	    .stderr_fd = -1, .run = report_fds }) < 0, "too many fds: refused");
	ok(spawn(&(struct spawn){ .stdout_fd = -1, .stderr_fd = -1,
	    .exec = "no-such-keyward-helper", .argv = (char *[]){ NULL } }) < 0,
	    "a helper that is nowhere: refused in the parent");
	close(p[0]);
	close(extra);
	close(file);
}

/* Policy's own helpers: keyward-broker, keyward-prompter, keyward-auditor. */
static void
policy_helpers(void)
{
	struct broker_args br;
	struct prompter_args pr;
	struct auditor_args au, got;
	struct args_buf buf;
	char **v;

	v = args_broker_encode(&(struct broker_args){ 1, 45 }, &buf);
	ok(args_broker_decode(count(v), v, &br) == 0 && br.debug == 1 &&
	    br.touch_timeout == 45 && strcmp(v[0], "keyward-broker") == 0,
	    "broker list round-trips");
	v = args_prompter_encode(&(struct prompter_args){ 0, 60 }, &buf);
	ok(args_prompter_decode(count(v), v, &pr) == 0 && pr.debug == 0 &&
	    pr.confirm_timeout == 60 && strcmp(v[0], "keyward-prompter") == 0,
	    "prompter list round-trips");
	v = args_prompter_encode(&(struct prompter_args){ 0, 0 }, &buf);
	ok(args_prompter_decode(count(v), v, &pr) != 0, "prompter: timeout 0 refused");
	v = args_broker_encode(&(struct broker_args){ 0, CONFIRM_TIMEOUT_MAX + 1 }, &buf);
	ok(args_broker_decode(count(v), v, &br) != 0, "broker: timeout over the limit refused");
	au = (struct auditor_args){ 1, AUDIT_FD, 1, 16 << 3, "kw.audit-1",
	    "/run/x/log", "/home/u/.keyward-audit.key" };
	v = args_auditor_encode(&au, &buf);
	ok(args_auditor_decode(count(v), v, &got) == 0 && got.debug == 1 &&
	    got.audit == AUDIT_FD && got.audit_sync == 1 &&
	    got.audit_facility == 16 << 3 && strcmp(got.audit_tag, au.audit_tag) == 0 &&
	    strcmp(got.audit_socket, au.audit_socket) == 0 &&
	    strcmp(got.audit_key, au.audit_key) == 0,
	    "auditor list round-trips every field");
	au = (struct auditor_args){ 0, AUDIT_SYSLOG, 0, 4 << 3, NULL, NULL, NULL };
	v = args_auditor_encode(&au, &buf);
	ok(args_auditor_decode(count(v), v, &got) == 0 && got.audit == AUDIT_SYSLOG &&
	    strcmp(got.audit_tag, AUDIT_TAG_DEFAULT) == 0 &&
	    strcmp(got.audit_socket, AUDIT_SOCKET_DEFAULT) == 0 &&
	    got.audit_key == NULL, "auditor list with the defaults");
	au.audit = AUDIT_NONE;
	v = args_auditor_encode(&au, &buf);
	ok(args_auditor_decode(count(v), v, &got) != 0,
	    "auditor: no trail (none) refused");
	au = (struct auditor_args){ 0, AUDIT_FD, 0, 4 << 3, "a b", NULL, NULL };
	v = args_auditor_encode(&au, &buf);
	ok(args_auditor_decode(count(v), v, &got) != 0, "auditor: a bad tag refused");
	ok(args_auditor_decode(count(v) - 1, v, &got) != 0,
	    "auditor: one argument short refused");
}

int
main(void)
{
	policy_roundtrip();
	policy_refusals();
	small_lists();
	policy_helpers();
	spawn_fds();
	spawn_stdio();
	return done_testing();
}
