/*
 * session.h - the message from the session watcher (keyward-session) to
 * policy (wire/msg.h for the header): what logind says of the agent's own
 * session. One message per fact; policy answers nothing.
 */
#ifndef KEYWARD_WIRE_SESSION_H
#define KEYWARD_WIRE_SESSION_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stdint.h>

enum {
	MSG_SESSION = 112,      /* msg_session_*: one fact about the session */
};

/* What happened. SESSION_EV_NONE: no system bus or no logind, or no
 * session of ours; the watcher then exits and nothing changes. */
enum session_event {
	SESSION_EV_NONE = 0,    /* nothing to follow (detail: why, in words) */
	SESSION_EV_FOLLOW,      /* following session detail, unlocked */
	SESSION_EV_LOCK,        /* the screen locked (Lock, LockedHint true) */
	SESSION_EV_UNLOCK,      /* unlocked (Unlock, LockedHint false) */
	SESSION_EV_SLEEP,       /* PrepareForSleep(true): about to suspend */
	SESSION_EV_WAKE,        /* PrepareForSleep(false): resumed */
	SESSION_EV_GONE,        /* the session was removed (logout) */
	SESSION_EV_MAX = SESSION_EV_GONE
};

struct msg_session {
	uint8_t event;          /* enum session_event */
	struct slice detail;    /* session id, or NONE's reason: printable
	                         * ASCII, at most SESSION_ID_MAX (NONE: 255) */
};

#define SESSION_REASON_MAX 255

void msg_session_encode(struct wb *w, const struct msg_session *m);
int msg_session_decode(struct rd *r, struct msg_session *m);
/* The event's name, "lock", "unlock"...; NULL for none. */
const char *session_event_name(uint8_t event);

#endif
