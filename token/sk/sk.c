/*
 * sk.c - keyward-sk, the FIDO token helper: one process per signature.
 * keyward starts it as "keyward-sk LOGLEVEL PROVIDER" with fd 3 a
 * SOCK_SEQPACKET socket to policy. It loads the middleware (a provider
 * library policy has already resolved and checked against -P, or libfido2
 * for "internal", which finds and opens the tokens now), sandboxes
 * itself, reads ONE request, asks the token for one signature, writes ONE
 * reply and exits. So it never sees another key, a token that hangs dies
 * with its process (policy's timer), and a PIN never outlives the
 * signature it was typed for.
 * Trusts: policy's request only after wire/token.c decoded it; the
 * middleware with everything this process has (which is that request).
 */
#include "wire/args.h"
#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "ipc/secmem.h"
#include "wire/token.h"
#include "seccomp/sandbox.h"
#include "token/common/helper.h"
#include "token/sk/fido.h"
#include "token/sk/skapi.h"

#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHAN_FD         TOKEN_CHAN_FD
#define HIDRAW_GLOB     "/dev/hidraw[0-9]*"
#define MAX_HIDRAW      TOKEN_MAX_DEVICES

/* What the request arrives in, and the NUL-terminated copies of its
 * application and PIN the middleware is given: one mapping, locked and
 * out of core dumps, wiped before exit. */
struct secrets {
	uint8_t rbuf[TOKEN_MAX_REQUEST + 1];
	char application[TOKEN_MAX_APPLICATION + 1];
	char pin[TOKEN_MAX_PIN + 1];
};

static struct {
	const char *provider;           /* "internal" or an absolute path */
	void *lib;                      /* the provider library */
	sk_sign_fn sign;                /* its sk_sign; NULL for internal */
	struct secrets *sec;
} S;

/* However the helper ends, the request and its PIN go first. */
static void
wipe_secrets(void)
{
	wipe(S.sec, sizeof(*S.sec));
}

static void __attribute__((noreturn))
usage(void)
{
	start_refused("keyward-sk");
}

/* "internal", or a library token_provider_ok accepts. */
static int
provider_ok(const char *p)
{
	return strcmp(p, "internal") == 0 || token_provider_ok(p);
}

static void
load_provider(int debug)
{
	sk_api_version_fn version;
	uint32_t v;

	if (strcmp(S.provider, "internal") == 0) {
		internal_init(debug);
		return;
	}
	if ((S.lib = dlopen(S.provider, RTLD_NOW | RTLD_LOCAL)) == NULL)
		fatal("provider %s: %s", S.provider, dlerror());
	if ((version = (sk_api_version_fn)dlsym(S.lib, "sk_api_version")) == NULL ||
	    (S.sign = (sk_sign_fn)dlsym(S.lib, "sk_sign")) == NULL)
		fatal("provider %s is not a FIDO middleware (no sk_api_version "
		    "or sk_sign)", S.provider);
	v = version();
	if ((v & SK_API_MAJOR_MASK) != SK_API_VERSION)
		fatal("provider %s speaks API 0x%08x, not 0x%08x", S.provider,
		    v, SK_API_VERSION);
	log_debug("provider %s, API 0x%08x", S.provider, v);
}


/* "internal": the tokens were opened before (fido.c), so no file at all
 * and a filter that reads and writes only them. A provider library finds
 * its tokens itself: Landlock lets it read the device information under
 * /sys and /run/udev, read and write the hidraw nodes present now, nothing
 * else; one that needs more fails under the sandbox. */
static void
confine(void)
{
	static const char *const ro[] = { "/sys", "/run/udev", NULL };
	const char *dev[MAX_HIDRAW + 1];
	const int *fds;
	glob_t g;
	size_t i, n = 0;
	int r;

	if (S.sign == NULL) {
		n = internal_open_tokens(&fds);
		sandbox_harden();
		sandbox_landlock("sk", NULL, NULL);
		sandbox_sk(CHAN_FD, fds, n);
		return;
	}
	memset(&g, 0, sizeof(g));
	if ((r = glob(HIDRAW_GLOB, 0, NULL, &g)) == 0)
		for (i = 0; i < g.gl_pathc && n < MAX_HIDRAW; i++)
			dev[n++] = g.gl_pathv[i];
	else if (r != GLOB_NOMATCH)
		log_error("cannot list %s", HIDRAW_GLOB);
	dev[n] = NULL;
	sandbox_harden();
	if (sandbox_landlock_token("sk", ro, dev) != 0)
		fatal("Landlock is not available: the token helper's filter "
		    "allows open, so it does not run without Landlock");
	globfree(&g);
	sandbox_sk(CHAN_FD, NULL, 0);
}

static void
send_reply(const struct token_reply *rep)
{
	struct wb w;
	ssize_t r;

	wb_init(&w);
	token_reply_encode(&w, rep);
	if (w.err)
		fatal("cannot encode the reply");
	do {
		r = send(CHAN_FD, w.p, w.len, MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r < 0 || (size_t)r != w.len)
		log_error("cannot send the reply to policy: %m");
	wb_free(&w);
}

static void
free_response(struct sk_sign_response *resp)
{
	if (resp == NULL)
		return;
	free(resp->sig_r);
	free(resp->sig_s);
	free(resp);
}

/* An ECDSA r or s as the reply carries it: big-endian, no leading zero
 * bytes (a middleware may hand over a fixed-width or mpint-style value). */
static struct slice
magnitude(const uint8_t *p, size_t n)
{
	while (n > 1 && p[0] == 0) {
		p++;
		n--;
	}
	return (struct slice){ p, n };
}

/* The middleware's answer as reply parts, when it has the parts its
 * algorithm's signature has (wire/token.c's decoder checks them again at
 * policy); -1 when it does not. */
static int
response_parts(uint32_t alg, const struct sk_sign_response *resp,
    struct token_reply *rep)
{
	if (resp == NULL || resp->sig_r == NULL || resp->sig_r_len == 0)
		return -1;
	if (alg == TOKEN_ALG_ED25519) {
		if (resp->sig_r_len != TOKEN_MAX_SIG_PART)
			return -1;
		rep->sig_r = (struct slice){ resp->sig_r, resp->sig_r_len };
		rep->sig_s = (struct slice){ NULL, 0 };
		return 0;
	}
	if (resp->sig_s == NULL || resp->sig_s_len == 0)
		return -1;
	rep->sig_r = magnitude(resp->sig_r, resp->sig_r_len);
	rep->sig_s = magnitude(resp->sig_s, resp->sig_s_len);
	return rep->sig_r.len <= TOKEN_MAX_SIG_PART / 2 &&
	    rep->sig_s.len <= TOKEN_MAX_SIG_PART / 2 ? 0 : -1;
}

/* The one request: decode, sign, reply. Returns the exit status. */
static int
serve(void)
{
	struct token_reply rep = { .status = TOKEN_ERR_GENERAL };
	struct sk_sign_response *resp = NULL;
	struct token_req req;
	struct rd rd;
	ssize_t n;
	int rc;

	do {
		n = recv(CHAN_FD, S.sec->rbuf, sizeof(S.sec->rbuf), 0);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		peer_gone("keyward-broker");
	rd_init(&rd, S.sec->rbuf, (size_t)n);
	if (token_req_decode(&rd, &req) != 0)
		peer_broke("keyward-broker", "a malformed request (%zd bytes)", n);
	memcpy(S.sec->application, req.application.p, req.application.len);
	S.sec->application[req.application.len] = '\0';
	memcpy(S.sec->pin, req.pin.p, req.pin.len);
	S.sec->pin[req.pin.len] = '\0';
	log_debug("sign: alg %u, flags 0x%02x, %zu bytes, %s", req.alg,
	    req.flags, req.data.len, req.pin.len ? "with PIN" : "no PIN");
	if (S.sign != NULL)
		rc = S.sign(req.alg, req.data.p, req.data.len, S.sec->application,
		    req.key_handle.p, req.key_handle.len, req.flags,
		    req.pin.len ? S.sec->pin : NULL, NULL, &resp);
	else
		rc = internal_sign(req.alg, req.data.p, req.data.len,
		    S.sec->application, req.key_handle.p, req.key_handle.len,
		    req.flags, req.pin.len ? S.sec->pin : NULL, &resp);
	wipe(S.sec, sizeof(*S.sec));
	if (rc == 0 && response_parts(req.alg, resp, &rep) != 0) {
		log_error("the middleware's signature is malformed");
		rc = TOKEN_ERR_GENERAL;
	}
	rep.status = token_status(rc);
	if (rc == 0) {
		rep.flags = resp->flags;
		rep.counter = resp->counter;
		log_debug("signed: flags 0x%02x, counter %u", rep.flags,
		    rep.counter);
	} else
		log_info("the token did not sign: error %d", (int)rep.status);
	send_reply(&rep);
	free_response(resp);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sk_args args;
	int debug;

	/* keyward gives exactly one argument list (wire/args.h); a provider
	 * that is not "internal" or an absolute path is refused there, and
	 * one that is not its own realpath or not a file, here. */
	if (args_sk_decode(argc, argv, &args) != 0) {
		if (argc != 3 || args_level(argv[1]) < 0)
			usage();
		args.provider = NULL;
		args.debug = args_level(argv[1]);
	}
	debug = args.debug;
	start_helper("keyward-sk", debug, 0);
	if (args.provider == NULL || !provider_ok(args.provider)) {
		log_error("provider refused: not \"internal\" nor the absolute, "
		    "resolved path of a file");
		return 1;
	}
	S.provider = args.provider;
	token_helper_setup();
	S.sec = secret_map(sizeof(struct secrets), "request buffer");
	peer_at_end(wipe_secrets);
	load_provider(debug);
	confine();
	return serve();
}
