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
#include "crypto/auditchain.h"
#include "ipc/log.h"
#include "ipc/text.h"
#include "policy/audit.h"
#include "policy/describe.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
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

const char *
session_refuses(const struct policy *P, const struct conn *c)
{
	if (P->session.locked && c != NULL && conn_forwarded(c))
		return "the session is locked and the request is forwarded";
	return NULL;
}

/* May origin (a forwarding host's key) have one more notice now? */
static int
notice_allowed(struct sessionstate *s, struct slice origin)
{
	uint8_t h[32];
	uint64_t now = now_ms(), window = NOTICE_WINDOW_S * 1000ULL;
	int free_slot = -1;

	auditchain_hash(origin.p, origin.len, h);   /* SHA-256 of the host key */
	for (int i = 0; i < NOTICE_HOSTS; i++) {
		if (s->notice[i].used && now - s->notice[i].since_ms >= window)
			s->notice[i].used = 0;  /* its window is over */
		if (s->notice[i].used && memcmp(s->notice[i].host, h, 32) == 0) {
			if (s->notice[i].n >= NOTICE_PER_HOST)
				return 0;
			s->notice[i].n++;
			return 1;
		}
		if (!s->notice[i].used && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return 0;
	memcpy(s->notice[free_slot].host, h, 32);
	s->notice[free_slot].since_ms = now;
	s->notice[free_slot].n = 1;
	s->notice[free_slot].used = 1;
	return 1;
}

void
session_notice_prepare(struct policy *P, struct pending *p)
{
	char body[PROMPT_MAX_TEXT], comment[256];
	const struct identity *id;
	struct conn *c;
	size_t o;

	if (P->session.ch.fd < 0 || p->origin.len == 0 || p->notice != NULL ||
	    (c = conn_find(P, p->conn)) == NULL ||
	    (id = identity_by_key(P, p->key_id)) == NULL)
		return;
	/* The confirm prompt's words (sign.c), client text terminal-safe. */
	text_term_str(comment, sizeof(comment), id->comment);
	o = (size_t)snprintf(body, sizeof(body), "Used key %s\n", comment);
	if (o < sizeof(body))
		describe_request(P, id, c, &p->purpose, body + o, sizeof(body) - o);
	p->notice = str_dup(body);
}

void
session_signed(struct policy *P, const struct pending *p)
{
	static const char summary[] = "keyward: key used by a forwarded connection";
	struct slice origin = wb_slice_of(&p->origin);
	struct wb w;

	if (P->session.ch.fd < 0 || p->notice == NULL || origin.len == 0)
		return;
	if (!notice_allowed(&P->session, origin)) {
		P->session.notices_dropped++;
		log_debug("notice not raised: its forwarding host had %d in %d s",
		    NOTICE_PER_HOST, NOTICE_WINDOW_S);
		return;
	}
	wb_init(&w);
	msg_begin(&w, MSG_NOTICE, 0, 0);
	msg_notice_encode(&w, &(struct msg_notice){
	    { (const uint8_t *)summary, sizeof(summary) - 1 },
	    { (const uint8_t *)p->notice, strlen(p->notice) } });
	/* Never waits, never ends policy: a watcher gone takes its notices. */
	if (!w.err)
		(void)chan_send(&P->session.ch, &w);
	wb_free(&w);
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
	if (P->session.ch.fd >= 0 && chan_flush(&P->session.ch) != 0) {
		chan_close(&P->session.ch);
		P->session.ch.fd = -1;
		return;
	}
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
