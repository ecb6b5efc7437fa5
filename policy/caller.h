/*
 * caller.h - who is at the other end of a connection, as keyward-peer
 * read it (wire/peer.h) and the monitor passed it on (MSG_PEER): kept with
 * the connection, shown in prompts, refusal logs, audit records and
 * keyward-ctl's connection list, matched by rules (rules/rules.h).
 *
 * Everything here but the pids is text the peer chose (its argv, the
 * path it runs from): it is stored as the bytes came (no NUL) and
 * escaped by whoever shows it -- text_term for a terminal or a prompt,
 * text_json for a record. Trust: the monitor's word, since the monitor
 * accepts the connection and takes its pidfd (doc/threat-model.md).
 */
#ifndef KEYWARD_CALLER_H
#define KEYWARD_CALLER_H

#include "ipc/buf.h"
#include "ipc/limits.h"
#include "wire/peer.h"

#include <stddef.h>
#include <stdint.h>

struct caller_anc {
	uint32_t pid;
	char *exe;              /* "" when unreadable */
	char *argv0;
};

struct caller {
	uint32_t status;        /* PEER_*: PEER_UNAVAILABLE until MSG_PEER */
	uint32_t uid;           /* the connection's (SO_PEERCRED), kept by
	                         * caller_set and caller_free */
	int known;              /* MSG_PEER came */
	char *exe;              /* NULL unless status is OK or NOPIDFD */
	char *cmdline;
	size_t nanc;
	struct caller_anc anc[PEER_MAX_ANCESTORS];
};

/* Replace c with what m says. 0, or -1 (out of memory: c unknown). */
int caller_set(struct caller *c, const struct peer_reply *m);
void caller_free(struct caller *c);

/* The agent's own uid, given before the filter closes: a process of
 * another uid keyward-peer could not read is "another user's". */
void caller_init(uint32_t own_uid);
/* One line for people, terminal-safe: "/usr/bin/ssh -A perseus (pid 4242),
 * from bash <- tmux", or "pid 4242 (gone before it could be read)"; its uid
 * says whose a process keyward-peer could not read is. */
void caller_describe(const struct caller *c, uint32_t pid, char *out,
    size_t n);
/* The audit record's "peer" object: pid, uid, status, and for a peer that
 * was read exe, cmdline and ancestors [{pid, exe, argv0}]. */
void caller_json(struct wb *w, const struct caller *c, uint32_t pid,
    uint32_t uid);

#endif
