/*
 * peer.h - the caller-identity inspector's protocol (keyward-peer): one
 * request names a connection's peer, one reply says who it is. Each is a
 * single SOCK_SEQPACKET datagram of SSH wire types; encoder and decoder of
 * each side by side; decoders refuse trailing bytes and anything outside
 * ipc/limits.h's PEER_* bounds. Slices in decoded messages point into the
 * datagram.
 *
 * request: byte PEER_MSG_REQUEST; uint32 id; uint32 pid; uint32 uid;
 *          byte flags (PEER_REQ_PIDFD: a pidfd of pid comes with it, as
 *          SCM_RIGHTS; no other bit)
 * reply:   byte PEER_MSG_REPLY; uint32 id; uint32 status; string exe;
 *          string cmdline; uint32 n; n times (uint32 pid; string exe;
 *          string argv0)
 *
 * pid and uid are what SO_PEERCRED said at accept; the pidfd is taken as
 * early as the requester could (SO_PEERPIDFD, else pidfd_open at accept).
 * exe is a path (no NUL); cmdline is the peer's argv joined with spaces and
 * cut at PEER_MAX_CMDLINE: raw bytes the peer chose, never trusted (no NUL,
 * anything else): whoever shows it escapes it. The ancestors are the
 * parent, its parent, ... up to the session leader or PID 1, at most
 * PEER_MAX_ANCESTORS; an entry whose exe could not be read (another uid)
 * has an empty exe. Only PEER_OK and PEER_NOPIDFD carry data.
 */
#ifndef KEYWARD_PEER_H
#define KEYWARD_PEER_H

#include "ipc/buf.h"
#include "ipc/limits.h"

#include <stddef.h>
#include <stdint.h>

#define PEER_MSG_REQUEST        1
#define PEER_MSG_REPLY          2

#define PEER_REQ_PIDFD          0x01

/* Reply status. */
#define PEER_OK                 0       /* read, and still the same process */
#define PEER_GONE               1       /* exited, or its pid now names another
                                         * process: nothing is attributed */
#define PEER_UNREADABLE         2       /* another uid's, or root's (EACCES) */
#define PEER_NOPIDFD            3       /* read, but without a pidfd: only the
                                         * start-time check stood (degraded) */
#define PEER_UNAVAILABLE        4       /* never asked or never answered: no
                                         * inspector, or it did not answer in
                                         * PEER_TIMEOUT_MS (the monitor says so) */
#define PEER_STATUS_MAX         PEER_UNAVAILABLE

struct peer_req {
	uint32_t id;
	uint32_t pid;                   /* 1..PEER_MAX_PID */
	uint32_t uid;
	uint8_t flags;                  /* PEER_REQ_PIDFD or 0 */
};

struct peer_anc {
	uint32_t pid;
	struct slice exe;               /* empty: unreadable */
	struct slice argv0;
};

struct peer_reply {
	uint32_t id;
	uint32_t status;                /* PEER_* */
	struct slice exe;
	struct slice cmdline;
	uint32_t nanc;
	struct peer_anc anc[PEER_MAX_ANCESTORS];
};

void peer_req_encode(struct wb *w, const struct peer_req *m);
int peer_req_decode(struct rd *r, struct peer_req *m);
/* A status without data (gone, unreadable) is sent without any, whatever
 * m holds. */
void peer_reply_encode(struct wb *w, const struct peer_reply *m);
int peer_reply_decode(struct rd *r, struct peer_reply *m);
/* "ok", "gone", "unreadable", "no-pidfd", or "?" */
const char *peer_status_name(uint32_t status);

/* Send a request on a SOCK_SEQPACKET socket, with pidfd as SCM_RIGHTS
 * when m->flags has PEER_REQ_PIDFD. 0, or -1 with errno set. */
int peer_req_send(int sock, const struct peer_req *m, int pidfd);
/* Receive one request datagram into buf (at least PEER_MAX_REQUEST + 1
 * bytes) and the fd that came with it (*fdp, -1 if none; close-on-exec).
 * 1 with *n set, 0 on EOF, -1 on an error, a truncated datagram or more
 * than one fd (every fd that came is closed). */
int peer_req_recv(int sock, uint8_t *buf, size_t cap, size_t *n, int *fdp);

#endif
