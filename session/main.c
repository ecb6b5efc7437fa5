/*
 * session/main.c - keyward-session, the session watcher: started by
 * policy (spawn(), with its channel at fd 3 and the list of wire/args.h)
 * before policy's sandbox. It is the only keyward process that speaks
 * D-Bus (sd-bus, libsystemd): it follows logind for the agent's own
 * session and tells policy each fact as one MSG_SESSION (wire/session.h).
 * It holds no key, reads no client byte and answers nothing. On the
 * session bus ($DBUS_SESSION_BUS_ADDRESS) it raises the desktop notices
 * policy asks for (MSG_NOTICE) through org.freedesktop.Notifications,
 * without waiting for the answer: a notice never delays a signature.
 *
 * Which session (keyward(1), SESSION WATCH):
 *   1. $XDG_SESSION_ID, when set: the session the agent was started in;
 *   2. else logind's GetSessionByPID of the agent (the monitor, policy's
 *      parent): the session whose cgroup the agent runs in;
 *   3. else the user's display session (the User object's Display), the
 *      one a desktop locks.
 * A session found must belong to the user the agent runs as (its User
 * property); else none is followed.
 *
 * Both bus connections are made, and every match added, before the
 * sandbox: afterwards the watcher opens nothing (Landlock: no file at
 * all; seccomp/session.c) and only reads and writes the sockets it has.
 * No system bus, no logind, no session of ours: one MSG_SESSION NONE
 * with the reason, and the agent runs exactly as without the watcher.
 * With no session bus either (or once both buses are gone), nothing can
 * ever reach the watcher or be raised by it: it ends once policy has
 * every message told, and frees its memory (libsystemd's is most of
 * it). Policy keeps the last state told and sends no more notices
 * (policy/session.c); the kernel reaps the watcher (policy/main.c).
 */
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "wire/args.h"
#include "wire/session.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define LOGIND          "org.freedesktop.login1"
#define LOGIND_PATH     "/org/freedesktop/login1"
#define LOGIND_MANAGER  "org.freedesktop.login1.Manager"
#define LOGIND_SESSION  "org.freedesktop.login1.Session"
#define LOGIND_USER     "org.freedesktop.login1.User"

struct watcher {
	struct chan pol;
	sd_bus *sys;
	sd_bus *user;                   /* the session bus, for notices */
	char path[256];                 /* the session's object path */
	char id[SESSION_ID_MAX + 1];
	int locked;                     /* last told: -1 none yet */
	int idle;                       /* IdleHint last told */
	int ended;                      /* removed: close the bus (not from
	                                 * inside its own callback) */
	int asleep;
};

static struct watcher W = { .locked = -1 };

static void
tell(uint8_t event, const char *detail)
{
	struct wb w;

	wb_init(&w);
	msg_begin(&w, MSG_SESSION, 0, 0);
	msg_session_encode(&w, &(struct msg_session){ event,
	    { (const uint8_t *)detail, strlen(detail) } });
	if (w.err || chan_send(&W.pol, &w) != 0)
		peer_gone("keyward-policy");
	wb_free(&w);
	log_debug("told policy: %s %s", session_event_name(event), detail);
}

static void
set_locked(int locked)
{
	if (locked == W.locked)
		return;
	W.locked = locked;
	tell(locked ? SESSION_EV_LOCK : SESSION_EV_UNLOCK, W.id);
}

/* IdleHint: the desktop's word that the user is inactive (policy's
 * -O session-idle counts from it). */
static void
set_idle(int idle)
{
	if (idle == W.idle)
		return;
	W.idle = idle;
	tell(idle ? SESSION_EV_IDLE : SESSION_EV_ACTIVE, W.id);
}

static int
on_lock(sd_bus_message *m, void *u, sd_bus_error *e)
{
	set_locked(1);
	return 0;
}

static int
on_unlock(sd_bus_message *m, void *u, sd_bus_error *e)
{
	set_locked(0);
	return 0;
}

/* PropertiesChanged(s interface, a{sv} changed, as invalidated): only
 * LockedHint and IdleHint of the Session interface count. */
static int
on_props(sd_bus_message *m, void *u, sd_bus_error *e)
{
	const char *iface, *name;
	int v;

	if (sd_bus_message_read(m, "s", &iface) < 0 ||
	    strcmp(iface, LOGIND_SESSION) != 0 ||
	    sd_bus_message_enter_container(m, 'a', "{sv}") < 0)
		return 0;
	while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
		if (sd_bus_message_read(m, "s", &name) < 0)
			return 0;
		if (strcmp(name, "LockedHint") == 0) {
			if (sd_bus_message_read(m, "v", "b", &v) < 0)
				return 0;
			set_locked(v != 0);
		} else if (strcmp(name, "IdleHint") == 0) {
			if (sd_bus_message_read(m, "v", "b", &v) < 0)
				return 0;
			set_idle(v != 0);
		} else if (sd_bus_message_skip(m, "v") < 0)
			return 0;
		if (sd_bus_message_exit_container(m) < 0)
			return 0;
	}
	return 0;
}

static int
on_sleep(sd_bus_message *m, void *u, sd_bus_error *e)
{
	int start;

	if (sd_bus_message_read(m, "b", &start) < 0 || (start != 0) == W.asleep)
		return 0;
	W.asleep = start != 0;
	tell(start ? SESSION_EV_SLEEP : SESSION_EV_WAKE, W.id);
	return 0;
}

/* SessionRemoved(s id, o path): ours ended (logout). Nothing is left to
 * follow: the watcher tells policy and stops watching. */
static int
on_removed(sd_bus_message *m, void *u, sd_bus_error *e)
{
	const char *id, *path;

	if (sd_bus_message_read(m, "so", &id, &path) < 0 ||
	    strcmp(path, W.path) != 0)
		return 0;
	tell(SESSION_EV_GONE, W.id);
	W.ended = 1;
	return 0;
}

static int
copy_path(const char *path)
{
	if (path == NULL || strlen(path) >= sizeof(W.path))
		return -1;
	strcpy(W.path, path);
	return 0;
}

/* A call to logind's Manager answered by one object path. */
static int
manager_path(const char *method, const char *types, ...)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	const char *path;
	va_list ap;
	int r;

	if ((r = sd_bus_message_new_method_call(W.sys, &m, LOGIND, LOGIND_PATH,
	    LOGIND_MANAGER, method)) < 0)
		return r;
	va_start(ap, types);
	r = sd_bus_message_appendv(m, types, ap);
	va_end(ap);
	if (r >= 0)
		r = sd_bus_call(W.sys, m, SESSION_BUS_TIMEOUT_MS * 1000ULL, &err,
		    &reply);
	if (r >= 0 && (r = sd_bus_message_read(reply, "o", &path)) >= 0)
		r = copy_path(path);
	if (r < 0)
		log_debug("logind %s: %s", method,
		    err.message != NULL ? err.message : strerror(-r));
	sd_bus_error_free(&err);
	sd_bus_message_unref(reply);
	sd_bus_message_unref(m);
	return r < 0 ? r : 0;
}

/* The user's display session: User.Display (so). */
static int
display_session(void)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *id, *path;
	int r;

	if ((r = manager_path("GetUser", "u", (uint32_t)getuid())) < 0)
		return r;
	r = sd_bus_get_property(W.sys, LOGIND, W.path, LOGIND_USER, "Display",
	    &err, &reply, "(so)");
	if (r >= 0 && (r = sd_bus_message_read(reply, "(so)", &id, &path)) >= 0)
		r = *id == '\0' ? -ENOENT : copy_path(path);
	sd_bus_error_free(&err);
	sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

/* Which session, in the order of the comment at the head; its id and
 * owner checked. NULL, or the reason none is followed. */
static const char *
choose(pid_t agent)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *env = getenv("XDG_SESSION_ID"), *id, *upath;
	uint32_t uid;
	int r, locked, idle;

	if (env != NULL && *env != '\0') {
		if (manager_path("GetSession", "s", env) < 0)
			return "logind does not know $XDG_SESSION_ID";
	} else if (manager_path("GetSessionByPID", "u", (uint32_t)agent) < 0 &&
	    display_session() < 0)
		return "logind knows no session of the agent or its user";
	r = sd_bus_get_property(W.sys, LOGIND, W.path, LOGIND_SESSION, "User",
	    &err, &reply, "(uo)");
	if (r < 0 || sd_bus_message_read(reply, "(uo)", &uid, &upath) < 0 ||
	    uid != (uint32_t)getuid()) {
		sd_bus_error_free(&err);
		sd_bus_message_unref(reply);
		return "the session found is not the agent user's";
	}
	reply = sd_bus_message_unref(reply);
	r = sd_bus_get_property(W.sys, LOGIND, W.path, LOGIND_SESSION, "Id",
	    &err, &reply, "s");
	if (r < 0 || sd_bus_message_read(reply, "s", &id) < 0 ||
	    strlen(id) > SESSION_ID_MAX || *id == '\0') {
		sd_bus_error_free(&err);
		sd_bus_message_unref(reply);
		return "the session has no usable id";
	}
	for (const char *s = id; *s != '\0'; s++)
		if (*s < 0x21 || *s > 0x7e)
			return "the session has no usable id";
	strcpy(W.id, id);
	reply = sd_bus_message_unref(reply);
	if (sd_bus_get_property_trivial(W.sys, LOGIND, W.path, LOGIND_SESSION,
	    "LockedHint", &err, 'b', &locked) < 0)
		locked = 0;
	sd_bus_error_free(&err);
	W.locked = locked != 0;
	if (sd_bus_get_property_trivial(W.sys, LOGIND, W.path, LOGIND_SESSION,
	    "IdleHint", &err, 'b', &idle) < 0)
		idle = 0;
	sd_bus_error_free(&err);
	W.idle = idle != 0;
	return NULL;
}

/* Every signal the watcher follows, asked for now (before the sandbox). */
static int
subscribe(void)
{
	if (sd_bus_match_signal(W.sys, NULL, LOGIND, W.path, LOGIND_SESSION,
	    "Lock", on_lock, NULL) < 0 ||
	    sd_bus_match_signal(W.sys, NULL, LOGIND, W.path, LOGIND_SESSION,
	    "Unlock", on_unlock, NULL) < 0 ||
	    sd_bus_match_signal(W.sys, NULL, LOGIND, W.path,
	    "org.freedesktop.DBus.Properties", "PropertiesChanged", on_props,
	    NULL) < 0 ||
	    sd_bus_match_signal(W.sys, NULL, LOGIND, LOGIND_PATH, LOGIND_MANAGER,
	    "PrepareForSleep", on_sleep, NULL) < 0 ||
	    sd_bus_match_signal(W.sys, NULL, LOGIND, LOGIND_PATH, LOGIND_MANAGER,
	    "SessionRemoved", on_removed, NULL) < 0)
		return -1;
	return 0;
}

/* Connect and find the session; NULL, or why there is nothing to follow. */
static const char *
start(pid_t agent)
{
	const char *why;
	int r;

	if ((r = sd_bus_open_system(&W.sys)) < 0) {
		W.sys = NULL;
		return "no system bus";
	}
	(void)sd_bus_set_method_call_timeout(W.sys,
	    SESSION_BUS_TIMEOUT_MS * 1000ULL);
	if ((why = choose(agent)) != NULL || subscribe() != 0) {
		W.sys = sd_bus_flush_close_unref(W.sys);
		return why != NULL ? why : "cannot follow logind's signals";
	}
	return NULL;
}

/* One notice, sent without waiting for its answer (the reply, when it
 * comes, is read and dropped by sd_bus_process). */
static void
notice(const uint8_t *p, size_t n)
{
	char summary[PROMPT_MAX_TEXT + 1], body[PROMPT_MAX_TEXT + 1];
	struct msg_notice m;
	struct msg_hdr h;
	struct rd r;
	int e;

	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0 || h.type != MSG_NOTICE ||
	    msg_notice_decode(&r, &m) != 0)
		peer_broke("keyward-policy", "a malformed message (%zu bytes)", n);
	if (W.user == NULL)
		return;
	snprintf(summary, sizeof(summary), "%.*s", (int)m.summary.len,
	    (const char *)m.summary.p);
	snprintf(body, sizeof(body), "%.*s", (int)m.body.len,
	    (const char *)m.body.p);
	if ((e = sd_bus_call_method_async(W.user, NULL,
	    "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
	    "org.freedesktop.Notifications", "Notify", NULL, NULL,
	    "susssasa{sv}i", "keyward", (uint32_t)0, "", summary, body,
	    0, 0, (int32_t)-1)) < 0)
		log_info("cannot raise a notice: %s", strerror(-e));
}

/* Read and write on a bus; 0, or -1 when it is gone. */
static int
pump(sd_bus *b)
{
	int r;

	while ((r = sd_bus_process(b, NULL)) > 0)
		if (b == W.sys && W.ended)
			break;
	return r < 0 ? -1 : 0;
}

/* What policy is told first: the session followed and its state, or why
 * none is. */
static void
tell_start(const char *why)
{
	if (why != NULL) {
		tell(SESSION_EV_NONE, why);
		return;
	}
	tell(SESSION_EV_FOLLOW, W.id);
	if (W.locked)
		tell(SESSION_EV_LOCK, W.id);
	if (W.idle)
		tell(SESSION_EV_IDLE, W.id);
}

/* Each bus still there is pumped and its fd set in pfd (one a bus);
 * *timeout the poll's, when sd-bus has a deadline of its own. */
static void
pump_buses(struct pollfd *pfd, int *timeout)
{
	sd_bus **bus[2] = { &W.sys, &W.user };

	for (int i = 0; i < 2; i++) {
		uint64_t usec;
		if (*bus[i] == NULL)
			continue;
		/* Everything already read is handled first. */
		if (pump(*bus[i]) != 0 && !(i == 0 && W.ended)) {
			log_info("the %s bus went away%s", i == 0 ? "system" :
			    "session", i == 0 ? "; the last session state "
			    "stands" : ": no more desktop notices");
			*bus[i] = sd_bus_flush_close_unref(*bus[i]);
		} else if (i == 0 && W.ended)
			W.sys = sd_bus_flush_close_unref(W.sys);
		if (*bus[i] == NULL)
			continue;
		pfd[i].fd = sd_bus_get_fd(*bus[i]);
		pfd[i].events = (short)sd_bus_get_events(*bus[i]);
		if (sd_bus_get_timeout(*bus[i], &usec) >= 0 &&
		    usec != UINT64_MAX)
			*timeout = 1000;  /* sd-bus's own deadline: look again */
	}
}

int
main(int argc, char **argv)
{
	struct session_args a;
	const char *why;
	static uint8_t buf[IPC_MAX_MSG + 1];
	size_t n;

	if (args_session_decode(argc, argv, &a) != 0)
		start_refused("keyward-session");
	start_helper("keyward-session", a.debug, START_IGNORE_INT);
	chan_init(&W.pol, 3);
	why = start((pid_t)a.agent_pid);
	if (sd_bus_open_user(&W.user) < 0) {
		W.user = NULL;
		log_info("no session bus: no desktop notices");
	}
	sandbox_harden();
	sandbox_landlock("session", NULL, NULL);
	sandbox_limit_fds();
	sandbox_session(W.pol.fd, W.sys != NULL ? sd_bus_get_fd(W.sys) : -1,
	    W.user != NULL ? sd_bus_get_fd(W.user) : -1);
	tell_start(why);
	for (;;) {
		struct pollfd pfd[3] = { { W.pol.fd, chan_events(&W.pol), 0 },
		    { -1, 0, 0 }, { -1, 0, 0 } };
		int timeout = -1, r;

		pump_buses(pfd + 1, &timeout);
		if (W.sys == NULL && W.user == NULL && W.pol.queued == 0) {
			log_debug("no bus to watch: ending");
			exit(PEER_GONE_STATUS);
		}
		if (poll(pfd, 3, timeout) < 0 && errno != EINTR)
			fatal("poll: %m");
		if ((pfd[0].revents & POLLOUT) && chan_flush(&W.pol) != 0)
			peer_gone("keyward-policy");
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
			while ((r = chan_recv(&W.pol, buf, sizeof(buf), &n)) != 0) {
				if (r < 0)
					peer_recv_end("keyward-policy", r, n);
				notice(buf, n);
			}
	}
}
