/*
 * sk_drive.c - drives one keyward-sk as policy will: a SOCK_SEQPACKET
 * socketpair on its fd 3, one request, one reply. The key comes from
 * sk_enroll of a middleware opened here with dlopen (the test middleware,
 * tests/sk/provider.c); a signature in the reply is verified with OpenSSL
 * against the enrolled public key. Used by tests/integration/131-sk-helper.t.
 *
 *   sk_drive -h HELPER -p PROVIDER -m MIDDLEWARE.so [-a ed25519|ecdsa]
 *            [-P PIN] [-e NAME=VALUE]... [-l debug|info]
 *
 * PROVIDER is what the helper is given ("internal", a path); -e sets a
 * variable in the helper's environment only. Prints, one a line:
 *   pid N          as soon as the helper runs (flushed)
 *   status S       the reply's status (or "no reply")
 *   flags 0xFF / counter N / signature verified|BAD   on success
 *   exit N | signal N    how the helper ended
 * Exits 0 when every reply that arrived decoded and any signature in it
 * verified, 1 otherwise.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "tests/tools/drive.h"
#include "wire/token.h"
#include "token/sk/skapi.h"

#include <dlfcn.h>
#include <errno.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/sha.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define APPLICATION     "ssh:"
#define REPLY_WAIT_MS   60000

static const uint8_t data[] = "the data policy would have a token sign";

static void
die(const char *what)
{
	fprintf(stderr, "sk_drive: %s\n", what);
	exit(2);
}

static struct sk_enroll_response *
enroll(const char *so, uint32_t alg)
{
	static const uint8_t challenge[32];
	struct sk_enroll_response *r = NULL;
	sk_enroll_fn fn;
	void *lib;

	if ((lib = dlopen(so, RTLD_NOW | RTLD_LOCAL)) == NULL)
		die(dlerror());
	if ((fn = (sk_enroll_fn)dlsym(lib, "sk_enroll")) == NULL)
		die("no sk_enroll");
	if (fn(alg, challenge, sizeof(challenge), APPLICATION, SK_FLAG_UP_REQD,
	    NULL, NULL, &r) != 0 || r == NULL)
		die("sk_enroll failed");
	return r;
}

static EVP_PKEY *
public_key(uint32_t alg, const struct sk_enroll_response *e)
{
	OSSL_PARAM_BLD *bld;
	OSSL_PARAM *params;
	EVP_PKEY_CTX *ctx;
	EVP_PKEY *pk = NULL;

	if (alg == TOKEN_ALG_ED25519)
		return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL,
		    e->public_key, e->public_key_len);
	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
	    "prime256v1", 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
	    e->public_key, e->public_key_len) ||
	    (params = OSSL_PARAM_BLD_to_param(bld)) == NULL)
		die("OSSL_PARAM");
	if ((ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) != 1)
		die("EC public key");
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	return pk;
}

/* What the token signed: SHA-256(application), flags, counter, SHA-256(data). */
static int
verify(uint32_t alg, EVP_PKEY *pk, const struct token_reply *rep)
{
	uint8_t msg[32 + 1 + 4 + 32], der[80], *p = der;
	ECDSA_SIG *sig = NULL;
	EVP_MD_CTX *md;
	const uint8_t *s = rep->sig_r.p;
	size_t slen = rep->sig_r.len;
	int ok, n;

	SHA256((const uint8_t *)APPLICATION, strlen(APPLICATION), msg);
	msg[32] = rep->flags;
	msg[33] = (uint8_t)(rep->counter >> 24);
	msg[34] = (uint8_t)(rep->counter >> 16);
	msg[35] = (uint8_t)(rep->counter >> 8);
	msg[36] = (uint8_t)rep->counter;
	SHA256(data, sizeof(data), msg + 37);
	if (alg == TOKEN_ALG_ECDSA) {
		if ((sig = ECDSA_SIG_new()) == NULL ||
		    !ECDSA_SIG_set0(sig, BN_bin2bn(rep->sig_r.p, (int)rep->sig_r.len,
		    NULL), BN_bin2bn(rep->sig_s.p, (int)rep->sig_s.len, NULL)) ||
		    (n = i2d_ECDSA_SIG(sig, NULL)) <= 0 || (size_t)n > sizeof(der) ||
		    i2d_ECDSA_SIG(sig, &p) != n)
			die("ECDSA_SIG");
		s = der;
		slen = (size_t)n;
	}
	if ((md = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestVerifyInit(md, NULL, alg == TOKEN_ALG_ECDSA ?
	    EVP_sha256() : NULL, NULL, pk) != 1)
		die("EVP_DigestVerifyInit");
	ok = EVP_DigestVerify(md, s, slen, msg, sizeof(msg)) == 1;
	EVP_MD_CTX_free(md);
	ECDSA_SIG_free(sig);
	return ok;
}

int
main(int argc, char **argv)
{
	const char *helper = NULL, *provider = NULL, *so = NULL, *pin = "";
	const char *level = "debug", *env[DRIVE_MAX_ENV];
	struct sk_enroll_response *e;
	struct token_req req;
	struct token_reply rep;
	struct pollfd pfd;
	uint8_t buf[TOKEN_MAX_REPLY + 1];
	uint32_t alg = TOKEN_ALG_ED25519;
	struct wb w;
	struct rd rd;
	EVP_PKEY *pk;
	ssize_t n;
	pid_t pid;
	int sock, c, nenv = 0, failed = 0;

	while ((c = getopt(argc, argv, "h:p:m:a:P:e:l:")) != -1) {
		switch (c) {
		case 'h': helper = optarg; break;
		case 'p': provider = optarg; break;
		case 'm': so = optarg; break;
		case 'P': pin = optarg; break;
		case 'l': level = optarg; break;
		case 'a':
			if (strcmp(optarg, "ecdsa") == 0)
				alg = TOKEN_ALG_ECDSA;
			else if (strcmp(optarg, "ed25519") != 0)
				die("-a ed25519|ecdsa");
			break;
		case 'e':
			if (drive_env(env, &nenv, optarg) != 0)
				die("-e NAME=VALUE");
			break;
		default:
			die("usage: sk_drive -h HELPER -p PROVIDER -m SO [-a ALG] "
			    "[-P PIN] [-e NAME=VALUE]... [-l LEVEL]");
		}
	}
	if (helper == NULL || provider == NULL || so == NULL)
		die("-h, -p and -m are needed");
	e = enroll(so, alg);
	pk = public_key(alg, e);

	if ((pid = drive_start(helper, level, provider, env, nenv, &sock)) < 0)
		die("spawn");

	memset(&req, 0, sizeof(req));
	req.alg = alg;
	req.application = (struct slice){ (const uint8_t *)APPLICATION,
	    strlen(APPLICATION) };
	req.flags = SK_FLAG_UP_REQD;
	req.key_handle = (struct slice){ e->key_handle, e->key_handle_len };
	req.data = (struct slice){ data, sizeof(data) };
	req.pin = (struct slice){ (const uint8_t *)pin, strlen(pin) };
	wb_init(&w);
	token_req_encode(&w, &req);
	if (w.err)
		die("encode");
	/* A helper that refused to start has closed its end: no reply. */
	if (send(sock, w.p, w.len, MSG_NOSIGNAL) != (ssize_t)w.len)
		printf("send failed: %s\n", strerror(errno));
	wb_free_secret(&w);

	pfd.fd = sock;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, REPLY_WAIT_MS) == 1 &&
	    (n = recv(sock, buf, sizeof(buf), 0)) > 0) {
		rd_init(&rd, buf, (size_t)n);
		if (token_reply_decode(&rd, alg, &rep) != 0) {
			printf("status undecodable\n");
			failed = 1;
		} else {
			printf("status %d\n", (int)rep.status);
			if (rep.status == TOKEN_OK) {
				printf("flags 0x%02x\ncounter %u\n", rep.flags,
				    rep.counter);
				if (verify(alg, pk, &rep))
					printf("signature verified\n");
				else {
					printf("signature BAD\n");
					failed = 1;
				}
			}
		}
	} else
		printf("status no reply\n");
	close(sock);
	if (drive_end(pid) != 0)
		die("waitpid");
	EVP_PKEY_free(pk);
	return failed;
}
