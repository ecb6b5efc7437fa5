/*
 * session.c - what the user's session changes (session.h, keyward(1),
 * SESSION WATCH). The facts come from keyward-session, which follows
 * logind: the screen locked or unlocked, a suspend, the session's end.
 * They are facts no forwarded server can choose.
 *
 *   - While the screen is locked, requests from forwarded connections
 *     are refused: the user is away, and a server the user forwarded to
 *     is exactly what should not use the keys unattended. Local clients
 *     (a cron job, a script) are served as before.
 *   - On suspend and when the session ends, keys added without a token
 *     are forgotten, not locked: a lock needs a passphrase nobody is
 *     there to type, and a forgotten key is re-added cheaply by ssh's
 *     AddKeysToAgent or ssh-add. Token keys (FIDO, PKCS#11) stay: their
 *     secret is on the token, which asks for a touch or a PIN anyway.
 *
 * Every fact and what was done about it goes to the log and the trail.
 */
#include "ipc/log.h"
#include "policy/audit.h"
#include "policy/dispatch.h"
#include "policy/session.h"
#include "wire/args.h"
#include "wire/session.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void
session_start(struct policy *P, int (*start)(char **, int))
{
	struct args_buf b;

	chan_init(&P->session.ch, start(args_session_encode(
	    &(struct session_args){ P->args.debug, (long)getppid() }, &b), -1));
}

/* A forwarded connection: its first session-bind is a forwarding one,
 * or a bind was attempted and failed (its origin is then unknown, and it
 * stays forwarded for good). */
static int
forwarded(const struct conn *c)
{
	return c != NULL && (c->bind.n > 0 ? c->bind.b[0].forwarding :
	    c->bind.attempted);
}

const char *
session_refuses(const struct policy *P, const struct conn *c)
{
	if (P->session.locked && forwarded(c))
		return "the session is locked and the request is forwarded";
	return NULL;
}

const char *
session_state_name(const struct policy *P)
{
	const struct sessionstate *s = &P->session;

	if (!s->followed)
		return "none";
	if (s->ended)
		return "ended";
	if (s->asleep)
		return "suspended";
	return s->locked ? "locked" : "unlocked";
}

/* Keys added without a token go: suspend or logout. */
static void
forget_keys(struct policy *P, const char *why)
{
	size_t gone = 0;

	for (size_t i = P->ids.n; i-- > 0;) {
		struct identity *id = P->ids.order[i];
		if (id->p11 || key_is_sk(id->kind))
			continue;
		log_info("%s: forgetting %s %s \"%s\"", why,
		    key_kind_name(id->kind), id->fp, id->comment);
		audit_simple(P, "session-forget", "allow", why, NULL, id);
		kh_delete(P, id->key_id);
		idt_remove(&P->ids, id);
		identity_free(id);
		gone++;
	}
	keys_expiry_changed(P);
	log_info("%s: %zu key%s added without a token forgotten", why, gone,
	    gone == 1 ? "" : "s");
}

static void
fact(struct policy *P, const struct msg_session *m)
{
	struct sessionstate *s = &P->session;
	char id[SESSION_ID_MAX + 1];

	/* the decoder allowed printable ASCII only */
	snprintf(id, sizeof(id), "%.*s", (int)(m->detail.len > SESSION_ID_MAX ?
	    SESSION_ID_MAX : m->detail.len), (const char *)m->detail.p);
	switch (m->event) {
	case SESSION_EV_NONE:
		log_info("no session followed (%.*s): the screen lock, suspend "
		    "and logout change nothing", (int)m->detail.len,
		    (const char *)m->detail.p);
		s->followed = 0;
		return;
	case SESSION_EV_FOLLOW:
		s->followed = 1;
		snprintf(s->id, sizeof(s->id), "%s", id);
		log_info("following logind session %s", s->id);
		audit_simple(P, "session-follow", "allow", s->id, NULL, NULL);
		return;
	}
	if (!s->followed)
		return;         /* the watcher says FOLLOW first; else nothing */
	switch (m->event) {
	case SESSION_EV_LOCK:
		s->locked = 1;
		log_info("session %s locked: forwarded requests are refused "
		    "until it is unlocked", s->id);
		audit_simple(P, "session-lock", "allow",
		    "forwarded requests refused", NULL, NULL);
		break;
	case SESSION_EV_UNLOCK:
		s->locked = 0;
		log_info("session %s unlocked: forwarded requests are served "
		    "again", s->id);
		audit_simple(P, "session-unlock", "allow",
		    "forwarded requests served", NULL, NULL);
		break;
	case SESSION_EV_SLEEP:
		s->asleep = 1;
		audit_simple(P, "session-suspend", "allow",
		    "keys added without a token forgotten", NULL, NULL);
		forget_keys(P, "suspend");
		break;
	case SESSION_EV_WAKE:
		s->asleep = 0;
		log_info("session %s resumed", s->id);
		audit_simple(P, "session-resume", "allow", NULL, NULL, NULL);
		break;
	case SESSION_EV_GONE:
		s->ended = 1;
		audit_simple(P, "session-end", "allow",
		    "keys added without a token forgotten", NULL, NULL);
		forget_keys(P, "session ended");
		break;
	}
}

void
session_drain(struct policy *P)
{
	struct chan *c = &P->session.ch;
	struct msg_session m;
	struct msg_hdr h;
	struct rd r;
	size_t n;
	int got;

	while ((got = chan_recv(c, P->rbuf, sizeof(P->rbuf), &n)) > 0) {
		rd_init(&r, P->rbuf, n);
		if (msg_hdr_decode(&r, &h) != 0 || h.type != MSG_SESSION ||
		    msg_session_decode(&r, &m) != 0) {
			log_error("a malformed message from keyward-session; "
			    "no longer listening to it");
			got = -1;
			break;
		}
		fact(P, &m);
	}
	if (got < 0) {
		/* Whatever state stood stays: a locked screen stays locked
		 * for forwarded requests until the agent restarts. */
		if (P->session.followed)
			log_error("keyward-session ended; the session is %s "
			    "from now on", session_state_name(P));
		chan_close(c);
		c->fd = -1;
	}
}
