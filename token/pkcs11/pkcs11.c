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
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "ipc/secmem.h"
#include "wire/pkcs11.h"
#include "keys/sshkey.h"
#include "seccomp/sandbox.h"
#include "token/common/helper.h"
#include "token/pkcs11/p11keys.h"
#include "token/pkcs11/p11sign.h"
#include "token/pkcs11/p11stores.h"

#include <dlfcn.h>
#include <errno.h>
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
	struct p11stores st;
} S;

static void __attribute__((noreturn))
usage(void)
{
	start_refused("keyward-pkcs11");
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

/* Landlock: the system's libraries and configuration and the stores,
 * nothing else (seccomp/landlock.c); then the filter. */
static void
confine(void)
{
	const char *stores[P11_MAX_STORES + 1], *confs[P11_MAX_STORES + 1];

	for (size_t i = 0; i < S.st.nstores; i++)
		stores[i] = S.st.stores[i];
	stores[S.st.nstores] = NULL;
	for (size_t i = 0; i < S.st.nconfs; i++)
		confs[i] = S.st.confs[i];
	confs[S.st.nconfs] = NULL;
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

/* One slot: a session if its token is initialised (a blank token, and
 * SoftHSM2 always offers one, has no keys), a login if the token wants
 * one. CKR_OK, or what failed. */
static CK_RV
open_slot(CK_SLOT_ID slot, const struct p11_req *req)
{
	CK_TOKEN_INFO ti;
	CK_SESSION_HANDLE s;
	CK_RV rv;

	if ((rv = S.f->C_GetTokenInfo(slot, &ti)) != CKR_OK)
		return rv;
	if (!(ti.flags & CKF_TOKEN_INITIALIZED))
		return CKR_OK;
	if ((rv = S.f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL,
	    NULL, &s)) != CKR_OK)
		return rv;
	S.sess[S.nsess++] = s;
	if (!(ti.flags & CKF_LOGIN_REQUIRED))
		return CKR_OK;
	if ((ti.flags & CKF_PROTECTED_AUTHENTICATION_PATH) &&
	    req->pin.len == 0)
		rv = S.f->C_Login(s, CKU_USER, NULL, 0);
	else
		rv = S.f->C_Login(s, CKU_USER,
		    (CK_UTF8CHAR_PTR)req->pin.p, req->pin.len);
	if (rv == CKR_USER_ALREADY_LOGGED_IN)
		rv = CKR_OK;
	if (rv != CKR_OK)
		log_info("slot %lu: login refused: 0x%lx",
		    (unsigned long)slot, (unsigned long)rv);
	return rv;
}

/* The keys listed, into the reply. */
static void
keys_reply(struct p11_keys *rep)
{
	rep->n = (uint32_t)S.list.n;
	for (size_t i = 0; i < S.list.n; i++) {
		const struct p11key *k = &S.list.keys[i];

		rep->key[i].blob = (struct slice){ k->blob, k->blob_len };
		rep->key[i].label = (struct slice){
		    (const uint8_t *)k->label, k->label_len };
		rep->key[i].flags = k->flags;
	}
}

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
	CK_RV rv;

	memset(&rep, 0, sizeof(rep));
	if ((rv = S.f->C_GetSlotList(CK_TRUE, slots, &nslots)) == CKR_OK) {
		if (nslots > P11_MAX_SLOTS)
			nslots = P11_MAX_SLOTS;
		for (CK_ULONG i = 0; i < nslots && rv == CKR_OK; i++)
			rv = open_slot(slots[i], req);
		if (rv == CKR_OK)
			for (size_t i = 0; i < S.nsess; i++)
				p11_list_keys(&S.list, S.sess[i]);
	}
	if (rv != CKR_OK) {
		close_all();
		rep.status = (uint32_t)rv;
	} else {
		S.logged_in = 1;
		keys_reply(&rep);
		log_info("%zu token(s), %zu key(s)", S.nsess, S.list.n);
	}
	p11_keys_encode(w, &rep);
	return 0;
}

static int
do_sign(const struct p11_req *req, struct wb *w)
{
	p11_sign(&S.list, req, w);
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

/* A broken channel ends the helper as a closed one does: the module
 * finalised, the request and its PIN wiped (ipc/sibling.h). */
static void
end_module(void)
{
	wipe(S.sec, sizeof(*S.sec));
	close_all();
	S.f->C_Finalize(NULL);
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
		if (n < 0)
			peer_broke("keyward-broker", "its channel cannot be read: %m");
		rd_init(&rd, S.sec->rbuf, (size_t)n);
		if (p11_req_decode(&rd, &req) != 0)
			/* not what policy's encoder writes: a broken peer */
			peer_broke("keyward-broker", "a malformed request (%zd bytes)",
			    n);
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
	start_helper("keyward-pkcs11", args.debug, 0);
	if (args.provider == NULL || !token_provider_ok(args.provider)) {
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
	p11_find_stores(&S.st);
	load_module();
	/* Before the first request, so no PIN and no data to sign ever
	 * reaches this process unsandboxed (doc/threat-model.md). */
	confine();
	peer_at_end(end_module);
	rc = serve();
	close_all();
	S.f->C_Finalize(NULL);
	return rc;
}
