/*
 * test_proto.c - the monitor's request parser and reply writer
 * (monitor/proto.c) against doc/protocol.md §3, §5 and §6.1: each client request
 * becomes the IPC message policy expects, or an immediate FAILURE.
 */
#include "ipc/limits.h"
#include "ipc/log.h"
#include "wire/keyholder.h"
#include "wire/monitor.h"
#include "monitor/proto.h"
#include "tests/unit/tap.h"
#include "tests/unit/testkeys.h"
#include "tests/unit/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REQ_ID 0x00c0ffee
#define CONN_ID 0x00000077

enum { ED, ED2, P256, P384, P521, KRSA, NKEYS };
static struct testkey K[NKEYS];

enum rq {
	RQ_BARE, RQ_BARE_TRAILING, RQ_SIGN, RQ_SIGN_TRAILING, RQ_SIGN_NO_FLAGS,
	RQ_ADD, RQ_ADD_CERT, RQ_ADD_BAD_KEY, RQ_ADD_DSA, RQ_ADD_NO_COMMENT,
	RQ_ADD_COMMENT_NUL, RQ_ADD_COMMENT_TRAILING_NUL, RQ_REMOVE,
	RQ_REMOVE_TRAILING, RQ_REMOVE_NONE, RQ_PASS, RQ_PASS_NUL,
	RQ_PASS_TRAILING_NUL, RQ_PASS_NONE, RQ_PASS_TRAILING, RQ_EXT,
	RQ_EXT_TRAILING, RQ_EXT_NAME_NUL, RQ_EXT_NONE, RQ_BIND, RQ_BIND_TRAILING,
	RQ_BIND_TRUNC, RQ_SMARTCARD, RQ_SMARTCARD_CERTS, RQ_POLICY, RQ_POLICY_TRAILING,
	RQ_POLICY_NOTEXT, RQ_POLICY_NOSUB,
};

/* The associated-certs lists of RQ_SMARTCARD_CERTS (its arg). */
enum ac {
	AC_ONE, AC_ONLY_TWO, AC_ONLY_SEVEN, AC_EMPTY, AC_PLAIN, AC_MAX, AC_OVER,
	AC_TWICE, AC_BLOB_TRUNC, AC_GARBAGE, AC_CERT_TRAILING, AC_NO_FLAG,
	AC_LIST_TRUNC,
};

#define XL 1    /* lifetime */
#define XC 2    /* confirm */
#define XD 4    /* restrict-destination */
#define XP 8    /* sk-provider (policy judges it) */

enum cs {
	CS_NONE, CS_LIFE, CS_CONFIRM, CS_LIFE_CONFIRM, CS_CONFIRM_LIFE,
	CS_LIFE_TWICE, CS_CONFIRM_TWICE, CS_TYPE, CS_LIFE_TRUNC, CS_EXT,
	CS_EXT_NAME_TRUNC, CS_DEST, CS_DEST_TWICE, CS_DEST_EMPTY, CS_DEST_LIFE_CONFIRM,
};

static const struct prow {
	const char *name;
	enum rq rq;
	uint8_t type;
	int key;
	enum cs cs;
	uint32_t arg;
	const char *s;
	int want;               /* MSG_* forwarded, 0: FAILURE at once */
	int expc;               /* MSG_ADD: constraints policy gets (lifetime = arg) */
} rows[] = {
	/* doc/protocol.md §5.2 list */
	{ "11 request identities: forwarded as MSG_LIST", RQ_BARE, 11, 0, 0, 0, NULL, MSG_LIST, 0 },
	{ "11 with trailing bytes: FAILURE", RQ_BARE_TRAILING, 11, 0, 0, 0, NULL, 0, 0 },
	/* doc/protocol.md §5.3 sign */
	{ "13 sign, flags 0: forwarded as MSG_SIGN", RQ_SIGN, 13, ED, 0, 0, NULL, MSG_SIGN, 0 },
	{ "13 sign, flags 0x02|0x04 passed on as sent", RQ_SIGN, 13, KRSA, 0, 6, NULL, MSG_SIGN, 0 },
	{ "13 sign, unknown flag bits passed on", RQ_SIGN, 13, P256, 0, 0xfffffff8, NULL,
	  MSG_SIGN, 0 },
	{ "13 sign with trailing bytes: FAILURE", RQ_SIGN_TRAILING, 13, ED, 0, 0, NULL, 0, 0 },
	{ "13 sign without flags: FAILURE", RQ_SIGN_NO_FLAGS, 13, ED, 0, 0, NULL, 0, 0 },
	/* doc/protocol.md §5.4 add, doc/protocol.md §4.4 encodings */
	{ "17 add ssh-ed25519: forwarded as MSG_ADD", RQ_ADD, 17, ED, CS_NONE, 0, NULL, MSG_ADD, 0 },
	{ "17 add ecdsa-sha2-nistp256", RQ_ADD, 17, P256, CS_NONE, 0, NULL, MSG_ADD, 0 },
	{ "17 add ecdsa-sha2-nistp384", RQ_ADD, 17, P384, CS_NONE, 0, NULL, MSG_ADD, 0 },
	{ "17 add ecdsa-sha2-nistp521", RQ_ADD, 17, P521, CS_NONE, 0, NULL, MSG_ADD, 0 },
	{ "17 add ssh-rsa", RQ_ADD, 17, KRSA, CS_NONE, 0, NULL, MSG_ADD, 0 },
	{ "17 add ssh-ed25519-cert-v01@openssh.com", RQ_ADD_CERT, 17, ED, CS_NONE, 0, NULL,
	  MSG_ADD, 0 },
	{ "17 add ecdsa-sha2-nistp384-cert-v01@openssh.com", RQ_ADD_CERT, 17, P384, CS_NONE, 0,
	  NULL, MSG_ADD, 0 },
	{ "17 add ssh-rsa-cert-v01@openssh.com", RQ_ADD_CERT, 17, KRSA, CS_NONE, 0, NULL,
	  MSG_ADD, 0 },
	{ "17 add with a 31-byte Ed25519 key: FAILURE", RQ_ADD_BAD_KEY, 17, ED, CS_NONE, 0,
	  NULL, 0, 0 },
	{ "17 add ssh-dss: FAILURE", RQ_ADD_DSA, 17, ED, CS_NONE, 0, NULL, 0, 0 },
	{ "17 add without a comment: FAILURE", RQ_ADD_NO_COMMENT, 17, ED, CS_NONE, 0, NULL, 0, 0 },
	{ "17 add, comment with NUL inside: FAILURE", RQ_ADD_COMMENT_NUL, 17, ED, CS_NONE, 0,
	  NULL, 0, 0 },
	{ "17 add, comment with one trailing NUL: forwarded", RQ_ADD_COMMENT_TRAILING_NUL, 17,
	  ED, CS_NONE, 0, NULL, MSG_ADD, 0 },
	/* doc/protocol.md §6.1 constraints; 17 and 25 are treated identically */
	{ "25 add, lifetime 3600", RQ_ADD, 25, ED, CS_LIFE, 3600, NULL, MSG_ADD, XL },
	{ "25 add, lifetime 0 (expire now)", RQ_ADD, 25, ED, CS_LIFE, 0, NULL, MSG_ADD, XL },
	{ "25 add, lifetime 0xffffffff", RQ_ADD, 25, ED, CS_LIFE, 0xffffffff, NULL, MSG_ADD,
	  XL },
	{ "25 add, confirm", RQ_ADD, 25, P256, CS_CONFIRM, 0, NULL, MSG_ADD, XC },
	{ "25 add, lifetime then confirm", RQ_ADD, 25, KRSA, CS_LIFE_CONFIRM, 60, NULL, MSG_ADD,
	  XL | XC },
	{ "25 add, confirm then lifetime", RQ_ADD, 25, ED, CS_CONFIRM_LIFE, 60, NULL, MSG_ADD,
	  XL | XC },
	{ "17 add with a lifetime constraint: parsed the same", RQ_ADD, 17, ED, CS_LIFE, 90,
	  NULL, MSG_ADD, XL },
	{ "25 add without constraints: forwarded", RQ_ADD, 25, ED, CS_NONE, 0, NULL, MSG_ADD, 0 },
	{ "25 add, certificate with lifetime and confirm", RQ_ADD_CERT, 25, P256,
	  CS_LIFE_CONFIRM, 300, NULL, MSG_ADD, XL | XC },
	{ "25 add, duplicate lifetime: FAILURE", RQ_ADD, 25, ED, CS_LIFE_TWICE, 60, NULL, 0, 0 },
	{ "25 add, duplicate confirm: FAILURE", RQ_ADD, 25, ED, CS_CONFIRM_TWICE, 0, NULL, 0, 0 },
	{ "25 add, unknown constraint type 0: FAILURE", RQ_ADD, 25, ED, CS_TYPE, 0, NULL, 0, 0 },
	{ "25 add, max-signatures (3, historic): FAILURE", RQ_ADD, 25, ED, CS_TYPE, 3, NULL, 0, 0 },
	{ "25 add, unknown constraint type 4: FAILURE", RQ_ADD, 25, ED, CS_TYPE, 4, NULL, 0, 0 },
	{ "25 add, unknown constraint type 254: FAILURE", RQ_ADD, 25, ED, CS_TYPE, 254, NULL, 0, 0 },
	{ "25 add, lifetime cut to 3 bytes: FAILURE", RQ_ADD, 25, ED, CS_LIFE_TRUNC, 0, NULL, 0, 0 },
	{ "25 add, 255 sk-provider@openssh.com: forwarded, for policy to judge (doc/protocol.md §6.5)",
	  RQ_ADD, 25, ED, CS_EXT, 0, "sk-provider@openssh.com", MSG_ADD, XP },
	{ "25 add, 255 associated-certs-v00@openssh.com: FAILURE", RQ_ADD, 25, ED, CS_EXT, 0,
	  "associated-certs-v00@openssh.com", 0, 0 },
	{ "25 add, 255 unknown extension: FAILURE", RQ_ADD, 25, ED, CS_EXT, 0,
	  "perseus@argos.example", 0, 0 },
	{ "25 add, 255 with a truncated name: FAILURE", RQ_ADD, 25, ED, CS_EXT_NAME_TRUNC, 0,
	  NULL, 0, 0 },
	{ "25 add, 255 restrict-destination (one hop): forwarded with it", RQ_ADD, 25, ED,
	  CS_DEST, 0, NULL, MSG_ADD, XD },
	{ "25 add, restrict-destination, lifetime, confirm", RQ_ADD, 25, KRSA,
	  CS_DEST_LIFE_CONFIRM, 120, NULL, MSG_ADD, XL | XC | XD },
	{ "25 add, duplicate restrict-destination: FAILURE", RQ_ADD, 25, ED, CS_DEST_TWICE, 0,
	  NULL, 0, 0 },
	{ "25 add, empty restrict-destination list: FAILURE", RQ_ADD, 25, ED, CS_DEST_EMPTY, 0,
	  NULL, 0, 0 },
	/* doc/protocol.md §5.5, §5.6 remove */
	{ "18 remove identity: forwarded as MSG_REMOVE", RQ_REMOVE, 18, ED, 0, 0, NULL,
	  MSG_REMOVE, 0 },
	{ "18 remove with trailing bytes: FAILURE", RQ_REMOVE_TRAILING, 18, ED, 0, 0, NULL, 0, 0 },
	{ "18 remove without a key blob: FAILURE", RQ_REMOVE_NONE, 18, ED, 0, 0, NULL, 0, 0 },
	{ "19 remove all: forwarded as MSG_REMOVE_ALL", RQ_BARE, 19, 0, 0, 0, NULL,
	  MSG_REMOVE_ALL, 0 },
	{ "9 remove all RSA (legacy): forwarded as MSG_REMOVE_ALL", RQ_BARE, 9, 0, 0, 0, NULL,
	  MSG_REMOVE_ALL, 0 },
	/* doc/protocol.md §5.7 smartcards: forwarded for policy to judge (-P, remote) */
	{ "20 add smartcard key: forwarded as MSG_P11_ADD", RQ_SMARTCARD, 20, 0, 0, 0,
	  NULL, MSG_P11_ADD, 0 },
	{ "21 remove smartcard key: forwarded as MSG_P11_REMOVE", RQ_SMARTCARD, 21, 0,
	  0, 0, NULL, MSG_P11_REMOVE, 0 },
	{ "26 add smartcard key constrained: forwarded with its lifetime", RQ_SMARTCARD,
	  26, 0, 0, 60, NULL, MSG_P11_ADD, XL },
	{ "20 add smartcard key, a byte after the pin: FAILURE", RQ_SMARTCARD, 20, 0, 0,
	  1, NULL, 0, 0 },
	{ "21 remove smartcard key, a byte after the pin: FAILURE", RQ_SMARTCARD, 21, 0,
	  0, 1, NULL, 0, 0 },
	{ "26 add smartcard key, constraint type 0: FAILURE", RQ_SMARTCARD, 26, 0, 0, 1,
	  NULL, 0, 0 },
	/* doc/protocol.md §6.7 associated-certs on a PKCS#11 add; arg chooses the list
	 * (build_certs), expc XL: a lifetime before it */
	{ "26 associated-certs, one certificate: forwarded with it", RQ_SMARTCARD_CERTS,
	  26, ED, 0, AC_ONE, NULL, MSG_P11_ADD, 0 },
	{ "26 associated-certs, certs_only, two certificates: forwarded", RQ_SMARTCARD_CERTS,
	  26, P256, 0, AC_ONLY_TWO, NULL, MSG_P11_ADD, 0 },
	{ "26 associated-certs, certs_only byte 7: read as true, as OpenSSH",
	  RQ_SMARTCARD_CERTS, 26, ED, 0, AC_ONLY_SEVEN, NULL, MSG_P11_ADD, 0 },
	{ "26 associated-certs, lifetime first: forwarded with both", RQ_SMARTCARD_CERTS,
	  26, KRSA, 0, AC_ONE, NULL, MSG_P11_ADD, XL },
	{ "26 associated-certs, empty list: forwarded (nothing to graft)",
	  RQ_SMARTCARD_CERTS, 26, ED, 0, AC_EMPTY, NULL, MSG_P11_ADD, 0 },
	{ "26 associated-certs, a plain key in the list: forwarded (skipped later)",
	  RQ_SMARTCARD_CERTS, 26, ED, 0, AC_PLAIN, NULL, MSG_P11_ADD, 0 },
	{ "26 associated-certs, AGENT_MAX_ASSOC_CERTS blobs: forwarded",
	  RQ_SMARTCARD_CERTS, 26, ED, 0, AC_MAX, NULL, MSG_P11_ADD, 0 },
	{ "26 associated-certs, one blob more than AGENT_MAX_ASSOC_CERTS: FAILURE",
	  RQ_SMARTCARD_CERTS, 26, ED, 0, AC_OVER, NULL, 0, 0 },
	{ "26 associated-certs twice: FAILURE", RQ_SMARTCARD_CERTS, 26, ED, 0, AC_TWICE,
	  NULL, 0, 0 },
	{ "26 associated-certs, a blob cut short: FAILURE", RQ_SMARTCARD_CERTS, 26, ED, 0,
	  AC_BLOB_TRUNC, NULL, 0, 0 },
	{ "26 associated-certs, a blob that is no key: FAILURE", RQ_SMARTCARD_CERTS, 26,
	  ED, 0, AC_GARBAGE, NULL, 0, 0 },
	{ "26 associated-certs, a certificate with a byte after it: FAILURE",
	  RQ_SMARTCARD_CERTS, 26, ED, 0, AC_CERT_TRAILING, NULL, 0, 0 },
	{ "26 associated-certs, no certs_only flag: FAILURE", RQ_SMARTCARD_CERTS, 26, ED,
	  0, AC_NO_FLAG, NULL, 0, 0 },
	{ "26 associated-certs, list length past the end: FAILURE", RQ_SMARTCARD_CERTS,
	  26, ED, 0, AC_LIST_TRUNC, NULL, 0, 0 },
	{ "20 add smartcard key (unconstrained) with associated-certs: FAILURE",
	  RQ_SMARTCARD_CERTS, 20, ED, 0, AC_ONE, NULL, 0, 0 },
	/* doc/protocol.md §5.8 lock */
	{ "22 lock: forwarded as MSG_LOCK", RQ_PASS, 22, 0, 0, 0, "andromeda", MSG_LOCK, 0 },
	{ "23 unlock: forwarded as MSG_UNLOCK", RQ_PASS, 23, 0, 0, 0, "andromeda", MSG_UNLOCK, 0 },
	{ "22 lock, empty passphrase: passed to policy (which refuses it)", RQ_PASS, 22, 0, 0,
	  0, "", MSG_LOCK, 0 },
	{ "22 lock, passphrase with one trailing NUL: kept, hashed as sent (doc/protocol.md §2)", RQ_PASS_TRAILING_NUL, 22,
	  0, 0, 0, "andromeda", MSG_LOCK, 0 },
	{ "22 lock, passphrase with NUL inside: FAILURE", RQ_PASS_NUL, 22, 0, 0, 0, NULL, 0, 0 },
	{ "22 lock without a passphrase: FAILURE, agent keeps running", RQ_PASS_NONE, 22, 0, 0,
	  0, NULL, 0, 0 },
	{ "23 unlock without a passphrase: FAILURE", RQ_PASS_NONE, 23, 0, 0, 0, NULL, 0, 0 },
	{ "23 unlock with trailing bytes: FAILURE", RQ_PASS_TRAILING, 23, 0, 0, 0, "x", 0, 0 },
	/* doc/protocol.md §5.9 extensions, doc/protocol.md §7 session-bind */
	{ "27 query: forwarded as MSG_QUERY", RQ_EXT, 27, 0, 0, 0, "query", MSG_QUERY, 0 },
	{ "27 query with trailing bytes: FAILURE", RQ_EXT_TRAILING, 27, 0, 0, 0, "query", 0, 0 },
	{ "27 unknown extension: FAILURE", RQ_EXT, 27, 0, 0, 0, "perseus@argos.example", 0, 0 },
	{ "27 extension name \"Query\": FAILURE (names are exact)", RQ_EXT, 27, 0, 0, 0,
	  "Query", 0, 0 },
	{ "27 extension name with NUL inside: FAILURE", RQ_EXT_NAME_NUL, 27, 0, 0, 0, NULL, 0, 0 },
	{ "27 without an extension name: FAILURE", RQ_EXT_NONE, 27, 0, 0, 0, NULL, 0, 0 },
	{ "27 session-bind@openssh.com: forwarded as MSG_BIND", RQ_BIND, 27, ED, 0, 1, NULL,
	  MSG_BIND, 0 },
	{ "27 session-bind, not forwarding: forwarded as MSG_BIND", RQ_BIND, 27, P256, 0, 0,
	  NULL, MSG_BIND, 0 },
	{ "27 session-bind truncated: forwarded as MSG_BIND_BAD (attempted)", RQ_BIND_TRUNC, 27,
	  ED, 0, 1, NULL, MSG_BIND_BAD, 0 },
	{ "27 session-bind with trailing bytes: MSG_BIND_BAD", RQ_BIND_TRAILING, 27, ED, 0, 1,
	  NULL, MSG_BIND_BAD, 0 },
	/* keyward's own: policy@keyward.dev "load" TEXT / "show", and
	 * connections@keyward.dev (wire/agent.h); arg: the text's bytes */
	{ "27 policy show: forwarded as MSG_POLICY_SHOW", RQ_POLICY, 27, 0, 0, 0, "show",
	  MSG_POLICY_SHOW, 0 },
	{ "27 policy show with trailing bytes: FAILURE", RQ_POLICY_TRAILING, 27, 0, 0, 0,
	  "show", 0, 0 },
	{ "27 policy load, 5 bytes: forwarded as MSG_POLICY_LOAD", RQ_POLICY, 27, 0, 0, 5,
	  "load", MSG_POLICY_LOAD, 0 },
	{ "27 policy load, empty text: forwarded (no rules)", RQ_POLICY, 27, 0, 0, 0,
	  "load", MSG_POLICY_LOAD, 0 },
	{ "27 policy load, RULES_MAX_FILE bytes: forwarded", RQ_POLICY, 27, 0, 0,
	  RULES_MAX_FILE, "load", MSG_POLICY_LOAD, 0 },
	{ "27 policy load, RULES_MAX_FILE + 1 bytes: FAILURE at the edge", RQ_POLICY, 27, 0,
	  0, RULES_MAX_FILE + 1, "load", 0, 0 },
	{ "27 policy load with trailing bytes: FAILURE", RQ_POLICY_TRAILING, 27, 0, 0, 5,
	  "load", 0, 0 },
	{ "27 policy load without its text: FAILURE", RQ_POLICY_NOTEXT, 27, 0, 0, 0, "load",
	  0, 0 },
	{ "27 policy \"Load\" (sub-commands are exact): FAILURE", RQ_POLICY, 27, 0, 0, 5,
	  "Load", 0, 0 },
	{ "27 policy \"list\" (no such sub-command): FAILURE", RQ_POLICY, 27, 0, 0, 0,
	  "list", 0, 0 },
	{ "27 policy without a sub-command: FAILURE", RQ_POLICY_NOSUB, 27, 0, 0, 0, NULL,
	  0, 0 },
	{ "27 connections@keyward.dev: forwarded as MSG_CONNS", RQ_EXT, 27, 0, 0, 0,
	  "connections@keyward.dev", MSG_CONNS, 0 },
	{ "27 connections with trailing bytes: FAILURE", RQ_EXT_TRAILING, 27, 0, 0, 0,
	  "connections@keyward.dev", 0, 0 },
	{ "27 session@keyward.dev: forwarded as MSG_SESSION_STATE", RQ_EXT, 27, 0, 0, 0,
	  "session@keyward.dev", MSG_SESSION_STATE, 0 },
	{ "27 session with trailing bytes: FAILURE", RQ_EXT_TRAILING, 27, 0, 0, 0,
	  "session@keyward.dev", 0, 0 },
	{ "27 constraints@keyward.dev: forwarded as MSG_CONSTRAINTS", RQ_EXT, 27, 0, 0, 0,
	  "constraints@keyward.dev", MSG_CONSTRAINTS, 0 },
	/* doc/protocol.md §5.10 unknown and legacy types */
	{ "0 (no such type): FAILURE", RQ_BARE, 0, 0, 0, 0, NULL, 0, 0 },
	{ "1 request RSA identities (SSH-1): FAILURE", RQ_BARE, 1, 0, 0, 0, NULL, 0, 0 },
	{ "2 RSA identities answer: FAILURE", RQ_BARE, 2, 0, 0, 0, NULL, 0, 0 },
	{ "3 RSA challenge: FAILURE", RQ_BARE_TRAILING, 3, 0, 0, 0, NULL, 0, 0 },
	{ "4 RSA response: FAILURE", RQ_BARE, 4, 0, 0, 0, NULL, 0, 0 },
	{ "5 failure sent to the agent: FAILURE", RQ_BARE, 5, 0, 0, 0, NULL, 0, 0 },
	{ "6 success sent to the agent: FAILURE", RQ_BARE, 6, 0, 0, 0, NULL, 0, 0 },
	{ "7 add RSA identity (SSH-1): FAILURE", RQ_BARE_TRAILING, 7, 0, 0, 0, NULL, 0, 0 },
	{ "8 remove RSA identity (SSH-1): FAILURE", RQ_BARE, 8, 0, 0, 0, NULL, 0, 0 },
	{ "10: FAILURE", RQ_BARE, 10, 0, 0, 0, NULL, 0, 0 },
	{ "12 identities answer: FAILURE", RQ_BARE, 12, 0, 0, 0, NULL, 0, 0 },
	{ "14 sign response: FAILURE", RQ_BARE, 14, 0, 0, 0, NULL, 0, 0 },
	{ "15: FAILURE", RQ_BARE, 15, 0, 0, 0, NULL, 0, 0 },
	{ "16: FAILURE", RQ_BARE, 16, 0, 0, 0, NULL, 0, 0 },
	{ "24 add RSA identity constrained (SSH-1): FAILURE", RQ_BARE_TRAILING, 24, 0, 0, 0,
	  NULL, 0, 0 },
	{ "28 extension failure: FAILURE", RQ_BARE, 28, 0, 0, 0, NULL, 0, 0 },
	{ "29 extension response: FAILURE", RQ_BARE, 29, 0, 0, 0, NULL, 0, 0 },
	{ "30 SSH2 agent failure: FAILURE", RQ_BARE, 30, 0, 0, 0, NULL, 0, 0 },
	{ "102 SSH.com agent failure: FAILURE", RQ_BARE, 102, 0, 0, 0, NULL, 0, 0 },
	{ "255: FAILURE", RQ_BARE, 255, 0, 0, 0, NULL, 0, 0 },
};

/* The expected IPC payload fields, filled in by the builder. */
struct expect {
	struct msg_sign sign;
	struct msg_add add;
	struct msg_p11_add p11;
	struct slice blob;
	struct msg_bind bind;
};

static const uint8_t session_id[32] = { 0x5e, 0x55, 0x10, 0x4e };
static struct tb add_pub;       /* the public key of the row's ADD */

static void
dest_list(struct tb *t)
{
	tb_begin(t);                    /* constraint_list */
	tb_begin(t);                    /* constraint */
	tb_begin(t);                    /* from_hop: the origin */
	tb_cstring(t, "");
	tb_cstring(t, "");
	tb_cstring(t, "");
	tb_end(t);
	tb_begin(t);                    /* to_hop */
	tb_cstring(t, "");
	tb_cstring(t, "scylla");
	tb_cstring(t, "");
	tb_begin(t);
	tk_pub(t, &K[ED2]);
	tb_end(t);
	tb_u8(t, 0);
	tb_end(t);
	tb_cstring(t, "");              /* reserved */
	tb_end(t);
	tb_end(t);
}

static void
constraints(struct tb *t, const struct prow *r, struct expect *e)
{
	size_t at;

	switch (r->cs) {
	case CS_NONE:
		break;
	case CS_LIFE:
	case CS_LIFE_TWICE:
		tb_u8(t, 1);
		tb_u32(t, r->arg);
		if (r->cs == CS_LIFE_TWICE) {
			tb_u8(t, 1);
			tb_u32(t, r->arg);
		}
		break;
	case CS_CONFIRM:
		tb_u8(t, 2);
		break;
	case CS_CONFIRM_TWICE:
		tb_u8(t, 2);
		tb_u8(t, 2);
		break;
	case CS_LIFE_CONFIRM:
		tb_u8(t, 1);
		tb_u32(t, r->arg);
		tb_u8(t, 2);
		break;
	case CS_CONFIRM_LIFE:
		tb_u8(t, 2);
		tb_u8(t, 1);
		tb_u32(t, r->arg);
		break;
	case CS_TYPE:
		tb_u8(t, (uint8_t)r->arg);
		break;
	case CS_LIFE_TRUNC:
		tb_u8(t, 1);
		tb_raw(t, "\0\0\x0e", 3);
		break;
	case CS_EXT:
		tb_u8(t, 255);
		tb_cstring(t, r->s);
		at = t->w.len;
		tb_cstring(t, "internal");
		if (r->expc & XP) {
			e->add.c.has_provider = 1;
			e->add.c.provider = sl((const void *)(uintptr_t)(at + 4), 8);
		}
		break;
	case CS_EXT_NAME_TRUNC:
		tb_u8(t, 255);
		tb_raw(t, "\0\0\0\x20sk-provider", 15);
		break;
	case CS_DEST:
	case CS_DEST_TWICE:
	case CS_DEST_LIFE_CONFIRM:
		if (r->cs == CS_DEST_LIFE_CONFIRM) {
			tb_u8(t, 1);
			tb_u32(t, r->arg);
			tb_u8(t, 2);
		}
		tb_u8(t, 255);
		tb_cstring(t, "restrict-destination-v00@openssh.com");
		at = t->w.len;
		dest_list(t);
		/* what policy gets: the constraint_list contents */
		e->add.c.dest.len = t->w.len - at - 4;
		e->add.c.dest.p = (const uint8_t *)(uintptr_t)(at + 4);  /* offset, fixed later */
		if (r->cs == CS_DEST_TWICE) {
			tb_u8(t, 255);
			tb_cstring(t, "restrict-destination-v00@openssh.com");
			dest_list(t);
		}
		break;
	case CS_DEST_EMPTY:
		tb_u8(t, 255);
		tb_cstring(t, "restrict-destination-v00@openssh.com");
		tb_cstring(t, "");
		break;
	}
}

/* The associated-certs constraint of row r (doc/protocol.md §6.7):
 * byte 255, its name, bool certs_only, string{ repeat{ string blob } }. */
/* One blob of the list, as a string: a certificate (cs) or a plain key. */
static void
list_cert(struct tb *t, const struct certspec *cs)
{
	tb_begin(t);
	tk_cert(t, cs);
	tb_end(t);
}

static void
list_plain(struct tb *t, const struct testkey *k)
{
	tb_begin(t);
	tk_pub(t, k);
	tb_end(t);
}

static void
build_certs(struct tb *t, const struct prow *r, struct expect *e)
{
	struct certspec cs = { .key = &K[r->key], .ca = &K[ED2], .nprincipals = 1 };
	struct certspec cs2 = { .key = &K[ED], .ca = &K[ED2], .nprincipals = 1 };
	struct certspec trail = cs;
	struct tb one;
	size_t at, n;

	trail.trailer = (const uint8_t *)"\0";
	trail.trailerlen = 1;
	tb_u8(t, 255);
	tb_cstring(t, "associated-certs-v00@openssh.com");
	if (r->arg == AC_NO_FLAG)
		return;
	e->p11.c.has_certs = 1;
	e->p11.c.certs_only = r->arg == AC_ONLY_TWO || r->arg == AC_ONLY_SEVEN;
	tb_u8(t, r->arg == AC_ONLY_SEVEN ? 7 : (uint8_t)e->p11.c.certs_only);
	if (r->arg == AC_LIST_TRUNC) {
		tb_raw(t, "\0\0\x01\0", 4);
		list_cert(t, &cs);
		return;
	}
	at = t->w.len;
	tb_begin(t);
	switch (r->arg) {
	case AC_ONE:
	case AC_ONLY_SEVEN:
	case AC_TWICE:
		list_cert(t, &cs);
		break;
	case AC_ONLY_TWO:
		list_cert(t, &cs);
		list_cert(t, &cs2);
		break;
	case AC_EMPTY:
		break;
	case AC_PLAIN:
		list_plain(t, &K[ED]);
		list_cert(t, &cs);
		break;
	case AC_MAX:
	case AC_OVER:
		/* raw copies: more strings than a tb keeps notes of */
		n = AGENT_MAX_ASSOC_CERTS + (r->arg == AC_OVER);
		tb_init(&one);
		list_plain(&one, &K[ED]);
		for (size_t i = 0; i < n; i++)
			tb_raw(t, one.w.p, one.w.len);
		tb_free(&one);
		break;
	case AC_BLOB_TRUNC:
		list_cert(t, &cs);
		tb_raw(t, "\0\0\0\x40ssh-ed25519", 15);
		break;
	case AC_GARBAGE:
		tb_cstring(t, "perseus@argos");
		break;
	case AC_CERT_TRAILING:
		list_cert(t, &trail);
		break;
	}
	tb_end(t);
	e->p11.c.certs.len = t->w.len - at - 4;
	e->p11.c.certs.p = (const uint8_t *)(uintptr_t)(at + 4);
	if (r->arg == AC_TWICE) {
		tb_u8(t, 255);
		tb_cstring(t, "associated-certs-v00@openssh.com");
		tb_u8(t, 0);
		tb_begin(t);
		list_cert(t, &cs);
		tb_end(t);
	}
}

/* Build request r into t (type byte first); fill e with what policy must
 * receive. Slices in e are offsets into t until fixed by fix_expect. */
static void
build(struct tb *t, const struct prow *r, struct expect *e)
{
	const struct testkey *k = &K[r->key];
	struct certspec cs = { .key = k, .ca = &K[ED2], .nprincipals = 1 };
	struct tb blob;
	size_t at, start;
	uint8_t b[40];

	memset(e, 0, sizeof(*e));
	tb_init(&blob);
	tb_u8(t, r->type);
	switch (r->rq) {
	case RQ_BARE:
		break;
	case RQ_BARE_TRAILING:
		tb_u8(t, 0);
		break;
	case RQ_SIGN:
	case RQ_SIGN_TRAILING:
	case RQ_SIGN_NO_FLAGS:
		/* the monitor does not parse the key blob: policy does */
		tk_pub(&blob, k);
		at = t->w.len + 4;
		tb_string(t, blob.w.p, blob.w.len);
		e->sign.key = sl((const void *)(uintptr_t)at, blob.w.len);
		at = t->w.len + 4;
		tb_cstring(t, "data to sign");
		e->sign.data = sl((const void *)(uintptr_t)at, 12);
		e->sign.flags = r->arg;
		if (r->rq != RQ_SIGN_NO_FLAGS)
			tb_u32(t, r->arg);
		if (r->rq == RQ_SIGN_TRAILING)
			tb_u8(t, 0);
		break;
	case RQ_ADD:
	case RQ_ADD_CERT:
	case RQ_ADD_BAD_KEY:
	case RQ_ADD_DSA:
	case RQ_ADD_NO_COMMENT:
	case RQ_ADD_COMMENT_NUL:
	case RQ_ADD_COMMENT_TRAILING_NUL:
		start = t->w.len;
		/* what the monitor reads in the key and sends beside it */
		tb_free(&add_pub);
		tb_init(&add_pub);
		if (r->rq == RQ_ADD_CERT)
			tk_cert(&add_pub, &cs);
		else
			tk_pub(&add_pub, k);
		e->add.pub = tb_slice(&add_pub);
		if (r->rq == RQ_ADD_CERT) {
			tk_priv_cert(t, &cs);
		} else if (r->rq == RQ_ADD_BAD_KEY) {
			memset(b, 0x42, sizeof(b));
			tb_cstring(t, "ssh-ed25519");
			tb_string(t, b, 31);
			tb_string(t, b, 40);
		} else if (r->rq == RQ_ADD_DSA) {
			tb_cstring(t, "ssh-dss");
			tb_mpint(t, (const uint8_t *)"\x01", 1);
		} else {
			tk_priv(t, k);
		}
		e->add.key = sl((const void *)(uintptr_t)start, t->w.len - start);
		at = t->w.len + 4;
		if (r->rq == RQ_ADD_COMMENT_NUL)
			tb_string(t, "pers\0eus", 8);
		else if (r->rq == RQ_ADD_COMMENT_TRAILING_NUL)
			tb_string(t, "perseus@argos", 14);
		else if (r->rq != RQ_ADD_NO_COMMENT)
			tb_cstring(t, "perseus@argos");
		e->add.comment = sl((const void *)(uintptr_t)at, 13);
		e->add.c.has_lifetime = (r->expc & XL) != 0;
		e->add.c.lifetime = r->expc & XL ? r->arg : 0;
		e->add.c.confirm = (r->expc & XC) != 0;
		e->add.c.has_dest = (r->expc & XD) != 0;
		constraints(t, r, e);
		break;
	case RQ_REMOVE:
	case RQ_REMOVE_TRAILING:
		tk_pub(&blob, k);
		at = t->w.len + 4;
		tb_string(t, blob.w.p, blob.w.len);
		e->blob = sl((const void *)(uintptr_t)at, blob.w.len);
		if (r->rq == RQ_REMOVE_TRAILING)
			tb_u8(t, 0);
		break;
	case RQ_REMOVE_NONE:
	case RQ_PASS_NONE:
	case RQ_EXT_NONE:
		break;
	case RQ_PASS:
	case RQ_PASS_TRAILING:
	case RQ_PASS_TRAILING_NUL:
		at = t->w.len + 4;
		if (r->rq == RQ_PASS_TRAILING_NUL)
			tb_string(t, r->s, strlen(r->s) + 1);
		else
			tb_cstring(t, r->s);
		e->blob = sl((const void *)(uintptr_t)at, strlen(r->s) +
		    (r->rq == RQ_PASS_TRAILING_NUL));
		if (r->rq == RQ_PASS_TRAILING)
			tb_u8(t, 0);
		break;
	case RQ_PASS_NUL:
		tb_string(t, "andro\0meda", 10);
		break;
	case RQ_EXT:
	case RQ_EXT_TRAILING:
		tb_cstring(t, r->s);
		if (r->rq == RQ_EXT_TRAILING)
			tb_u8(t, 0);
		break;
	case RQ_EXT_NAME_NUL:
		tb_string(t, "query\0", 7);
		break;
	case RQ_POLICY:
	case RQ_POLICY_TRAILING:
	case RQ_POLICY_NOTEXT:
	case RQ_POLICY_NOSUB:
		tb_cstring(t, "policy@keyward.dev");
		if (r->rq == RQ_POLICY_NOSUB)
			break;
		tb_cstring(t, r->s);
		if (strcmp(r->s, "load") == 0 && r->rq != RQ_POLICY_NOTEXT) {
			uint8_t *text = malloc(r->arg + 1);

			if (text == NULL)
				abort();
			memset(text, 'a', r->arg);
			at = t->w.len + 4;
			tb_string(t, text, r->arg);
			e->blob = sl((const void *)(uintptr_t)at, r->arg);
			free(text);
		}
		if (r->rq == RQ_POLICY_TRAILING)
			tb_u8(t, 0);
		break;
	case RQ_BIND:
	case RQ_BIND_TRAILING:
	case RQ_BIND_TRUNC:
		tb_cstring(t, "session-bind@openssh.com");
		tk_pub(&blob, k);
		at = t->w.len + 4;
		tb_string(t, blob.w.p, blob.w.len);
		e->bind.hostkey = sl((const void *)(uintptr_t)at, blob.w.len);
		at = t->w.len + 4;
		tb_string(t, session_id, sizeof(session_id));
		e->bind.session_id = sl((const void *)(uintptr_t)at, sizeof(session_id));
		at = t->w.len + 4;
		tb_cstring(t, "signature by the host key");
		e->bind.signature = sl((const void *)(uintptr_t)at, 25);
		e->bind.forwarding = r->arg != 0;
		if (r->rq != RQ_BIND_TRUNC)
			tb_u8(t, (uint8_t)r->arg);
		if (r->rq == RQ_BIND_TRAILING)
			tb_u8(t, 0);
		break;
	case RQ_SMARTCARD:
		at = t->w.len + 4;
		tb_cstring(t, "/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so");
		e->p11.provider = sl((const void *)(uintptr_t)at, 42);
		e->blob = e->p11.provider;
		at = t->w.len + 4;
		tb_cstring(t, "123456");
		e->p11.pin = sl((const void *)(uintptr_t)at, 6);
		if (r->type == 26 && r->arg == 60) {
			tb_u8(t, 1);
			tb_u32(t, 60);
			e->p11.c.has_lifetime = 1;
			e->p11.c.lifetime = 60;
		} else if (r->arg == 1)
			tb_u8(t, 0);            /* a byte too many, or type 0 */
		break;
	case RQ_SMARTCARD_CERTS:
		at = t->w.len + 4;
		tb_cstring(t, "/usr/lib/softhsm/libsofthsm2.so");
		e->p11.provider = sl((const void *)(uintptr_t)at, 31);
		at = t->w.len + 4;
		tb_cstring(t, "123456");
		e->p11.pin = sl((const void *)(uintptr_t)at, 6);
		if (r->expc & XL) {
			tb_u8(t, 1);
			tb_u32(t, 3600);
			e->p11.c.has_lifetime = 1;
			e->p11.c.lifetime = 3600;
		}
		build_certs(t, r, e);
		break;
	}
	tb_free(&blob);
}

static void
fix_slice(struct slice *s, const uint8_t *base)
{
	if (s->len > 0 || s->p != NULL)
		s->p = base + (uintptr_t)s->p;
}

static void
fix_expect(struct expect *e, const uint8_t *base)
{
	fix_slice(&e->sign.key, base);
	fix_slice(&e->sign.data, base);
	fix_slice(&e->add.key, base);
	fix_slice(&e->add.comment, base);
	fix_slice(&e->add.c.dest, base);
	fix_slice(&e->add.c.provider, base);
	fix_slice(&e->p11.provider, base);
	fix_slice(&e->p11.pin, base);
	fix_slice(&e->p11.c.certs, base);
	fix_slice(&e->blob, base);
	fix_slice(&e->bind.hostkey, base);
	fix_slice(&e->bind.session_id, base);
	fix_slice(&e->bind.signature, base);
}

/* The IPC message policy must receive for row r. */
static void
expected_ipc(struct wb *w, const struct prow *r, const struct expect *e)
{
	msg_begin(w, (uint8_t)r->want, REQ_ID, CONN_ID);
	switch (r->want) {
	case MSG_SIGN:
		msg_sign_encode(w, &e->sign);
		break;
	case MSG_ADD:
		msg_add_encode(w, &e->add);
		break;
	case MSG_P11_ADD:
		msg_p11_add_encode(w, &e->p11);
		break;
	case MSG_REMOVE:
	case MSG_P11_REMOVE:
	case MSG_POLICY_LOAD:
	case MSG_LOCK:
	case MSG_UNLOCK:
		wb_slice(w, e->blob);
		break;
	case MSG_BIND:
		msg_bind_encode(w, &e->bind);
		break;
	default:
		break;
	}
}

/* proto_request on an exact-size copy: 1 forwarded, 0 refused; the reply
 * and IPC message are left in ipc and reply. */
static int
request(const uint8_t *p, size_t n, struct wb *ipc, struct wb *reply)
{
	uint8_t *c = malloc(n);
	int rc;

	memcpy(c, p, n);
	rc = proto_request(c, n, REQ_ID, CONN_ID, ipc, reply);
	/* the IPC message must not point into the client's buffer */
	free(c);
	return rc;
}

static void
test_requests(void)
{
	struct wb ipc, reply, want;

	wb_init(&ipc);
	wb_init(&reply);
	wb_init(&want);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct prow *r = &rows[i];
		struct tb t;
		struct expect e;
		int rc, good;

		tb_init(&t);
		build(&t, r, &e);
		fix_expect(&e, t.w.p);
		wb_reset(&ipc);
		wb_cstring(&ipc, "left over from an earlier request");
		wb_cstring(&reply, "left over");
		rc = request(t.w.p, t.w.len, &ipc, &reply);
		if (r->want == 0) {
			good = rc == 0 && reply.len == 1 && reply.p[0] == SSH_AGENT_FAILURE;
		} else {
			expected_ipc(&want, r, &e);
			good = rc == 1 && reply.len == 0 && !ipc.err &&
			    bytes_eq(wb_slice_of(&ipc), want.p, want.len);
		}
		ok(good, "%s", r->name);
		if (!good)
			printf("#   rc %d, reply %zu bytes [%d], ipc %zu bytes type %d\n", rc,
			    reply.len, reply.len ? reply.p[0] : -1, ipc.len,
			    ipc.len ? ipc.p[0] : -1);
		tb_free(&t);
	}
	wb_free(&ipc);
	wb_free(&reply);
	wb_free(&want);
}

/* --------------------------------------- truncation and oversized input */

static int
forwards_as(const uint8_t *p, size_t n, void *arg)
{
	struct wb ipc, reply;
	int rc, type = *(const int *)arg;

	if (n == 0)
		return -1;      /* a zero-length frame never reaches the parser (doc/protocol.md §1.3) */
	wb_init(&ipc);
	wb_init(&reply);
	rc = proto_request(p, n, REQ_ID, CONN_ID, &ipc, &reply);
	rc = rc == 1 && ipc.len > 0 && ipc.p[0] == type ? 0 : -1;
	wb_free(&ipc);
	wb_free(&reply);
	return rc;
}

static void
test_truncation(void)
{
	/* rows of the table above, by name */
	static const char *const checks[] = {
		"13 sign, flags 0: forwarded as MSG_SIGN",
		"13 sign, flags 0x02|0x04 passed on as sent",
		"17 add ssh-ed25519: forwarded as MSG_ADD",
		"17 add ecdsa-sha2-nistp521",
		"17 add ssh-rsa",
		"17 add ssh-ed25519-cert-v01@openssh.com",
		"17 add ssh-rsa-cert-v01@openssh.com",
		"25 add, 255 restrict-destination (one hop): forwarded with it",
		"18 remove identity: forwarded as MSG_REMOVE",
		"22 lock: forwarded as MSG_LOCK",
		"23 unlock: forwarded as MSG_UNLOCK",
		"27 query: forwarded as MSG_QUERY",
		"27 session-bind@openssh.com: forwarded as MSG_BIND",
	};

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const struct prow *r = NULL;
		struct tb t;
		struct expect e;

		for (size_t j = 0; j < sizeof(rows) / sizeof(rows[0]); j++)
			if (strcmp(rows[j].name, checks[i]) == 0)
				r = &rows[j];
		if (r == NULL || r->want == 0) {
			ok(0, "%s: no such valid row", checks[i]);
			continue;
		}
		tb_init(&t);
		build(&t, r, &e);
		/* with constraints, a prefix ending after the comment is a valid
		 * ADD of its own: test_add_prefixes covers those */
		wire_check(checks[i], &t, forwards_as, (void *)&r->want,
		    r->cs == CS_NONE ? WIRE_ALL : WIRE_ALL & ~WIRE_PREFIXES);
		tb_free(&t);
	}
}

/* ADD with constraints: a prefix that ends exactly after the comment or
 * after a whole constraint is a shorter valid ADD; every other prefix is
 * refused. */
static void
test_add_prefixes(void)
{
	const struct prow r = { "", RQ_ADD, 25, ED, CS_LIFE_CONFIRM, 60, NULL, MSG_ADD, XL | XC };
	struct tb t;
	struct expect e;
	size_t full, comment_end, bad = 0, nvalid = 0;
	int type = MSG_ADD;

	tb_init(&t);
	build(&t, &r, &e);
	full = t.w.len;
	comment_end = full - 6;
	for (size_t n = 1; n < full; n++) {
		int valid = n == comment_end || n == comment_end + 5;
		int got = run_decoder(forwards_as, t.w.p, n, &type) == 0;
		nvalid += got;
		if (got != valid && bad == 0)
			bad = n;
	}
	ok(bad == 0 && nvalid == 2, "25 add with lifetime and confirm: of %zu prefixes only "
	    "the 2 at constraint boundaries are valid", full - 1);
	if (bad)
		printf("#   prefix of %zu bytes misjudged\n", bad);
	tb_free(&t);
}

/* ------------------------------------------------------------- replies */

#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

static const struct {
	const char *name;
	uint8_t type;
	const uint8_t *in; size_t inlen;
	int rc;
	const uint8_t *out; size_t outlen;
} replies[] = {
	{ "status ok: SSH_AGENT_SUCCESS (6)", MSG_R_STATUS, B(0), 0, B(6) },
	{ "status failure: SSH_AGENT_FAILURE (5)", MSG_R_STATUS, B(1), 0, B(5) },
	{ "status extension failure: SSH_AGENT_EXTENSION_FAILURE (28)", MSG_R_STATUS, B(2), 0,
	  B(28) },
	{ "status 3: malformed", MSG_R_STATUS, B(3), -1, NULL, 0 },
	{ "status with trailing byte: malformed", MSG_R_STATUS, B(0, 0), -1, NULL, 0 },
	{ "signature: 14; string signature", MSG_R_SIGNATURE, B(0, 0, 0, 2, 's', 'g'), 0,
	  B(14, 0, 0, 0, 2, 's', 'g') },
	{ "signature truncated: malformed", MSG_R_SIGNATURE, B(0, 0, 0, 3, 's', 'g'), -1,
	  NULL, 0 },
	{ "identities: 12; uint32 nkeys; entries", MSG_R_IDENTITIES,
	  B(0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c'), 0,
	  B(12, 0, 0, 0, 1, 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c') },
	{ "identities while locked: 12; nkeys 0", MSG_R_IDENTITIES,
	  B(0, 0, 0, 0, 0, 0, 0, 0), 0, B(12, 0, 0, 0, 0) },
	{ "identities, count does not match: malformed", MSG_R_IDENTITIES,
	  B(0, 0, 0, 2, 0, 0, 0, 10, 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'c'), -1, NULL, 0 },
	{ "query: 29; string \"query\"; one string per name, no count", MSG_R_EXTENSIONS,
	  B(0, 0, 0, 8, 0, 0, 0, 4, 'b', 'i', 'n', 'd'), 0,
	  B(29, 0, 0, 0, 5, 'q', 'u', 'e', 'r', 'y', 0, 0, 0, 4, 'b', 'i', 'n', 'd') },
	{ "query with no names", MSG_R_EXTENSIONS, B(0, 0, 0, 0), 0,
	  B(29, 0, 0, 0, 5, 'q', 'u', 'e', 'r', 'y') },
	{ "a request type (MSG_LIST) as a reply: malformed", MSG_LIST, B(0), -1, NULL, 0 },
	{ "MSG_KH_SIGN as a reply: malformed", MSG_KH_SIGN, B(0), -1, NULL, 0 },
};

static void
test_replies(void)
{
	struct wb reply;

	wb_init(&reply);
	for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		struct msg_hdr h = { replies[i].type, REQ_ID, CONN_ID };
		uint8_t *c = malloc(replies[i].inlen);
		struct rd r;
		int rc, good;

		memcpy(c, replies[i].in, replies[i].inlen);
		rd_init(&r, c, replies[i].inlen);
		rc = proto_reply(&h, &r, &reply);
		good = (rc == 0 ? 0 : -1) == replies[i].rc;
		if (good && rc == 0)
			good = bytes_eq(wb_slice_of(&reply), replies[i].out, replies[i].outlen);
		ok(good, "reply: %s", replies[i].name);
		free(c);
	}
	wb_free(&reply);
}

/* The flags the monitor's loop reads before a request is parsed. */
static void
test_flags(void)
{
	static const struct {
		uint8_t type;
		unsigned want;
		const char *name;
	} cases[] = {
		{ SSH2_AGENTC_ADD_IDENTITY, PROTO_ADD, "add (17)" },
		{ SSH2_AGENTC_ADD_ID_CONSTRAINED, PROTO_ADD, "constrained add (25)" },
		{ SSH_AGENTC_ADD_SMARTCARD_KEY, PROTO_ADD, "smartcard add (20)" },
		{ SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED, PROTO_ADD,
		  "constrained smartcard add (26)" },
		{ SSH_AGENTC_LOCK, PROTO_FENCE, "lock (22)" },
		{ SSH_AGENTC_UNLOCK, PROTO_FENCE, "unlock (23)" },
		{ SSH2_AGENTC_SIGN_REQUEST, 0, "sign (13)" },
		{ SSH2_AGENTC_REQUEST_IDENTITIES, 0, "list (11)" },
		{ SSH2_AGENTC_REMOVE_IDENTITY, 0, "remove (18)" },
		{ SSH_AGENTC_REMOVE_SMARTCARD_KEY, 0, "smartcard remove (21)" },
		{ SSH_AGENTC_EXTENSION, 0, "extension (27)" },
		{ 0, 0, "type 0 (no such request)" },
		{ 255, 0, "type 255 (no such request)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(proto_flags(cases[i].type), cases[i].want, "flags of %s",
		    cases[i].name);
}

int
main(void)
{
	log_init("test_proto", LOG_LVL_ERROR, 0);
	testkey_gen(&K[ED], KEY_ED25519, 0);
	testkey_gen(&K[ED2], KEY_ED25519, 0);
	testkey_gen(&K[P256], KEY_ECDSA_P256, 0);
	testkey_gen(&K[P384], KEY_ECDSA_P384, 0);
	testkey_gen(&K[P521], KEY_ECDSA_P521, 0);
	testkey_gen(&K[KRSA], KEY_RSA, 2048);
	test_requests();
	test_truncation();
	test_add_prefixes();
	test_replies();
	test_flags();
	for (int i = 0; i < NKEYS; i++)
		testkey_free(&K[i]);
	return done_testing();
}
