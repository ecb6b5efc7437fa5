/*
 * lock.c - lock and unlock. The passphrase is never kept, only a salted
 * PBKDF2 hash of it, compared in constant time; guesses from every
 * connection wait in one queue and are judged one at a time (doc/protocol.md §5.8).
 */
#include "ipc/log.h"
#include "policy/dispatch.h"
#include "policy/ruling.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/random.h>

/* PBKDF2 over SHA-256 of the passphrase, not the passphrase itself: HMAC
 * pads a short key with zero bytes, so "pw" and "pw\0" would be one key,
 * and the passphrase is the bytes sent, a trailing NUL included (doc/protocol.md §2). */
static int
derive(const uint8_t *salt, struct slice pass, uint8_t *out)
{
	uint8_t md[32];
	unsigned int n = 0;
	int r;

	if (EVP_Digest(pass.p, pass.len, md, &n, EVP_sha256(), NULL) != 1 ||
	    n != sizeof(md))
		return -1;
	r = PKCS5_PBKDF2_HMAC((const char *)md, (int)sizeof(md), salt,
	    LOCK_SALT_LEN, LOCK_KDF_ITERATIONS, EVP_sha256(), LOCK_HASH_LEN,
	    out) == 1 ? 0 : -1;
	wipe(md, sizeof(md));
	return r;
}

int
lock_set(struct lockstate *l, struct slice pass)
{
	if (getrandom(l->salt, LOCK_SALT_LEN, 0) != LOCK_SALT_LEN ||
	    derive(l->salt, pass, l->hash) != 0)
		return -1;
	l->locked = 1;
	return 0;
}

int
lock_check(const struct lockstate *l, struct slice pass)
{
	uint8_t h[LOCK_HASH_LEN];
	int r;

	if (derive(l->salt, pass, h) != 0)
		return -1;
	r = CRYPTO_memcmp(h, l->hash, LOCK_HASH_LEN) == 0 ? 0 : -1;
	wipe(h, sizeof(h));
	return r;
}

/* ---------------------------------------------------------------- requests */

static void
kh_lock(struct policy *P, struct pending *p, uint8_t type, struct slice pass)
{
	/* A lock takes effect here and now (everything after it is refused
	 * as locked), and the keyholder seals before it serves anything
	 * else; an unlock's effect is known only once the keyholder has
	 * opened every key: until then it is a barrier (its dispatch row's
	 * F_BARRIER, set as it is kept). */
	pending_keep(P, p);
	msg_kh_lock_write(&P->out, type == MSG_KH_UNLOCK, p->id, pass);
	send_to(&P->kh, &P->out, "keyholder");
	wipe(P->out.p, P->out.len);     /* the passphrase */
}

int
h_lock(struct ctx *c)
{
	struct policy *P = c->P;
	struct slice pass;

	if (msg_string_read(&c->r, &pass) != 0)
		return -1;
	/* Hashed as the bytes sent, a trailing NUL included (doc/protocol.md §2). */
	if (pass.len == 0 || lock_set(&P->lock, pass) != 0) {
		ctx_reply(c, ST_FAIL);
		return 0;
	}
	/* Remembered approvals end with the lock (keyward(5)). */
	rules_forget(P);
	/* Locked from now on; the answer waits until the keyholder has
	 * sealed every key under the passphrase. */
	kh_lock(P, pending_new(c, P_LOCK), MSG_KH_LOCK, pass);
	return 0;
}

/* An unlock joins the one agent-wide queue of guesses (doc/protocol.md §5.8): more
 * connections or a deeper pipeline buy no extra guesses. */
int
h_unlock(struct ctx *c)
{
	struct policy *P = c->P;
	struct slice pass;
	struct pending *p;

	if (msg_string_read(&c->r, &pass) != 0)
		return -1;
	if (!P->lock.locked || pass.len == 0) {
		ctx_reply(c, ST_FAIL);          /* at once, and not counted */
		return 0;
	}
	p = pending_new(c, P_UNLOCK_QUEUED);
	wb_bytes(&p->data, pass.p, pass.len);
	if (P->lock.queue_tail != NULL)
		P->lock.queue_tail->next = p;
	else
		P->lock.queue = p;
	P->lock.queue_tail = p;
	lock_judge(P, now_ms());
	return 0;
}

/* The first guess in the queue is judged once the delay earned by the
 * failures before it has passed, and only between barriers. */
int
lock_judge(struct policy *P, uint64_t now)
{
	struct lockstate *l = &P->lock;
	struct pending *p;

	while ((p = l->queue) != NULL) {
		if (P->barrier != 0)
			return -1;      /* judged when the barrier lifts */
		if (now < l->gate_ms)
			return (int)(l->gate_ms - now);
		if ((l->queue = p->next) == NULL)
			l->queue_tail = NULL;
		p->next = NULL;
		if (!l->locked) {
			reply_status(P, p->conn, p->req, ST_FAIL);
			pending_free(P, p);
			continue;
		}
		if (lock_check(l, wb_slice_of(&p->data)) == 0) {
			/* Still locked until the keyholder has opened every key. */
			p->state = P_UNLOCK;
			kh_lock(P, p, MSG_KH_UNLOCK, wb_slice_of(&p->data));
			wipe(p->data.p, p->data.len);
			continue;
		}
		/* Wrong: 0.1 s more per failure so far, up to 10 s, before
		 * this answer and before the next guess is judged. */
		if (l->failures < LOCK_FAIL_MAX)
			l->failures++;
		l->gate_ms = now + (uint64_t)l->failures * LOCK_FAIL_STEP_MS;
		p->state = P_UNLOCK_DELAY;
		p->due_ms = l->gate_ms;
		wipe(p->data.p, p->data.len);
		pending_keep(P, p);
		audit_simple(P, "unlock", "refuse", "wrong passphrase",
		    conn_find(P, p->conn), NULL);
		log_info("failed unlock attempt %u; answering in %u ms", l->failures,
		    l->failures * LOCK_FAIL_STEP_MS);
	}
	return -1;
}

/* The keyholder has (un)sealed the keys: now the lock state changes. */
void
lock_done(struct policy *P, struct pending *p, int ok)
{
	int lock = p->state == P_LOCK;

	audit_simple(P, lock ? "lock" : "unlock", ok ? "allow" : "refuse",
	    ok ? NULL : "the keyholder could not re-seal the keys",
	    conn_find(P, p->conn), NULL);
	if (lock && ok) {
		log_info("agent locked: private keys sealed under the passphrase");
	} else if (lock) {
		wipe(&P->lock.hash, sizeof(P->lock.hash));
		P->lock.locked = 0;
		log_error("lock failed: the keyholder could not seal the keys");
	} else if (ok) {
		/* The hash goes and failures reset; the queue stays. */
		wipe(P->lock.hash, sizeof(P->lock.hash));
		wipe(P->lock.salt, sizeof(P->lock.salt));
		P->lock.locked = 0;
		P->lock.failures = 0;
		P->lock.gate_ms = 0;
		log_info("agent unlocked");
	} else {
		log_error("unlock failed: the keyholder could not open the keys");
	}
	reply_status(P, p->conn, p->req, ok ? ST_OK : ST_FAIL);
	pending_free(P, p);
	lock_judge(P, now_ms());
}
