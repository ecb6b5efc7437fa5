/*
 * sibling.h - how a keyward process ends when a sibling it depends on
 * breaks its side of their channel (doc/design.md §4, "A sibling that
 * breaks"). Two cases, one routine (the hook, one line, the exit):
 *
 *   peer_gone(peer)           the channel closed, or a send found it
 *                             closed: how every helper is told to stop,
 *                             the agent ending from the top down. One
 *                             debug line, PEER_GONE_STATUS.
 *   peer_broke(peer, fmt...)  the sibling sent what its own encoder cannot
 *                             have made (a message that does not decode, a
 *                             type it may not send), or went while this
 *                             process still needs it: it is compromised or
 *                             broken. One error line, PEER_BROKE_STATUS.
 *
 * Both first run the hook set by peer_at_end (seal a trail, wipe a
 * buffer). The line is escaped by ipc/log.c like any other. Not for a
 * peer untrusted by design (keyward-peer for the monitor, a token helper
 * for the broker): those are dropped and the process goes on
 * (doc/threat-model.md).
 */
#ifndef KEYWARD_SIBLING_H
#define KEYWARD_SIBLING_H

#include <stddef.h>

/* An ordered end, as any helper's; fatal()'s status, the agent failing
 * closed. */
#define PEER_GONE_STATUS  0
#define PEER_BROKE_STATUS 255

/* Called once, before the exit, from whichever thread ends the process:
 * a hook must not touch what another thread may hold. */
void peer_at_end(void (*fn)(void));
void peer_gone(const char *peer) __attribute__((noreturn));
void peer_broke(const char *peer, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* chan_recv's r < 0 on peer's channel (n as it set it): a datagram too
 * long to be ours (CHAN_TOO_LONG) is peer_broke, anything else peer_gone. */
void peer_recv_end(const char *peer, int r, size_t n) __attribute__((noreturn));

#endif
