/*
 * conns.c - keyward-ctl connections (conns.h). The text form is
 * ipc/text.h's terminal form, so a caller's command line cannot drive
 * the terminal; the JSON form is its JSON string, so every line parses.
 */
#include "ctl/conns.h"
#include "wire/agent.h"
#include "ipc/limits.h"
#include "wire/peer.h"
#include "ipc/text.h"

#include <inttypes.h>
#include <string.h>

void
conns_request(struct wb *w)
{
	agent_ext_request(w, CONNS_EXTENSION);
}

enum ext_answer
conns_reply_decode(struct slice reply, struct conns_list *l, const char **why)
{
	enum ext_answer a;
	struct rd r;

	memset(l, 0, sizeof(*l));
	if ((a = agent_ext_answer_open(reply, CONNS_EXTENSION, 0, &r, why)) !=
	    EXT_ANSWERED)
		return a;
	if (conns_decode(&r, l, why) != 0)
		return EXT_MALFORMED;
	return EXT_ANSWERED;
}

/* ------------------------------------------------------------ text */

static void
text_str(FILE *f, struct slice s, const char *empty)
{
	char t[TEXT_TERM_MAX];

	fputs(s.len == 0 ? empty : text_term(t, sizeof(t), s.p, s.len), f);
}

void
conns_print_text(FILE *f, const struct conns_list *l)
{
	fprintf(f, "%-6s %-7s %-7s %-12s %s\n", "CONN", "UID", "PID", "STATUS",
	    "CALLER");
	for (size_t i = 0; i < l->n; i++) {
		const struct conns_conn *c = &l->c[i];

		fprintf(f, "%-6" PRIu32 " %-7" PRIu32 " %-7" PRIu32 " %-12s ",
		    c->id, c->uid, c->pid, peer_status_name(c->status));
		text_str(f, c->exe, "-");
		fputc('\n', f);
		if (c->cmdline.len > 0) {
			fputs("    cmdline: ", f);
			text_str(f, c->cmdline, "");
			fputc('\n', f);
		}
		for (size_t j = 0; j < c->nanc; j++) {
			fprintf(f, "    from: pid %" PRIu32 " ", c->anc[j].pid);
			text_str(f, c->anc[j].exe, "?");
			fputs(" (", f);
			text_str(f, c->anc[j].argv0, "");
			fputs(")\n", f);
		}
		if (c->bind_attempted && c->nhops == 0)
			fputs("    session-bind: attempted, none verified\n", f);
		for (size_t j = 0; j < c->nhops; j++) {
			fprintf(f, "    hop %zu: ", j + 1);
			text_str(f, c->hops[j].host, "(unnamed)");
			fputc(' ', f);
			text_str(f, c->hops[j].fp, "?");
			fputs(c->hops[j].forwarding ? " forwarding\n" : "\n", f);
		}
		if (c->socket.len != 4 || memcmp(c->socket.p, "main", 4) != 0) {
			fputs("    socket: ", f);
			text_str(f, c->socket, "?");
			fputc('\n', f);
		}
	}
	if (l->total > l->n)
		fprintf(f, "(%" PRIu32 " more not listed: the answer would be too "
		    "long)\n", l->total - (uint32_t)l->n);
}

/* ------------------------------------------------------------ JSON */

static void
jstr(struct wb *w, const char *key, struct slice s)
{
	wb_bytes(w, key, strlen(key));
	text_json(w, s.p, s.len);
}

void
conns_print_json(FILE *f, const struct conns_list *l)
{
	struct wb w;
	char num[96];

	wb_init(&w);
	for (size_t i = 0; i < l->n; i++) {
		const struct conns_conn *c = &l->c[i];

		wb_reset(&w);
		snprintf(num, sizeof(num), "{\"conn\":%" PRIu32 ",\"uid\":%" PRIu32
		    ",\"pid\":%" PRIu32 ",\"status\":", c->id, c->uid, c->pid);
		wb_bytes(&w, num, strlen(num));
		text_json_str(&w, peer_status_name(c->status));
		if (c->status == PEER_OK || c->status == PEER_NOPIDFD) {
			jstr(&w, ",\"exe\":", c->exe);
			jstr(&w, ",\"cmdline\":", c->cmdline);
		}
		jstr(&w, ",\"socket\":", c->socket);
		wb_bytes(&w, ",\"ancestors\":[", 14);
		for (size_t j = 0; j < c->nanc; j++) {
			snprintf(num, sizeof(num), "%s{\"pid\":%" PRIu32,
			    j > 0 ? "," : "", c->anc[j].pid);
			wb_bytes(&w, num, strlen(num));
			jstr(&w, ",\"exe\":", c->anc[j].exe);
			jstr(&w, ",\"argv0\":", c->anc[j].argv0);
			wb_u8(&w, '}');
		}
		snprintf(num, sizeof(num), "],\"session_bind\":%s,\"hops\":[",
		    c->bind_attempted ? "true" : "false");
		wb_bytes(&w, num, strlen(num));
		for (size_t j = 0; j < c->nhops; j++) {
			wb_bytes(&w, j > 0 ? "," : "", j > 0 ? 1 : 0);
			jstr(&w, "{\"fingerprint\":", c->hops[j].fp);
			if (c->hops[j].host.len > 0)
				jstr(&w, ",\"host\":", c->hops[j].host);
			else
				wb_bytes(&w, ",\"host\":null", 12);
			snprintf(num, sizeof(num), ",\"forwarding\":%s}",
			    c->hops[j].forwarding ? "true" : "false");
			wb_bytes(&w, num, strlen(num));
		}
		wb_bytes(&w, "]}\n", 3);
		if (!w.err)
			fwrite(w.p, 1, w.len, f);
	}
	wb_free(&w);
}
