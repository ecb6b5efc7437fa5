/*
 * session.c - keyward-ctl session (session.h): the login session the
 * agent follows as policy sees it (keyward(1), SESSION WATCH). The
 * detail is printable ASCII by the decoder's check; it is escaped all
 * the same, like every string an agent sends.
 */
#include "ctl/session.h"
#include "ipc/limits.h"
#include "ipc/text.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

void
session_request(struct wb *w)
{
	agent_ext_request(w, SESSION_EXTENSION);
}

enum ext_answer
session_reply_decode(struct slice reply, struct session_view *v,
    const char **why)
{
	enum ext_answer a;
	struct rd r;

	memset(v, 0, sizeof(*v));
	if ((a = agent_ext_answer_open(reply, SESSION_EXTENSION, 0, &r, why)) !=
	    EXT_ANSWERED)
		return a;
	if (session_view_decode(&r, v) != 0) {
		*why = "a malformed session state";
		return EXT_MALFORMED;
	}
	return EXT_ANSWERED;
}

/* seconds since 1970 as UTC, ISO 8601; "never" for 0 */
static const char *
when(char *buf, size_t n, uint64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t == 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return "never";
	return buf;
}

void
session_print_text(FILE *f, const struct session_view *v)
{
	char t[TEXT_TERM_MAX], tb[32];
	const char *detail = text_term(t, sizeof(t), v->detail.p, v->detail.len);

	if (!v->followed) {
		fprintf(f, "no session followed (%s)\n", detail);
		return;
	}
	fprintf(f, "session:      %s%s\n", detail,
	    (v->flags & SESSION_VIEW_ENDED) ? " (ended)" : "");
	fprintf(f, "screen:       %s\n",
	    (v->flags & SESSION_VIEW_LOCKED) ? "locked" : "unlocked");
	if (v->flags & SESSION_VIEW_IDLE)
		fprintf(f, "idle:         yes, for %" PRIu32 " s\n", v->idle_s);
	else
		fputs("idle:         no\n", f);
	fprintf(f, "suspended:    %s\n",
	    (v->flags & SESSION_VIEW_ASLEEP) ? "yes" : "no");
	fprintf(f, "last suspend: %s\n", when(tb, sizeof(tb), v->last_suspend));
	fprintf(f, "agent:        %s\n", (v->flags & SESSION_VIEW_AGENT_LOCKED) ?
	    "locked by the session" : "not locked by the session");
}

static void
jbool(struct wb *w, const char *key, int v)
{
	wb_bytes(w, ",\"", 2);
	wb_bytes(w, key, strlen(key));
	wb_bytes(w, "\":", 2);
	wb_bytes(w, v ? "true" : "false", v ? 4 : 5);
}

void
session_print_json(FILE *f, const struct session_view *v)
{
	char tb[32], num[24];
	struct wb w;

	wb_init(&w);
	wb_bytes(&w, "{\"followed\":", 12);
	wb_bytes(&w, v->followed ? "true" : "false", v->followed ? 4 : 5);
	wb_bytes(&w, v->followed ? ",\"session\":" : ",\"reason\":",
	    v->followed ? 11 : 10);
	text_json(&w, v->detail.p, v->detail.len);
	if (v->followed) {
		jbool(&w, "locked", v->flags & SESSION_VIEW_LOCKED);
		jbool(&w, "idle", v->flags & SESSION_VIEW_IDLE);
		snprintf(num, sizeof(num), "%" PRIu32, v->idle_s);
		wb_bytes(&w, ",\"idle_s\":", 10);
		wb_bytes(&w, num, strlen(num));
		jbool(&w, "suspended", v->flags & SESSION_VIEW_ASLEEP);
		jbool(&w, "ended", v->flags & SESSION_VIEW_ENDED);
		jbool(&w, "agent_locked", v->flags & SESSION_VIEW_AGENT_LOCKED);
		wb_bytes(&w, ",\"last_suspend\":", 16);
		if (v->last_suspend == 0)
			wb_bytes(&w, "null", 4);
		else
			text_json_str(&w, when(tb, sizeof(tb), v->last_suspend));
	}
	wb_bytes(&w, "}\n", 2);
	if (!w.err)
		fwrite(w.p, 1, w.len, f);
	wb_free(&w);
}
