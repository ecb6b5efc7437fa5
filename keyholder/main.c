/*
 * main.c - keyward-keyholder: the only process that holds private keys.
 * Its one peer is policy (fd 3). The main thread owns the key table and
 * answers everything but signatures, each in well under a millisecond;
 * worker threads sign and send their own answers, except a lone Ed25519
 * or P-256 signature, which the main thread makes itself (sign_alone). Signing jobs wait in
 * keyholder/jobs.h: round-robin by client connection, and RSA keys over
 * KEYHOLDER_FAST_RSA_BITS in a lane of their own, so neither a client
 * that pipelines nor a 16384-bit key delays another client's signature.
 * A message policy's encoder cannot have made ends it (ipc/sibling.h).
 */
#include "crypto/crypto.h"
#include "wire/args.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/secmem.h"
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "wire/keyholder.h"
#include "keyholder/jobs.h"
#include "keyholder/keystore.h"
#include "keyholder/privkey.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <malloc.h>
#include <openssl/rand.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct job {
	struct jq_node node;    /* first: the queue hands back this pointer */
	uint32_t req;
	struct sealed key;
	enum sig_alg alg;
	struct wb data, sig;
	int ok;
};

static struct {
	struct chan policy;
	struct keystore keys;
	pthread_mutex_t mu;     /* guards jobs */
	pthread_cond_t cv[JQ_LANES];
	int woken[JQ_LANES];    /* jobs pushed and not yet signalled */
	struct jobq jobs;
	struct wb out;
	int alone_ok;           /* the last job queued may be signed here */
	uint8_t *rbuf;          /* received messages: an ADD holds a private key */
} K = { .mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = { PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER } };

/* The receive buffer holds each ADD's private key until it is wiped:
 * secret_map locks it in memory and keeps it out of core dumps. */
#define RBUF_LEN (IPC_MAX_MSG + 1)

#define POLICY "keyward-policy"

static void
send_policy(void)
{
	if (chan_send(&K.policy, &K.out) != 0)
		peer_gone(POLICY);
}

static void
reply_status(uint32_t req, uint8_t status)
{
	/* The main thread answers with a status only: signatures are sent by
	 * the worker that made them (worker_reply). */
	msg_status_reply(&K.out, req, 0, status);
	send_policy();
}

/* A worker answers policy itself: a SOCK_SEQPACKET send is one whole
 * datagram, so replies from several threads never mix, and the main
 * thread needs no wake-up per signature. The send blocks only this
 * worker if policy is slow to read. */
static void
worker_reply(const struct job *j)
{
	struct wb w;
	ssize_t r;

	wb_init(&w);
	if (j->ok) {
		msg_signature_write(&w, j->req, 0, wb_slice_of(&j->sig));
	} else {
		msg_status_reply(&w, j->req, 0, ST_FAIL);
	}
	if (w.err)
		fatal("cannot encode a reply");
	do {
		r = send(K.policy.fd, w.p, w.len, MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r != (ssize_t)w.len)
		peer_gone(POLICY);
	wb_free(&w);
}

static void
sign_job(struct job *j)
{
	j->ok = ks_sign(&j->key, j->alg, wb_slice_of(&j->data), &j->sig) == 0;
	sealed_free(&j->key);
	worker_reply(j);
	wb_free(&j->data);
	wb_free(&j->sig);
	free(j);
}

/* A worker serves one lane: arg points to its enum jq_lane. */
static void *
worker(void *arg)
{
	enum jq_lane lane = *(const enum jq_lane *)arg;
	struct job *j;

	for (;;) {
		pthread_mutex_lock(&K.mu);
		while ((j = (struct job *)jq_pop(&K.jobs, lane)) == NULL)
			pthread_cond_wait(&K.cv[lane], &K.mu);
		pthread_mutex_unlock(&K.mu);
		sign_job(j);
	}
	return arg;
}

/* The private half of an ADD, as the client sent it: policy has not
 * parsed it. Accepted, the answer is the public key derived from it,
 * which policy compares with the one it judged. */
static int
k_add(const struct msg_hdr *h, struct rd *r)
{
	struct msg_kh_add m;
	struct wb pub;

	if (msg_kh_add_decode(r, &m) != 0)
		return -1;
	wb_init(&pub);
	if (ks_add(&K.keys, m.key_id, m.priv, &pub) != 0) {
		reply_status(h->req, ST_FAIL);
	} else {
		msg_pubkey_write(&K.out, h->req, wb_slice_of(&pub));
		send_policy();
	}
	wb_free(&pub);
	return 0;
}

static int
k_sign(const struct msg_hdr *h, struct rd *r)
{
	struct msg_kh_sign m;
	enum jq_lane lane;
	struct job *j;
	int kind, queued;

	if (msg_kh_sign_decode(r, &m) != 0)
		return -1;
	if ((j = calloc(1, sizeof(*j))) == NULL)
		fatal("out of memory");
	/* A FIDO key signs in its authenticator, through a token helper,
	 * never here (k_sk_material gives policy what that needs). */
	if (ks_get(&K.keys, m.key_id, &kind, &j->key) != 0 ||
	    key_is_sk((enum key_kind)kind) ||
	    !sig_alg_fits((enum sig_alg)m.alg, (enum key_kind)kind)) {
		sealed_free(&j->key);
		free(j);
		reply_status(h->req, ST_FAIL);
		return 0;
	}
	j->node.conn = h->conn;
	j->req = h->req;
	j->alg = (enum sig_alg)m.alg;
	wb_init(&j->data);
	wb_init(&j->sig);
	wb_bytes(&j->data, m.data.p, m.data.len);
	lane = jq_lane_for(kind, ks_rsa_bits(&K.keys, m.key_id));
	K.alone_ok = kind == KEY_ED25519 || kind == KEY_ECDSA_P256;
	pthread_mutex_lock(&K.mu);
	queued = jq_push(&K.jobs, lane, &j->node) == 0;
	pthread_mutex_unlock(&K.mu);
	K.woken[lane] += queued;        /* wake_workers() tells them */
	if (!queued) {
		sealed_free(&j->key);
		wb_free(&j->data);
		free(j);
		reply_status(h->req, ST_FAIL);
	}
	return 0;
}

/* One FIDO key's material for one signature, to policy only, while
 * unlocked; the answer carries the key handle, so the buffer is wiped
 * once sent (chan.c wipes a queued copy when it is released). */
static int
k_sk_material(const struct msg_hdr *h, struct rd *r)
{
	struct msg_kh_sk_material m;

	if (msg_kh_sk_material_decode(r, &m) != 0)
		return -1;
	msg_begin(&K.out, MSG_R_SK_MATERIAL, h->req, 0);
	if (ks_sk_material(&K.keys, m.key_id, &K.out) != 0) {
		wipe(K.out.p, K.out.len);
		log_info("refused the material of key %llu: locked, no such key "
		    "or not a FIDO key", (unsigned long long)m.key_id);
		reply_status(h->req, ST_FAIL);
		return 0;
	}
	send_policy();
	wipe(K.out.p, K.out.len);
	return 0;
}

static int
k_delete(const struct msg_hdr *h, struct rd *r)
{
	struct msg_kh_delete m;

	if (msg_kh_delete_decode(r, &m) != 0)
		return -1;
	ks_delete(&K.keys, m.key_id);
	reply_status(h->req, ST_OK);
	return 0;
}

static int
k_wipe(const struct msg_hdr *h, struct rd *r)
{
	if (msg_empty_decode(r) != 0)
		return -1;
	ks_wipe(&K.keys);
	reply_status(h->req, ST_OK);
	return 0;
}

static int
k_lock_common(const struct msg_hdr *h, struct rd *r, int lock)
{
	struct slice pass;
	int rc;

	if (msg_string_read(r, &pass) != 0)
		return -1;
	rc = lock ? ks_lock(&K.keys, pass) : ks_unlock(&K.keys, pass);
	if (rc == 0)
		log_info("%s %zu key(s)", lock ? "locked: sealed under the passphrase"
		    : "unlocked:", K.keys.n);
	reply_status(h->req, rc == 0 ? ST_OK : ST_FAIL);
	return 0;
}

static int
k_lock(const struct msg_hdr *h, struct rd *r)
{
	return k_lock_common(h, r, 1);
}

static int
k_unlock(const struct msg_hdr *h, struct rd *r)
{
	return k_lock_common(h, r, 0);
}

/* Everything policy can ask of the keyholder. */
static const struct {
	uint8_t type;
	int (*fn)(const struct msg_hdr *, struct rd *);
} table[] = {
	{ MSG_KH_ADD, k_add },
	{ MSG_KH_SIGN, k_sign },
	{ MSG_KH_DELETE, k_delete },
	{ MSG_KH_WIPE, k_wipe },
	{ MSG_KH_LOCK, k_lock },
	{ MSG_KH_UNLOCK, k_unlock },
	{ MSG_KH_SK_MATERIAL, k_sk_material },
};

/* The workers learn of new jobs once a batch of messages has been read,
 * not one by one: the queue's round-robin by connection then sees every
 * job that came together, whether or not this thread was descheduled in
 * between (one connection's jobs read first do not go first). */
static void
wake_workers(void)
{
	for (int l = 0; l < JQ_LANES; l++) {
		if (K.woken[l] == 0)
			continue;
		pthread_mutex_lock(&K.mu);
		pthread_cond_broadcast(&K.cv[l]);
		pthread_mutex_unlock(&K.mu);
		K.woken[l] = 0;
	}
}

/* A batch of one message that queued an Ed25519 or P-256 signature, with
 * no other job waiting in the fast lane, is signed by this thread: waking
 * a worker costs two thread switches, more than such a signature, and
 * nothing can be waiting behind it. A request that arrives meanwhile
 * waits one cheap signature at most. Anything else goes to the workers
 * (the queue's fairness, jobs.c, decides then). */
static void
sign_alone(int batch)
{
	struct job *j = NULL;

	if (batch == 1 && K.alone_ok) {
		pthread_mutex_lock(&K.mu);
		if (K.jobs.lane[JQ_FAST].njobs == 1 && K.woken[JQ_FAST] == 1 &&
		    (j = (struct job *)jq_pop(&K.jobs, JQ_FAST)) != NULL)
			K.woken[JQ_FAST] = 0;
		pthread_mutex_unlock(&K.mu);
	}
	K.alone_ok = 0;
	wake_workers();
	if (j != NULL)
		sign_job(j);
}

static void
request(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct rd r;

	msg_sibling_hdr(POLICY, p, n, &r, &h);
	if (MSG_ROW(POLICY, table, h.type)->fn(&h, &r) != 0)
		peer_broke(POLICY, "a malformed message of type %u", h.type);
}

/* Everything before the sandbox: libcrypto, the shield, the receive
 * buffer, and the worker threads. */
static void
setup(void)
{
	static const enum jq_lane lanes[JQ_LANES] = { JQ_FAST, JQ_SLOW };
	static const int nworkers[JQ_LANES] = {
		KEYHOLDER_WORKERS, KEYHOLDER_SLOW_WORKERS };
	pthread_t t;

	ks_init(&K.keys);
	jq_init(&K.jobs);
	wb_init(&K.out);
	if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1 ||
	    RAND_status() != 1)
		fatal("cannot initialise libcrypto");
	shield_init();
	if (ecsign_prepare() != 0 || rsasign_prepare() != 0)
		fatal("cannot fetch the signature algorithms");
	K.rbuf = secret_map(RBUF_LEN, "receive buffer");
#ifndef KEYWARD_SANITIZE
	/* One malloc arena for every thread: glibc shrinking a thread's own
	 * arena after a large free first opens /proc/sys/vm/overcommit_memory,
	 * and the filter kills an open. (ASan's allocator replaces glibc's;
	 * its mallopt does nothing and says so.) */
	if (mallopt(M_ARENA_MAX, 1) != 1)
		fatal("mallopt(M_ARENA_MAX) failed");
#endif
	/* Threads first: the filter is then applied to all of them at once
	 * (TSYNC), so no thread ever runs unfiltered after set-up and the
	 * filter needs no clone. */
	for (int l = 0; l < JQ_LANES; l++)
		for (int i = 0; i < nworkers[l]; i++)
			if (pthread_create(&t, NULL, worker, (void *)&lanes[l]) != 0)
				fatal("pthread_create failed");
}

int
main(int argc, char **argv)
{
	struct keyholder_args args;
	struct pollfd pfd[1];
	size_t n = 0;
	int r = 0;

	/* keyward gives exactly one argument list (wire/args.h) */
	if (args_keyholder_decode(argc, argv, &args) != 0)
		start_refused("keyward-keyholder");
	start_helper("keyward-keyholder", args.debug, START_IGNORE_INT);
	chan_init(&K.policy, 3);
	setup();
	sandbox_harden();
	sandbox_landlock("keyholder", NULL, NULL);
	sandbox_limit_fds();
	sandbox_keyholder(K.policy.fd);
	for (;;) {
		pfd[0] = (struct pollfd){ K.policy.fd, chan_events(&K.policy), 0 };
		if (poll(pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			fatal("poll: %m");
		}
		if ((pfd[0].revents & POLLOUT) && chan_flush(&K.policy) != 0)
			break;
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			int batch = 0;
			while ((r = chan_recv(&K.policy, K.rbuf, RBUF_LEN, &n)) > 0) {
				request(K.rbuf, n);
				wipe(K.rbuf, n);        /* the private key of an ADD */
				if (++batch % KEYHOLDER_BATCH == 0)
					wake_workers();
			}
			sign_alone(batch);
			if (r < 0)
				break;
		}
	}
	/* Policy is gone (the agent is ending) or sent what it never
	 * sends: drop every key first, either way. */
	ks_wipe(&K.keys);
	peer_recv_end(POLICY, r, n);
}
