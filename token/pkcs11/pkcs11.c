/*
 * pkcs11.c - keyward-pkcs11, the PKCS#11 token helper: one long-lived
 * process per provider. keyward starts it as "keyward-pkcs11 LOGLEVEL
 * PROVIDER" with fd 3 a SOCK_SEQPACKET socket to policy. It loads the
 * module (a path policy has already resolved and checked against -P),
 * initialises it, sandboxes itself, and then serves policy's requests one
 * at a time (wire/pkcs11.h): LOGIN, which lists the tokens' keys, then
 * SIGN with one of them. It ends when policy closes fd 3.
 * Trusts: policy's requests only after wire/pkcs11.c decoded them; the
 * module with everything this process has (its tokens' sessions, and a
 * PIN for as long as one login takes).
 */
#include "wire/args.h"
#include "ipc/buf.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/secmem.h"
#include "wire/pkcs11.h"
#include "keys/sshkey.h"
#include "seccomp/sandbox.h"
#include "token/common/helper.h"
#include "token/pkcs11/p11keys.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>


#define CHAN_FD         TOKEN_CHAN_FD
#define SOFTHSM_CONF_DEFAULT "/etc/softhsm/softhsm2.conf"
#define SOFTHSM_VAR_STEM "SOFTHSM2_CON"
#define TOKENDIR_KEY    "directories.tokendir"
#define TPM2_STORE_SYSTEM "/etc/tpm2_pkcs11"
#define TPM2_STORE_HOME ".tpm2_pkcs11"
#define HASH_MAX        64      /* SHA-512 */
#define DIGESTINFO_MAX  19      /* the longest prefix below */

/* What a request arrives in: one mapping, locked and out of core dumps,
 * wiped after each request (it may hold a PIN). */
struct secrets {
	uint8_t rbuf[P11_MAX_REQUEST + 1];
};


static struct {
	const char *provider;
	void *lib;
	CK_FUNCTION_LIST_PTR f;
	int logged_in;
	CK_SESSION_HANDLE sess[P11_MAX_SLOTS];
	size_t nsess;
	struct p11list list;            /* the keys LOGIN listed */
	struct secrets *sec;
	/* What Landlock leaves writable (the modules' stores) and the
	 * configuration files outside the system's directories. */
	char stores[P11_MAX_STORES][PATH_MAX];
	size_t nstores;
	char confs[P11_MAX_STORES][PATH_MAX];
	size_t nconfs;
} S;

static void
usage(void)
{
	fprintf(stderr, "keyward-pkcs11 is started by keyward, not by hand\n");
	exit(1);
}

/* An absolute path that is already its own realpath and a regular file
 * (policy resolved it against -P): nothing else is loaded. */
static int
provider_ok(const char *p)
{
	char real[PATH_MAX];
	struct stat st;

	if (p[0] != '/' || realpath(p, real) == NULL || strcmp(real, p) != 0 ||
	    stat(p, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return 1;
}

static void
load_module(void)
{
	CK_C_GetFunctionList getlist;
	CK_C_INITIALIZE_ARGS init;
	CK_RV rv;

	if ((S.lib = dlopen(S.provider, RTLD_NOW | RTLD_LOCAL)) == NULL)
		fatal("provider %s: %s", S.provider, dlerror());
	if ((getlist = (CK_C_GetFunctionList)dlsym(S.lib,
	    "C_GetFunctionList")) == NULL)
		fatal("provider %s is not a PKCS#11 module (no C_GetFunctionList)",
		    S.provider);
	if ((rv = getlist(&S.f)) != CKR_OK || S.f == NULL)
		fatal("provider %s is not a PKCS#11 module (C_GetFunctionList: "
		    "0x%lx)", S.provider, (unsigned long)rv);
	S.list.f = S.f;
	if (S.f->version.major != 2)
		fatal("provider %s speaks PKCS#11 %u.%u, not 2.x", S.provider,
		    S.f->version.major, S.f->version.minor);
	/* One thread: the module may use its own locking or none. */
	memset(&init, 0, sizeof(init));
	init.flags = CKF_OS_LOCKING_OK;
	if ((rv = S.f->C_Initialize(&init)) != CKR_OK)
		fatal("provider %s: C_Initialize: 0x%lx", S.provider,
		    (unsigned long)rv);
	log_debug("provider %s, PKCS#11 %u.%u", S.provider, S.f->version.major,
	    S.f->version.minor);
}

/* Add a store: the realpath of dir, read-write under Landlock. */
static void
add_store(const char *what, const char *dir)
{
	char real[PATH_MAX];

	if (realpath(dir, real) == NULL) {
		log_debug("%s %s: %m: not kept", what, dir);
		return;
	}
	for (size_t i = 0; i < S.nstores; i++)
		if (strcmp(S.stores[i], real) == 0)
			return;
	if (S.nstores == P11_MAX_STORES) {
		log_error("%s %s: more than %d stores: not kept", what, real,
		    P11_MAX_STORES);
		return;
	}
	memcpy(S.stores[S.nstores++], real, strlen(real) + 1);
	log_debug("%s: %s (read-write)", what, real);
}

/* A softhsm2.conf: it stays readable, and its directories.tokendir is a
 * store. Read the way SoftHSM reads it: "key = value" lines, '#' starts
 * a comment. */
static void
softhsm_conf(const char *conf)
{
	char line[PATH_MAX + 64], real[PATH_MAX];
	char *k, *v, *e;
	size_t total = 0;
	FILE *fp;

	if (realpath(conf, real) == NULL || (fp = fopen(real, "re")) == NULL) {
		log_debug("SoftHSM2 configuration %s: %m", conf);
		return;
	}
	if (S.nconfs < P11_MAX_STORES)
		memcpy(S.confs[S.nconfs++], real, strlen(real) + 1);
	while (total < P11_MAX_CONF && fgets(line, sizeof(line), fp) != NULL) {
		total += strlen(line);
		if ((e = strchr(line, '#')) != NULL)
			*e = '\0';
		if ((v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		for (k = line; *k == ' ' || *k == '\t'; k++)
			;
		for (e = k + strlen(k); e > k && (e[-1] == ' ' || e[-1] == '\t'); )
			*--e = '\0';
		if (strcmp(k, TOKENDIR_KEY) != 0)
			continue;
		for (; *v == ' ' || *v == '\t'; v++)
			;
		for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t' ||
		    e[-1] == '\n' || e[-1] == '\r'); )
			*--e = '\0';
		add_store("SoftHSM2 token directory", v);
	}
	fclose(fp);
}

/* Where the modules Debian ships keep what they write, whichever module
 * this is (p11-kit-proxy may load any of them, so the module's name says
 * nothing): SoftHSM2's token directory, named by the configuration in
 * $SOFTHSM2_CONF (or in any SOFTHSM2_CON? variable: the name a renamed
 * copy reads, as the tests' second provider does), else its default
 * configuration; tpm2-pkcs11's store, $TPM2_PKCS11_STORE, else the
 * places it searches. Found before the sandbox, as the modules find
 * them; what does not exist is not kept. */
static void
find_stores(void)
{
	extern char **environ;
	const char *home = getenv("HOME"), *tpm = getenv("TPM2_PKCS11_STORE");
	char path[PATH_MAX];
	int conf_named = 0;

	for (char **e = environ; *e != NULL; e++)
		if (strncmp(*e, SOFTHSM_VAR_STEM, sizeof(SOFTHSM_VAR_STEM) - 1) == 0 &&
		    (*e)[sizeof(SOFTHSM_VAR_STEM) - 1] >= 'A' &&
		    (*e)[sizeof(SOFTHSM_VAR_STEM) - 1] <= 'Z' &&
		    (*e)[sizeof(SOFTHSM_VAR_STEM)] == '=') {
			softhsm_conf(*e + sizeof(SOFTHSM_VAR_STEM) + 1);
			conf_named = 1;
		}
	if (!conf_named)
		softhsm_conf(SOFTHSM_CONF_DEFAULT);
	if (tpm != NULL && *tpm != '\0')
		add_store("tpm2-pkcs11 store", tpm);
	else {
		add_store("tpm2-pkcs11 store", TPM2_STORE_SYSTEM);
		if (home != NULL && *home == '/' && (size_t)snprintf(path,
		    sizeof(path), "%s/%s", home, TPM2_STORE_HOME) < sizeof(path))
			add_store("tpm2-pkcs11 store", path);
	}
}


/* Landlock: the system's libraries and configuration and the stores,
 * nothing else (seccomp/landlock.c); then the filter. */
static void
confine(void)
{
	const char *stores[P11_MAX_STORES + 1], *confs[P11_MAX_STORES + 1];

	for (size_t i = 0; i < S.nstores; i++)
		stores[i] = S.stores[i];
	stores[S.nstores] = NULL;
	for (size_t i = 0; i < S.nconfs; i++)
		confs[i] = S.confs[i];
	confs[S.nconfs] = NULL;
	sandbox_harden();
	if (sandbox_landlock_pkcs11("pkcs11", confs, stores) != 0)
		fatal("Landlock is not available: the token helper's filter "
		    "allows open, so it does not run without Landlock");
	sandbox_pkcs11(CHAN_FD);
}

static void
send_reply(const struct wb *w)
{
	ssize_t r;

	if (w->err)
		fatal("cannot encode the reply");
	do {
		r = send(CHAN_FD, w->p, w->len, MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r < 0 || (size_t)r != w->len)
		log_error("cannot send the reply to policy: %m");
}

static void
close_all(void)
{
	for (size_t i = 0; i < S.nsess; i++)
		S.f->C_CloseSession(S.sess[i]);
	S.nsess = 0;
	S.list.n = 0;
}

/* ------------------------------------------------------------ requests */

/* Every slot with a token, as ssh-agent does (so the same keys are
 * listed): a session each, a login where the token wants one, the same
 * PIN for all. The first login that fails ends the whole request, so a
 * mistyped PIN costs one try on one token, and nothing is listed. */
static int
do_login(const struct p11_req *req, struct wb *w)
{
	CK_SLOT_ID slots[P11_MAX_SLOTS];
	CK_ULONG nslots = P11_MAX_SLOTS;
	struct p11_keys rep;
	CK_TOKEN_INFO ti;
	CK_SESSION_HANDLE s;
	CK_RV rv;

	memset(&rep, 0, sizeof(rep));
	if ((rv = S.f->C_GetSlotList(CK_TRUE, slots, &nslots)) != CKR_OK)
		goto out;
	if (nslots > P11_MAX_SLOTS)
		nslots = P11_MAX_SLOTS;
	for (CK_ULONG i = 0; i < nslots; i++) {
		if ((rv = S.f->C_GetTokenInfo(slots[i], &ti)) != CKR_OK)
			break;
		/* a blank token (SoftHSM2 always offers one) has no keys */
		if (!(ti.flags & CKF_TOKEN_INITIALIZED))
			continue;
		if ((rv = S.f->C_OpenSession(slots[i], CKF_SERIAL_SESSION, NULL,
		    NULL, &s)) != CKR_OK)
			break;
		S.sess[S.nsess++] = s;
		if (!(ti.flags & CKF_LOGIN_REQUIRED))
			continue;
		if ((ti.flags & CKF_PROTECTED_AUTHENTICATION_PATH) &&
		    req->pin.len == 0)
			rv = S.f->C_Login(s, CKU_USER, NULL, 0);
		else
			rv = S.f->C_Login(s, CKU_USER,
			    (CK_UTF8CHAR_PTR)req->pin.p, req->pin.len);
		if (rv == CKR_USER_ALREADY_LOGGED_IN)
			rv = CKR_OK;
		if (rv != CKR_OK) {
			log_info("slot %lu: login refused: 0x%lx",
			    (unsigned long)slots[i], (unsigned long)rv);
			break;
		}
	}
	if (rv == CKR_OK)
		for (size_t i = 0; i < S.nsess; i++)
			p11_list_keys(&S.list, S.sess[i]);
 out:
	if (rv != CKR_OK) {
		close_all();
		rep.status = (uint32_t)rv;
	} else {
		S.logged_in = 1;
		rep.n = (uint32_t)S.list.n;
		for (size_t i = 0; i < S.list.n; i++) {
			const struct p11key *k = &S.list.keys[i];

			rep.key[i].blob = (struct slice){ k->blob, k->blob_len };
			rep.key[i].label = (struct slice){
			    (const uint8_t *)k->label, k->label_len };
			rep.key[i].flags = k->flags;
		}
		log_info("%zu token(s), %zu key(s)", S.nsess, S.list.n);
	}
	p11_keys_encode(w, &rep);
	return 0;
}

/* DigestInfo prefixes (RFC 8017 §9.2, note 1) of the hashes ssh-rsa,
 * rsa-sha2-256 and rsa-sha2-512 sign. */
static const uint8_t di_sha1[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b,
    0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14 };
static const uint8_t di_sha256[] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09,
    0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
    0x20 };
static const uint8_t di_sha512[] = { 0x30, 0x51, 0x30, 0x0d, 0x06, 0x09,
    0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04,
    0x40 };

static const struct sigspec {
	enum sig_alg alg;
	CK_MECHANISM_TYPE mech;
	const EVP_MD *(*md)(void);      /* NULL: the data itself (EdDSA) */
	const uint8_t *di;              /* RSA: the DigestInfo prefix */
	size_t di_len;
} sigspecs[] = {
	{ SIG_RSA_SHA1, CKM_RSA_PKCS, EVP_sha1, di_sha1, sizeof(di_sha1) },
	{ SIG_RSA_SHA256, CKM_RSA_PKCS, EVP_sha256, di_sha256, sizeof(di_sha256) },
	{ SIG_RSA_SHA512, CKM_RSA_PKCS, EVP_sha512, di_sha512, sizeof(di_sha512) },
	{ SIG_ECDSA_P256, CKM_ECDSA, EVP_sha256, NULL, 0 },
	{ SIG_ECDSA_P384, CKM_ECDSA, EVP_sha384, NULL, 0 },
	{ SIG_ECDSA_P521, CKM_ECDSA, EVP_sha512, NULL, 0 },
	{ SIG_ED25519, CKM_EDDSA, NULL, NULL, 0 },
};

static const struct sigspec *
sigspec_of(uint32_t alg)
{
	for (size_t i = 0; i < sizeof(sigspecs) / sizeof(sigspecs[0]); i++)
		if (sigspecs[i].alg == (enum sig_alg)alg)
			return &sigspecs[i];
	return NULL;
}

/* The token's raw signature as an SSH signature blob (spec §4.6). */
static int
sig_blob(const struct sigspec *sp, const struct p11key *k, const uint8_t *raw,
    size_t n, struct wb *w)
{
	size_t mark, half = n / 2;
	struct pubkey pk;

	wb_cstring(w, sig_alg_name(sp->alg));
	switch (k->kind) {
	case KEY_RSA:
		/* C_Sign gives the modulus's length: the bytes as they are */
		if (key_parse_public((struct slice){ k->blob, k->blob_len }, &pk,
		    NULL) != 0 || n != (pk.rsa_bits + 7) / 8)
			return -1;
		wb_string(w, raw, n);
		break;
	case KEY_ED25519:
		if (n != 64)
			return -1;
		wb_string(w, raw, n);
		break;
	default:
		/* r || s, each as long as the curve's order */
		if (n == 0 || n % 2 != 0 || n > 2 * 66)
			return -1;
		mark = wb_begin_string(w);
		wb_mpint(w, raw, half);
		wb_mpint(w, raw + half, half);
		wb_end_string(w, mark);
		break;
	}
	return w->err || w->len > P11_MAX_SIG_BLOB ? -1 : 0;
}

static CK_RV
sign_raw(const struct p11key *k, const struct sigspec *sp,
    const struct p11_req *req, uint8_t *raw, CK_ULONG *rawlen)
{
	uint8_t in[DIGESTINFO_MAX + HASH_MAX];
	const uint8_t *msg = in;
	CK_MECHANISM mech = { sp->mech, NULL, 0 };
	unsigned int hlen = 0;
	size_t inlen;
	CK_RV rv, rv2;

	if (sp->md != NULL) {
		if (sp->di_len > 0)
			memcpy(in, sp->di, sp->di_len);
		if (EVP_Digest(req->data.p, req->data.len, in + sp->di_len, &hlen,
		    sp->md(), NULL) != 1)
			return P11_CKR_FUNCTION_FAILED;
		inlen = sp->di_len + hlen;
	} else {
		msg = req->data.p;
		inlen = req->data.len;
	}
	if ((k->flags & P11_KEY_ALWAYS_AUTH) && req->pin.len == 0)
		return P11_CKR_USER_NOT_LOGGED_IN;
	if ((rv = S.f->C_SignInit(k->sess, &mech, k->obj)) != CKR_OK)
		return rv;
	if (k->flags & P11_KEY_ALWAYS_AUTH) {
		rv = S.f->C_Login(k->sess, CKU_CONTEXT_SPECIFIC,
		    (CK_UTF8CHAR_PTR)req->pin.p, req->pin.len);
		if (rv != CKR_OK) {
			/* ends the operation (any error but a short buffer) */
			*rawlen = P11_MAX_RAW_SIG;
			S.f->C_Sign(k->sess, (CK_BYTE_PTR)msg, inlen, raw, rawlen);
			return rv;
		}
	}
	*rawlen = P11_MAX_RAW_SIG;
	rv = S.f->C_Sign(k->sess, (CK_BYTE_PTR)msg, inlen, raw, rawlen);
	if (rv == CKR_BUFFER_TOO_SMALL) {
		/* a signature longer than any we take: end the operation */
		*rawlen = P11_MAX_RAW_SIG;
		rv2 = S.f->C_Sign(k->sess, (CK_BYTE_PTR)msg, inlen, NULL, rawlen);
		(void)rv2;
		log_error("the token's signature is longer than %d bytes",
		    P11_MAX_RAW_SIG);
	}
	wipe(in, sizeof(in));
	return rv;
}

static int
do_sign(const struct p11_req *req, struct wb *w)
{
	static uint8_t raw[P11_MAX_RAW_SIG];
	struct p11_sig rep = { .status = P11_CKR_GENERAL_ERROR };
	const struct sigspec *sp = sigspec_of(req->alg);
	const struct p11key *k;
	CK_ULONG rawlen = 0;
	struct wb sig;
	CK_RV rv;

	wb_init(&sig);
	if (req->key >= S.list.n) {
		rep.status = P11_CKR_KEY_HANDLE_INVALID;
		goto out;
	}
	k = &S.list.keys[req->key];
	if (sp == NULL || !sig_alg_fits(sp->alg, k->kind)) {
		rep.status = P11_CKR_MECHANISM_INVALID;
		goto out;
	}
	log_debug("sign: key %u, %s, %zu bytes%s", req->key,
	    sig_alg_name(sp->alg), req->data.len,
	    req->pin.len ? ", with a context PIN" : "");
	if ((rv = sign_raw(k, sp, req, raw, &rawlen)) != CKR_OK) {
		log_info("the token did not sign: %s (0x%lx)",
		    p11_ckr_why((uint32_t)rv, "an error"), (unsigned long)rv);
		rep.status = (uint32_t)rv;
		goto out;
	}
	if (rawlen > sizeof(raw) || sig_blob(sp, k, raw, rawlen, &sig) != 0) {
		log_error("the token's signature is malformed (%lu bytes)",
		    (unsigned long)rawlen);
		goto out;
	}
	rep.status = P11_OK;
	rep.sig = wb_slice_of(&sig);
 out:
	p11_sig_encode(w, &rep);
	wb_free(&sig);
	return 0;
}

/* What policy may ask, and when: LOGIN until one succeeded, SIGN after. */
static const struct handler {
	uint8_t type;
	int logged_in;                  /* the state it needs */
	int (*fn)(const struct p11_req *, struct wb *);
	uint32_t wrong_state;           /* the status when it is not */
} handlers[] = {
	{ P11_MSG_LOGIN, 0, do_login, P11_CKR_USER_ALREADY_LOGGED_IN },
	{ P11_MSG_SIGN, 1, do_sign, P11_CKR_USER_NOT_LOGGED_IN },
};

static void
refuse(uint8_t type, uint32_t status, struct wb *w)
{
	struct p11_keys keys = { .status = status };
	struct p11_sig sig = { .status = status };

	if (type == P11_MSG_LOGIN)
		p11_keys_encode(w, &keys);
	else
		p11_sig_encode(w, &sig);
}

/* Requests until policy closes fd 3. Returns the exit status. */
static int
serve(void)
{
	const struct handler *h;
	struct p11_req req;
	struct rd rd;
	struct wb w;
	ssize_t n;

	for (;;) {
		do {
			n = recv(CHAN_FD, S.sec->rbuf, sizeof(S.sec->rbuf), 0);
		} while (n < 0 && errno == EINTR);
		if (n == 0) {
			log_debug("policy closed the channel");
			return 0;
		}
		if (n < 0) {
			log_error("recv: %m");
			return 1;
		}
		rd_init(&rd, S.sec->rbuf, (size_t)n);
		if (p11_req_decode(&rd, &req) != 0) {
			/* not what policy's encoder writes: a broken peer */
			wipe(S.sec, sizeof(*S.sec));
			log_error("malformed request from policy (%zd bytes)", n);
			return 1;
		}
		wb_init(&w);
		h = NULL;
		for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
			if (handlers[i].type == req.type)
				h = &handlers[i];
		if (h == NULL)
			fatal("no handler for a decoded request type %u", req.type);
		if (h->logged_in != S.logged_in)
			refuse(req.type, h->wrong_state, &w);
		else
			h->fn(&req, &w);
		wipe(S.sec, sizeof(*S.sec));
		send_reply(&w);
		wb_free(&w);
	}
}

int
main(int argc, char **argv)
{
	struct pkcs11_args args;
	int rc;

	/* keyward gives exactly one argument list (wire/args.h); a provider
	 * that is not an absolute path is refused there, and one that is
	 * not its own realpath or not a file, here. */
	if (args_pkcs11_decode(argc, argv, &args) != 0) {
		if (argc != 3 || args_level(argv[1]) < 0)
			usage();
		args.provider = NULL;
		args.debug = args_level(argv[1]);
	}
	log_init("keyward-pkcs11", args.debug ? LOG_LVL_DEBUG : LOG_LVL_INFO, 0);
	if (args.provider == NULL || !provider_ok(args.provider)) {
		log_error("provider refused: not the absolute, resolved path "
		    "of a file");
		return 1;
	}
	S.provider = args.provider;
	/* The broker's deny list is inherited: a module that trips it while
	 * it loads (before this process's own filter) is named as well. */
	sandbox_trap_module(S.provider);
	sandbox_trap_install("pkcs11");
	token_helper_setup();
	S.sec = secret_map(sizeof(struct secrets), "request buffer");
	find_stores();
	load_module();
	/* Before the first request, so no PIN and no data to sign ever
	 * reaches this process unsandboxed (doc/threat-model.md). */
	confine();
	rc = serve();
	close_all();
	S.f->C_Finalize(NULL);
	return rc;
}
