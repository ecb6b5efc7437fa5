/*
 * token.c - the token helper's request and reply (token.h). Both ends use
 * these: policy encodes requests and decodes replies; keyward-sk decodes a
 * request it does not trust (policy may be compromised) and encodes the
 * reply. No libcrypto here (ipc/ is linked by the monitor).
 */
#include "wire/token.h"
#include "ipc/limits.h"

#include <string.h>

_Static_assert(TOKEN_MAX_REQUEST <= IPC_MAX_MSG,
    "a token request must fit a channel datagram");

void
token_req_encode(struct wb *w, const struct token_req *m)
{
	wb_u8(w, TOKEN_MSG_SIGN);
	wb_u32(w, m->alg);
	wb_slice(w, m->application);
	wb_u8(w, m->flags);
	wb_slice(w, m->key_handle);
	wb_slice(w, m->data);
	wb_slice(w, m->pin);
}

int
token_req_decode(struct rd *r, struct token_req *m)
{
	uint8_t type;

	memset(m, 0, sizeof(*m));
	if (rd_u8(r, &type) || type != TOKEN_MSG_SIGN ||
	    rd_u32(r, &m->alg) || rd_string(r, &m->application) ||
	    rd_u8(r, &m->flags) || rd_string(r, &m->key_handle) ||
	    rd_string(r, &m->data) || rd_string(r, &m->pin) || rd_done(r))
		return -1;
	if (m->alg != TOKEN_ALG_ECDSA && m->alg != TOKEN_ALG_ED25519)
		return -1;
	if (m->application.len == 0 ||
	    m->application.len > TOKEN_MAX_APPLICATION ||
	    slice_has_nul(m->application))
		return -1;
	if (m->key_handle.len == 0 || m->key_handle.len > TOKEN_MAX_KEY_HANDLE)
		return -1;
	if (m->data.len > TOKEN_MAX_DATA)
		return -1;
	if (m->pin.len > TOKEN_MAX_PIN || slice_has_nul(m->pin))
		return -1;
	return 0;
}

int32_t
token_status(int rc)
{
	if (rc == TOKEN_OK || (rc <= TOKEN_ERR_GENERAL && rc >= TOKEN_ERR_CRED_EXISTS))
		return rc;
	return TOKEN_ERR_GENERAL;
}

void
token_reply_encode(struct wb *w, const struct token_reply *m)
{
	struct slice none = { NULL, 0 };
	int failed = m->status != TOKEN_OK;

	wb_u8(w, TOKEN_MSG_REPLY);
	wb_u32(w, (uint32_t)token_status(m->status));
	wb_u8(w, failed ? 0 : m->flags);
	wb_u32(w, failed ? 0 : m->counter);
	wb_slice(w, failed ? none : m->sig_r);
	wb_slice(w, failed ? none : m->sig_s);
}

int
token_reply_decode(struct rd *r, uint32_t alg, struct token_reply *m)
{
	uint32_t status;
	uint8_t type;

	memset(m, 0, sizeof(*m));
	if (rd_u8(r, &type) || type != TOKEN_MSG_REPLY || rd_u32(r, &status) ||
	    rd_u8(r, &m->flags) || rd_u32(r, &m->counter) ||
	    rd_string(r, &m->sig_r) || rd_string(r, &m->sig_s) || rd_done(r))
		return -1;
	m->status = (int32_t)status;
	if (token_status(m->status) != m->status)
		return -1;
	if (m->status != TOKEN_OK)
		return m->flags == 0 && m->counter == 0 && m->sig_r.len == 0 &&
		    m->sig_s.len == 0 ? 0 : -1;
	switch (alg) {
	case TOKEN_ALG_ED25519:
		return m->sig_r.len == TOKEN_MAX_SIG_PART && m->sig_s.len == 0 ?
		    0 : -1;
	case TOKEN_ALG_ECDSA:
		return m->sig_r.len >= 1 && m->sig_r.len <= TOKEN_MAX_SIG_PART / 2 &&
		    m->sig_s.len >= 1 && m->sig_s.len <= TOKEN_MAX_SIG_PART / 2 ?
		    0 : -1;
	default:
		return -1;
	}
}
