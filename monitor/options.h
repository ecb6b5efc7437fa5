/*
 * options.h - keyward's command line, which is ssh-agent's (doc/protocol.md §11.1).
 */
#ifndef KEYWARD_OPTIONS_H
#define KEYWARD_OPTIONS_H

#include "ipc/limits.h"

enum shell_kind { SHELL_SH, SHELL_CSH };
enum fg_mode { FG_NONE, FG_FOREGROUND /* -D */, FG_DEBUG /* -d */ };

struct options {
	enum shell_kind shell;
	int shell_given;
	enum fg_mode fg;
	int kill;               /* -k */
	int cleanup_only;       /* -u count */
	int no_cleanup;         /* -U */
	int tempdir;            /* -T */
	int version;            /* -V */
	const char *bind_address;       /* -a */
	const char *fp_hash;            /* -E, validated */
	long default_lifetime;          /* -t, -1 if none, 0 = forever */
	const char *allowed_providers;  /* -P */
	int allow_remote_pkcs11, no_restrict_websafe;
	int allow_remote_manage;        /* -O allow-remote-manage */
	int allow_remote_add;           /* -O allow-remote-add */
	const char *websafe_allow;
	long confirm_timeout;           /* -O confirm-timeout=SECONDS */
	long touch_timeout;             /* -O touch-timeout=SECONDS */
	const char *audit;              /* -O audit=PATH|-|syslog, or NULL */
	int audit_sync;                 /* -O audit-sync=yes */
	long audit_facility;            /* -O audit-facility=NAME, LOG_AUTH... */
	const char *audit_tag;          /* -O audit-tag=TAG, or NULL */
	const char *audit_socket;       /* -O audit-socket=PATH, or NULL */
	const char *audit_key;          /* -O audit-key=FILE, or NULL */
	const char *policy_file;        /* -O policy=FILE: keyward(5) rules */
	int session_lock;               /* -O session-lock=, wire/args.h */
	int session_suspend;            /* -O session-suspend= */
	int session_notify;             /* -O session-notify= */
	long session_idle;              /* -O session-idle=, seconds; 0 none */
	char **command;                 /* argv of the command, or NULL */
};

/* Parse argv. Returns -1 when parsing succeeded, otherwise the exit status
 * the program must end with (after the message was printed). */
int options_parse(int argc, char **argv, struct options *o);
/* ssh-add/ssh-agent lifetime syntax: "90", "1h30m", "2d". -1 if invalid. */
long parse_lifetime(const char *s);
void usage(void);


#define KEYWARD_VERSION "0.1.0"

#endif
