/*
 * options.c - ssh-agent's options, parsed the way ssh-agent parses them:
 * BSD getopt semantics (stop at the first non-option), the same usage
 * errors and exit statuses (doc/protocol.md §11.1, §11.9).
 */
#include "monitor/options.h"
#include "wire/args.h"
#include "keys/fphash.h"

#include <ctype.h>
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

/* An -O option keyward knows, by its name (the part before any '='). */
static int
known_option(const char *s, size_t n)
{
	static const char *const names[] = {
		"audit", "audit-sync", "audit-facility", "audit-tag",
		"audit-socket", "audit-key", "policy", "confirm-timeout",
		"touch-timeout", "allow-remote-pkcs11", "allow-remote-manage",
		"allow-remote-add",
		"no-restrict-websafe", "websafe-allow",
		"session-lock", "session-suspend", "session-notify",
		"session-idle",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && strncmp(s, names[i], n) == 0)
			return 1;
	return 0;
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

int
options_parse(int argc, char **argv, struct options *o)
{
	const char *shell;
	int ch, s_flag = 0, c_flag = 0;

	memset(o, 0, sizeof(*o));
	o->fp_hash = "sha256";
	o->default_lifetime = -1;
	o->confirm_timeout = CONFIRM_TIMEOUT_DEFAULT;
	o->touch_timeout = TOKEN_TOUCH_TIMEOUT_DEFAULT;
	o->audit_facility = 10 << 3;    /* LOG_AUTHPRIV: records name users */
	opterr = 0;
	while ((ch = getopt(argc, argv, "+:cDdksTuUVE:a:O:P:t:")) != -1) {
		switch (ch) {
		case 'c': c_flag = 1; break;
		case 's': s_flag = 1; break;
		case 'D':
		case 'd':
			if (o->fg != FG_NONE) {
				usage();
				return 1;
			}
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
		case 'O':
			if (strcmp(optarg, "allow-remote-pkcs11") == 0)
				o->allow_remote_pkcs11 = 1;
			else if (strcmp(optarg, "allow-remote-manage") == 0)
				o->allow_remote_manage = 1;
			else if (strcmp(optarg, "allow-remote-add") == 0)
				o->allow_remote_add = 1;
			else if (strcmp(optarg, "no-restrict-websafe") == 0)
				o->no_restrict_websafe = 1;
			else if (strncmp(optarg, "confirm-timeout=", 16) == 0) {
				o->confirm_timeout = parse_lifetime(optarg + 16);
				if (o->confirm_timeout <= 0 ||
				    o->confirm_timeout > CONFIRM_TIMEOUT_MAX) {
					fprintf(stderr, "keyward: Invalid confirm-timeout\n");
					return 255;
				}
			} else if (strncmp(optarg, "touch-timeout=", 14) == 0) {
				o->touch_timeout = parse_lifetime(optarg + 14);
				if (o->touch_timeout <= 0 ||
				    o->touch_timeout > CONFIRM_TIMEOUT_MAX) {
					fprintf(stderr, "keyward: Invalid touch-timeout\n");
					return 255;
				}
			} else if (strncmp(optarg, "audit=", 6) == 0 && optarg[6] != '\0') {
				o->audit = optarg + 6;
			} else if (strcmp(optarg, "audit-sync=yes") == 0 ||
			    strcmp(optarg, "audit-sync=no") == 0) {
				o->audit_sync = optarg[11] == 'y';
			} else if (strncmp(optarg, "audit-facility=", 15) == 0) {
				if ((o->audit_facility = audit_facility(optarg + 15)) < 0) {
					fprintf(stderr, "keyward: Invalid audit-facility\n");
					return 255;
				}
			} else if (strncmp(optarg, "audit-tag=", 10) == 0) {
				if (audit_tag_ok(optarg + 10) != 0) {
					fprintf(stderr, "keyward: Invalid audit-tag\n");
					return 255;
				}
				o->audit_tag = optarg + 10;
			} else if (strncmp(optarg, "audit-socket=", 13) == 0) {
				if (optarg[13] != '/' ||
				    strlen(optarg + 13) >= AUDIT_SOCKET_MAX) {
					fprintf(stderr, "keyward: Invalid audit-socket\n");
					return 255;
				}
				o->audit_socket = optarg + 13;
			} else if (strncmp(optarg, "audit-key=", 10) == 0 &&
			    optarg[10] != '\0') {
				o->audit_key = optarg + 10;
			} else if (strncmp(optarg, "policy=", 7) == 0 &&
			    optarg[7] != '\0') {
				if (o->policy_file != NULL) {
					fprintf(stderr, "keyward: policy already set\n");
					return 255;
				}
				o->policy_file = optarg + 7;
			} else if (strncmp(optarg, "session-lock=", 13) == 0 &&
			    (o->session_lock = args_word_index(
			    args_session_lock_words, optarg + 13)) >= 0) {
				;
			} else if (strncmp(optarg, "session-suspend=", 16) == 0 &&
			    (o->session_suspend = args_word_index(
			    args_session_suspend_words, optarg + 16)) >= 0) {
				;
			} else if (strncmp(optarg, "session-notify=", 15) == 0 &&
			    (o->session_notify = args_word_index(
			    args_session_notify_words, optarg + 15)) >= 0) {
				;
			} else if (strncmp(optarg, "session-idle=", 13) == 0 &&
			    (o->session_idle = parse_lifetime(optarg + 13)) >= 0 &&
			    o->session_idle <= SESSION_IDLE_MAX_S) {
				;
			} else if (strncmp(optarg, "websafe-allow=", 14) == 0) {
				if (o->websafe_allow != NULL) {
					fprintf(stderr, "keyward: websafe-allow already set\n");
					return 255;
				}
				if (args_pattern_list_ok(optarg + 14) != 0) {
					fprintf(stderr, "keyward: Invalid value for -O "
					    "websafe-allow: a control character in "
					    "the pattern list\n");
					return 255;
				}
				o->websafe_allow = optarg + 14;
			} else if (strchr(optarg, '=') != NULL && known_option(optarg,
			    (size_t)(strchr(optarg, '=') - optarg))) {
				/* a known option with a bad or empty value, or a
				 * value where it takes none: say which */
				fprintf(stderr, "keyward: Invalid value for -O %.*s\n",
				    (int)(strchr(optarg, '=') - optarg), optarg);
				return 255;
			} else {
				fprintf(stderr, "keyward: Unknown -O option\n");
				return 255;
			}
			break;
		case 'P':
			if (o->allowed_providers != NULL) {
				fprintf(stderr, "keyward: -P option already specified\n");
				return 255;
			}
			if (args_pattern_list_ok(optarg) != 0) {
				fprintf(stderr, "keyward: Invalid -P: a control "
				    "character in the pattern list\n");
				return 255;
			}
			o->allowed_providers = optarg;
			break;
		case 't':
			if ((o->default_lifetime = parse_lifetime(optarg)) < 0) {
				fprintf(stderr, "keyward: Invalid lifetime\n");
				usage();
				return 1;
			}
			break;
		case ':':
			/* ssh-agent's words for these two, before its usage */
			fprintf(stderr, "option requires an argument -- %c\n", optopt);
			usage();
			return 1;
		default:
			fprintf(stderr, "unknown option -- %c\n", optopt);
			usage();
			return 1;
		}
	}
	if (c_flag && s_flag) {
		usage();
		return 1;
	}
	if (optind < argc) {
		if (c_flag || s_flag || o->kill || o->fg != FG_NONE ||
		    o->cleanup_only) {
			usage();
			return 1;
		}
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
