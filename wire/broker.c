/*
 * broker.c - the messages between policy and the broker (broker.h).
 */
#include "wire/broker.h"

void
msg_tk_sign_encode(struct wb *w, const struct msg_tk_sign *m)
{
	wb_slice(w, m->provider);
	wb_slice(w, m->request);
}

int
msg_tk_sign_decode(struct rd *r, struct msg_tk_sign *m)
{
	return rd_text(r, &m->provider) || rd_string(r, &m->request) ||
	    rd_done(r);
}

void
msg_tk_fail_encode(struct wb *w, const struct msg_tk_fail *m)
{
	wb_u8(w, m->why);
}

int
msg_tk_fail_decode(struct rd *r, struct msg_tk_fail *m)
{
	if (rd_u8(r, &m->why) || rd_done(r))
		return -1;
	return m->why >= TK_BUSY && m->why <= TK_FAIL_MAX ? 0 : -1;
}

void
msg_tk_resolve_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice provider)
{
	msg_string_write(w, MSG_TK_RESOLVE, req, conn, provider);
}

void
msg_tk_p11_stop_write(struct wb *w, struct slice provider)
{
	msg_string_write(w, MSG_TK_P11_STOP, 0, 0, provider);
}

void
msg_path_write(struct wb *w, uint32_t req, struct slice path)
{
	msg_string_write(w, MSG_R_PATH, req, 0, path);
}

void
msg_token_write(struct wb *w, uint32_t req, struct slice reply)
{
	msg_string_write(w, MSG_R_TOKEN, req, 0, reply);
}

void
msg_p11_gone_write(struct wb *w, struct slice provider)
{
	msg_string_write(w, MSG_R_P11_GONE, 0, 0, provider);
}
