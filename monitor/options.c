/*
 * options.c - ssh-agent's options, parsed the way ssh-agent parses them:
 * BSD getopt semantics (stop at the first non-option), the same usage
 * errors and exit statuses (doc/protocol.md §11.1, §11.9).
 */
#include "monitor/options.h"
#include "wire/args.h"
#include "keys/fphash.h"

#include <ctype.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
usage(void)
{
	fprintf(stderr,
	    "usage: keyward [-c | -s] [-DdTU] [-a bind_address] [-E fingerprint_hash]\n"
	    "               [-O option] [-P allowed_providers] [-t life]\n"
	    "       keyward [-TU] [-a bind_address] [-E fingerprint_hash] [-O option]\n"
	    "               [-P allowed_providers] [-t life] command [arg ...]\n"
	    "       keyward [-c | -s] -k\n"
	    "       keyward -u\n"
	    "       keyward -V\n");
}

/* -O audit-facility=NAME: the facilities an audit trail may go to. */
static long
audit_facility(const char *s)
{
	static const struct {
		const char *name;
		long value;
	} f[] = {
		{ "auth", 4 << 3 }, { "authpriv", 10 << 3 }, { "daemon", 3 << 3 },
		{ "user", 1 << 3 }, { "local0", 16 << 3 }, { "local1", 17 << 3 },
		{ "local2", 18 << 3 }, { "local3", 19 << 3 }, { "local4", 20 << 3 },
		{ "local5", 21 << 3 }, { "local6", 22 << 3 }, { "local7", 23 << 3 },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(s, f[i].name) == 0)
			return f[i].value;
	return -1;
}

long
parse_lifetime(const char *s)
{
	long total = 0, n, mult;
	const char *p = s;
	char *end;

	if (*p == '\0')
		return -1;
	while (*p != '\0') {
		if (!isdigit((unsigned char)*p))
			return -1;
		n = strtol(p, &end, 10);
		if (n < 0 || n == LONG_MAX)
			return -1;
		switch (tolower((unsigned char)*end)) {
		case '\0': mult = 1; end--; break;
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		case 'w': mult = 604800; break;
		default: return -1;
		}
		if (n > (INT_MAX - total) / mult)
			return -1;
		total += n * mult;
		p = end + 1;
	}
	return total;
}

/* -O's options (doc/protocol.md §11.1), one row each: adding one is a
 * row and, for a value, its setter. A setter gets the text after '=' and
 * returns NULL when it took it, "" when the value is not one the option
 * takes (keyward says "Invalid value for -O NAME"), or its own message. A
 * flag has no setter and sets its int in struct options. */
struct o_option {
	const char *name;
	const char *(*set)(struct options *o, const char *value);
	size_t flag;            /* offsetof the int a flag sets */
};

/* A value that must not be empty. */
static const char *
set_audit(struct options *o, const char *v)
{
	if (*v == '\0')
		return "";
	o->audit = v;
	return NULL;
}

static const char *
set_audit_sync(struct options *o, const char *v)
{
	if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
		return "";
	o->audit_sync = *v == 'y';
	return NULL;
}

static const char *
set_audit_facility(struct options *o, const char *v)
{
	if ((o->audit_facility = audit_facility(v)) < 0)
		return "Invalid audit-facility";
	return NULL;
}

static const char *
set_audit_tag(struct options *o, const char *v)
{
	if (audit_tag_ok(v) != 0)
		return "Invalid audit-tag";
	o->audit_tag = v;
	return NULL;
}

static const char *
set_audit_socket(struct options *o, const char *v)
{
	if (*v != '/' || strlen(v) >= AUDIT_SOCKET_MAX)
		return "Invalid audit-socket";
	o->audit_socket = v;
	return NULL;
}

static const char *
set_audit_key(struct options *o, const char *v)
{
	if (*v == '\0')
		return "";
	o->audit_key = v;
	return NULL;
}

static const char *
set_policy(struct options *o, const char *v)
{
	if (*v == '\0')
		return "";
	if (o->policy_file != NULL)
		return "policy already set";
	o->policy_file = v;
	return NULL;
}

/* A time in lifetime syntax, 1 s to CONFIRM_TIMEOUT_MAX. */
static const char *
set_timeout(long *out, const char *v, const char *why)
{
	*out = parse_lifetime(v);
	return *out <= 0 || *out > CONFIRM_TIMEOUT_MAX ? why : NULL;
}

static const char *
set_confirm_timeout(struct options *o, const char *v)
{
	return set_timeout(&o->confirm_timeout, v, "Invalid confirm-timeout");
}

static const char *
set_touch_timeout(struct options *o, const char *v)
{
	return set_timeout(&o->touch_timeout, v, "Invalid touch-timeout");
}

static const char *
set_websafe_allow(struct options *o, const char *v)
{
	if (o->websafe_allow != NULL)
		return "websafe-allow already set";
	if (args_pattern_list_ok(v) != 0)
		return "Invalid value for -O websafe-allow: a control character "
		    "in the pattern list";
	o->websafe_allow = v;
	return NULL;
}

/* The session watch (keyward(1) SESSION WATCH): one word of its list. */
static const char *
set_word(int *out, const char *const *words, const char *v)
{
	return (*out = args_word_index(words, v)) < 0 ? "" : NULL;
}

static const char *
set_session_lock(struct options *o, const char *v)
{
	return set_word(&o->session_lock, args_session_lock_words, v);
}

static const char *
set_session_suspend(struct options *o, const char *v)
{
	return set_word(&o->session_suspend, args_session_suspend_words, v);
}

static const char *
set_session_notify(struct options *o, const char *v)
{
	return set_word(&o->session_notify, args_session_notify_words, v);
}

/* A duration in lifetime syntax, 0 (off) to SESSION_IDLE_MAX_S. */
static const char *
set_session_idle(struct options *o, const char *v)
{
	o->session_idle = parse_lifetime(v);
	return o->session_idle < 0 || o->session_idle > SESSION_IDLE_MAX_S ?
	    "" : NULL;
}

#define O_FLAG(name, field) { name, NULL, offsetof(struct options, field) }

static const struct o_option o_options[] = {
	O_FLAG("allow-remote-pkcs11", allow_remote_pkcs11),
	O_FLAG("allow-remote-manage", allow_remote_manage),
	O_FLAG("allow-remote-add", allow_remote_add),
	O_FLAG("no-restrict-websafe", no_restrict_websafe),
	{ "confirm-timeout", set_confirm_timeout, 0 },
	{ "touch-timeout", set_touch_timeout, 0 },
	{ "audit", set_audit, 0 },
	{ "audit-sync", set_audit_sync, 0 },
	{ "audit-facility", set_audit_facility, 0 },
	{ "audit-tag", set_audit_tag, 0 },
	{ "audit-socket", set_audit_socket, 0 },
	{ "audit-key", set_audit_key, 0 },
	{ "policy", set_policy, 0 },
	{ "websafe-allow", set_websafe_allow, 0 },
	{ "session-lock", set_session_lock, 0 },
	{ "session-suspend", set_session_suspend, 0 },
	{ "session-notify", set_session_notify, 0 },
	{ "session-idle", set_session_idle, 0 },
};

/* One -O argument: NAME for a flag, NAME=VALUE for the others. -1 when
 * taken, else 255 once the message is printed. */
static int
o_arg(struct options *o, const char *arg)
{
	const char *eq = strchr(arg, '='), *why;
	size_t n = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	const struct o_option *opt = NULL;

	for (size_t i = 0; i < sizeof(o_options) / sizeof(o_options[0]); i++)
		if (strlen(o_options[i].name) == n &&
		    strncmp(arg, o_options[i].name, n) == 0)
			opt = &o_options[i];
	if (opt == NULL || (eq == NULL && opt->set != NULL)) {
		fprintf(stderr, "keyward: Unknown -O option\n");
		return 255;
	}
	if (opt->set == NULL && eq == NULL) {
		*(int *)(void *)((char *)o + opt->flag) = 1;
		return -1;
	}
	/* a flag with a value is a value it does not take */
	why = opt->set != NULL ? opt->set(o, eq + 1) : "";
	if (why == NULL)
		return -1;
	if (*why == '\0')
		fprintf(stderr, "keyward: Invalid value for -O %.*s\n", (int)n, arg);
	else
		fprintf(stderr, "keyward: %s\n", why);
	return 255;
}

/* What holds before the first option. */
static void
defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->fp_hash = "sha256";
	o->default_lifetime = -1;
	o->confirm_timeout = CONFIRM_TIMEOUT_DEFAULT;
	o->touch_timeout = TOKEN_TOUCH_TIMEOUT_DEFAULT;
	o->audit_facility = 10 << 3;    /* LOG_AUTHPRIV: records name users */
}

/* -P: once, and no control character in its patterns. */
static int
o_providers(struct options *o, const char *arg)
{
	if (o->allowed_providers != NULL) {
		fprintf(stderr, "keyward: -P option already specified\n");
		return 255;
	}
	if (args_pattern_list_ok(arg) != 0) {
		fprintf(stderr, "keyward: Invalid -P: a control "
		    "character in the pattern list\n");
		return 255;
	}
	o->allowed_providers = arg;
	return -1;
}

/* A usage error, said: the usage, and exit status 1. */
static int
usage_error(void)
{
	usage();
	return 1;
}

/* One option letter of getopt's: -1 when taken, else the exit status. */
static int
letter(struct options *o, int ch, int *c_flag, int *s_flag)
{
	switch (ch) {
	case 'c': *c_flag = 1; break;
	case 's': *s_flag = 1; break;
	case 'D':
	case 'd':
		if (o->fg != FG_NONE)
			return usage_error();
		o->fg = ch == 'd' ? FG_DEBUG : FG_FOREGROUND;
		break;
	case 'k': o->kill = 1; break;
	case 'T': o->tempdir = 1; break;
	case 'u': o->cleanup_only++; break;
	case 'U': o->no_cleanup = 1; break;
	case 'V': o->version = 1; break;
	case 'a': o->bind_address = optarg; break;
	case 'E':
		if ((o->fp_hash = fp_hash_parse(optarg)) == NULL) {
			fprintf(stderr, "keyward: Invalid hash algorithm \"%s\"\n", optarg);
			return 255;
		}
		break;
	case 'O': return o_arg(o, optarg);
	case 'P': return o_providers(o, optarg);
	case 't':
		if ((o->default_lifetime = parse_lifetime(optarg)) < 0) {
			fprintf(stderr, "keyward: Invalid lifetime\n");
			return usage_error();
		}
		break;
	case ':':
		/* ssh-agent's words for these two, before its usage */
		fprintf(stderr, "option requires an argument -- %c\n", optopt);
		return usage_error();
	default:
		fprintf(stderr, "unknown option -- %c\n", optopt);
		return usage_error();
	}
	return -1;
}

int
options_parse(int argc, char **argv, struct options *o)
{
	const char *shell;
	int ch, rc, s_flag = 0, c_flag = 0;

	defaults(o);
	opterr = 0;
	while ((ch = getopt(argc, argv, "+:cDdksTuUVE:a:O:P:t:")) != -1)
		if ((rc = letter(o, ch, &c_flag, &s_flag)) != -1)
			return rc;
	if (c_flag && s_flag)
		return usage_error();
	if (optind < argc) {
		if (c_flag || s_flag || o->kill || o->fg != FG_NONE ||
		    o->cleanup_only)
			return usage_error();
		o->command = argv + optind;
	}
	if (c_flag || s_flag) {
		o->shell = c_flag ? SHELL_CSH : SHELL_SH;
		o->shell_given = 1;
	} else {
		shell = getenv("SHELL");
		o->shell = shell != NULL && strlen(shell) >= 3 &&
		    strcmp(shell + strlen(shell) - 3, "csh") == 0 ?
		    SHELL_CSH : SHELL_SH;
	}
	return -1;
}
