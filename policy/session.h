/*
 * session.h - what policy knows of the user's session (session.c): the
 * facts the session watcher (keyward-session) reports, and what they
 * change (keyward(1), SESSION WATCH).
 */
#ifndef KEYWARD_POLICY_SESSION_H
#define KEYWARD_POLICY_SESSION_H

#include "ipc/chan.h"
#include "ipc/limits.h"

#include <stdint.h>

struct policy;
struct conn;

struct sessionstate {
	struct chan ch;                 /* to keyward-session; fd -1: none */
	int followed;                   /* a session is followed */
	int locked;                     /* its screen is locked */
	int asleep;                     /* between suspend and resume */
	int ended;                      /* it was removed (logout) */
	int away_locked;                /* -O session-suspend=lock: a suspend
	                                 * or the end locked the agent until
	                                 * the session is seen unlocked */
	int idle;                       /* logind's IdleHint */
	uint64_t idle_since_ms;         /* now_ms() when it became true */
	uint64_t last_use_ms;           /* now_ms() of the last signature */
	int idle_forgot;                /* -O session-idle fired this idle
	                                 * spell: not again until activity */
	uint64_t last_suspend_s;        /* time() of the last suspend, 0 none */
	char id[SESSION_ID_MAX + 1];
	char reason[256];               /* why none is followed (NONE's) */
	/* notices per forwarding host in the current window (NOTICE_*) */
	struct { uint8_t host[32]; uint64_t since_ms; unsigned n; int used; }
	    notice[NOTICE_HOSTS];
	unsigned long notices_dropped;
};

/* Start keyward-session (before the sandbox); its channel in P. */
void session_start(struct policy *P, int (*start)(char **, int));
/* Datagrams from the watcher; its end is no reason to stop serving. */
void session_drain(struct policy *P);
/* A forwarded connection's request while the screen is locked: the
 * reason it is refused, or NULL to go on. */
const char *session_refuses(const struct policy *P, const struct conn *c);
/* Before the keyholder is asked (the purpose is then still known):
 * the text of p's notice, if its connection is forwarded. Once the
 * signature is made (session_signed): the notice, within
 * NOTICE_PER_HOST per forwarding host and NOTICE_WINDOW_S. Never waits. */
struct pending;
void session_notice_prepare(struct policy *P, struct pending *p);
void session_signed(struct policy *P, const struct pending *p);
/* -O session-lock=lock with the screen locked, or -O session-suspend=lock
 * after a suspend or the end: the agent is locked for every client
 * (dispatch.c serves it as a locked agent). */
int session_locks_agent(const struct policy *P);
/* -O session-idle: ms until the idle timeout forgets keys, or -1; when it
 * is due now, the keys go first (then -1). */
int session_idle_due(struct policy *P);
/* The screen's state for a rules file's "session" clause: a
 * RULE_SESSION_* of rules/rules.h (ANY: no session followed, or ended). */
int session_rule_state(const struct policy *P);
/* SESSION_EXTENSION (wire/agent.h): the session as policy sees it. */
struct ctx;
int h_session_state(struct ctx *c);
/* "unlocked", "locked", "none"...: for keyward-ctl and the log. */
const char *session_state_name(const struct policy *P);

#endif
