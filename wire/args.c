/*
 * args.c - helper argument lists (args.h): encoders and decoders.
 */
#include "wire/args.h"
#include "keys/fphash.h"
#include "ipc/limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const audit_names[] = {
	[AUDIT_NONE] = "none", [AUDIT_FD] = "fd", [AUDIT_SYSLOG] = "syslog",
};

const char *const args_session_lock_words[] = {
	[SESSION_LOCK_REFUSE_FORWARDED] = "refuse-forwarded",
	[SESSION_LOCK_AGENT] = "lock", [SESSION_LOCK_IGNORE] = "ignore", NULL,
};
const char *const args_session_suspend_words[] = {
	[SESSION_SUSPEND_FORGET] = "forget", [SESSION_SUSPEND_LOCK] = "lock",
	NULL,
};
const char *const args_session_notify_words[] = {
	[SESSION_NOTIFY_FORWARDED] = "forwarded", [SESSION_NOTIFY_ALL] = "all",
	[SESSION_NOTIFY_NONE] = "none", NULL,
};

int
args_word_index(const char *const *words, const char *s)
{
	for (int i = 0; words[i] != NULL; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return -1;
}

/* The encoders copy a list on the stack into b->argv: it must fit. */
#define FITS(v) _Static_assert(sizeof(v) / sizeof((v)[0]) <= HELPER_ARGS_MAX, \
	"a helper argument list longer than HELPER_ARGS_MAX")

/* One of two words: 1 for yes, 0 for no, -1 for neither. */
static int
word(const char *s, const char *yes, const char *no)
{
	if (strcmp(s, yes) == 0)
		return 1;
	if (strcmp(s, no) == 0)
		return 0;
	return -1;
}

int
args_level(const char *s)
{
	return word(s, "debug", "info");
}

/* A decimal number in [lo, hi], all of s. */
static int
number(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int
args_pattern_list_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return -1;
	return 0;
}

static int
pattern_list(const char *s)
{
	return args_pattern_list_ok(s);
}

int
audit_tag_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > AUDIT_TAG_MAX)
		return -1;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return -1;
	return 0;
}

/* AUDIT: its mode, or -1. */
static int
audit_mode(const char *s)
{
	for (int n = 0; n < 3; n++)
		if (strcmp(s, audit_names[n]) == 0)
			return n;
	return -1;
}

/* AUDIT_FACILITY AUDIT_TAG AUDIT_SOCKET AUDIT_KEY, at v[0..3]: of policy's
 * list and the auditor's alike. */
static int
audit_fields(char *const *v, long *facility)
{
	if (number(v[0], 0, 23L << 3, facility) != 0 || (*facility & 7) != 0 ||
	    audit_tag_ok(v[1]) != 0 ||
	    v[2][0] != '/' || strlen(v[2]) >= AUDIT_SOCKET_MAX ||
	    (strcmp(v[3], "-") != 0 && v[3][0] != '/'))
		return -1;
	return 0;
}

char **
args_policy_encode(const struct policy_args *a, struct args_buf *b)
{
	snprintf(b->num[0], sizeof(b->num[0]), "%ld", a->default_lifetime);
	snprintf(b->num[1], sizeof(b->num[1]), "%ld", a->confirm_timeout);
	snprintf(b->num[2], sizeof(b->num[2]), "%ld", a->touch_timeout);
	snprintf(b->num[3], sizeof(b->num[3]), "%ld", a->audit_facility);
	snprintf(b->num[4], sizeof(b->num[4]), "%ld", a->session_idle);
	char *v[] = { "keyward-policy", a->debug ? "debug" : "info",
	    (char *)a->fp_hash, b->num[0], b->num[1],
	    (char *)audit_names[a->audit], a->audit_sync ? "sync" : "nosync",
	    (char *)a->providers,
	    a->allow_remote_providers ? "remote-providers" : "local-providers",
	    a->restrict_websafe ? "restrict" : "any",
	    (char *)a->websafe_allow, b->num[2],
	    a->allow_remote_manage ? "remote-manage" : "local-manage", b->num[3],
	    (char *)(a->audit_tag != NULL ? a->audit_tag : AUDIT_TAG_DEFAULT),
	    (char *)(a->audit_socket != NULL ? a->audit_socket : AUDIT_SOCKET_DEFAULT),
	    (char *)(a->audit_key != NULL ? a->audit_key : "-"),
	    a->allow_remote_add ? "remote-add" : "local-add",
	    (char *)args_session_lock_words[a->session_lock],
	    (char *)args_session_suspend_words[a->session_suspend],
	    (char *)args_session_notify_words[a->session_notify], b->num[4],
	    NULL };
	FITS(v);
	memcpy(b->argv, v, sizeof(v));
	return b->argv;
}

int
args_policy_decode(int argc, char *const *argv, struct policy_args *a)
{
	int n, lock, suspend, notify;

	memset(a, 0, sizeof(*a));
	if (argc != 22 || (a->debug = word(argv[1], "debug", "info")) < 0 ||
	    fp_hash_find(argv[2]) == NULL ||
	    number(argv[3], -1, (long)AGENT_MAX_LIFETIME, &a->default_lifetime) != 0 ||
	    number(argv[4], 1, CONFIRM_TIMEOUT_MAX, &a->confirm_timeout) != 0 ||
	    (a->audit_sync = word(argv[6], "sync", "nosync")) < 0 ||
	    pattern_list(argv[7]) != 0 ||
	    (a->allow_remote_providers = word(argv[8], "remote-providers",
	    "local-providers")) < 0 ||
	    (a->restrict_websafe = word(argv[9], "restrict", "any")) < 0 ||
	    pattern_list(argv[10]) != 0 ||
	    number(argv[11], 1, CONFIRM_TIMEOUT_MAX, &a->touch_timeout) != 0 ||
	    (a->allow_remote_manage = word(argv[12], "remote-manage",
	    "local-manage")) < 0 ||
	    audit_fields(argv + 13, &a->audit_facility) != 0 ||
	    (a->allow_remote_add = word(argv[17], "remote-add", "local-add")) < 0 ||
	    (lock = args_word_index(args_session_lock_words, argv[18])) < 0 ||
	    (suspend = args_word_index(args_session_suspend_words, argv[19])) < 0 ||
	    (notify = args_word_index(args_session_notify_words, argv[20])) < 0 ||
	    number(argv[21], 0, SESSION_IDLE_MAX_S, &a->session_idle) != 0 ||
	    (n = audit_mode(argv[5])) < 0)
		return -1;
	a->audit = (enum audit_mode)n;
	a->session_lock = (enum session_lock_mode)lock;
	a->session_suspend = (enum session_suspend_mode)suspend;
	a->session_notify = (enum session_notify_mode)notify;
	a->fp_hash = argv[2];
	a->providers = argv[7];
	a->websafe_allow = argv[10];
	a->audit_tag = argv[14];
	a->audit_socket = argv[15];
	a->audit_key = strcmp(argv[16], "-") != 0 ? argv[16] : NULL;
	return 0;
}

/* The keyholder's and keyward-peer's lists are alike: LEVEL alone. */
static char **
level_encode(const char *prog, int debug, struct args_buf *b)
{
	b->argv[0] = (char *)prog;
	b->argv[1] = debug ? "debug" : "info";
	b->argv[2] = NULL;
	return b->argv;
}

static int
level_decode(int argc, char *const *argv, int *debug)
{
	return argc != 2 || (*debug = word(argv[1], "debug", "info")) < 0 ?
	    -1 : 0;
}

char **
args_keyholder_encode(const struct keyholder_args *a, struct args_buf *b)
{
	return level_encode("keyward-keyholder", a->debug, b);
}

int
args_keyholder_decode(int argc, char *const *argv, struct keyholder_args *a)
{
	memset(a, 0, sizeof(*a));
	return level_decode(argc, argv, &a->debug);
}

char **
args_sk_encode(const struct sk_args *a, struct args_buf *b)
{
	b->argv[0] = "keyward-sk";
	b->argv[1] = a->debug ? "debug" : "info";
	b->argv[2] = (char *)a->provider;
	b->argv[3] = NULL;
	return b->argv;
}

int
args_sk_decode(int argc, char *const *argv, struct sk_args *a)
{
	memset(a, 0, sizeof(*a));
	if (argc != 3 || (a->debug = word(argv[1], "debug", "info")) < 0 ||
	    (strcmp(argv[2], "internal") != 0 && argv[2][0] != '/'))
		return -1;
	a->provider = argv[2];
	return 0;
}

char **
args_pkcs11_encode(const struct pkcs11_args *a, struct args_buf *b)
{
	b->argv[0] = "keyward-pkcs11";
	b->argv[1] = a->debug ? "debug" : "info";
	b->argv[2] = (char *)a->provider;
	b->argv[3] = NULL;
	return b->argv;
}

int
args_pkcs11_decode(int argc, char *const *argv, struct pkcs11_args *a)
{
	memset(a, 0, sizeof(*a));
	if (argc != 3 || (a->debug = word(argv[1], "debug", "info")) < 0 ||
	    argv[2][0] != '/')
		return -1;
	a->provider = argv[2];
	return 0;
}

char **
args_peer_encode(const struct peer_args *a, struct args_buf *b)
{
	return level_encode("keyward-peer", a->debug, b);
}

int
args_peer_decode(int argc, char *const *argv, struct peer_args *a)
{
	memset(a, 0, sizeof(*a));
	return level_decode(argc, argv, &a->debug);
}

/* The broker's and the prompter's lists are alike: LEVEL SECONDS, the
 * seconds a touch or a confirm prompt may take. */
static char **
level_seconds_encode(const char *prog, int debug, long seconds,
    struct args_buf *b)
{
	snprintf(b->num[0], sizeof(b->num[0]), "%ld", seconds);
	b->argv[0] = (char *)prog;
	b->argv[1] = debug ? "debug" : "info";
	b->argv[2] = b->num[0];
	b->argv[3] = NULL;
	return b->argv;
}

static int
level_seconds_decode(int argc, char *const *argv, int *debug, long *seconds)
{
	if (argc != 3 || (*debug = word(argv[1], "debug", "info")) < 0 ||
	    number(argv[2], 1, CONFIRM_TIMEOUT_MAX, seconds) != 0)
		return -1;
	return 0;
}

char **
args_broker_encode(const struct broker_args *a, struct args_buf *b)
{
	return level_seconds_encode("keyward-broker", a->debug,
	    a->touch_timeout, b);
}

int
args_broker_decode(int argc, char *const *argv, struct broker_args *a)
{
	memset(a, 0, sizeof(*a));
	return level_seconds_decode(argc, argv, &a->debug, &a->touch_timeout);
}

char **
args_prompter_encode(const struct prompter_args *a, struct args_buf *b)
{
	return level_seconds_encode("keyward-prompter", a->debug,
	    a->confirm_timeout, b);
}

int
args_prompter_decode(int argc, char *const *argv, struct prompter_args *a)
{
	memset(a, 0, sizeof(*a));
	return level_seconds_decode(argc, argv, &a->debug, &a->confirm_timeout);
}

char **
args_auditor_encode(const struct auditor_args *a, struct args_buf *b)
{
	snprintf(b->num[0], sizeof(b->num[0]), "%ld", a->audit_facility);
	char *v[] = { "keyward-auditor", a->debug ? "debug" : "info",
	    (char *)audit_names[a->audit], a->audit_sync ? "sync" : "nosync",
	    b->num[0],
	    (char *)(a->audit_tag != NULL ? a->audit_tag : AUDIT_TAG_DEFAULT),
	    (char *)(a->audit_socket != NULL ? a->audit_socket : AUDIT_SOCKET_DEFAULT),
	    (char *)(a->audit_key != NULL ? a->audit_key : "-"), NULL };
	FITS(v);
	memcpy(b->argv, v, sizeof(v));
	return b->argv;
}

/* AUDIT none is refused: policy starts no auditor without a trail. */
int
args_auditor_decode(int argc, char *const *argv, struct auditor_args *a)
{
	int n;

	memset(a, 0, sizeof(*a));
	if (argc != 8 || (a->debug = word(argv[1], "debug", "info")) < 0 ||
	    (n = audit_mode(argv[2])) <= AUDIT_NONE ||
	    (a->audit_sync = word(argv[3], "sync", "nosync")) < 0 ||
	    audit_fields(argv + 4, &a->audit_facility) != 0)
		return -1;
	a->audit = (enum audit_mode)n;
	a->audit_tag = argv[5];
	a->audit_socket = argv[6];
	a->audit_key = strcmp(argv[7], "-") != 0 ? argv[7] : NULL;
	return 0;
}

char **
args_session_encode(const struct session_args *a, struct args_buf *b)
{
	snprintf(b->num[0], sizeof(b->num[0]), "%ld", a->agent_pid);
	b->argv[0] = "keyward-session";
	b->argv[1] = a->debug ? "debug" : "info";
	b->argv[2] = b->num[0];
	b->argv[3] = NULL;
	return b->argv;
}

int
args_session_decode(int argc, char *const *argv, struct session_args *a)
{
	memset(a, 0, sizeof(*a));
	if (argc != 3 || (a->debug = word(argv[1], "debug", "info")) < 0 ||
	    number(argv[2], 1, 0x7fffffffL, &a->agent_pid) != 0)
		return -1;
	return 0;
}
