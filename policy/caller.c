/*
 * caller.c - a connection's caller as keyward-peer read it: kept, and
 * shown (caller.h). Every byte the peer chose is escaped on the way out.
 */
#include "ipc/log.h"
#include "ipc/text.h"
#include "policy/caller.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
caller_free(struct caller *c)
{
	free(c->exe);
	free(c->cmdline);
	for (size_t i = 0; i < c->nanc; i++) {
		free(c->anc[i].exe);
		free(c->anc[i].argv0);
	}
	uint32_t uid = c->uid;

	memset(c, 0, sizeof(*c));
	c->status = PEER_UNAVAILABLE;
	c->uid = uid;
}

int
caller_set(struct caller *c, const struct peer_reply *m)
{
	caller_free(c);
	c->known = 1;
	c->status = m->status;
	if (m->status != PEER_OK && m->status != PEER_NOPIDFD)
		return 0;
	if ((c->exe = slice_strdup(m->exe)) == NULL ||
	    (c->cmdline = slice_strdup(m->cmdline)) == NULL)
		goto oom;
	for (size_t i = 0; i < m->nanc; i++) {
		c->anc[i].pid = m->anc[i].pid;
		c->nanc = i + 1;
		if ((c->anc[i].exe = slice_strdup(m->anc[i].exe)) == NULL ||
		    (c->anc[i].argv0 = slice_strdup(m->anc[i].argv0)) == NULL)
			goto oom;
	}
	return 0;
 oom:
	caller_free(c);
	c->known = 1;
	return -1;
}

/* The short name of an ancestor: its executable's last component, or
 * its argv[0]'s when the executable could not be read. */
static const char *
anc_name(const struct caller_anc *a)
{
	const char *s = a->exe != NULL && *a->exe != '\0' ? a->exe : a->argv0;
	const char *slash;

	if (s == NULL || *s == '\0')
		return "?";
	slash = strrchr(s, '/');
	return slash != NULL && slash[1] != '\0' ? slash + 1 : s;
}

static uint32_t own_uid = UINT32_MAX;  /* the agent's, from caller_init */

void
caller_init(uint32_t uid)
{
	own_uid = uid;
}

void
caller_describe(const struct caller *c, uint32_t pid, char *out, size_t n)
{
	char t[TEXT_TERM_MAX];
	size_t o;

	if (n == 0)
		return;
	if (c->exe == NULL) {
		snprintf(out, n, "pid %u (%s)", (unsigned)pid,
		    c->status == PEER_GONE ? "gone before it could be read" :
		    c->status != PEER_UNREADABLE ? "not inspected" :
		    /* keyward-peer has no capability: root's processes are
		     * closed to it whoever runs the agent, root's own too */
		    c->uid == 0 ? "a root process keyward cannot inspect" :
		    c->uid != own_uid ? "another user's; not readable" :
		    "a process keyward cannot inspect");
		return;
	}
	/* The command line, or the executable when the peer blanked it. */
	if (c->cmdline != NULL && *c->cmdline != '\0')
		text_term_str(t, sizeof(t), c->cmdline);
	else
		text_term_str(t, sizeof(t), c->exe);
	o = (size_t)snprintf(out, n, "%s (pid %u)", t, (unsigned)pid);
	/* Plain ASCII between the names: the default askpass
	 * (x11-ssh-askpass) is no UTF-8 reader, and shows an arrow as "a". */
	for (size_t i = 0; i < c->nanc && o < n; i++) {
		text_term_str(t, sizeof(t), anc_name(&c->anc[i]));
		o += (size_t)snprintf(out + o, n - o, "%s%s", i == 0 ? ", from " :
		    " <- ", t);
	}
}

static void
jkey(struct wb *w, const char *k, int first)
{
	if (!first)
		wb_u8(w, ',');
	text_json_str(w, k);
	wb_u8(w, ':');
}

static void
jnum(struct wb *w, const char *k, unsigned long v, int first)
{
	char b[24];
	int len = snprintf(b, sizeof(b), "%lu", v);

	jkey(w, k, first);
	wb_bytes(w, b, (size_t)len);
}

void
caller_json(struct wb *w, const struct caller *c, uint32_t pid, uint32_t uid)
{
	wb_u8(w, '{');
	jnum(w, "pid", pid, 1);
	jnum(w, "uid", uid, 0);
	jkey(w, "status", 0);
	text_json_str(w, peer_status_name(c->status));
	if (c->exe != NULL) {
		jkey(w, "exe", 0);
		text_json_str(w, c->exe);
		jkey(w, "cmdline", 0);
		text_json_str(w, c->cmdline);
		jkey(w, "ancestors", 0);
		wb_u8(w, '[');
		for (size_t i = 0; i < c->nanc; i++) {
			if (i > 0)
				wb_u8(w, ',');
			wb_u8(w, '{');
			jnum(w, "pid", c->anc[i].pid, 1);
			jkey(w, "exe", 0);
			text_json_str(w, c->anc[i].exe);
			jkey(w, "argv0", 0);
			text_json_str(w, c->anc[i].argv0);
			wb_u8(w, '}');
		}
		wb_u8(w, ']');
	}
	wb_u8(w, '}');
}
