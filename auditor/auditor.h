/*
 * auditor.h - keyward-auditor's state, shared by its two files: main.c
 * (start, the chain, seals, policy's records) and trail.c (the one trail:
 * a file, stderr, or syslog's socket).
 */
#ifndef KEYWARD_AUDITOR_H
#define KEYWARD_AUDITOR_H

#include "crypto/auditchain.h"
#include "ipc/buf.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

struct auditor {
	int fd;                         /* the file trail, or -1 */
	int sync;
	int use_syslog;
	int log_fd;                     /* the syslog socket, -1: not connected */
	int stalled;                    /* its queue stayed full: do not wait */
	struct sockaddr_un sa;
	int facility;
	const char *tag;
	long pid;
	int key_fd;                     /* -1: no key, no seals */
	struct audit_state st;          /* key: the next sealing key */
	uint64_t seq;                   /* of the next line */
	uint8_t prev[AUDIT_HASH_LEN];   /* hash of the last line written */
	size_t unsealed;                /* lines since the last seal */
	uint64_t unsealed_since_ms;
};

/* trail.c */
/* (Re)connect the syslog socket a->sa; a->log_fd -1 if that failed. */
void log_connect(struct auditor *a);
/* One line to the trail (a->use_syslog: one syslog message); 0 or -1. */
int write_line(struct auditor *a, struct slice line);
/* The time now, UTC, as 2026-01-02T03:04:05.678Z. */
void utc_now(char *ts, size_t n);

#endif
