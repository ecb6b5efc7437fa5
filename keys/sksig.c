/*
 * sksig.c - FIDO signature blobs: encoder of the agent's answer, reader
 * for verification. Both sides check the same shapes, so a blob the
 * encoder writes is one the reader accepts.
 */
#include "keys/sksig.h"

#include <string.h>

/* A magnitude of 1..32 significant bytes, leading zeros cut. */
static int
p256_scalar(struct slice *m)
{
	while (m->len > 0 && m->p[0] == 0) {
		m->p++;
		m->len--;
	}
	return m->len > 0 && m->len <= SK_P256_SCALAR_LEN ? 0 : -1;
}

int
sk_sig_encode(struct wb *w, int alg, struct slice sig_r, struct slice sig_s,
    uint8_t flags, uint32_t counter)
{
	size_t mark;

	switch (alg) {
	case SK_ALG_ED25519:
		if (sig_r.len != SK_ED25519_SIG_LEN || sig_s.len != 0)
			return -1;
		wb_cstring(w, sig_alg_name(SIG_SK_ED25519));
		wb_slice(w, sig_r);
		break;
	case SK_ALG_ECDSA_P256:
		if (p256_scalar(&sig_r) != 0 || p256_scalar(&sig_s) != 0)
			return -1;
		wb_cstring(w, sig_alg_name(SIG_SK_ECDSA_P256));
		mark = wb_begin_string(w);
		wb_mpint(w, sig_r.p, sig_r.len);
		wb_mpint(w, sig_s.p, sig_s.len);
		wb_end_string(w, mark);
		break;
	default:
		return -1;
	}
	wb_u8(w, flags);
	wb_u32(w, counter);
	return w->err ? -1 : 0;
}

int
sk_sig_parse(struct slice blob, struct sk_sig *s)
{
	struct slice name;
	struct rd r, inner;

	memset(s, 0, sizeof(*s));
	rd_init(&r, blob.p, blob.len);
	if (rd_string(&r, &name) != 0 || rd_string(&r, &s->inner) != 0 ||
	    rd_u8(&r, &s->flags) != 0 || rd_u32(&r, &s->counter) != 0 ||
	    rd_done(&r) != 0)
		return -1;
	switch ((s->alg = sig_alg_from_name(name))) {
	case SIG_SK_ED25519:
		return s->inner.len == SK_ED25519_SIG_LEN ? 0 : -1;
	case SIG_SK_ECDSA_P256:
		rd_init(&inner, s->inner.p, s->inner.len);
		if (rd_mpint(&inner, &s->r) != 0 || rd_mpint(&inner, &s->s) != 0 ||
		    rd_done(&inner) != 0 || p256_scalar(&s->r) != 0 ||
		    p256_scalar(&s->s) != 0)
			return -1;
		return 0;
	default:
		return -1;
	}
}
