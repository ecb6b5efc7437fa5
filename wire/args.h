/*
 * args.h - the argument lists keyward gives the programs it starts, each
 * with its encoder (used by the starter) and its decoder (used by the
 * started program) side by side. A helper is started by keyward, never by
 * hand: a list that does not decode whole is refused whole, so what runs
 * is what was tested.
 *
 *   keyward-policy    LOGLEVEL HASH LIFETIME CONFIRM AUDIT SYNC
 *                     PROVIDERS REMOTE WEBSAFE WEBSAFE_LIST TOUCH MANAGE
 *                     AUDIT_FACILITY AUDIT_TAG AUDIT_SOCKET AUDIT_KEY ADD
 *                     SESSION_LOCK SESSION_SUSPEND SESSION_NOTIFY
 *                     SESSION_IDLE
 *   keyward-keyholder LOGLEVEL
 *   keyward-sk        LOGLEVEL PROVIDER
 *   keyward-pkcs11    LOGLEVEL PROVIDER
 *   keyward-peer      LOGLEVEL
 *   keyward-broker    LOGLEVEL TOUCH
 *   keyward-prompter  LOGLEVEL CONFIRM
 *   keyward-auditor   LOGLEVEL AUDIT SYNC AUDIT_FACILITY AUDIT_TAG
 *                     AUDIT_SOCKET AUDIT_KEY
 *   keyward-session   LOGLEVEL AGENT_PID
 *
 * LOGLEVEL debug|info; HASH a fingerprint hash name (doc/protocol.md §4.5);
 * LIFETIME -1 (none) or seconds; CONFIRM seconds; AUDIT none|fd|syslog
 * (fd: the trail is fd 5); SYNC sync|nosync; PROVIDERS the -P pattern
 * list; REMOTE remote-providers|local-providers (-O allow-remote-pkcs11);
 * WEBSAFE restrict|any (-O no-restrict-websafe); WEBSAFE_LIST the pattern
 * list of -O websafe-allow; TOUCH seconds a token may wait for a touch
 * (-O touch-timeout); MANAGE remote-manage|local-manage (-O
 * allow-remote-manage); PROVIDER "internal" or an absolute path (keyward-sk),
 * an absolute path (keyward-pkcs11); AUDIT_FACILITY the syslog facility
 * number (-O audit-facility); AUDIT_TAG the syslog tag (-O audit-tag);
 * AUDIT_SOCKET the absolute path of the syslog socket (-O audit-socket);
 * AUDIT_KEY "-" or the absolute path of the audit key file (-O audit-key);
 * ADD remote-add|local-add (-O allow-remote-add).
 * SESSION_LOCK refuse-forwarded|lock|ignore (-O session-lock);
 * SESSION_SUSPEND forget|lock (-O session-suspend); SESSION_NOTIFY
 * forwarded|all|none (-O session-notify); SESSION_IDLE seconds, 0 none
 * (-O session-idle).
 * keyward-policy starts the last three with what they need of its own
 * list: the auditor's AUDIT is fd (the trail is its fd 4) or syslog.
 * AGENT_PID: the agent's (the monitor's) pid, whose logind session the
 * session watcher follows when $XDG_SESSION_ID is not set.
 */
#ifndef KEYWARD_ARGS_H
#define KEYWARD_ARGS_H

#include "ipc/limits.h"

#define ARGS_NUM_LEN      24

/* Defaults of ssh-agent (doc/protocol.md §11.1, §8.9). */
#define PROVIDERS_DEFAULT "/usr/lib*/*,/usr/local/lib*/*"
#define WEBSAFE_DEFAULT   "ssh:*"
/* -O audit=syslog: where records go unless -O audit-tag/-socket say. */
#define AUDIT_TAG_DEFAULT    "keyward-audit"
#define AUDIT_SOCKET_DEFAULT "/dev/log"
#define AUDIT_SOCKET_MAX     108        /* sun_path, with its NUL */

enum audit_mode { AUDIT_NONE, AUDIT_FD, AUDIT_SYSLOG };

/* What the session's facts change (keyward(1), SESSION WATCH). */
enum session_lock_mode {        /* -O session-lock: the screen is locked */
	SESSION_LOCK_REFUSE_FORWARDED = 0,      /* the default */
	SESSION_LOCK_AGENT,             /* every request, as a locked agent */
	SESSION_LOCK_IGNORE,
};
enum session_suspend_mode {     /* -O session-suspend: suspend, logout */
	SESSION_SUSPEND_FORGET = 0,     /* keys added without a token */
	SESSION_SUSPEND_LOCK,           /* until the session is unlocked */
};
enum session_notify_mode {      /* -O session-notify: which signatures */
	SESSION_NOTIFY_FORWARDED = 0,
	SESSION_NOTIFY_ALL,
	SESSION_NOTIFY_NONE,
};

struct policy_args {
	int debug;
	const char *fp_hash;
	long default_lifetime;          /* -1: none */
	long confirm_timeout;           /* seconds */
	enum audit_mode audit;
	int audit_sync;
	const char *providers;          /* -P */
	int allow_remote_providers;     /* -O allow-remote-pkcs11 */
	int restrict_websafe;           /* not -O no-restrict-websafe */
	const char *websafe_allow;      /* -O websafe-allow */
	long touch_timeout;             /* -O touch-timeout, seconds */
	int allow_remote_manage;        /* -O allow-remote-manage */
	long audit_facility;            /* -O audit-facility, LOG_AUTH... */
	const char *audit_tag;          /* -O audit-tag */
	const char *audit_socket;       /* -O audit-socket */
	const char *audit_key;          /* -O audit-key, or NULL */
	int allow_remote_add;           /* -O allow-remote-add */
	enum session_lock_mode session_lock;            /* -O session-lock */
	enum session_suspend_mode session_suspend;      /* -O session-suspend */
	enum session_notify_mode session_notify;        /* -O session-notify */
	long session_idle;              /* -O session-idle, seconds; 0 none */
};

struct keyholder_args {
	int debug;
};

struct sk_args {
	int debug;
	const char *provider;           /* "internal" or an absolute path */
};

struct pkcs11_args {
	int debug;
	const char *provider;           /* an absolute path */
};

struct peer_args {
	int debug;
};

struct broker_args {
	int debug;
	long touch_timeout;             /* seconds a token may wait for a touch */
};

struct prompter_args {
	int debug;
	long confirm_timeout;           /* seconds a prompt may stay open */
};

struct auditor_args {
	int debug;
	enum audit_mode audit;          /* AUDIT_FD or AUDIT_SYSLOG */
	int audit_sync;
	long audit_facility;
	const char *audit_tag;
	const char *audit_socket;
	const char *audit_key;          /* or NULL */
};

struct session_args {
	int debug;
	long agent_pid;
};

/* Where an encoded list lives: argv points into num[] and the struct. */
struct args_buf {
	char num[HELPER_ARGS_NUMS][ARGS_NUM_LEN];
	char *argv[HELPER_ARGS_MAX];
};

/* -O audit-tag: 1 to AUDIT_TAG_MAX of [A-Za-z0-9._-]: 0, or -1. */
int audit_tag_ok(const char *s);

/* A pattern list (-P, -O websafe-allow): no control character; a space
 * is a path's own ("/opt/my lib/x"), and an empty list, as ssh-agent
 * takes it, matches nothing. 0, or -1. */
int args_pattern_list_ok(const char *s);

/* The words of -O session-lock, -session-suspend, -session-notify
 * (and of policy's list), indexed by their enums; NULL-ended. */
extern const char *const args_session_lock_words[];
extern const char *const args_session_suspend_words[];
extern const char *const args_session_notify_words[];
/* s's index in words (NULL-ended), or -1. */
int args_word_index(const char *const *words, const char *s);

/* LOGLEVEL: 1 debug, 0 info, -1 neither. */
int args_level(const char *s);

char **args_policy_encode(const struct policy_args *a, struct args_buf *b);
int args_policy_decode(int argc, char *const *argv, struct policy_args *a);
char **args_keyholder_encode(const struct keyholder_args *a, struct args_buf *b);
int args_keyholder_decode(int argc, char *const *argv, struct keyholder_args *a);
char **args_sk_encode(const struct sk_args *a, struct args_buf *b);
int args_sk_decode(int argc, char *const *argv, struct sk_args *a);
char **args_pkcs11_encode(const struct pkcs11_args *a, struct args_buf *b);
int args_pkcs11_decode(int argc, char *const *argv, struct pkcs11_args *a);
char **args_peer_encode(const struct peer_args *a, struct args_buf *b);
int args_peer_decode(int argc, char *const *argv, struct peer_args *a);
char **args_broker_encode(const struct broker_args *a, struct args_buf *b);
int args_broker_decode(int argc, char *const *argv, struct broker_args *a);
char **args_prompter_encode(const struct prompter_args *a, struct args_buf *b);
int args_prompter_decode(int argc, char *const *argv, struct prompter_args *a);
char **args_auditor_encode(const struct auditor_args *a, struct args_buf *b);
int args_auditor_decode(int argc, char *const *argv, struct auditor_args *a);
char **args_session_encode(const struct session_args *a, struct args_buf *b);
int args_session_decode(int argc, char *const *argv, struct session_args *a);

#endif
