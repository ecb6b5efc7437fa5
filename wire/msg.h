/*
 * msg.h - the typed messages between monitor, policy, keyholder and
 * prompter. Each message is one SOCK_SEQPACKET datagram: a header (type,
 * request id, connection id) and a payload of SSH wire types. Every payload
 * has one encoder and one decoder here, used by both ends; decoders refuse
 * trailing bytes. Slices in decoded messages point into the datagram.
 */
#ifndef KEYWARD_MSG_H
#define KEYWARD_MSG_H

#include "ipc/buf.h"

enum msg_type {
	/* monitor -> policy */
	MSG_OPEN = 1,           /* a client connected: msg_open */
	MSG_CLOSE,              /* it went away: no payload */
	MSG_LIST,               /* no payload */
	MSG_SIGN,               /* msg_sign */
	MSG_ADD,                /* msg_add */
	MSG_REMOVE,             /* msg_blob: key blob */
	MSG_REMOVE_ALL,         /* no payload */
	MSG_LOCK,               /* msg_blob: passphrase */
	MSG_UNLOCK,             /* msg_blob: passphrase */
	MSG_QUERY,              /* no payload */
	MSG_BIND,               /* msg_bind: a session-bind that parsed */
	MSG_BIND_BAD,           /* no payload: a session-bind that did not */
	MSG_INSPECT,            /* no payload: INSPECT_EXTENSION (agent.h) */
	MSG_P11_ADD,            /* msg_p11_add: ssh-add -s (20, 26) */
	MSG_P11_REMOVE,         /* msg_blob: ssh-add -e (21), the provider */
	MSG_PEER,               /* msg_blob: who the connection's peer is, a
	                         * reply of keyward-peer (wire/peer.h) as it
	                         * came, or one the monitor made (unavailable);
	                         * sent after MSG_OPEN, before any request */
	MSG_POLICY_LOAD,        /* msg_blob: a rules file's text (keyward(5));
	                         * conn 0: -O policy= at start, else
	                         * keyward-ctl policy load */
	MSG_POLICY_SHOW,        /* no payload: the rules, canonical; answered
	                         * by MSG_R_POLICY */
	MSG_CONNS,              /* no payload: the open connections and their
	                         * callers; answered by MSG_R_CONNS */
	/* policy -> keyholder */
	MSG_KH_ADD = 32,        /* msg_kh_add */
	MSG_KH_SIGN,            /* msg_kh_sign */
	MSG_KH_DELETE,          /* msg_kh_delete */
	MSG_KH_WIPE,            /* no payload */
	MSG_KH_LOCK,            /* msg_blob: passphrase; re-seal every key under it */
	MSG_KH_UNLOCK,          /* msg_blob: passphrase */
	MSG_KH_SK_MATERIAL,     /* msg_kh_sk_material: a FIDO key's material for
	                         * one signature; refused while locked */
	/* policy -> prompter */
	MSG_PROMPT = 48,        /* msg_blob: the question */
	MSG_PROMPT_CANCEL,      /* no payload: the asker went away */
	MSG_PROMPT_SECRET,      /* msg_blob: the question; answered by a secret */
	/* policy -> auditor */
	MSG_AUDIT = 56,         /* msg_blob: one JSON line; req 0: no ack wanted */
	/* policy -> broker (policy/broker.c) */
	MSG_TK_RESOLVE = 96,    /* msg_blob: a provider path, to realpath */
	MSG_TK_SIGN,            /* msg_tk_sign: one signature by one token helper */
	MSG_TK_CANCEL,          /* no payload; req: that of the MSG_TK_SIGN */
	MSG_TK_P11_START,       /* msg_tk_sign: start a provider's keyward-pkcs11
	                         * with its LOGIN request (wire/pkcs11.h) */
	MSG_TK_P11_SIGN,        /* msg_tk_sign: a SIGN request for its helper */
	MSG_TK_P11_STOP,        /* msg_blob: the provider; req 0, no answer */
	/* replies, in any direction */
	MSG_R_STATUS = 64,      /* msg_status */
	MSG_R_SIGNATURE,        /* msg_blob: SSH signature blob */
	MSG_R_IDENTITIES,       /* msg_identities */
	MSG_R_EXTENSIONS,       /* msg_blob: repeat{ string name } */
	MSG_R_INSPECT,          /* msg_blob: the body of wire/constraints.h */
	MSG_R_SK_MATERIAL,      /* msg_sk_material: holds a key handle (secret) */
	MSG_R_SECRET,           /* msg_blob: what askpass printed (wiped) */
	MSG_R_PATH,             /* msg_blob: the resolved provider path */
	MSG_R_TOKEN,            /* msg_blob: the token helper's reply (wire/token.h) */
	MSG_R_TOKEN_FAIL,       /* msg_tk_fail: no reply from a token helper */
	MSG_R_P11_GONE,         /* msg_blob: a provider whose helper ended;
	                         * req 0, from the broker unasked */
	MSG_R_POLICY,           /* msg_blob: POLICY_EXTENSION's "show" body:
	                         * string rules_text (wire/agent.h) */
	MSG_R_CONNS,            /* msg_blob: the body of wire/conns.h */
	MSG_R_PUBKEY,           /* msg_blob: the public key the keyholder
	                         * derived from an accepted MSG_KH_ADD */
};

enum msg_status_code {
	ST_OK = 0,
	ST_FAIL = 1,            /* SSH_AGENT_FAILURE */
	ST_EXT_FAIL = 2,        /* SSH_AGENT_EXTENSION_FAILURE */
};

struct msg_hdr {
	uint8_t type;
	uint32_t req;           /* chosen by the asker, echoed in the reply */
	uint32_t conn;          /* client connection, 0 for none */
};

#define SK_PROVIDER_EXTENSION_NAME "sk-provider@openssh.com"

struct constraints {
	int has_lifetime;
	uint32_t lifetime;
	int confirm;
	int has_dest;
	struct slice dest;      /* restrict-destination constraint_list (§6.6) */
	int has_provider;
	struct slice provider;  /* sk-provider@openssh.com (§6.5): text */
};

/* sock: the socket it came in on, 0 the main one, i the i-th the
 * rules declare (rules/scope.h). */
struct msg_open { uint32_t uid, pid, sock; };
struct msg_sign { struct slice key, data; uint32_t flags; };
/* pub: the public key blob (a certificate's whole blob) the monitor read
 * in key, the private encoding as the client sent it, which policy hands
 * on to the keyholder unparsed. */
struct msg_add { struct slice pub, key, comment; struct constraints c; };
struct msg_blob { struct slice blob; };
struct msg_bind { struct slice hostkey, session_id, signature; int forwarding; };
struct msg_status { uint8_t status; };
struct msg_identities { uint32_t n; struct slice entries; }; /* repeat{ string blob; string comment } */
/* priv: an ADD's private encoding (a certificate's form too) */
struct msg_kh_add { uint64_t key_id; struct slice priv; };
struct msg_kh_sign { uint64_t key_id; uint8_t alg; struct slice data; };
struct msg_kh_delete { uint64_t key_id; };
struct msg_kh_sk_material { uint64_t key_id; };
/* What a token helper needs of one FIDO key to sign once: alg is
 * SK_ALG_* (keys/sshkey.h), application is text, key_handle is secret. */
struct msg_sk_material {
	uint8_t alg;
	struct slice application;
	uint8_t flags;
	struct slice key_handle;
};
struct msg_tk_sign { struct slice provider, request; };
struct msg_p11_add { struct slice provider, pin; struct constraints c; };
/* Why the broker has no helper's reply for a MSG_TK_SIGN. */
enum tk_fail {
	TK_BUSY = 1,            /* TOKEN_MAX_HELPERS are running */
	TK_START,               /* the helper could not be started */
	TK_TIMEOUT,             /* no answer in the touch timeout */
	TK_DIED,                /* it ended without an answer */
	TK_CANCELLED,           /* policy cancelled it (the client went away) */
	TK_FAIL_MAX = TK_CANCELLED,
};
struct msg_tk_fail { uint8_t why; };

/* Header: begin a message in w; decode the header of a datagram. */
void msg_begin(struct wb *w, uint8_t type, uint32_t req, uint32_t conn);
int msg_hdr_decode(struct rd *r, struct msg_hdr *h);
int msg_empty_decode(struct rd *r);

void msg_open_encode(struct wb *w, const struct msg_open *m);
int msg_open_decode(struct rd *r, struct msg_open *m);
void msg_sign_encode(struct wb *w, const struct msg_sign *m);
int msg_sign_decode(struct rd *r, struct msg_sign *m);
void msg_add_encode(struct wb *w, const struct msg_add *m);
int msg_add_decode(struct rd *r, struct msg_add *m);
void msg_bind_encode(struct wb *w, const struct msg_bind *m);
int msg_bind_decode(struct rd *r, struct msg_bind *m);
void msg_blob_encode(struct wb *w, const struct msg_blob *m);
int msg_blob_decode(struct rd *r, struct msg_blob *m);
void msg_status_encode(struct wb *w, const struct msg_status *m);
/* A whole MSG_R_STATUS reply in w (msg_begin, then the status): the one
 * way every process answers with a status. */
void msg_status_reply(struct wb *w, uint32_t req, uint32_t conn, uint8_t st);
int msg_status_decode(struct rd *r, struct msg_status *m);
void msg_identities_encode(struct wb *w, const struct msg_identities *m);
int msg_identities_decode(struct rd *r, struct msg_identities *m);
void msg_kh_add_encode(struct wb *w, const struct msg_kh_add *m);
int msg_kh_add_decode(struct rd *r, struct msg_kh_add *m);
void msg_kh_sign_encode(struct wb *w, const struct msg_kh_sign *m);
int msg_kh_sign_decode(struct rd *r, struct msg_kh_sign *m);
void msg_kh_delete_encode(struct wb *w, const struct msg_kh_delete *m);
int msg_kh_delete_decode(struct rd *r, struct msg_kh_delete *m);
void msg_kh_sk_material_encode(struct wb *w, const struct msg_kh_sk_material *m);
int msg_kh_sk_material_decode(struct rd *r, struct msg_kh_sk_material *m);
void msg_sk_material_encode(struct wb *w, const struct msg_sk_material *m);
int msg_sk_material_decode(struct rd *r, struct msg_sk_material *m);
void msg_p11_add_encode(struct wb *w, const struct msg_p11_add *m);
int msg_p11_add_decode(struct rd *r, struct msg_p11_add *m);
void msg_tk_sign_encode(struct wb *w, const struct msg_tk_sign *m);
int msg_tk_sign_decode(struct rd *r, struct msg_tk_sign *m);
void msg_tk_fail_encode(struct wb *w, const struct msg_tk_fail *m);
int msg_tk_fail_decode(struct rd *r, struct msg_tk_fail *m);

#endif
