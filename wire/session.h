/*
 * session.h - the messages between policy and the session watcher
 * (keyward-session; wire/msg.h for the header): what logind says of the
 * agent's own session, one MSG_SESSION per fact, and the desktop notices
 * policy asks it to raise (MSG_NOTICE). Neither is answered.
 */
#ifndef KEYWARD_WIRE_SESSION_H
#define KEYWARD_WIRE_SESSION_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stdint.h>

enum {
	MSG_SESSION = 112,      /* msg_session_*: one fact about the session */
	MSG_NOTICE,             /* msg_notice_*: policy -> watcher, a notice */
};

/* What happened. SESSION_EV_NONE: no system bus or no logind, or no
 * session of ours; nothing changes. The watcher stays while it has a
 * session bus (desktop notices) and ends when it has no bus at all. */
enum session_event {
	SESSION_EV_NONE = 0,    /* nothing to follow (detail: why, in words) */
	SESSION_EV_FOLLOW,      /* following session detail, unlocked */
	SESSION_EV_LOCK,        /* the screen locked (Lock, LockedHint true) */
	SESSION_EV_UNLOCK,      /* unlocked (Unlock, LockedHint false) */
	SESSION_EV_SLEEP,       /* PrepareForSleep(true): about to suspend */
	SESSION_EV_WAKE,        /* PrepareForSleep(false): resumed */
	SESSION_EV_GONE,        /* the session was removed (logout) */
	SESSION_EV_IDLE,        /* IdleHint true: the user is inactive */
	SESSION_EV_ACTIVE,      /* IdleHint false: the user is back */
	SESSION_EV_MAX = SESSION_EV_ACTIVE
};

struct msg_session {
	uint8_t event;          /* enum session_event */
	struct slice detail;    /* session id, or NONE's reason: printable
	                         * ASCII, at most SESSION_ID_MAX (NONE: 255) */
};

#define SESSION_REASON_MAX 255

void msg_session_encode(struct wb *w, const struct msg_session *m);
int msg_session_decode(struct rd *r, struct msg_session *m);
/* MSG_NOTICE: a desktop notification's summary and body (client text
 * already made terminal-safe by policy, ipc/text.h); each at most
 * PROMPT_MAX_TEXT bytes, no NUL. */
struct msg_notice {
	struct slice summary;
	struct slice body;
};

void msg_notice_encode(struct wb *w, const struct msg_notice *m);
int msg_notice_decode(struct rd *r, struct msg_notice *m);

/* The session as policy sees it: the body of SESSION_EXTENSION's answer
 * (wire/agent.h), which MSG_R_SESSION carries to the monitor and
 * keyward-ctl session decodes:
 *   byte followed (0 or 1); string detail (the session id when followed,
 *   else why none is: printable ASCII, SESSION_ID_MAX or
 *   SESSION_REASON_MAX bytes at most); byte flags (SESSION_VIEW_*, none
 *   when not followed); uint64 last_suspend (seconds since 1970; 0:
 *   none; none when not followed); uint32 idle_s (how long IdleHint has
 *   been true; 0 unless idle). */
enum {
	SESSION_VIEW_LOCKED = 1 << 0,   /* the screen is locked */
	SESSION_VIEW_IDLE = 1 << 1,     /* IdleHint */
	SESSION_VIEW_ASLEEP = 1 << 2,   /* between suspend and resume */
	SESSION_VIEW_ENDED = 1 << 3,    /* the session was removed */
	SESSION_VIEW_AGENT_LOCKED = 1 << 4,     /* the agent locked by it */
	SESSION_VIEW_ALL = (1 << 5) - 1
};

struct session_view {
	int followed;
	struct slice detail;
	uint8_t flags;
	uint64_t last_suspend;
	uint32_t idle_s;
};

void session_view_encode(struct wb *w, const struct session_view *v);
int session_view_decode(struct rd *r, struct session_view *v);

/* The event's name, "lock", "unlock"...; NULL for none. */
const char *session_event_name(uint8_t event);

#endif
