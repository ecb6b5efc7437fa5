/*
 * token.c - signatures made by a FIDO token (sk- keys, doc/protocol.md §4.7) and the
 * providers that reach it (doc/protocol.md §6.5). Policy asks and judges; it never waits:
 *
 *   sign: (judged, confirmed, audited as any key; sign.c) --> SK_MATERIAL
 *         SK_MATERIAL --keyholder: (alg, application, flags, key handle)-->
 *         TOKEN (the broker runs one keyward-sk; a touch may take long)
 *         TOKEN --signature--> verified against the public key --> reply
 *         TOKEN --"PIN required", none tried--> PIN (prompter) --PIN-->
 *               SK_MATERIAL again, with the PIN (once, as OpenSSH does)
 *         anything else --> refuse, with a log line
 *   add:  (an sk key naming a library) --> RESOLVE (the broker: realpath)
 *         --path matches -P--> the keyholder add (keys.c)       [barrier]
 *
 * The key handle and the PIN pass through policy for one signature and
 * are wiped once handed on; the keyholder keeps the handle sealed.
 */
#include "crypto/crypto.h"
#include "ipc/log.h"
#include "keys/sksig.h"
#include "ipc/text.h"
#include "wire/token.h"
#include "policy/audit.h"
#include "policy/describe.h"
#include "policy/dispatch.h"
#include "policy/token.h"
#include "rules/scope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

_Static_assert(TOKEN_MAX_FORWARDED < TOKEN_MAX_HELPERS &&
    TOKEN_MAX_PER_HOP <= TOKEN_MAX_FORWARDED,
    "forwarded clients must leave token helpers to local ones");
_Static_assert(PROMPT_MAX_FORWARDED < PROMPT_MAX_CONCURRENT &&
    PROMPT_MAX_PER_HOP <= PROMPT_MAX_FORWARDED,
    "forwarded clients must leave prompts to local ones");

int
token_provider_internal(struct slice provider)
{
	return provider.len == 8 && strncasecmp((const char *)provider.p,
	    "internal", 8) == 0;
}

/* ------------------------------------------------------------- add */

void
token_resolve(struct policy *P, struct pending *p, struct slice provider)
{
	p->state = P_RESOLVE;
	pending_keep(P, p);
	msg_tk_resolve_write(&P->out, p->id, p->conn, provider);
	send_to(&P->tk, &P->out, "broker");
}

/* ------------------------------------------------------------- sign */

static void
refuse_token(struct policy *P, struct pending *p, const struct identity *id,
    const char *why)
{
	if (!p->gone) {
		log_info("refused signature with %s %s \"%s\": %s",
		    id != NULL ? key_kind_name(id->kind) : "a key",
		    id != NULL ? id->fp : "", id != NULL ? id->comment : "", why);
		struct audit_rec r = { "sign", "refuse", why, conn_find(P, p->conn),
		    id, p->alg, -1, NULL, &p->rule };
		audit_emit(P, &r, 0);
	}
	reply_status(P, p->conn, p->req, ST_FAIL);
	pending_free(P, p);
}

void
token_sign(struct policy *P, struct pending *p)
{
	p->state = P_SK_MATERIAL;
	pending_keep(P, p);
	msg_begin(&P->out, MSG_KH_SK_MATERIAL, p->id, p->conn);
	msg_kh_sk_material_encode(&P->out, &(struct msg_kh_sk_material){ p->key_id });
	send_to(&P->kh, &P->out, "keyholder");
}

/* Token signatures this connection has at the broker now. */
static size_t
at_broker(const struct policy *P, uint32_t conn)
{
	size_t n = 0;

	for (const struct pending *q = P->pending; q != NULL; q = q->next)
		n += q->state == P_TOKEN && q->conn == conn;
	return n;
}

/* The keyholder's answer: the key's material, or (m NULL) a refusal. */
void
token_material(struct policy *P, struct pending *p, const struct msg_sk_material *m)
{
	struct identity *id = idt_find_key(&P->ids, p->key_id);
	struct wb req;

	if (m == NULL || id == NULL || id->provider == NULL) {
		refuse_token(P, p, id, m == NULL ? "the keyholder has no such FIDO "
		    "key (locked?)" : "the key was removed meanwhile");
		return;
	}
	if (at_broker(P, p->conn) >= TOKEN_MAX_PER_CONN) {
		refuse_token(P, p, id, "this connection already has as many "
		    "token signatures waiting as one client may");
		return;
	}
	/* Per forwarding host, as for prompts (sign.c): one host's clients,
	 * and all forwarded clients together, leave token helpers for the
	 * user's local ones (TOKEN_MAX_HELPERS). */
	if (p->origin.len > 0 && held_by(P->pending, PSTATE(P_TOKEN),
	    &(struct slice){ p->origin.p, p->origin.len }) >= TOKEN_MAX_PER_HOP) {
		refuse_token(P, p, id, "the host it is forwarded from already has "
		    "as many token signatures waiting as one host may");
		return;
	}
	if (p->origin.len > 0 && held_by(P->pending, PSTATE(P_TOKEN), NULL) >=
	    TOKEN_MAX_FORWARDED) {
		refuse_token(P, p, id, "forwarded clients already have as many "
		    "token signatures waiting as they may");
		return;
	}
	wb_init(&req);
	token_req_encode(&req, &(struct token_req){ m->alg, m->application,
	    m->flags, m->key_handle, wb_slice_of(&p->data), wb_slice_of(&p->pin) });
	msg_begin(&P->out, MSG_TK_SIGN, p->id, p->conn);
	msg_tk_sign_encode(&P->out, &(struct msg_tk_sign){
	    { (const uint8_t *)id->provider, strlen(id->provider) },
	    wb_slice_of(&req) });
	wb_free_secret(&req);           /* a key handle, a PIN */
	wb_free_secret(&p->pin);
	p->state = P_TOKEN;
	pending_keep(P, p);
	send_to(&P->tk, &P->out, "broker");
	wipe(P->out.p, P->out.len);
}

/* The PIN prompt says what the confirm prompt says (describe_request):
 * the key, what is signed, from where and along which path, who asked;
 * the question last, where askpass puts the answer. It counts against
 * the forwarding host's prompts as a confirm prompt does (sign.c). */
static void
ask_pin(struct policy *P, struct pending *p, const struct identity *id)
{
	char text[PROMPT_MAX_TEXT], comment[256];
	const struct conn *c = conn_find(P, p->conn);
	size_t o;

	text_term_str(comment, sizeof(comment), id->comment);
	o = (size_t)snprintf(text, sizeof(text), "The token asks for its PIN "
	    "to sign with %s key %s.\n", key_kind_name(id->kind), comment);
	if (o < sizeof(text))
		o += describe_request(P, id, c, &p->purpose, text + o,
		    sizeof(text) - o);
	if (o < sizeof(text))
		snprintf(text + o, sizeof(text) - o, "\nEnter PIN for %s key %s:",
		    key_kind_name(id->kind), comment);
	free(p->prompt);
	p->prompt = str_dup(text);
	p->pin_asked = 1;
	prompt_or_wait(P, p);
}

/* The prompter's answer: the PIN, or (pin.p NULL) none. */
void
token_pin(struct policy *P, struct pending *p, struct slice pin)
{
	struct identity *id = idt_find_key(&P->ids, p->key_id);
	struct wb origin;

	wb_init(&origin);
	wb_bytes(&origin, p->origin.p, p->origin.len);
	if (pin.p == NULL || pin.len == 0 || id == NULL) {
		refuse_token(P, p, id, "no PIN was given");
	} else {
		wb_reset(&p->pin);
		wb_bytes(&p->pin, pin.p, pin.len);
		token_sign(P, p);
	}
	/* Its prompt has closed: another of its host's may open. */
	sign_prompt_ended(P, wb_slice_of(&origin));
	wb_free(&origin);
}

static const char *
fail_text(uint8_t why)
{
	switch (why) {
	case TK_BUSY: return "too many token signatures at once";
	case TK_START: return "the token helper could not be started";
	case TK_TIMEOUT: return "the token was not touched in time";
	case TK_DIED: return "the token helper ended without an answer";
	default: return "the request was cancelled";
	}
}

static const char *
status_text(int32_t st)
{
	switch (st) {
	case TOKEN_ERR_UNSUPPORTED: return "the provider does not support it";
	case TOKEN_ERR_PIN_REQUIRED: return "the token wants a PIN";
	case TOKEN_ERR_NO_DEVICE: return "no token was found";
	default: return "the token refused (a wrong PIN?)";
	}
}

/* The broker's answer: the helper's reply (reply non-NULL), or why there
 * is none. A signature leaves the agent only once it verifies. */
void
token_answer(struct policy *P, struct pending *p, struct slice reply, int fail)
{
	struct identity *id = idt_find_key(&P->ids, p->key_id);
	struct token_reply t;
	const struct pubkey *k;
	struct wb sig;
	uint8_t flags;
	uint32_t counter;
	struct rd r;

	if (fail) {
		refuse_token(P, p, id, fail_text((uint8_t)fail));
		return;
	}
	if (id == NULL) {
		refuse_token(P, p, NULL, "the key was removed meanwhile");
		return;
	}
	rd_init(&r, reply.p, reply.len);
	if (token_reply_decode(&r, (uint32_t)key_sk_alg(id->kind), &t) != 0) {
		refuse_token(P, p, id, "the token helper's reply is malformed");
		return;
	}
	if (t.status == TOKEN_ERR_PIN_REQUIRED && !p->pin_asked) {
		ask_pin(P, p, id);
		return;
	}
	if (t.status != TOKEN_OK) {
		refuse_token(P, p, id, status_text(t.status));
		return;
	}
	wb_init(&sig);
	if (sk_sig_encode(&sig, key_sk_alg(id->kind), t.sig_r, t.sig_s, t.flags,
	    t.counter) != 0 || sig.err ||
	    (k = identity_pub(id)) == NULL ||
	    sk_sig_verify(k, wb_slice_of(&p->data), wb_slice_of(&sig), &flags,
	    &counter) != 0) {
		wb_free(&sig);
		refuse_token(P, p, id, "the token's signature does not verify");
		return;
	}
	if (!p->gone) {
		struct sk_result res = { id->provider, flags, counter };
		struct audit_rec rec = { "token-signature", "allow", NULL,
		    conn_find(P, p->conn), id, p->alg, -1, &res, NULL };
		audit_emit(P, &rec, 0);
	}
	sign_signed(P, p, wb_slice_of(&sig));
	wb_free(&sig);
}
