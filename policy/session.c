/*
 * session.c - what the user's session changes (session.h, keyward(1),
 * SESSION WATCH). The facts come from keyward-session, which follows
 * logind: the screen locked or unlocked, a suspend, the session's end.
 * They are facts no forwarded server can choose.
 *
 *   - While the screen is locked, requests from forwarded connections
 *     are refused (-O session-lock=refuse-forwarded, the default): the
 *     user is away, and a server the user forwarded to is exactly what
 *     should not use the keys unattended. Local clients (a cron job, a
 *     script) are served as before. session-lock=lock locks the agent
 *     for every client until the unlock; ignore changes nothing.
 *   - On suspend and when the session ends, keys added without a token
 *     are forgotten by default (-O session-suspend=forget), not locked:
 *     a forgotten key is re-added cheaply by ssh's AddKeysToAgent or
 *     ssh-add, and a locked one stays in memory. session-suspend=lock
 *     locks the agent until the session is seen unlocked. Token keys
 *     (FIDO, PKCS#11) stay: their secret is on the token, which asks for
 *     a touch or a PIN anyway.
 *   - -O session-idle: once logind's IdleHint has been true, and no
 *     signature made, for that long, keys added without a token are
 *     forgotten -- forgotten, never locked: the only end of an idle lock
 *     the agent could see is IdleHint going false, which anyone at the
 *     keyboard causes, so a lock would guard nothing a forget does not.
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
#include "policy/ruling.h"
#include "policy/session.h"
#include "rules/rules.h"
#include "wire/args.h"
#include "wire/monitor.h"
#include "wire/session.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
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
	if (P->session.locked && c != NULL && conn_forwarded(c) &&
	    P->args.session_lock == SESSION_LOCK_REFUSE_FORWARDED)
		return "the session is locked and the request is forwarded";
	return NULL;
}

int
session_locks_agent(const struct policy *P)
{
	const struct sessionstate *s = &P->session;

	return s->away_locked || (s->followed && s->locked &&
	    P->args.session_lock == SESSION_LOCK_AGENT);
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

	if (P->session.ch.fd < 0 || p->notice != NULL ||
	    P->args.session_notify == SESSION_NOTIFY_NONE ||
	    (p->origin.len == 0 &&
	    P->args.session_notify != SESSION_NOTIFY_ALL) ||
	    (c = conn_find(P, p->conn)) == NULL ||
	    (id = idt_find_key(&P->ids, p->key_id)) == NULL)
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
	static const char fwd[] = "keyward: key used by a forwarded connection",
	    local[] = "keyward: key used";
	struct slice origin = wb_slice_of(&p->origin);
	const char *summary = origin.len != 0 ? fwd : local;
	struct wb w;

	P->session.last_use_ms = now_ms();      /* -O session-idle */
	/* local signatures (-O session-notify=all) count as one host */
	if (P->session.ch.fd < 0 || p->notice == NULL)
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
	    { (const uint8_t *)summary, strlen(summary) },
	    { (const uint8_t *)p->notice, strlen(p->notice) } });
	/* Never waits, never ends policy: a watcher gone takes its notices. */
	if (!w.err)
		(void)chan_send(&P->session.ch, &w);
	wb_free(&w);
}

int
h_session_state(struct ctx *c)
{
	struct policy *P = c->P;
	const struct sessionstate *s = &P->session;
	struct session_view v = { 0 };
	const char *why;
	struct wb body;

	if (msg_empty_decode(&c->r) != 0)
		return -1;
	if (s->followed) {
		uint64_t now = now_ms();
		v.followed = 1;
		v.detail = (struct slice){ (const uint8_t *)s->id, strlen(s->id) };
		v.flags = (s->locked ? SESSION_VIEW_LOCKED : 0) |
		    (s->idle ? SESSION_VIEW_IDLE : 0) |
		    (s->asleep ? SESSION_VIEW_ASLEEP : 0) |
		    (s->ended ? SESSION_VIEW_ENDED : 0) |
		    (session_locks_agent(P) ? SESSION_VIEW_AGENT_LOCKED : 0);
		v.last_suspend = s->last_suspend_s;
		if (s->idle)
			v.idle_s = (uint32_t)((now - s->idle_since_ms) / 1000);
		if (s->idle && v.idle_s == 0)
			v.idle_s = 1;   /* idle counts from its first second */
	} else {
		why = s->reason[0] != '\0' ? s->reason : P->session.ch.fd >= 0 ?
		    "keyward-session has not reported yet" :
		    "keyward-session is not running";
		v.detail = (struct slice){ (const uint8_t *)why, strlen(why) };
	}
	wb_init(&body);
	session_view_encode(&body, &v);
	if (body.err) {
		wb_free(&body);
		ctx_reply(c, ST_EXT_FAIL);
		return 0;
	}
	msg_ext_reply_write(&P->out, MSG_R_SESSION, c->h.req, c->h.conn,
	    wb_slice_of(&body));
	wb_free(&body);
	send_to(&P->mon, &P->out, "monitor");
	return 0;
}

int
session_rule_state(const struct policy *P)
{
	const struct sessionstate *s = &P->session;

	if (!s->followed || s->ended)
		return RULE_SESSION_ANY;
	return s->locked ? RULE_SESSION_LOCKED : RULE_SESSION_UNLOCKED;
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
	if (s->away_locked)
		return "locked by a suspend";
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

static const char *const lock_words[] = {
	[SESSION_LOCK_REFUSE_FORWARDED] = "forwarded requests refused",
	[SESSION_LOCK_AGENT] = "the agent locked",
	[SESSION_LOCK_IGNORE] = "nothing changed",
}, *const lock_logs[] = {
	[SESSION_LOCK_REFUSE_FORWARDED] = "forwarded requests are refused "
	    "until it is unlocked",
	[SESSION_LOCK_AGENT] = "the agent is locked until it is unlocked",
	[SESSION_LOCK_IGNORE] = "nothing changes (-O session-lock=ignore)",
};

/* Every remembered yes, gone: asked again after the user is back. */
static void
forget_yeses(struct policy *P, const char *why)
{
	if (P->remembered == NULL)
		return;
	rules_forget(P);
	log_info("%s: every remembered yes forgotten", why);
}

/* A suspend or the session's end: -O session-suspend's choice, and
 * every remembered yes forgotten either way. */
static void
away(struct policy *P, const char *event, const char *why)
{
	forget_yeses(P, why);
	if (P->args.session_suspend == SESSION_SUSPEND_LOCK) {
		P->session.away_locked = 1;
		log_info("%s: the agent is locked until the session is "
		    "unlocked", why);
		audit_simple(P, event, "allow",
		    "the agent locked until the session is unlocked", NULL, NULL);
		return;
	}
	audit_simple(P, event, "allow", "keys added without a token forgotten",
	    NULL, NULL);
	forget_keys(P, why);
}

/* The session seen unlocked: a lock a suspend made is over. */
static void
away_unlock(struct policy *P)
{
	if (!P->session.away_locked || P->session.ended)
		return;         /* an ended session is never unlocked again */
	P->session.away_locked = 0;
	log_info("session %s unlocked: the agent is unlocked", P->session.id);
	audit_simple(P, "session-unlock", "allow", "the agent unlocked", NULL,
	    NULL);
}

int
session_idle_due(struct policy *P)
{
	struct sessionstate *s = &P->session;
	uint64_t now, from, due;

	if (P->args.session_idle <= 0 || !s->followed || !s->idle ||
	    s->idle_forgot)
		return -1;
	from = s->last_use_ms > s->idle_since_ms ? s->last_use_ms :
	    s->idle_since_ms;
	due = from + (uint64_t)P->args.session_idle * 1000;
	now = now_ms();
	if (due > now)
		return due - now > 60000 ? 60000 : (int)(due - now);
	s->idle_forgot = 1;
	audit_simple(P, "session-idle-timeout", "allow",
	    "keys added without a token forgotten", NULL, NULL);
	forget_keys(P, "idle timeout");
	return -1;
}

/* The watcher follows no session (its reason in detail): the session's
 * events change nothing. */
static void
fact_none(struct policy *P, const struct msg_session *m)
{
	struct sessionstate *s = &P->session;

	log_info("no session followed (%.*s): the screen lock, suspend "
	    "and logout change nothing", (int)m->detail.len,
	    (const char *)m->detail.p);
	s->followed = 0;
	snprintf(s->reason, sizeof(s->reason), "%.*s",
	    (int)m->detail.len, (const char *)m->detail.p);
}

/* The watcher follows the logind session named in detail. */
static void
fact_follow(struct policy *P, const struct msg_session *m)
{
	struct sessionstate *s = &P->session;
	char id[SESSION_ID_MAX + 1];

	/* the decoder allowed printable ASCII only */
	snprintf(id, sizeof(id), "%.*s", (int)(m->detail.len > SESSION_ID_MAX ?
	    SESSION_ID_MAX : m->detail.len), (const char *)m->detail.p);
	s->followed = 1;
	snprintf(s->id, sizeof(s->id), "%s", id);
	log_info("following logind session %s", s->id);
	audit_simple(P, "session-follow", "allow", s->id, NULL, NULL);
}

static void
fact_screen_lock(struct policy *P)
{
	struct sessionstate *s = &P->session;

	s->locked = 1;
	log_info("session %s locked: %s", s->id,
	    lock_logs[P->args.session_lock]);
	audit_simple(P, "session-lock", "allow",
	    lock_words[P->args.session_lock], NULL, NULL);
	/* A yes the user gave at the keyboard is not kept past the
	 * moment the user left it, as a passphrase lock forgets it
	 * (keyward(5), remember=); session-lock=ignore changes
	 * nothing at all. */
	if (P->args.session_lock != SESSION_LOCK_IGNORE)
		forget_yeses(P, "screen lock");
}

static void
fact_screen_unlock(struct policy *P)
{
	struct sessionstate *s = &P->session;

	s->locked = 0;
	log_info("session %s unlocked: %s", s->id,
	    P->args.session_lock == SESSION_LOCK_IGNORE ? "nothing changes" :
	    "requests are served again");
	audit_simple(P, "session-unlock", "allow",
	    P->args.session_lock == SESSION_LOCK_IGNORE ? "nothing changed" :
	    "requests served", NULL, NULL);
	away_unlock(P);
}

/* idle: 1 when the session went idle, 0 when it is active again. */
static void
fact_idle(struct policy *P, int idle)
{
	struct sessionstate *s = &P->session;

	s->idle = idle;
	if (idle)
		s->idle_since_ms = now_ms();
	else
		s->idle_forgot = 0;
	log_info("session %s %s", s->id, idle ? "idle" : "active");
	audit_simple(P, idle ? "session-idle" : "session-active", "allow",
	    NULL, NULL, NULL);
}

/* One fact from the session watcher. */
static void
fact(struct policy *P, const struct msg_session *m)
{
	struct sessionstate *s = &P->session;

	switch (m->event) {
	case SESSION_EV_NONE:
		fact_none(P, m);
		return;
	case SESSION_EV_FOLLOW:
		fact_follow(P, m);
		return;
	}
	if (!s->followed)
		return;         /* the watcher says FOLLOW first; else nothing */
	switch (m->event) {
	case SESSION_EV_LOCK:
		fact_screen_lock(P);
		break;
	case SESSION_EV_UNLOCK:
		fact_screen_unlock(P);
		break;
	case SESSION_EV_SLEEP:
		s->asleep = 1;
		s->last_suspend_s = (uint64_t)time(NULL);
		away(P, "session-suspend", "suspend");
		break;
	case SESSION_EV_WAKE:
		s->asleep = 0;
		log_info("session %s resumed", s->id);
		audit_simple(P, "session-resume", "allow", NULL, NULL, NULL);
		if (!s->locked)
			away_unlock(P); /* the desktop did not lock: it is open */
		break;
	case SESSION_EV_GONE:
		s->ended = 1;
		away(P, "session-end", "session ended");
		break;
	case SESSION_EV_IDLE:
		fact_idle(P, 1);
		break;
	case SESSION_EV_ACTIVE:
		fact_idle(P, 0);
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
