/*
 * session.c - the message from the session watcher to policy (session.h).
 */
#include "wire/session.h"
#include "ipc/limits.h"

static const char *const names[] = {
	[SESSION_EV_NONE] = "none", [SESSION_EV_FOLLOW] = "follow",
	[SESSION_EV_LOCK] = "lock", [SESSION_EV_UNLOCK] = "unlock",
	[SESSION_EV_SLEEP] = "suspend", [SESSION_EV_WAKE] = "resume",
	[SESSION_EV_GONE] = "end", [SESSION_EV_IDLE] = "idle",
	[SESSION_EV_ACTIVE] = "active",
};

const char *
session_event_name(uint8_t event)
{
	return event <= SESSION_EV_MAX ? names[event] : NULL;
}

void
msg_session_encode(struct wb *w, const struct msg_session *m)
{
	wb_u8(w, m->event);
	wb_slice(w, m->detail);
}

/* Printable ASCII only: the detail reaches the log and the audit trail,
 * and a session id is never anything else. */
static int
printable(struct slice s)
{
	for (size_t i = 0; i < s.len; i++)
		if (s.p[i] < 0x20 || s.p[i] > 0x7e)
			return -1;
	return 0;
}

int
msg_session_decode(struct rd *r, struct msg_session *m)
{
	if (rd_u8(r, &m->event) != 0 || m->event > SESSION_EV_MAX ||
	    rd_string(r, &m->detail) != 0 || rd_done(r) != 0 ||
	    m->detail.len > (m->event == SESSION_EV_NONE ?
	    SESSION_REASON_MAX : SESSION_ID_MAX) ||
	    printable(m->detail) != 0)
		return -1;
	return 0;
}

void
msg_notice_encode(struct wb *w, const struct msg_notice *m)
{
	wb_slice(w, m->summary);
	wb_slice(w, m->body);
}

int
msg_notice_decode(struct rd *r, struct msg_notice *m)
{
	if (rd_string(r, &m->summary) != 0 || rd_string(r, &m->body) != 0 ||
	    rd_done(r) != 0 || m->summary.len > PROMPT_MAX_TEXT ||
	    m->body.len > PROMPT_MAX_TEXT || slice_has_nul(m->summary) ||
	    slice_has_nul(m->body))
		return -1;
	return 0;
}

void
session_view_encode(struct wb *w, const struct session_view *v)
{
	wb_u8(w, v->followed ? 1 : 0);
	wb_slice(w, v->detail);
	wb_u8(w, v->flags);
	wb_u64(w, v->last_suspend);
	wb_u32(w, v->idle_s);
}

int
session_view_decode(struct rd *r, struct session_view *v)
{
	if (rd_flag(r, &v->followed) != 0 || rd_string(r, &v->detail) != 0 ||
	    rd_u8(r, &v->flags) != 0 || rd_u64(r, &v->last_suspend) != 0 ||
	    rd_u32(r, &v->idle_s) != 0 || rd_done(r) != 0 ||
	    v->detail.len > (v->followed ? SESSION_ID_MAX : SESSION_REASON_MAX) ||
	    printable(v->detail) != 0 || (v->flags & ~SESSION_VIEW_ALL) != 0 ||
	    (!v->followed && (v->flags != 0 || v->last_suspend != 0 ||
	    v->idle_s != 0)) ||
	    (v->idle_s != 0 && !(v->flags & SESSION_VIEW_IDLE)))
		return -1;
	return 0;
}
