/*
 * rules.h - the rules language of keyward(5): a small line-oriented file
 * that says which requests a key may serve. Parsed whole (a malformed
 * file is refused, never half applied), matched by pure functions of a
 * query, printed back canonically. Trusts nothing in the file.
 *
 * Syntax (one rule a line; '#' starts a comment outside quotes; words are
 * separated by blanks; a word may be "double quoted", with \" and \\ the
 * only escapes, to hold blanks or '#'):
 *
 *   line    = rule | socket
 *   socket  = "socket" NAME [ PATH ] [ "manage" ]
 *   rule    = action *clause
 *   action  = "allow" | "deny" | "confirm" [ "remember=" DURATION ]
 *   clause  = "key" ( FINGERPRINT | "comment" LIST )
 *           | "caller" LIST                  executable of the peer
 *           | "ancestor" LIST                executable of any ancestor
 *           | "origin" ( "local" | "forwarded" [ "via" LIST ] )
 *           | "socket" LIST                  the socket it came in on
 *           | "purpose" ( "any" | "other"
 *                       | "login" [ "user" LIST ] [ "host" LIST ]
 *                       | "sshsig" [ "namespace" LIST ] )
 *           | "session" ( "locked" | "unlocked" )   the user's screen
 *   FINGERPRINT = "SHA256:" and 43 base64 characters (ssh-keygen -l)
 *   LIST     = pattern *( "," pattern ), a pattern "!"-negated or not,
 *              with '*' (any run) and '?' (one byte): OpenSSH's
 *              pattern lists; a negated match excludes, some positive
 *              pattern must match
 *   NAME     = 1 to SOCKET_NAME_MAX of [a-z0-9_-], starting with a
 *              letter; "main" is the main socket's and is not declared
 *   PATH     = an absolute path of at most SOCKET_PATH_MAX bytes; none:
 *              the main socket's path and "." NAME (beside it)
 *   DURATION = ssh-add -t syntax: 600, 10m, 1h30m (s m h d w), at most
 *              RULES_MAX_REMEMBER seconds
 *
 * A socket is declared before a rule names it (a name in a "socket"
 * clause without '*' or '?' must be declared, or "main"); at most
 * SOCKETS_MAX are, no name or path twice. Semantics of the sockets:
 * rules/scope.h.
 *
 * Each clause at most once a rule; "user" and "host" in either order.
 * Semantics: the first rule whose every clause matches decides; no
 * clause matches everything, so a last bare "deny" makes the default
 * deny. When no rule matches the answer is the query's fallback, with
 * *which NULL: allow, so that without a rules file keyward behaves as
 * before -- but deny on a named socket for a key not added there
 * (scope_default), which a rule that cannot tell then never weakens.
 * Unknown values are the empty string: a peer whose executable could not
 * be read is caller "", a hop without a name is "" -- "*" matches them,
 * "/usr/bin/ssh" does not. Matching is case-sensitive.
 *
 * The principle (doc/keyward.5, "FORWARDED REQUESTS"): an allow, a
 * confirm (a prompt where a later rule would deny) and a remembered yes
 * rest only on facts a forwarded server cannot choose; a deny may rest
 * on anything. So each clause says yes, no or "cannot tell" (enum
 * rule_tri). The first rule whose every clause says yes decides; a rule
 * that cannot tell counts only where it is stricter (deny > confirm >
 * allow) than what the rules after it decide -- over every way the
 * server might have chosen, the strictest answer:
 *  - caller and ancestor of a forwarded request describe the relay, the
 *    user's own ssh, not who asked on the server: a match there cannot
 *    tell (a deny holds, an allow does not), a mismatch is a no;
 *  - "via LIST" says yes when the connection's first binding, the one
 *    the user's ssh made, names a host LIST matches; when only a later
 *    hop (the server's claim) matches, or the first binding names no
 *    host, it cannot tell: "deny origin forwarded via *,!bastion"
 *    refuses every path with a host other than bastion, and "allow ...
 *    via bastion" holds for what bastion's own session asks;
 *  - "user" and "host" cannot tell for a login policy could not verify
 *    against the connection's bindings (struct rules_query.verified).
 *  - "session locked" and "session unlocked" are logind's word on the
 *    agent's own session (policy/session.h), which no server chooses:
 *    always yes or no, so they may allow; with no session followed (or
 *    after it ended) neither matches.
 * A new clause is one more function in rules.c's table.
 *
 * Rules only ever restrict. rules_decide knows nothing of a key's own
 * constraints (confirm, lifetime, destinations): the caller checks those
 * first and refuses what they refuse; a rule's allow never widens them,
 * and a key added with confirm is confirmed even where a rule says allow.
 */
#ifndef KEYWARD_RULES_H
#define KEYWARD_RULES_H

#include "ipc/buf.h"
#include "ipc/limits.h"

#include <stddef.h>
#include <stdint.h>

enum rule_action {
	RULE_ALLOW = 1,
	RULE_CONFIRM,
	RULE_DENY,
};

enum rule_origin {
	RULE_ORIGIN_ANY = 0,
	RULE_ORIGIN_LOCAL,
	RULE_ORIGIN_FORWARDED,
};

enum rule_purpose {
	RULE_PURPOSE_ANY = 0,   /* in a rule only, never in a query */
	RULE_PURPOSE_LOGIN,
	RULE_PURPOSE_SSHSIG,
	RULE_PURPOSE_OTHER,
};

enum rule_session {
	RULE_SESSION_ANY = 0,   /* a rule: no clause; a query: no session */
	RULE_SESSION_LOCKED,
	RULE_SESSION_UNLOCKED,
};

/* A pattern list, split at its commas; n == 0: the clause is absent. */
struct rule_list {
	char **pat;             /* without the '!' */
	uint8_t *neg;
	size_t n;
};

struct rule {
	enum rule_action action;
	uint32_t remember;      /* confirm only: seconds, 0 none */
	char *fingerprint;      /* NULL: not a key clause by fingerprint */
	struct rule_list comment;
	struct rule_list caller;
	struct rule_list ancestor;
	enum rule_origin origin;
	struct rule_list via;   /* origin forwarded only */
	enum rule_purpose purpose;
	struct rule_list user;  /* purpose login only */
	struct rule_list host;  /* purpose login only */
	struct rule_list ns;    /* purpose sshsig only */
	struct rule_list socket;        /* socket names; n 0: any socket */
	enum rule_session session;      /* "session locked|unlocked" */
	size_t line;            /* in the file, for the log */
};

/* A "socket" declaration: where the monitor listens besides its main
 * socket, and whether management requests are served there. */
struct rule_socket {
	char *name;
	char *path;             /* NULL: beside the main socket */
	int manage;
	size_t line, col;       /* of the declaration; col: of its path
	                         * (of its name when it has none) */
};

struct ruleset {
	struct rule *r;
	size_t n;
	struct rule_socket sock[SOCKETS_MAX];
	size_t nsock;
};

/* What rules_decide needs of one request. NULL strings are unknown (""). */
struct rules_query {
	const char *fingerprint;        /* "SHA256:..." of the key */
	const char *comment;            /* the key's comment */
	const char *exe;                /* the peer's executable (forwarded:
	                                 * the relay's: its match cannot tell) */
	const char *const *ancestors;   /* their executables, parent first */
	size_t nancestors;
	int forwarded;                  /* through a forwarded agent, or a
	                                 * failed session-bind (cannot tell) */
	int origin_unknown;             /* a session-bind was refused: every
	                                 * origin clause cannot tell */
	const char *const *hops;        /* host names of the forwarding hops,
	                                 * in order; NULL entries unnamed */
	size_t nhops;
	int first_hop;                  /* hops[0] is the connection's first
	                                 * binding, made by the user's ssh (the
	                                 * others are the server's claims) */
	enum rule_purpose purpose;      /* LOGIN, SSHSIG or OTHER */
	int verified;                   /* login: user and host verified
	                                 * against the bindings */
	const char *user;               /* login: the user */
	const char *host;               /* login: the server's host name */
	const char *ns;                 /* sshsig: the namespace */
	const char *socket;             /* the socket's name ("main") */
	enum rule_session session;      /* the followed session's screen;
	                                 * ANY: none followed */
	enum rule_action fallback;      /* when no rule decides (0: allow) */
};

/* What one clause says of a query. */
enum rule_tri {
	RULE_NO = 0,
	RULE_YES,
	RULE_UNKNOWN,                   /* rests on what the server may choose */
};

/* Where the first error is ("name:line:column: message" in msg). Line
 * and column count from 1; column in bytes; a column one past the end of
 * the line means the line ended too early. */
struct rules_err {
	size_t line, col;
	char msg[RULES_ERR_MAX];
};

/*
 * Parse text (len bytes, NUL bytes refused) of the file called name. 0 and
 * *out set on success; -1 with err filled in on the first error (only the
 * first: later lines are not looked at), *out untouched.
 */
int rules_parse(const char *name, const char *text, size_t len,
    struct ruleset **out, struct rules_err *err);
void rules_free(struct ruleset *rs);

/* file.c: the file at path whole, at most RULES_MAX_FILE bytes (what
 * keyward -O policy= and keyward-ctl policy load read). 0 with *text
 * (malloc'd, *len bytes, no NUL added); -1 with why in msg (msglen
 * RULES_READ_MSG_MAX), the path escaped for a terminal. */
int rules_read_file(const char *path, char **text, size_t *len, char *msg,
    size_t msglen);

/* The action of the first rule that matches q (and that rule in *which),
 * or q->fallback (RULE_ALLOW when 0) with *which NULL when none does --
 * unless a rule before it that cannot tell is stricter: then that
 * rule's. rs NULL: no rules. */
enum rule_action rules_decide(const struct ruleset *rs,
    const struct rules_query *q, const struct rule **which);
/* What r's clauses together say of q: no if one says no, else cannot
 * tell if one cannot, else yes. */
enum rule_tri rules_match(const struct rule *r, const struct rules_query *q);

/* The rules, one a line, in the canonical form rules_parse reads back to
 * an equal set (rules_equal). 0, or -1 when out could not grow. */
int rules_format(const struct ruleset *rs, struct wb *out);
/* One rule, without a newline. */
void rules_format_rule(const struct rule *r, struct wb *out);
/* 1 if a and b are the same rules in the same order (lines aside). */
int rules_equal(const struct ruleset *a, const struct ruleset *b);

/* 1 if a and b declare the same sockets, in the same order (either may
 * be NULL: none). */
int rules_same_sockets(const struct ruleset *a, const struct ruleset *b);

const char *rules_action_name(enum rule_action a);

#endif
