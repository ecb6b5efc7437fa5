/*
 * msg.c - what every inter-process message has in common (msg.h): the
 * header, one-string payloads, the status and the signature replies.
 */
#include "wire/msg.h"
#include "ipc/sibling.h"

void
msg_begin(struct wb *w, uint8_t type, uint32_t req, uint32_t conn)
{
	wb_reset(w);
	wb_u8(w, type);
	wb_u32(w, req);
	wb_u32(w, conn);
}

int
msg_hdr_decode(struct rd *r, struct msg_hdr *h)
{
	return rd_u8(r, &h->type) || rd_u32(r, &h->req) || rd_u32(r, &h->conn);
}

int
msg_empty_decode(struct rd *r)
{
	return rd_done(r);
}

void
msg_sibling_hdr(const char *peer, const uint8_t *p, size_t n, struct rd *r,
    struct msg_hdr *h)
{
	rd_init(r, p, n);
	if (msg_hdr_decode(r, h) != 0)
		peer_broke(peer, "a message of %zu bytes with no header", n);
}

const void *
msg_row(const char *peer, const void *rows, size_t nrows, size_t rowsize,
    uint8_t type)
{
	const uint8_t *row = rows;

	for (size_t i = 0; i < nrows; i++, row += rowsize)
		if (*row == type)
			return row;
	peer_broke(peer, "a message of type %u, which it never sends", type);
}

void
msg_string_write(struct wb *w, uint8_t type, uint32_t req, uint32_t conn,
    struct slice s)
{
	msg_begin(w, type, req, conn);
	wb_slice(w, s);
}

int
msg_string_read(struct rd *r, struct slice *s)
{
	return rd_string(r, s) || rd_done(r);
}

void
msg_status_encode(struct wb *w, const struct msg_status *m)
{
	wb_u8(w, m->status);
}

int
msg_status_decode(struct rd *r, struct msg_status *m)
{
	if (rd_u8(r, &m->status) || rd_done(r))
		return -1;
	return m->status <= ST_EXT_FAIL ? 0 : -1;
}

void
msg_status_reply(struct wb *w, uint32_t req, uint32_t conn, uint8_t st)
{
	msg_begin(w, MSG_R_STATUS, req, conn);
	msg_status_encode(w, &(struct msg_status){ st });
}

void
msg_signature_write(struct wb *w, uint32_t req, uint32_t conn, struct slice sig)
{
	msg_string_write(w, MSG_R_SIGNATURE, req, conn, sig);
}
