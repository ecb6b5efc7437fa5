/*
 * peer.c - the caller-identity inspector's request and reply (peer.h).
 * The monitor (or policy) encodes requests and decodes replies from a
 * process that reads what hostile peers put in /proc; keyward-peer decodes
 * requests and encodes replies. No libcrypto here.
 */
#include "wire/peer.h"
#include "ipc/chan.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

_Static_assert(PEER_MAX_REPLY <= IPC_MAX_MSG,
    "a peer reply must fit a channel datagram");

static const char *const status_names[] = {
	[PEER_OK] = "ok", [PEER_GONE] = "gone",
	[PEER_UNREADABLE] = "unreadable", [PEER_NOPIDFD] = "no-pidfd",
	[PEER_UNAVAILABLE] = "unavailable",
};

const char *
peer_status_name(uint32_t status)
{
	return status <= PEER_STATUS_MAX ? status_names[status] : "?";
}

void
peer_req_encode(struct wb *w, const struct peer_req *m)
{
	wb_u8(w, PEER_MSG_REQUEST);
	wb_u32(w, m->id);
	wb_u32(w, m->pid);
	wb_u32(w, m->uid);
	wb_u8(w, m->flags);
}

int
peer_req_decode(struct rd *r, struct peer_req *m)
{
	uint8_t type;

	memset(m, 0, sizeof(*m));
	if (rd_u8(r, &type) || type != PEER_MSG_REQUEST || rd_u32(r, &m->id) ||
	    rd_u32(r, &m->pid) || rd_u32(r, &m->uid) || rd_u8(r, &m->flags) ||
	    rd_done(r) || m->pid == 0 || m->pid > PEER_MAX_PID ||
	    (m->flags & ~PEER_REQ_PIDFD) != 0) {
		memset(m, 0, sizeof(*m));
		return -1;
	}
	return 0;
}

static int
has_data(uint32_t status)
{
	return status == PEER_OK || status == PEER_NOPIDFD;
}

void
peer_reply_encode(struct wb *w, const struct peer_reply *m)
{
	struct slice none = { NULL, 0 };
	int data = has_data(m->status);
	uint32_t n = data ? m->nanc : 0;

	if (n > PEER_MAX_ANCESTORS)
		n = PEER_MAX_ANCESTORS;
	wb_u8(w, PEER_MSG_REPLY);
	wb_u32(w, m->id);
	wb_u32(w, m->status);
	wb_slice(w, data ? m->exe : none);
	wb_slice(w, data ? m->cmdline : none);
	wb_u32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		wb_u32(w, m->anc[i].pid);
		wb_slice(w, m->anc[i].exe);
		wb_slice(w, m->anc[i].argv0);
	}
}

int
peer_reply_decode(struct rd *r, struct peer_reply *m)
{
	struct peer_anc *a;
	uint8_t type;

	memset(m, 0, sizeof(*m));
	if (rd_u8(r, &type) || type != PEER_MSG_REPLY || rd_u32(r, &m->id) ||
	    rd_u32(r, &m->status) || rd_string(r, &m->exe) ||
	    rd_string(r, &m->cmdline) || rd_u32(r, &m->nanc))
		goto bad;
	if (m->status > PEER_STATUS_MAX || m->nanc > PEER_MAX_ANCESTORS ||
	    m->exe.len > PEER_MAX_EXE || slice_has_nul(m->exe) ||
	    m->cmdline.len > PEER_MAX_CMDLINE || slice_has_nul(m->cmdline))
		goto bad;
	if (!has_data(m->status) &&
	    (m->exe.len != 0 || m->cmdline.len != 0 || m->nanc != 0))
		goto bad;
	for (uint32_t i = 0; i < m->nanc; i++) {
		a = &m->anc[i];
		if (rd_u32(r, &a->pid) || rd_string(r, &a->exe) ||
		    rd_string(r, &a->argv0))
			goto bad;
		if (a->pid == 0 || a->pid > PEER_MAX_PID ||
		    a->exe.len > PEER_MAX_EXE || slice_has_nul(a->exe) ||
		    a->argv0.len > PEER_MAX_ARGV0 || slice_has_nul(a->argv0))
			goto bad;
	}
	if (rd_done(r))
		goto bad;
	return 0;
 bad:
	memset(m, 0, sizeof(*m));
	return -1;
}

int
peer_req_send(int sock, const struct peer_req *m, int pidfd)
{
	struct wb w;
	ssize_t r;
	int ret = -1;

	wb_init(&w);
	peer_req_encode(&w, m);
	if (w.err) {
		wb_free(&w);
		errno = ENOMEM;
		return -1;
	}
	r = chan_send_fd(sock, w.p, w.len, m->flags & PEER_REQ_PIDFD ? pidfd : -1);
	if (r >= 0 && (size_t)r == w.len)
		ret = 0;
	else if (r >= 0)
		errno = EMSGSIZE;
	wb_free(&w);
	return ret;
}

int
peer_req_recv(int sock, uint8_t *buf, size_t cap, size_t *n, int *fdp)
{
	return chan_recv_fd(sock, buf, cap, n, fdp);
}
