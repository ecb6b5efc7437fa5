/*
 * sign.c - a sign request from judgement to signature: the key's
 * destination constraints (hop.c), the confirm prompt, the audit record
 * that must be written before the keyholder signs, and the answer. The
 * states are drawn in pending.h.
 */
#include "ipc/log.h"
#include "ipc/text.h"
#include "policy/audit.h"
#include "policy/describe.h"
#include "policy/dispatch.h"
#include "policy/origin.h"
#include "policy/token.h"
#include "rules/match.h"
#include "rules/scope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Who asked, for a refusal's log line and a prompt: the caller, and
 * the socket when it is a named one ("through the deploy socket"). */
static const char *
asker(const struct policy *P, const struct conn *c, char *out, size_t n)
{
	if (c == NULL)
		snprintf(out, n, "(gone)");
	else {
		caller_describe(&c->caller, c->pid, out, n);
		scope_append(P->rules, c->sock, out, n);
	}
	return out;
}

static void
log_refusal(const struct policy *P, const struct identity *id,
    const struct conn *c, const char *user, const char *rule, size_t hop)
{
	char path[1024], who[PROMPT_MAX_TEXT];

	describe_path(P, id, &c->bind, path, sizeof(path));
	log_info("refused signature with %s %s \"%s\" for user %s: %s "
	    "(failed at hop %zu of path %s); asked by %s",
	    key_kind_name(id->kind), id->fp, id->comment,
	    user != NULL ? user : "(any)", rule, hop + 1, path,
	    asker(P, c, who, sizeof(who)));
}

/* Refuse, with a log line (unless the caller wrote a better one) and
 * an audit record, while the client is there to care. */
static void
refuse(struct policy *P, struct pending *p, const char *why,
    const struct identity *id, int log_it)
{
	struct audit_rec r = { "sign", "refuse", why, conn_find(P, p->conn), id,
	    p->alg, -1, NULL, &p->rule };
	char who[PROMPT_MAX_TEXT];

	if (!p->gone) {
		if (log_it)
			log_info("refused signature%s%s: %s; asked by %s",
			    id != NULL ? " with " : "", id != NULL ? id->fp : "", why,
			    asker(P, r.conn, who, sizeof(who)));
		audit_sign(P, &r, &p->purpose, 0);
	}
	reply_status(P, p->conn, p->req, ST_FAIL);
	pending_free(P, p);
}

/* The question a confirm prompt asks: which key, what for, where to and
 * along which hops, by whom (describe_request, as the PIN prompt says it);
 * and which rule asks. */
static void
confirm_text(const struct policy *P, const struct identity *id,
    const struct conn *c, const struct ruling *rule, const struct purpose *pu,
    char *out, size_t n)
{
	char comment[256];
	size_t o;

	/* Client text goes in terminal-safe (ipc/text.h): askpass shows it. */
	text_term_str(comment, sizeof(comment), id->comment);
	o = (size_t)snprintf(out, n, "Allow use of key %s?\n", comment);
	if (o < n)
		o += describe_request(P, id, c, pu, out + o, n - o);
	if (o < n && rule->action == RULE_CONFIRM)
		o += (size_t)snprintf(out + o, n - o, "\nRule at line %zu asks "
		    "to confirm%s.", rule->line, rule->remember > 0 ? " (a yes "
		    "is remembered for a while)" : "");
	/* Where the key came from, when the user's own client did not add
	 * it (with -O allow-remote-add too: the key serves the user then). */
	if (o < n && id->added_over != ORIGIN_LOCAL) {
		o += (size_t)snprintf(out + o, n - o, "\n");
		if (o < n)
			describe_added(P, id, out + o, n - o);
	}
}

/* doc/protocol.md §8.9: a FIDO key whose application is not web-safe (not ssh:, unless
 * -O websafe-allow says otherwise) signs only a login with that key or
 * an SSHSIG blob: never a website's WebAuthn challenge. */
static const char *
websafe(const struct policy *P, struct identity *id, const struct purpose *pu)
{
	const struct pubkey *k;
	char *app;
	int safe;

	if (!P->args.restrict_websafe)
		return NULL;
	if ((k = identity_pub(id)) == NULL)
		fatal("cannot parse a key held");
	if ((app = slice_strdup(k->sk_app)) == NULL)
		fatal("out of memory");
	safe = match_list(app, P->args.websafe_allow);
	free(app);
	if (safe)
		return NULL;
	if (pu->kind == PURPOSE_LOGIN || pu->kind == PURPOSE_SSHSIG)
		return NULL;
	return "the FIDO application is not web-safe and the data is neither "
	    "a login nor an SSHSIG";
}

static void
kh_sign(struct policy *P, struct pending *p)
{
	struct msg_kh_sign m = { p->key_id, (uint8_t)p->alg, wb_slice_of(&p->data) };
	const struct identity *id = idt_find_key(&P->ids, p->key_id);

	if (id != NULL && key_is_sk(id->kind)) {
		token_sign(P, p);       /* a token signs it (token.c) */
		return;
	}
	if (id != NULL && id->p11) {
		p11_sign(P, p, id);     /* its provider's helper signs (p11.c) */
		return;
	}
	p->state = P_SIGN;
	pending_keep(P, p);
	/* The connection rides along so the keyholder can serve its
	 * clients in turn. */
	msg_begin(&P->out, MSG_KH_SIGN, p->id, p->conn);
	msg_kh_sign_encode(&P->out, &m);
	send_to(&P->kh, &P->out, "keyholder");
	session_notice_prepare(P, p);   /* while the purpose is known */
	purpose_free(&p->purpose);      /* it points into the data */
	wb_free(&p->data);      /* the keyholder has it; nothing here needs it */
}

/* Every check has passed: record the signature, then make it. With an
 * audit trail the keyholder is asked only once the auditor has written
 * the record (fail closed: no record, no signature). */
static void
go_sign(struct policy *P, struct pending *p, const struct identity *id)
{
	struct audit_rec r = { "sign", "allow", NULL, conn_find(P, p->conn), id,
	    p->alg, -1, NULL, &p->rule };

	if (!P->audit_on) {
		kh_sign(P, p);
		return;
	}
	if (audit_sign(P, &r, &p->purpose, p->id) != 0) {
		refuse(P, p, "the audit record could not be made", id, 1);
		return;
	}
	p->state = P_AUDIT;
	pending_keep(P, p);
}

/* Prompts and token helpers by where the request comes from: its
 * origin's share key (origin.h) -- the host the user's ssh bound first,
 * which a forwarded client cannot choose, or the relay that carries a
 * connection whose bind was refused. At most PROMPT_MAX_PER_HOP prompts
 * (confirm or PIN) for one origin are open at once, and at most
 * PROMPT_MAX_FORWARDED for all of them; their other requests wait their
 * turn in arrival order. A hostile forwarded server can then neither fill
 * the screen with prompts nor take every prompt (PROMPT_MAX_CONCURRENT)
 * from the user's own clients. Token helpers likewise (token.c:
 * TOKEN_MAX_PER_HOP, TOKEN_MAX_FORWARDED). Local connections, and logins
 * (whose first binding is not a forwarding one), are not counted: they
 * are the user's. */
size_t
held_by(const struct pending *list, unsigned states, const struct slice *origin)
{
	size_t n = 0;

	for (const struct pending *q = list; q != NULL; q = q->next)
		if ((states & PSTATE(q->state)) && (origin != NULL ?
		    slice_eq(wb_slice_of(&q->origin), *origin) : q->origin.len > 0))
			n++;
	return n;
}

/* May a prompt from origin open now? */
static int
may_prompt(const struct policy *P, struct slice origin)
{
	unsigned open = PSTATE(P_CONFIRM) | PSTATE(P_PIN);

	return origin.len == 0 ||
	    (held_by(P->pending, open, &origin) < PROMPT_MAX_PER_HOP &&
	    held_by(P->pending, open, NULL) < PROMPT_MAX_FORWARDED);
}

/* A confirm prompt, or a PIN prompt once the token asked for one. */
static void
prompt_send(struct policy *P, struct pending *p)
{
	int pin = p->pin_asked;

	p->state = pin ? P_PIN : P_CONFIRM;
	pending_keep(P, p);
	msg_prompt_write(&P->out, pin, p->id,
	    (struct slice){ (const uint8_t *)p->prompt, strlen(p->prompt) });
	send_to(&P->pr, &P->out, "prompter");
}

void
prompt_or_wait(struct policy *P, struct pending *p)
{
	struct slice origin = wb_slice_of(&p->origin);

	if (may_prompt(P, origin)) {
		prompt_send(P, p);
		return;
	}
	if (held_by(P->prompt_wait, PSTATE(P_CONFIRM_WAIT), &origin) >=
	    PROMPT_MAX_WAIT_PER_HOP) {
		refuse(P, p, "too many prompts wait for the host it is forwarded "
		    "from", idt_find_key(&P->ids, p->key_id), 1);
		return;
	}
	log_info("connection %u: its %s prompt waits: %d are open for the host "
	    "it is forwarded from, or %d for all forwarding hosts", p->conn,
	    p->pin_asked ? "PIN" : "confirm", PROMPT_MAX_PER_HOP,
	    PROMPT_MAX_FORWARDED);
	p->state = P_CONFIRM_WAIT;
	p->next = NULL;
	if (P->prompt_wait_tail != NULL)
		P->prompt_wait_tail->next = p;
	else
		P->prompt_wait = p;
	P->prompt_wait_tail = p;
}

void
sign_prompt_ended(struct policy *P, struct slice origin)
{
	struct pending **pp, *p, *prev = NULL;
	const struct identity *id;

	if (origin.len == 0)
		return;
	/* The first waiting request that may now be asked: of this host, or
	 * of another one held back by PROMPT_MAX_FORWARDED. */
	for (pp = &P->prompt_wait; (p = *pp) != NULL;) {
		if (!may_prompt(P, wb_slice_of(&p->origin))) {
			prev = p;
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		if (P->prompt_wait_tail == p)
			P->prompt_wait_tail = prev;
		p->next = NULL;
		id = idt_find_key(&P->ids, p->key_id);
		if (id == NULL) {
			refuse(P, p, "the key was removed while the request waited "
			    "for its prompt", NULL, 1);
			continue;
		}
		/* A yes its rule remembers may have come while it waited: it
		 * stands for this prompt as it would have on arrival. */
		if (!p->pin_asked && !id->confirm && ruling_recall(P, &p->rule)) {
			go_sign(P, p, id);
			continue;
		}
		prompt_send(P, p);
		return;
	}
}

static void sign_decided(struct policy *P, struct pending *p,
    struct identity *id, int yes);

/* The session, the key's destination constraints and its web-safety
 * (doc/protocol.md §8.9) let p through; else it is refused (0). */
static int
sign_constraints_allow(struct policy *P, const struct conn *c,
    struct pending *p, struct identity *id)
{
	const char *rule;

	if ((rule = session_refuses(P, c)) != NULL) {
		refuse(P, p, rule, id, 1);      /* session.c */
		return 0;
	}
	if (id->dest.n > 0) {
		char user[AGENT_MAX_USER_PATTERN + 64];
		size_t hop;
		rule = sign_permitted(&id->dest, &c->bind, &p->purpose,
		    time(NULL), &hop, user, sizeof(user));
		if (rule != NULL) {
			log_refusal(P, id, c, user, rule, hop);
			refuse(P, p, rule, id, 0);
			return 0;
		}
	}
	if (key_is_sk(id->kind) &&
	    (rule = websafe(P, id, &p->purpose)) != NULL) {
		refuse(P, p, rule, id, 1);
		return 0;
	}
	return 1;
}

/* The rules (p->rule, judged) deny p: refused, 1. */
static int
sign_rules_deny(struct policy *P, const struct conn *c, struct pending *p,
    const struct identity *id)
{
	char why[96];

	if (p->rule.action != RULE_DENY)
		return 0;
	if (p->rule.line == 0)
		snprintf(why, sizeof(why), "not in the %s socket's scope "
		    "(no rule allows it there)", scope_name(P->rules, c->sock));
	else
		snprintf(why, sizeof(why), "denied by rule at line %zu",
		    p->rule.line);
	refuse(P, p, why, id, 1);
	return 1;
}

int
h_sign(struct ctx *c)
{
	struct policy *P = c->P;
	struct msg_sign m;
	struct identity *id;
	struct pending *p;
	struct origin o;
	const char *rule;
	char prompt[PROMPT_MAX_TEXT];

	if (msg_sign_decode(&c->r, &m) != 0)
		return -1;
	p = pending_new(c, P_SIGN);
	wb_bytes(&p->data, m.data.p, m.data.len);
	conn_origin(c->conn, &o);
	origin_share_key(&o, &p->origin);
	id = idt_find_request(&P->ids, m.key);
	/* What the data is, decided here once: every check below, the
	 * prompts and the audit trail (the refusal of an unknown key's too,
	 * which records the data's hash) read it (purpose.h). */
	purpose_decide(&p->purpose, wb_slice_of(&p->data), id != NULL ?
	    (struct slice){ id->blob, id->blob_len } : m.key);
	if (id == NULL) {
		refuse(P, p, "the key is not in the agent", NULL, 1);
		return 0;
	}
	if ((rule = id_owner_refuses(id, c->conn)) != NULL) {
		refuse(P, p, rule, id, 1);
		return 0;
	}
	p->key_id = id->key_id;
	p->alg = sig_alg_for(id->kind, m.flags);
	if (!sign_constraints_allow(P, c->conn, p, id))
		return 0;
	/* The key's own constraints have let it through; the rules may
	 * still refuse it or ask, never more (ruling.h). */
	ruling_judge(P, id, c->conn, &p->purpose, &p->rule);
	if (sign_rules_deny(P, c->conn, p, id))
		return 0;
	if (!id->confirm && (p->rule.action != RULE_CONFIRM ||
	    p->rule.remembered)) {
		go_sign(P, p, id);
		return 0;
	}
	confirm_text(P, id, c->conn, &p->rule, &p->purpose, prompt,
	    sizeof(prompt));
	p->prompt = str_dup(prompt);
	prompt_or_wait(P, p);
	return 0;
}

void
sign_confirmed(struct policy *P, struct pending *p, int yes)
{
	struct identity *id = idt_find_key(&P->ids, p->key_id);
	struct wb origin;

	/* A copy: a request that goes on to a token is still counted
	 * against its host there (token.c). */
	wb_init(&origin);
	wb_bytes(&origin, p->origin.p, p->origin.len);
	sign_decided(P, p, id, yes);
	sign_prompt_ended(P, wb_slice_of(&origin));
	wb_free(&origin);
}

static void
sign_decided(struct policy *P, struct pending *p, struct identity *id, int yes)
{
	if (!yes)
		refuse(P, p, "the user did not confirm", id, 1);
	else if (id == NULL)
		refuse(P, p, "the key was removed while the prompt was open", NULL, 1);
	else {
		/* A yes given before a lock is not kept past it. */
		if (!P->lock.locked)
			ruling_remember(P, &p->rule);
		go_sign(P, p, id);
	}
}

void
sign_audited(struct policy *P, struct pending *p, int ok)
{
	if (!ok) {
		log_error("refused signature: the audit trail cannot be written");
		reply_status(P, p->conn, p->req, ST_FAIL);
		pending_free(P, p);
		return;
	}
	kh_sign(P, p);
}

/* The keyholder's answer: a signature, or (sig.p NULL) a refusal. */
void
sign_signed(struct policy *P, struct pending *p, struct slice sig)
{
	if (sig.p == NULL) {
		reply_status(P, p->conn, p->req, ST_FAIL);
	} else {
		msg_signature_write(&P->out, p->req, p->conn, sig);
		send_to(&P->mon, &P->out, "monitor");
		session_signed(P, p);   /* a notice (session.c) */
	}
	pending_free(P, p);
}
