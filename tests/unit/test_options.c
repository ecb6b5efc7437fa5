/*
 * test_options.c - keyward's command line, which is ssh-agent's (doc/protocol.md
 * §11.1, §11.9): the lifetime syntax, usage errors and exit statuses, and
 * BSD getopt's stop at the first non-option.
 */
#include "monitor/options.h"
#include "wire/args.h"
#include "tests/unit/tap.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *in;
	long want;
} lifetimes[] = {
	{ "90", 90 },
	{ "0", 0 },
	{ "30s", 30 },
	{ "5m", 300 },
	{ "1h", 3600 },
	{ "1h30m", 5400 },
	{ "2d", 172800 },
	{ "1w", 604800 },
	{ "1w2d3h4m5s", 604800 + 2 * 86400 + 3 * 3600 + 4 * 60 + 5 },
	{ "1H30M", 5400 },              /* units in either case */
	{ "1h30", 3630 },               /* a last number without unit is seconds */
	{ "10m10m", 1200 },
	{ "2147483647", INT_MAX },
	{ "3550w", 3550L * 604800 },
	{ "", -1 },
	{ "x", -1 },
	{ "h", -1 },
	{ "10q", -1 },
	{ "-5", -1 },
	{ "+5", -1 },
	{ " 5", -1 },
	{ "5 ", -1 },
	{ "1h 30m", -1 },
	{ "1hh", -1 },
	{ "1.5h", -1 },
	{ "2147483648", -1 },           /* overflow: more than INT_MAX seconds */
	{ "3551w", -1 },
	{ "24856d", -1 },
	{ "2147483647s1s", -1 },
	{ "99999999999999999999", -1 },
	{ "9223372036854775807", -1 },
};

static void
test_lifetimes(void)
{
	for (size_t i = 0; i < sizeof(lifetimes) / sizeof(lifetimes[0]); i++)
		is_int(parse_lifetime(lifetimes[i].in), lifetimes[i].want,
		    "lifetime \"%s\": %ld", lifetimes[i].in, lifetimes[i].want);
}

#define MAXARGS 8

enum chk {
	CK_NONE, CK_SHELL, CK_FG, CK_KILL, CK_CLEANUP, CK_FPHASH, CK_BIND,
	CK_LIFETIME, CK_COMMAND, CK_TEMPDIR, CK_NOCLEANUP, CK_VERSION, CK_REMOTE, CK_MANAGE,
	CK_WEBSAFE, CK_WEBSAFE_ALLOW, CK_PROVIDERS, CK_CONFIRM_TIMEOUT,
	CK_AUDIT_FACILITY, CK_AUDIT_TAG, CK_AUDIT_SOCKET, CK_AUDIT_KEY,
	CK_SESSION_LOCK, CK_SESSION_SUSPEND, CK_SESSION_NOTIFY, CK_SESSION_IDLE,
};

static const struct {
	const char *name;
	const char *argv[MAXARGS];      /* after argv[0] */
	const char *shell_env;          /* $SHELL */
	int rc;                         /* -1: parsed; else the exit status */
	enum chk chk;
	long val;
	const char *str;                /* string value, or the command's argv joined */
} cases[] = {
	{ "no options: Bourne output by default", { NULL }, "/bin/bash", -1, CK_SHELL,
	  SHELL_SH, NULL },
	{ "no options, $SHELL ends in csh: csh output", { NULL }, "/bin/tcsh", -1, CK_SHELL,
	  SHELL_CSH, NULL },
	{ "$SHELL \"csh\" itself: csh output", { NULL }, "csh", -1, CK_SHELL, SHELL_CSH, NULL },
	{ "-c: csh output", { "-c", NULL }, "/bin/bash", -1, CK_SHELL, SHELL_CSH, NULL },
	{ "-s: Bourne output even with a csh $SHELL", { "-s", NULL }, "/bin/csh", -1,
	  CK_SHELL, SHELL_SH, NULL },
	{ "-c -s: usage, exit 1", { "-c", "-s", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-s -c: usage, exit 1", { "-s", "-c", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-cs: usage, exit 1", { "-cs", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-d: debug, no fork", { "-d", NULL }, NULL, -1, CK_FG, FG_DEBUG, NULL },
	{ "-D: foreground", { "-D", NULL }, NULL, -1, CK_FG, FG_FOREGROUND, NULL },
	{ "-d -D: usage, exit 1", { "-d", "-D", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-D -d: usage, exit 1", { "-D", "-d", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-dD: usage, exit 1", { "-dD", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-d -d: usage, exit 1", { "-d", "-d", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-k: kill", { "-k", NULL }, NULL, -1, CK_KILL, 1, NULL },
	{ "-s -k: kill, Bourne output", { "-s", "-k", NULL }, NULL, -1, CK_KILL, 1, NULL },
	{ "-c -k: kill, csh output", { "-c", "-k", NULL }, "/bin/sh", -1, CK_SHELL, SHELL_CSH,
	  NULL },
	{ "-k with a command: usage, exit 1", { "-k", "sh", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-c with a command: usage, exit 1", { "-c", "sh", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-s with a command: usage, exit 1", { "-s", "sh", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-d with a command: usage, exit 1", { "-d", "sh", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-D with a command: usage, exit 1", { "-D", "sh", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-u with a command: usage, exit 1", { "-u", "sh", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-u: clean up only", { "-u", NULL }, NULL, -1, CK_CLEANUP, 1, NULL },
	{ "-uu: clean up for any host", { "-uu", NULL }, NULL, -1, CK_CLEANUP, 2, NULL },
	{ "-U: no stale clean-up", { "-U", NULL }, NULL, -1, CK_NOCLEANUP, 1, NULL },
	{ "-T: socket in a new temporary directory", { "-T", NULL }, NULL, -1, CK_TEMPDIR, 1,
	  NULL },
	{ "-V: version", { "-V", NULL }, NULL, -1, CK_VERSION, 1, NULL },
	{ "default fingerprint hash is sha256", { NULL }, NULL, -1, CK_FPHASH, 0, "sha256" },
	{ "-E md5", { "-E", "md5", NULL }, NULL, -1, CK_FPHASH, 0, "md5" },
	{ "-E sha1", { "-E", "sha1", NULL }, NULL, -1, CK_FPHASH, 0, "sha1" },
	{ "-E SHA256 (case-insensitive)", { "-E", "SHA256", NULL }, NULL, -1, CK_FPHASH, 0,
	  "sha256" },
	{ "-Esha384 (argument attached)", { "-Esha384", NULL }, NULL, -1, CK_FPHASH, 0,
	  "sha384" },
	{ "-E sha512", { "-E", "sha512", NULL }, NULL, -1, CK_FPHASH, 0, "sha512" },
	{ "-E blake2: fatal, exit 255", { "-E", "blake2", NULL }, NULL, 255, CK_NONE, 0, NULL },
	{ "-E \"\": fatal, exit 255", { "-E", "", NULL }, NULL, 255, CK_NONE, 0, NULL },
	{ "-E without its argument: usage, exit 1", { "-E", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-a PATH", { "-a", "/tmp/perseus.sock", NULL }, NULL, -1, CK_BIND, 0,
	  "/tmp/perseus.sock" },
	{ "no -t: no default lifetime", { NULL }, NULL, -1, CK_LIFETIME, -1, NULL },
	{ "-t 1h30m", { "-t", "1h30m", NULL }, NULL, -1, CK_LIFETIME, 5400, NULL },
	{ "-t 0: forever", { "-t", "0", NULL }, NULL, -1, CK_LIFETIME, 0, NULL },
	{ "-t x: invalid lifetime, usage, exit 1", { "-t", "x", NULL }, NULL, 1, CK_NONE, 0,
	  NULL },
	{ "-t 10q: usage, exit 1", { "-t", "10q", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "-O allow-remote-pkcs11", { "-O", "allow-remote-pkcs11", NULL }, NULL, -1, CK_REMOTE,
	  1, NULL },
	{ "-O allow-remote-manage", { "-O", "allow-remote-manage", NULL }, NULL, -1, CK_MANAGE,
	  1, NULL },
	{ "no -O allow-remote-manage: refused", { NULL }, NULL, -1, CK_MANAGE, 0, NULL },
	{ "-O no-restrict-websafe", { "-O", "no-restrict-websafe", NULL }, NULL, -1,
	  CK_WEBSAFE, 1, NULL },
	{ "-O websafe-allow=LIST", { "-O", "websafe-allow=ssh:*,https://x", NULL }, NULL, -1,
	  CK_WEBSAFE_ALLOW, 0, "ssh:*,https://x" },
	{ "no -O confirm-timeout: 60 s", { NULL }, NULL, -1, CK_CONFIRM_TIMEOUT, 60, NULL },
	{ "-O confirm-timeout=5", { "-O", "confirm-timeout=5", NULL }, NULL, -1,
	  CK_CONFIRM_TIMEOUT, 5, NULL },
	{ "-O confirm-timeout=2m: lifetime syntax", { "-O", "confirm-timeout=2m", NULL },
	  NULL, -1, CK_CONFIRM_TIMEOUT, 120, NULL },
	{ "-O confirm-timeout=0: fatal, exit 255", { "-O", "confirm-timeout=0", NULL },
	  NULL, 255, CK_NONE, 0, NULL },
	{ "-O confirm-timeout=x: fatal, exit 255", { "-O", "confirm-timeout=x", NULL },
	  NULL, 255, CK_NONE, 0, NULL },
	{ "-O confirm-timeout=2d: over a day, fatal, exit 255", { "-O",
	  "confirm-timeout=2d", NULL }, NULL, 255, CK_NONE, 0, NULL },
	{ "-O websafe-allow twice: fatal, exit 255", { "-O", "websafe-allow=a", "-O",
	  "websafe-allow=b", NULL }, NULL, 255, CK_NONE, 0, NULL },
	{ "-O bogus: \"Unknown -O option\", exit 255", { "-O", "bogus", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-P LIST", { "-P", "/usr/lib/*", NULL }, NULL, -1, CK_PROVIDERS, 0, "/usr/lib/*" },
	{ "-P twice: fatal, exit 255", { "-P", "/a", "-P", "/b", NULL }, NULL, 255, CK_NONE, 0,
	  NULL },
	{ "-x unknown option: usage, exit 1", { "-x", NULL }, NULL, 1, CK_NONE, 0, NULL },
	{ "command: the rest of argv", { "sh", "-c", "x -d", NULL }, NULL, -1, CK_COMMAND, 0,
	  "sh|-c|x -d" },
	{ "options stop at the first non-option (no permutation)", { "sh", "-d", NULL }, NULL,
	  -1, CK_FG, FG_NONE, NULL },
	{ "-T then a command that has its own -d", { "-T", "sh", "-d", NULL }, NULL, -1,
	  CK_COMMAND, 0, "sh|-d" },
	{ "-t 1h with a command", { "-t", "1h", "env", NULL }, NULL, -1, CK_COMMAND, 0, "env" },
	{ "-- then a command", { "--", "sh", NULL }, NULL, -1, CK_COMMAND, 0, "sh" },
	{ "-- then a command starting with -", { "--", "-d", NULL }, NULL, -1, CK_COMMAND, 0,
	  "-d" },
	{ "no command: command is NULL", { "-D", NULL }, NULL, -1, CK_COMMAND, 0, NULL },
	{ "audit facility authpriv by default", { NULL }, NULL, -1, CK_AUDIT_FACILITY,
	  10 << 3, NULL },
	{ "-O audit-facility=local5", { "-O", "audit-facility=local5", NULL }, NULL, -1,
	  CK_AUDIT_FACILITY, 21 << 3, NULL },
	{ "-O audit-facility=auth", { "-O", "audit-facility=auth", NULL }, NULL, -1,
	  CK_AUDIT_FACILITY, 4 << 3, NULL },
	{ "-O audit-facility=kern: fatal", { "-O", "audit-facility=kern", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O audit-facility=: fatal", { "-O", "audit-facility=", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O audit-tag=kw.audit_1", { "-O", "audit-tag=kw.audit_1", NULL }, NULL, -1,
	  CK_AUDIT_TAG, 0, "kw.audit_1" },
	{ "-O audit-tag with a space: fatal", { "-O", "audit-tag=a b", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O audit-tag with a colon: fatal", { "-O", "audit-tag=a:", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O audit-tag of 33 bytes: fatal",
	  { "-O", "audit-tag=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL }, NULL, 255, CK_NONE, 0,
	  NULL },
	{ "-O audit-tag=: fatal", { "-O", "audit-tag=", NULL }, NULL, 255, CK_NONE, 0, NULL },
	{ "-O audit-socket=/run/log", { "-O", "audit-socket=/run/log", NULL }, NULL, -1,
	  CK_AUDIT_SOCKET, 0, "/run/log" },
	{ "-O audit-socket relative: fatal", { "-O", "audit-socket=log", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O audit-socket too long: fatal", { "-O", "audit-socket=/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL },
	  NULL, 255, CK_NONE, 0, NULL },
	{ "-O audit-key=k", { "-O", "audit-key=k", NULL }, NULL, -1, CK_AUDIT_KEY, 0, "k" },
	{ "-O audit-key=: fatal", { "-O", "audit-key=", NULL }, NULL, 255, CK_NONE, 0, NULL },
	/* the session watch (keyward(1), SESSION WATCH): defaults, each word */
	{ "session-lock default: refuse-forwarded", { NULL }, NULL, -1, CK_SESSION_LOCK,
	  SESSION_LOCK_REFUSE_FORWARDED, NULL },
	{ "-O session-lock=lock", { "-O", "session-lock=lock", NULL }, NULL, -1,
	  CK_SESSION_LOCK, SESSION_LOCK_AGENT, NULL },
	{ "-O session-lock=ignore", { "-O", "session-lock=ignore", NULL }, NULL, -1,
	  CK_SESSION_LOCK, SESSION_LOCK_IGNORE, NULL },
	{ "-O session-lock=refuse-forwarded", { "-O", "session-lock=lock", "-O",
	  "session-lock=refuse-forwarded", NULL }, NULL, -1, CK_SESSION_LOCK,
	  SESSION_LOCK_REFUSE_FORWARDED, NULL },
	{ "-O session-lock=forget: fatal", { "-O", "session-lock=forget", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O session-lock=: fatal", { "-O", "session-lock=", NULL }, NULL, 255, CK_NONE, 0,
	  NULL },
	{ "-O session-lock (no value): fatal", { "-O", "session-lock", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "session-suspend default: forget", { NULL }, NULL, -1, CK_SESSION_SUSPEND,
	  SESSION_SUSPEND_FORGET, NULL },
	{ "-O session-suspend=lock", { "-O", "session-suspend=lock", NULL }, NULL, -1,
	  CK_SESSION_SUSPEND, SESSION_SUSPEND_LOCK, NULL },
	{ "-O session-suspend=ignore: fatal", { "-O", "session-suspend=ignore", NULL }, NULL,
	  255, CK_NONE, 0, NULL },
	{ "session-notify default: forwarded", { NULL }, NULL, -1, CK_SESSION_NOTIFY,
	  SESSION_NOTIFY_FORWARDED, NULL },
	{ "-O session-notify=all", { "-O", "session-notify=all", NULL }, NULL, -1,
	  CK_SESSION_NOTIFY, SESSION_NOTIFY_ALL, NULL },
	{ "-O session-notify=none", { "-O", "session-notify=none", NULL }, NULL, -1,
	  CK_SESSION_NOTIFY, SESSION_NOTIFY_NONE, NULL },
	{ "-O session-notify=All: fatal", { "-O", "session-notify=All", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "session-idle default: none", { NULL }, NULL, -1, CK_SESSION_IDLE, 0, NULL },
	{ "-O session-idle=15m", { "-O", "session-idle=15m", NULL }, NULL, -1,
	  CK_SESSION_IDLE, 900, NULL },
	{ "-O session-idle=1d: the most", { "-O", "session-idle=1d", NULL }, NULL, -1,
	  CK_SESSION_IDLE, 86400, NULL },
	{ "-O session-idle=1d1s: fatal", { "-O", "session-idle=1d1s", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O session-idle=x: fatal", { "-O", "session-idle=x", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
	{ "-O session-idle=: fatal", { "-O", "session-idle=", NULL }, NULL, 255,
	  CK_NONE, 0, NULL },
};

static int
check(int i, const struct options *o)
{
	char joined[256] = "";

	switch (cases[i].chk) {
	case CK_NONE: return 1;
	case CK_SHELL: return (long)o->shell == cases[i].val;
	case CK_FG: return (long)o->fg == cases[i].val;
	case CK_KILL: return o->kill == cases[i].val;
	case CK_CLEANUP: return o->cleanup_only == cases[i].val;
	case CK_NOCLEANUP: return o->no_cleanup == cases[i].val;
	case CK_TEMPDIR: return o->tempdir == cases[i].val;
	case CK_VERSION: return o->version == cases[i].val;
	case CK_REMOTE: return o->allow_remote_pkcs11 == cases[i].val;
	case CK_MANAGE: return o->allow_remote_manage == cases[i].val;
	case CK_WEBSAFE: return o->no_restrict_websafe == cases[i].val;
	case CK_FPHASH: return o->fp_hash != NULL && strcmp(o->fp_hash, cases[i].str) == 0;
	case CK_BIND:
		return o->bind_address != NULL && strcmp(o->bind_address, cases[i].str) == 0;
	case CK_WEBSAFE_ALLOW:
		return o->websafe_allow != NULL && strcmp(o->websafe_allow, cases[i].str) == 0;
	case CK_PROVIDERS:
		return o->allowed_providers != NULL &&
		    strcmp(o->allowed_providers, cases[i].str) == 0;
	case CK_LIFETIME: return o->default_lifetime == cases[i].val;
	case CK_CONFIRM_TIMEOUT: return o->confirm_timeout == cases[i].val;
	case CK_AUDIT_FACILITY: return o->audit_facility == cases[i].val;
	case CK_AUDIT_TAG:
		return o->audit_tag != NULL && strcmp(o->audit_tag, cases[i].str) == 0;
	case CK_AUDIT_SOCKET:
		return o->audit_socket != NULL && strcmp(o->audit_socket, cases[i].str) == 0;
	case CK_SESSION_LOCK: return o->session_lock == cases[i].val;
	case CK_SESSION_SUSPEND: return o->session_suspend == cases[i].val;
	case CK_SESSION_NOTIFY: return o->session_notify == cases[i].val;
	case CK_SESSION_IDLE: return o->session_idle == cases[i].val;
	case CK_AUDIT_KEY:
		return o->audit_key != NULL && strcmp(o->audit_key, cases[i].str) == 0;
	case CK_COMMAND:
		if (cases[i].str == NULL)
			return o->command == NULL;
		if (o->command == NULL)
			return 0;
		for (char **a = o->command; *a != NULL; a++) {
			if (a != o->command)
				strcat(joined, "|");
			strncat(joined, *a, sizeof(joined) - strlen(joined) - 2);
		}
		return strcmp(joined, cases[i].str) == 0;
	}
	return 0;
}

static void
test_options(void)
{
	int devnull = open("/dev/null", O_WRONLY), saved = dup(STDERR_FILENO);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[MAXARGS + 2];
		int argc = 0, rc;
		struct options o;

		argv[argc++] = (char *)"keyward";
		for (int j = 0; cases[i].argv[j] != NULL; j++)
			argv[argc++] = (char *)cases[i].argv[j];
		argv[argc] = NULL;
		if (cases[i].shell_env != NULL)
			setenv("SHELL", cases[i].shell_env, 1);
		else
			unsetenv("SHELL");
		optind = 0;             /* glibc: restart getopt from scratch */
		/* usage and fatal messages go to stderr: keep TAP output clean */
		fflush(stderr);
		dup2(devnull, STDERR_FILENO);
		rc = options_parse(argc, argv, &o);
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
		ok(rc == cases[i].rc && (rc != -1 || check((int)i, &o)),
		    "options: %s", cases[i].name);
		if (rc != cases[i].rc)
			printf("#   returned %d, want %d\n", rc, cases[i].rc);
	}
	close(devnull);
	close(saved);
}

int
main(void)
{
	test_lifetimes();
	test_options();
	return done_testing();
}
