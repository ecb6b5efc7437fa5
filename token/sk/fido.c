/*
 * fido.c - keyward-sk's "internal" middleware on libfido2 (fido.h). Before
 * the sandbox it finds the FIDO tokens (USB HID, through libudev) and
 * opens and locks each; libfido2 then talks to them only through the I/O
 * functions below, on those descriptors, so the sandboxed helper opens
 * nothing and walks no /sys. When asked, it picks the token that knows the
 * key handle (a silent probe when there are several, so only the right
 * token blinks) and asks it for one assertion. Trusts the request only as
 * far as wire/token.c's decoder checked it; trusts the token's answer to
 * be a signature, which policy verifies.
 */
#include "ipc/limits.h"
#include "ipc/log.h"
#include "wire/token.h"
#include "token/sk/fido.h"

#include <errno.h>
#include <fcntl.h>
#include <fido.h>
#include <limits.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The tokens opened before the sandbox: a descriptor each (-1 once
 * closed) and the path libfido2 knows it by. */
struct token {
	int fd;
	int in_use;
	char *path;
};

static struct {
	struct token tok[TOKEN_MAX_DEVICES];
	int fds[TOKEN_MAX_DEVICES];
	size_t n;
} T;

void
internal_init(int debug)
{
	fido_init(debug ? FIDO_DEBUG : 0);
}

/* One token libfido2 listed: opened read-write, checked to be a device
 * node, and locked as libfido2's own Linux back end locks it: another
 * process using the token (another helper waiting for a touch) is waited
 * for, each pause TOKEN_LOCK_WAIT_MS longer than the last, then the token
 * is left out. */
static void
open_token(const char *path)
{
	struct timespec pause;
	struct stat st;
	long ms;
	int fd, tries;

	if ((fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		log_error("token %s: %m", path);
		return;
	}
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
		log_error("token %s: not a device node", path);
		close(fd);
		return;
	}
	for (tries = 1; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
		if (errno != EWOULDBLOCK || tries >= TOKEN_LOCK_TRIES) {
			log_error("token %s: cannot lock it (%m)", path);
			close(fd);
			return;
		}
		ms = (long)tries * TOKEN_LOCK_WAIT_MS;
		pause.tv_sec = ms / 1000;
		pause.tv_nsec = (ms % 1000) * 1000000L;
		nanosleep(&pause, NULL);
	}
	if ((T.tok[T.n].path = strdup(path)) == NULL) {
		close(fd);
		return;
	}
	T.tok[T.n].fd = T.fds[T.n] = fd;
	T.n++;
}

#ifdef KEYWARD_TESTING
/* Test builds only (make TESTING=1, never installed): with
 * KEYWARD_TEST_SK_TOKEN=PATH, one more token, the software authenticator
 * of tests/sk/ctaphid.py on the SOCK_SEQPACKET socket PATH (one HID
 * report a message), known as "kwtest:PATH". Everything after the listing
 * (CTAPHID, getInfo, the PIN protocol, the assertion) is libfido2's and
 * runs under the filter through the I/O functions below. */
static void
test_token(void)
{
	const char *path = getenv("KEYWARD_TEST_SK_TOKEN");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char name[sizeof(sa.sun_path) + 8];
	int fd;

	if (path == NULL || T.n >= TOKEN_MAX_DEVICES ||
	    strlen(path) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	snprintf(name, sizeof(name), "kwtest:%s", path);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    (T.tok[T.n].path = strdup(name)) == NULL) {
		log_error("test build: token %s: %m", name);
		if (fd >= 0)
			close(fd);
		return;
	}
	log_info("test build: token %s added", name);
	T.tok[T.n].fd = T.fds[T.n] = fd;
	T.n++;
}
#endif

size_t
internal_open_tokens(const int **fds)
{
	fido_dev_info_t *list;
	size_t n = 0, i;
	int r;

	*fds = T.fds;
	if ((list = fido_dev_info_new(TOKEN_MAX_DEVICES)) == NULL)
		return 0;
	if ((r = fido_dev_info_manifest(list, TOKEN_MAX_DEVICES, &n)) != FIDO_OK) {
		log_error("cannot list FIDO tokens: %s", fido_strerr(r));
		n = 0;
	}
	for (i = 0; i < n && T.n < TOKEN_MAX_DEVICES; i++) {
		const char *path = fido_dev_info_path(fido_dev_info_ptr(list, i));

		if (path != NULL)
			open_token(path);
	}
	fido_dev_info_free(&list, TOKEN_MAX_DEVICES);
#ifdef KEYWARD_TESTING
	test_token();
#endif
	log_debug("%zu FIDO token(s) listed, %zu opened", n, T.n);
	return T.n;
}

/* libfido2's I/O on the opened tokens (fido_dev_set_io_functions): the
 * same HID reports its own Linux back end reads and writes, a report ID
 * byte first on output, whole reports in and out. */
static void *
io_open(const char *path)
{
	for (size_t i = 0; i < T.n; i++)
		if (T.tok[i].fd >= 0 && !T.tok[i].in_use &&
		    strcmp(T.tok[i].path, path) == 0) {
			T.tok[i].in_use = 1;
			return &T.tok[i];
		}
	return NULL;
}

static void
io_close(void *h)
{
	struct token *t = h;

	close(t->fd);
	t->fd = -1;
	t->in_use = 0;
}

static int
io_read(void *h, unsigned char *buf, size_t len, int ms)
{
	struct token *t = h;
	struct pollfd p = { .fd = t->fd, .events = POLLIN };
	ssize_t r;
	int n;

	if (len > INT_MAX)
		return -1;
	do {
		n = poll(&p, 1, ms);
	} while (n < 0 && errno == EINTR);
	if (n <= 0 || (p.revents & POLLIN) == 0)
		return -1;
	do {
		r = read(t->fd, buf, len);
	} while (r < 0 && errno == EINTR);
	return r >= 0 && (size_t)r == len ? (int)r : -1;
}

static int
io_write(void *h, const unsigned char *buf, size_t len)
{
	struct token *t = h;
	ssize_t r;

	if (len > INT_MAX)
		return -1;
	do {
		r = write(t->fd, buf, len);
	} while (r < 0 && errno == EINTR);
	return r >= 0 && (size_t)r == len ? (int)r : -1;
}

static const fido_dev_io_t token_io = { io_open, io_close, io_read, io_write };

/* libfido2's answer as the interface's error codes. */
static int
fido_status(int r)
{
	switch (r) {
	case FIDO_OK:
		return TOKEN_OK;
	case FIDO_ERR_PIN_REQUIRED:
	case FIDO_ERR_PIN_INVALID:
	case FIDO_ERR_UV_INVALID:
		return TOKEN_ERR_PIN_REQUIRED;
	case FIDO_ERR_UNSUPPORTED_OPTION:
	case FIDO_ERR_UNSUPPORTED_ALGORITHM:
	case FIDO_ERR_UNSUPPORTED_EXTENSION:
		return TOKEN_ERR_UNSUPPORTED;
	default:
		return TOKEN_ERR_GENERAL;
	}
}

/* An assertion request for this key handle; up and uv as asked. */
static fido_assert_t *
assertion(const uint8_t *data, size_t data_len, const char *application,
    const uint8_t *kh, size_t kh_len, fido_opt_t up, fido_opt_t uv)
{
	fido_assert_t *a;

	if ((a = fido_assert_new()) == NULL)
		return NULL;
	if (fido_assert_set_clientdata(a, data, data_len) != FIDO_OK ||
	    fido_assert_set_rp(a, application) != FIDO_OK ||
	    fido_assert_allow_cred(a, kh, kh_len) != FIDO_OK ||
	    fido_assert_set_up(a, up) != FIDO_OK ||
	    fido_assert_set_uv(a, uv) != FIDO_OK) {
		fido_assert_free(&a);
		return NULL;
	}
	return a;
}

/* Does this (open) token know the key handle? A silent assertion (no
 * touch) answers without blinking; a U2F-only token answers "touch
 * needed" for a handle it knows. */
static int
knows_handle(fido_dev_t *dev, const char *application, const uint8_t *kh,
    size_t kh_len)
{
	static const uint8_t probe[32];
	fido_assert_t *a;
	int r;

	if ((a = assertion(probe, sizeof(probe), application, kh, kh_len,
	    FIDO_OPT_FALSE, FIDO_OPT_OMIT)) == NULL)
		return 0;
	r = fido_dev_get_assert(dev, a, NULL);
	fido_assert_free(&a);
	return r == FIDO_OK || r == FIDO_ERR_USER_PRESENCE_REQUIRED;
}

/* The token to ask: the only one there, or the first that knows the
 * handle. NULL with *err set when there is none. */
static fido_dev_t *
find_token(const char *application, const uint8_t *kh, size_t kh_len,
    int *err)
{
	fido_dev_t *dev = NULL;
	size_t i;
	int r;

	*err = TOKEN_ERR_NO_DEVICE;
	for (i = 0; i < T.n; i++) {
		const char *path = T.tok[i].path;

		if (T.tok[i].fd < 0)
			continue;
		if ((dev = fido_dev_new()) == NULL) {
			*err = TOKEN_ERR_GENERAL;
			break;
		}
		if ((r = fido_dev_set_io_functions(dev, &token_io)) != FIDO_OK ||
		    (r = fido_dev_open(dev, path)) != FIDO_OK) {
			log_error("token %s: %s", path, fido_strerr(r));
			fido_dev_free(&dev);
			continue;
		}
		if (T.n == 1 || knows_handle(dev, application, kh, kh_len)) {
			log_debug("using token %s", path);
			break;
		}
		fido_dev_close(dev);
		fido_dev_free(&dev);
		*err = TOKEN_ERR_GENERAL;       /* tokens, none knows the key */
	}
	return dev;
}

static int
copy_out(const uint8_t *p, size_t n, uint8_t **out, size_t *out_len)
{
	if (n == 0 || (*out = malloc(n)) == NULL)
		return -1;
	memcpy(*out, p, n);
	*out_len = n;
	return 0;
}

/* An ECDSA token signs in DER; the interface wants r and s. */
static int
split_der(const uint8_t *der, size_t der_len, struct sk_sign_response *resp)
{
	const uint8_t *p = der;
	const BIGNUM *r, *s;
	ECDSA_SIG *sig;
	int nr, ns, ret = -1;

	if ((sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len)) == NULL)
		return -1;
	ECDSA_SIG_get0(sig, &r, &s);
	nr = BN_num_bytes(r);
	ns = BN_num_bytes(s);
	if (nr < 1 || ns < 1 || nr > TOKEN_MAX_SIG_PART / 2 ||
	    ns > TOKEN_MAX_SIG_PART / 2 ||
	    (resp->sig_r = malloc((size_t)nr)) == NULL ||
	    (resp->sig_s = malloc((size_t)ns)) == NULL)
		goto out;
	resp->sig_r_len = (size_t)BN_bn2bin(r, resp->sig_r);
	resp->sig_s_len = (size_t)BN_bn2bin(s, resp->sig_s);
	ret = 0;
 out:
	ECDSA_SIG_free(sig);
	return ret;
}

/* The answer made of the token's one assertion a: its flags, counter
 * and signature (alg's: Ed25519 raw, ECDSA as r and s). NULL if a is not
 * one assertion or its signature is malformed (logged). */
static struct sk_sign_response *
response_of(uint32_t alg, const fido_assert_t *a)
{
	struct sk_sign_response *resp;
	const uint8_t *sig;
	size_t sig_len;

	if (fido_assert_count(a) != 1 || (resp = calloc(1, sizeof(*resp))) == NULL)
		return NULL;
	resp->flags = fido_assert_flags(a, 0);
	resp->counter = fido_assert_sigcount(a, 0);
	sig = fido_assert_sig_ptr(a, 0);
	sig_len = fido_assert_sig_len(a, 0);
	if (alg == TOKEN_ALG_ED25519 ? copy_out(sig, sig_len, &resp->sig_r,
	    &resp->sig_r_len) : split_der(sig, sig_len, resp)) {
		log_error("token's signature is malformed");
		free(resp->sig_r);
		free(resp->sig_s);
		free(resp);
		return NULL;
	}
	return resp;
}

int
internal_sign(uint32_t alg, const uint8_t *data, size_t data_len,
    const char *application, const uint8_t *key_handle, size_t key_handle_len,
    uint8_t flags, const char *pin, struct sk_sign_response **resp_out)
{
	fido_assert_t *a = NULL;
	fido_dev_t *dev;
	fido_opt_t uv = FIDO_OPT_OMIT;
	int r, err;

	*resp_out = NULL;
	if (alg != TOKEN_ALG_ECDSA && alg != TOKEN_ALG_ED25519)
		return TOKEN_ERR_UNSUPPORTED;
	if ((dev = find_token(application, key_handle, key_handle_len,
	    &err)) == NULL)
		return err;
	if (pin != NULL && *pin == '\0')
		pin = NULL;
	/* User verification without a PIN: the token's own (a fingerprint),
	 * or else a PIN is what is needed. */
	if ((flags & SK_FLAG_UV_REQD) != 0 && pin == NULL) {
		if (!fido_dev_has_uv(dev)) {
			err = TOKEN_ERR_PIN_REQUIRED;
			goto out;
		}
		uv = FIDO_OPT_TRUE;
	}
	err = TOKEN_ERR_GENERAL;
	if ((a = assertion(data, data_len, application, key_handle,
	    key_handle_len, (flags & SK_FLAG_UP_REQD) ? FIDO_OPT_TRUE :
	    FIDO_OPT_FALSE, uv)) == NULL)
		goto out;
	if ((r = fido_dev_get_assert(dev, a, pin)) != FIDO_OK) {
		log_info("token refused to sign: %s", fido_strerr(r));
		err = fido_status(r);
		goto out;
	}
	if ((*resp_out = response_of(alg, a)) != NULL)
		err = TOKEN_OK;
 out:
	fido_assert_free(&a);
	fido_dev_close(dev);
	fido_dev_free(&dev);
	return err;
}
