/*
 * answers.c - the replies of the processes policy asks: the keyholder,
 * the prompter, the auditor and the broker. Each peer has one table of
 * what it may answer: a reply type, the state of the pending request it
 * answers, the payload's decoder and the handler. One lookup serves them
 * all; a reply no row names, or one that does not decode, ends policy
 * (its peers are trusted to be well-formed: that is an invariant broken).
 */
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "policy/policy.h"
#include "policy/token.h"

#include <string.h>

/* A reply, decoded: the handler reads what its row's decoder fills in;
 * a refusal (MSG_R_STATUS, MSG_R_TOKEN_FAIL) leaves s empty. */
struct reply {
	int ok;                         /* MSG_R_STATUS: ST_OK */
	struct slice s;                 /* the string of a one-string reply */
	int why;                        /* MSG_R_TOKEN_FAIL: enum tk_fail */
	const struct msg_sk_material *mat;      /* MSG_R_SK_MATERIAL */
	struct msg_sk_material mat_in;
};

struct answer {
	uint8_t type;
	enum pending_state state;       /* of the request it answers */
	int unasked;                    /* req 0: answers no request */
	int (*decode)(struct rd *, struct reply *);
	void (*fn)(struct policy *, struct pending *, const struct reply *);
};

#define NROWS(t) (sizeof(t) / sizeof((t)[0]))

/* ------------------------------------------------------------ decoders */

static int
d_status(struct rd *r, struct reply *a)
{
	struct msg_status st;

	if (msg_status_decode(r, &st) != 0)
		return -1;
	a->ok = st.status == ST_OK;
	return 0;
}

static int
d_tk_fail(struct rd *r, struct reply *a)
{
	struct msg_tk_fail f;

	if (msg_tk_fail_decode(r, &f) != 0)
		return -1;
	a->why = f.why;
	return 0;
}

static int
d_material(struct rd *r, struct reply *a)
{
	if (msg_sk_material_decode(r, &a->mat_in) != 0)
		return -1;
	a->mat = &a->mat_in;
	return 0;
}

static int
d_signature(struct rd *r, struct reply *a)
{
	return msg_string_read(r, &a->s);
}

static int
d_pubkey(struct rd *r, struct reply *a)
{
	return msg_string_read(r, &a->s);
}

static int
d_secret(struct rd *r, struct reply *a)
{
	return msg_string_read(r, &a->s);
}

static int
d_path(struct rd *r, struct reply *a)
{
	return msg_string_read(r, &a->s);
}

static int
d_token(struct rd *r, struct reply *a)
{
	return msg_string_read(r, &a->s);
}

static int
d_p11_gone(struct rd *r, struct reply *a)
{
	return msg_string_read(r, &a->s);
}

/* ------------------------------------------------------------ handlers */

static void
on_signed(struct policy *P, struct pending *pd, const struct reply *a)
{
	sign_signed(P, pd, a->s);
}

static void
on_added(struct policy *P, struct pending *pd, const struct reply *a)
{
	keys_add_done(P, pd, a->s);
}

static void
on_material(struct policy *P, struct pending *pd, const struct reply *a)
{
	token_material(P, pd, a->mat);
}

static void
on_locked(struct policy *P, struct pending *pd, const struct reply *a)
{
	lock_done(P, pd, a->ok);
}

static void
on_confirmed(struct policy *P, struct pending *pd, const struct reply *a)
{
	sign_confirmed(P, pd, a->ok);
}

static void
on_pin(struct policy *P, struct pending *pd, const struct reply *a)
{
	token_pin(P, pd, a->s);
}

static void
on_audited(struct policy *P, struct pending *pd, const struct reply *a)
{
	sign_audited(P, pd, a->ok);
}

static void
on_resolved(struct policy *P, struct pending *pd, const struct reply *a)
{
	(pd->p11 ? p11_resolved : keys_resolved)(P, pd, a->s);
}

static void
on_p11_listed(struct policy *P, struct pending *pd, const struct reply *a)
{
	p11_listed(P, pd, a->s, a->why);
}

static void
on_p11_signed(struct policy *P, struct pending *pd, const struct reply *a)
{
	p11_signed(P, pd, a->s, a->why);
}

static void
on_token(struct policy *P, struct pending *pd, const struct reply *a)
{
	token_answer(P, pd, a->s, a->why);
}

static void
on_p11_gone(struct policy *P, struct pending *pd, const struct reply *a)
{
	(void)pd;
	p11_gone(P, a->s);
}

/* -------------------------------------------------------------- tables */

static const struct answer from_keyholder[] = {
	{ MSG_R_SIGNATURE,   P_SIGN,        0, d_signature, on_signed },
	{ MSG_R_STATUS,      P_SIGN,        0, d_status,    on_signed },
	{ MSG_R_PUBKEY,      P_ADD,         0, d_pubkey,    on_added },
	{ MSG_R_STATUS,      P_ADD,         0, d_status,    on_added },
	{ MSG_R_SK_MATERIAL, P_SK_MATERIAL, 0, d_material,  on_material },
	{ MSG_R_STATUS,      P_SK_MATERIAL, 0, d_status,    on_material },
	{ MSG_R_STATUS,      P_LOCK,        0, d_status,    on_locked },
	{ MSG_R_STATUS,      P_UNLOCK,      0, d_status,    on_locked },
};

/* A confirm is answered by a status, a PIN question by the PIN or a
 * refusal. */
static const struct answer from_prompter[] = {
	{ MSG_R_STATUS,      P_CONFIRM,     0, d_status,    on_confirmed },
	{ MSG_R_SECRET,      P_PIN,         0, d_secret,    on_pin },
	{ MSG_R_STATUS,      P_PIN,         0, d_status,    on_pin },
};

static const struct answer from_auditor[] = {
	{ MSG_R_STATUS,      P_AUDIT,       0, d_status,    on_audited },
};

/* A resolve is answered by the path or a refusal, a token signature by
 * the helper's reply or why there is none. */
static const struct answer from_broker[] = {
	{ MSG_R_PATH,        P_RESOLVE,     0, d_path,      on_resolved },
	{ MSG_R_STATUS,      P_RESOLVE,     0, d_status,    on_resolved },
	{ MSG_R_TOKEN,       P_P11_LOGIN,   0, d_token,     on_p11_listed },
	{ MSG_R_TOKEN_FAIL,  P_P11_LOGIN,   0, d_tk_fail,   on_p11_listed },
	{ MSG_R_TOKEN,       P_P11_SIGN,    0, d_token,     on_p11_signed },
	{ MSG_R_TOKEN_FAIL,  P_P11_SIGN,    0, d_tk_fail,   on_p11_signed },
	{ MSG_R_TOKEN,       P_TOKEN,       0, d_token,     on_token },
	{ MSG_R_TOKEN_FAIL,  P_TOKEN,       0, d_tk_fail,   on_token },
	{ MSG_R_P11_GONE,    0,             1, d_p11_gone,  on_p11_gone },
};

/* The states of the requests a peer answers: those its table names. */
static unsigned
answered(const struct answer *t, size_t n)
{
	unsigned states = 0;

	for (size_t i = 0; i < n; i++)
		if (!t[i].unasked)
			states |= PSTATE(t[i].state);
	return states;
}

/* The row of t answering pd (NULL: a reply to no request) with a reply
 * of this type, decoded and handled. */
static void
answer(struct policy *P, const struct answer *t, size_t n, const char *peer,
    const struct msg_hdr *h, struct rd *r, struct pending *pd)
{
	struct reply a;
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].type == h->type && (pd == NULL ? t[i].unasked :
		    !t[i].unasked && t[i].state == pd->state))
			break;
	memset(&a, 0, sizeof(a));
	if (i == n || t[i].decode(r, &a) != 0)
		peer_broke(peer, "sent a malformed reply (type %u)", h->type);
	t[i].fn(P, pd, &a);
}

/* A peer, and what a reply naming no request it was asked means. */
struct peer {
	const char *name;
	const struct answer *t;
	size_t n;
	int zero_done;          /* req 0: an answer no one waits for (the
	                         * keyholder's to a delete or wipe) */
	int gone_ok;            /* a request cancelled meanwhile (the
	                         * prompter's), not an invariant broken */
};

static const struct peer keyholder = {
	"keyholder", from_keyholder, NROWS(from_keyholder), 1, 0 };
static const struct peer prompter = {
	"prompter", from_prompter, NROWS(from_prompter), 0, 1 };
static const struct peer auditor = {
	"auditor", from_auditor, NROWS(from_auditor), 0, 0 };
static const struct peer broker = {
	"broker", from_broker, NROWS(from_broker), 0, 0 };

/* One message from a peer: its header, the pending request it answers
 * (none for req 0 where the peer's table has unasked rows), its row. */
static void
from_peer(struct policy *P, const struct peer *peer, const uint8_t *p,
    size_t n)
{
	struct pending *pd = NULL;
	struct msg_hdr h;
	struct rd r;
	int unasked = 0;

	rd_init(&r, p, n);
	if (msg_hdr_decode(&r, &h) != 0)
		peer_broke(peer->name, "sent a message with no header");
	if (h.req == 0 && peer->zero_done)
		return;
	for (size_t i = 0; i < peer->n; i++)
		unasked |= peer->t[i].unasked;
	if (h.req != 0 || !unasked) {
		pd = pending_take(P, h.req, answered(peer->t, peer->n));
		if (pd == NULL && peer->gone_ok)
			return;
		if (pd == NULL)
			peer_broke(peer->name, "answered request %u, which "
			    "nobody asked", h.req);
	}
	answer(P, peer->t, peer->n, peer->name, &h, &r, pd);
}

void
policy_from_keyholder(struct policy *P, const uint8_t *p, size_t n)
{
	from_peer(P, &keyholder, p, n);
}

void
policy_from_prompter(struct policy *P, const uint8_t *p, size_t n)
{
	from_peer(P, &prompter, p, n);
}

void
policy_from_auditor(struct policy *P, const uint8_t *p, size_t n)
{
	from_peer(P, &auditor, p, n);
}

void
policy_from_broker(struct policy *P, const uint8_t *p, size_t n)
{
	from_peer(P, &broker, p, n);
}
