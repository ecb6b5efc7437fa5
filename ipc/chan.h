/*
 * chan.h - one end of a SOCK_SEQPACKET socketpair between two keyward
 * processes. Sends never block: a datagram the kernel cannot take now is
 * queued and flushed when poll says the socket is writable, so each
 * process runs one poll loop and a slow peer stalls no one.
 */
#ifndef KEYWARD_CHAN_H
#define KEYWARD_CHAN_H

#include "ipc/buf.h"

#include <stddef.h>
#include <sys/types.h>

struct chan_q;

struct chan {
	int fd;
	struct chan_q *head, *tail;
	size_t queued;          /* bytes waiting in the queue */
};

void chan_init(struct chan *c, int fd);
/* Size the socket buffers for IPC_MAX_MSG datagrams; fatal if impossible. */
void chan_setup_fd(int fd);
/* Send one message (w holds it), queueing what the kernel cannot take
 * now. -1 only when the peer is gone: the caller fails closed. */
int chan_send(struct chan *c, const struct wb *w);
/* Send one datagram of n bytes at p on sock, with fd passed beside it
 * (SCM_RIGHTS) unless fd < 0; retried on EINTR, never SIGPIPE. What
 * sendmsg returned. */
ssize_t chan_send_fd(int sock, const void *p, size_t n, int fd);
/* Receive one datagram into buf and the fd that came with it (*fdp, -1
 * if none; close-on-exec). 1 with *n set, 0 on EOF, -1 on an error, a
 * datagram of cap bytes or more (truncated, or cut) or more than one fd
 * (every fd that came is closed). */
int chan_recv_fd(int sock, void *buf, size_t cap, size_t *n, int *fdp);
/* Flush queued messages; -1 on a dead peer. */
int chan_flush(struct chan *c);
/* Receive one datagram into buf (at least IPC_MAX_MSG + 1 bytes).
 * Returns 1 with *n set, 0 if nothing is waiting, -1 on EOF or error, or
 * CHAN_TOO_LONG (< 0 too) with *n its length for a datagram too long to
 * be ours: no encoder of ours made it, so a sibling that sent it broke
 * (peer_recv_end, ipc/sibling.h). */
#define CHAN_TOO_LONG (-2)
int chan_recv(struct chan *c, uint8_t *buf, size_t cap, size_t *n);
/* More than IPC_QUEUE_HIGH bytes wait: the sender should stop taking in
 * new work for this peer until it drains (back-pressure, never fatal). */
int chan_busy(const struct chan *c);
/* poll events this channel wants. */
short chan_events(const struct chan *c);
void chan_close(struct chan *c);

#endif
