/*
 * conn.c - the attack library's client (lib.h): a connection to the agent
 * with framed replies and time bounds, the agent-protocol messages, the
 * keys and what a reply says about them.
 */
#include "tests/hostile/lib.h"
#include "tests/hostile/client.h"
#include "tests/unit/testkeys.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ------------------------------------------------------------ a client */

void
cl_close(struct cl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->have = c->used = 0;
}

void
cl_free(struct cl *c)
{
	cl_close(c);
	free(c->in);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* A non-blocking socket connected to the agent: 0, or -1 (errno set;
 * EAGAIN when the listener's backlog is full). */
int
sock_connect(int *fdp)
{
	int fd = ac_connect(sock_path, SOCK_NONBLOCK);

	if (fd < 0)
		return -1;
	*fdp = fd;
	return 0;
}

/* Connect within timeout_ms (retrying while the backlog is full). */
int
cl_connect(struct cl *c, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	if (c->in == NULL) {
		c->cap = 64 * 1024;
		c->in = xmalloc(c->cap);
	}
	cl_close(c);
	for (;;) {
		if (sock_connect(&c->fd) == 0)
			return 0;
		if (errno != EAGAIN || now_ms() >= end)
			return -1;
		sleep_ms(10);
	}
}

int
cl_send(struct cl *c, const void *p, size_t n, int timeout_ms)
{
	const uint8_t *b = p;
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	struct pollfd pfd;
	ssize_t r;

	while (n > 0) {
		r = send(c->fd, b, n, MSG_NOSIGNAL);
		if (r > 0) {
			b += r;
			n -= (size_t)r;
			continue;
		}
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (now_ms() >= end)
			return -2;
		pfd.fd = c->fd;
		pfd.events = POLLOUT;
		(void)poll(&pfd, 1, (int)(end - now_ms()));
	}
	return 0;
}

/* The next reply frame within timeout_ms: its type byte, or R_*. */
int
cl_recv(struct cl *c, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	struct pollfd pfd;
	uint32_t n;
	ssize_t r;
	uint64_t t;

	if (c->used > 0) {
		memmove(c->in, c->in + c->used, c->have - c->used);
		c->have -= c->used;
		c->used = 0;
	}
	for (;;) {
		if (c->have >= 4) {
			n = (uint32_t)c->in[0] << 24 | (uint32_t)c->in[1] << 16 |
			    (uint32_t)c->in[2] << 8 | c->in[3];
			if (n == 0 || n > 64u * 1024 * 1024)
				return R_ERROR;
			if (c->have >= (size_t)n + 4) {
				c->msg.p = c->in + 4;
				c->msg.len = n;
				c->used = (size_t)n + 4;
				return c->in[4];
			}
			if ((size_t)n + 4 > c->cap) {
				uint8_t *p = realloc(c->in, (size_t)n + 4);

				if (p == NULL)
					die("out of memory");
				c->in = p;
				c->cap = (size_t)n + 4;
			}
		}
		r = recv(c->fd, c->in + c->have, c->cap - c->have, 0);
		if (r > 0) {
			c->have += (size_t)r;
			continue;
		}
		if (r == 0)
			return R_EOF;
		if (errno != EAGAIN && errno != EINTR)
			return R_EOF;
		if ((t = now_ms()) >= end)
			return R_TIMEOUT;
		pfd.fd = c->fd;
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, (int)(end - t));
	}
}

/* Send one message (a framed wb) and read one reply. */
int
cl_call(struct cl *c, const struct wb *m, int timeout_ms)
{
	int r = cl_send(c, m->p, m->len, timeout_ms);

	if (r == -2)
		return R_TIMEOUT;
	if (r != 0)
		return R_EOF;
	return cl_recv(c, timeout_ms);
}

/* ---------------------------------------------------------- messages */

/* Messages are built framed: wb_begin_string ... wb_end_string. */
size_t
msg_begin(struct wb *w, uint8_t type)
{
	size_t mark = wb_begin_string(w);

	wb_u8(w, type);
	return mark;
}

void
msg_end(struct wb *w, size_t mark)
{
	wb_end_string(w, mark);
	if (w->err)
		die("message encoding");
}

void
msg_simple(struct wb *w, uint8_t type)
{
	msg_end(w, msg_begin(w, type));
}

/* ------------------------------------------------------------------ keys */

/* The blob and ADD encoding of k->pk, by the tests' one key encoder
 * (tests/unit/testkeys.h). */
static void
key_encode(struct key *k)
{
	testkey_encode(k->pk, k->kind, &k->blob, &k->priv);
	if (k->kind == KEY_RSA)
		k->bits = EVP_PKEY_get_bits(k->pk);
}

struct key *
key_new(enum key_kind kind)
{
	struct key *k = xmalloc(sizeof(*k));

	k->kind = kind;
	if (kind == KEY_ED25519)
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	else if (kind == KEY_ECDSA_P521)
		k->pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-521");
	if (k->pk == NULL)
		die("keygen");
	key_encode(k);
	return k;
}

struct key *
key_load_rsa(const char *file)
{
	char path[1024];
	struct key *k = xmalloc(sizeof(*k));
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", keydir, file);
	if ((f = fopen(path, "r")) == NULL)
		die("%s: %s (set HOSTILE_KEYS)", path, strerror(errno));
	k->pk = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (k->pk == NULL || EVP_PKEY_get_base_id(k->pk) != EVP_PKEY_RSA)
		die("%s: not an RSA private key", path);
	k->kind = KEY_RSA;
	key_encode(k);
	return k;
}

void
key_free(struct key *k)
{
	EVP_PKEY_free(k->pk);
	wb_free(&k->blob);
	wb_free(&k->priv);
	free(k);
}

struct slice
blob_of(const struct key *k)
{
	return wb_slice_of(&k->blob);
}

/* Does the SSH signature sig verify over data with k (Ed25519, or RSA
 * rsa-sha2-256 as every RSA request here asks)? */
int
sig_verifies(const struct key *k, const uint8_t *data, size_t dlen, struct slice sig)
{
	struct rd r;
	struct slice name, raw;
	EVP_MD_CTX *ctx;
	int ok;

	rd_init(&r, sig.p, sig.len);
	if (rd_string(&r, &name) != 0 || rd_string(&r, &raw) != 0 || rd_done(&r) != 0)
		return 0;
	if (!slice_eq_str(name, k->kind == KEY_RSA ? "rsa-sha2-256" : "ssh-ed25519"))
		return 0;
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		die("EVP_MD_CTX_new");
	ok = EVP_DigestVerifyInit(ctx, NULL, k->kind == KEY_RSA ? EVP_sha256() : NULL,
	    NULL, k->pk) == 1 && EVP_DigestVerify(ctx, raw.p, raw.len, data, dlen) == 1;
	EVP_MD_CTX_free(ctx);
	return ok;
}

/* The SSH signature blob in a SIGN_RESPONSE payload. */
int
sign_reply_sig(struct slice msg, struct slice *sig)
{
	struct rd r;
	uint8_t t;

	rd_init(&r, msg.p, msg.len);
	return rd_u8(&r, &t) == 0 && t == MSG_SIGN_RESPONSE && rd_string(&r, sig) == 0 &&
	    rd_done(&r) == 0 ? 0 : -1;
}

/* Count identities in an IDENTITIES payload and whether want is among
 * them: -1 if malformed. */
int
list_has(struct slice msg, const struct key *want, int *found)
{
	struct rd r;
	struct slice b, cm;
	uint32_t n, i;
	uint8_t t;

	*found = 0;
	rd_init(&r, msg.p, msg.len);
	if (rd_u8(&r, &t) != 0 || t != MSG_IDENTITIES || rd_u32(&r, &n) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (rd_string(&r, &b) != 0 || rd_string(&r, &cm) != 0)
			return -1;
		if (want != NULL && slice_eq(b, blob_of(want)))
			*found = 1;
	}
	return rd_done(&r) == 0 ? (int)n : -1;
}

void
msg_add(struct wb *w, const struct key *k, const char *comment)
{
	size_t m = msg_begin(w, MSG_ADD);

	wb_bytes(w, k->priv.p, k->priv.len);
	wb_cstring(w, comment);
	msg_end(w, m);
}

void
msg_sign(struct wb *w, const struct key *k, const uint8_t *data, size_t dlen)
{
	size_t m = msg_begin(w, MSG_SIGN);

	wb_slice(w, blob_of(k));
	wb_string(w, data, dlen);
	wb_u32(w, k->kind == KEY_RSA ? RSA_SHA2_256 : 0);
	msg_end(w, m);
}

void
msg_remove(struct wb *w, const struct key *k)
{
	size_t m = msg_begin(w, MSG_REMOVE);

	wb_slice(w, blob_of(k));
	msg_end(w, m);
}

void
msg_pass(struct wb *w, uint8_t type, const void *pw, size_t n)
{
	size_t m = msg_begin(w, type);

	wb_string(w, pw, n);
	msg_end(w, m);
}

/* restrict-destination (doc/protocol.md §6.6): origin -> host, with the given host keys. */
static void
put_dest(struct wb *w, const char *host, struct key **hk, int nhk)
{
	size_t list, c, h;
	int i;

	wb_u8(w, 255);
	wb_cstring(w, "restrict-destination-v00@openssh.com");
	list = wb_begin_string(w);
	c = wb_begin_string(w);
	h = wb_begin_string(w);                 /* from_hop: the origin */
	wb_cstring(w, "");
	wb_cstring(w, "");
	wb_cstring(w, "");
	wb_end_string(w, h);
	h = wb_begin_string(w);                 /* to_hop */
	wb_cstring(w, "");
	wb_cstring(w, host);
	wb_cstring(w, "");
	for (i = 0; i < nhk; i++) {
		wb_slice(w, blob_of(hk[i]));
		wb_u8(w, 0);
	}
	wb_end_string(w, h);
	wb_cstring(w, "");                      /* reserved */
	wb_end_string(w, c);
	wb_end_string(w, list);
}

void
msg_add_dest(struct wb *w, const struct key *k, const char *comment, const char *host,
    struct key **hk, int nhk)
{
	size_t m = msg_begin(w, MSG_ADD_CONSTRAINED);

	wb_bytes(w, k->priv.p, k->priv.len);
	wb_cstring(w, comment);
	put_dest(w, host, hk, nhk);
	msg_end(w, m);
}

/* A session-bind to host (doc/protocol.md §6.8), its signature over a fresh random
 * session id -- or, forged, over other bytes. */
void
msg_bind(struct wb *w, const struct key *host, int forwarding, int forged)
{
	uint8_t sid[32], other[32], sigraw[64];
	size_t slen = sizeof(sigraw), m;
	EVP_MD_CTX *ctx;
	struct wb sig;

	RAND_bytes(sid, sizeof(sid));
	RAND_bytes(other, sizeof(other));
	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, host->pk) != 1 ||
	    EVP_DigestSign(ctx, sigraw, &slen, forged ? other : sid, sizeof(sid)) != 1)
		die("host signature");
	EVP_MD_CTX_free(ctx);
	wb_init(&sig);
	wb_cstring(&sig, "ssh-ed25519");
	wb_string(&sig, sigraw, slen);
	m = msg_begin(w, MSG_EXTENSION);
	wb_cstring(w, "session-bind@openssh.com");
	wb_slice(w, blob_of(host));
	wb_string(w, sid, sizeof(sid));
	wb_slice(w, wb_slice_of(&sig));
	wb_u8(w, forwarding ? 1 : 0);
	msg_end(w, m);
	wb_free(&sig);
}

/* One request on a fresh connection: the reply type (or R_*). */
int
call_once(const struct wb *m, int timeout_ms, struct cl *keep)
{
	struct cl c = { .fd = -1 };
	int t;

	if (cl_connect(&c, timeout_ms) != 0) {
		cl_free(&c);
		return R_EOF;
	}
	t = cl_call(&c, m, timeout_ms);
	if (keep != NULL)
		*keep = c;
	else
		cl_free(&c);
	return t;
}

int
add_key_wait(const struct key *k, const char *comment, int timeout_ms)
{
	struct wb w;
	int t;

	wb_init(&w);
	msg_add(&w, k, comment);
	t = call_once(&w, timeout_ms, NULL);
	wb_free(&w);
	return t;
}

int
add_key(const struct key *k, const char *comment)
{
	return add_key_wait(k, comment, bound_ms(20000));
}

/* LIST on a fresh connection: number of keys, -1 on no answer; *found
 * tells whether k is among them. */
int
list_fresh(const struct key *k, int *found, int timeout_ms)
{
	struct wb w;
	struct cl c = { .fd = -1 };
	int t, n = -1;

	*found = 0;
	wb_init(&w);
	msg_simple(&w, MSG_REQ_IDENTITIES);
	t = call_once(&w, timeout_ms, &c);
	if (t == MSG_IDENTITIES)
		n = list_has(c.msg, k, found);
	cl_free(&c);
	wb_free(&w);
	return n;
}
