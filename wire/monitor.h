/*
 * monitor.h - the messages between the monitor and policy (wire/msg.h for
 * the header and the shared replies): one request of a client, parsed by
 * the monitor (monitor/proto.c), and policy's answer to it. Policy decodes
 * each again: the monitor may be compromised.
 */
#ifndef KEYWARD_WIRE_MONITOR_H
#define KEYWARD_WIRE_MONITOR_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stdint.h>

enum {
	/* monitor -> policy */
	MSG_OPEN = 1,           /* a client connected: msg_open */
	MSG_CLOSE,              /* it went away: no payload */
	MSG_LIST,               /* no payload */
	MSG_SIGN,               /* msg_sign */
	MSG_ADD,                /* msg_add */
	MSG_REMOVE,             /* msg_remove_* */
	MSG_REMOVE_ALL,         /* no payload */
	MSG_LOCK,               /* msg_lock_* */
	MSG_UNLOCK,             /* msg_lock_* */
	MSG_QUERY,              /* no payload */
	MSG_BIND,               /* msg_bind: a session-bind that parsed */
	MSG_BIND_BAD,           /* no payload: a session-bind that did not */
	MSG_CONSTRAINTS,            /* no payload: CONSTRAINTS_EXTENSION (agent.h) */
	MSG_P11_ADD,            /* msg_p11_add: ssh-add -s (20, 26) */
	MSG_P11_REMOVE,         /* msg_p11_remove_*: ssh-add -e (21) */
	MSG_PEER,               /* msg_peer_*: sent after MSG_OPEN, before
	                         * any request */
	MSG_POLICY_LOAD,        /* msg_policy_load_*; conn 0: -O policy= at
	                         * start, else keyward-ctl policy load */
	MSG_POLICY_SHOW,        /* no payload: the rules, canonical; answered
	                         * by MSG_R_POLICY */
	MSG_CONNS,              /* no payload: the open connections and their
	                         * callers; answered by MSG_R_CONNS */
	MSG_SESSION_STATE,      /* no payload: the session followed; answered
	                         * by MSG_R_SESSION */
	MSG_LISTED = 24,        /* msg_listed: a list the monitor answered
	                         * from policy's list answer (no reply) */
	/* policy -> monitor, answering no request (req 0, conn 0) */
	MSG_LIST_CACHE = 25,    /* msg_list_cache: the list answer of every
	                         * connection with no session-bind on the
	                         * main socket, until changed */
	MSG_LIST_STALE = 26,    /* no payload: forget it, before the reply
	                         * that shows the change */
	/* policy -> monitor, besides MSG_R_STATUS and MSG_R_SIGNATURE */
	MSG_R_IDENTITIES = 66,  /* msg_identities */
	MSG_R_EXTENSIONS = 67,  /* msg_ext_reply_*: the answer to "query" */
	MSG_R_CONSTRAINTS = 68,     /* msg_ext_reply_*: wire/listing.h */
	MSG_R_POLICY = 75,      /* msg_ext_reply_*: the rules text */
	MSG_R_CONNS = 76,       /* msg_ext_reply_*: wire/conns.h */
	MSG_R_SESSION = 78,     /* msg_ext_reply_*: wire/session.h */
};

/* The constraints of an add (msg_add, msg_p11_add), as one shape. */
struct constraints {
	int has_lifetime;
	uint32_t lifetime;
	int confirm;
	int has_dest;
	struct slice dest;      /* restrict-destination constraint_list (doc/protocol.md §6.6) */
	int has_provider;
	struct slice provider;  /* sk-provider@openssh.com (doc/protocol.md §6.5): text */
	int has_certs;          /* associated-certs-v00@openssh.com (doc/protocol.md §6.7), */
	int certs_only;         /* PKCS#11 adds only: its flag and */
	struct slice certs;     /* its certsblob (keys/assoc.h) */
};

/* sock: the socket it came in on, 0 the main one, i the i-th the
 * rules declare (rules/scope.h). */
struct msg_open { uint32_t uid, pid, sock; };
struct msg_sign { struct slice key, data; uint32_t flags; };
/* pub: the public key blob (a certificate's whole blob) the monitor read
 * in key, the private encoding as the client sent it, which policy hands
 * on to the keyholder unparsed. */
struct msg_add { struct slice pub, key, comment; struct constraints c; };
struct msg_bind { struct slice hostkey, session_id, signature; int forwarding; };
struct msg_p11_add { struct slice provider, pin; struct constraints c; };
/* repeat{ string blob; string comment }, n of them */
struct msg_identities { uint32_t n; struct slice entries; };

/* The list answer of doc/design.md §8: generation gen (never 0, rising),
 * valid while CLOCK_BOOTTIME is before until_ms (0: no limit); tell:
 * each list it answers is told to policy (MSG_LISTED: the audit trail
 * is on); the identities as MSG_R_IDENTITIES carries them. */
struct msg_list_cache {
	uint64_t gen, until_ms;
	int tell;
	struct msg_identities ids;
};
/* Which answer a connection got, and its count, for the audit trail. */
struct msg_listed { uint64_t gen; uint32_t n; };

void msg_open_encode(struct wb *w, const struct msg_open *m);
int msg_open_decode(struct rd *r, struct msg_open *m);
void msg_sign_encode(struct wb *w, const struct msg_sign *m);
int msg_sign_decode(struct rd *r, struct msg_sign *m);
void msg_add_encode(struct wb *w, const struct msg_add *m);
int msg_add_decode(struct rd *r, struct msg_add *m);
void msg_bind_encode(struct wb *w, const struct msg_bind *m);
int msg_bind_decode(struct rd *r, struct msg_bind *m);
void msg_p11_add_encode(struct wb *w, const struct msg_p11_add *m);
int msg_p11_add_decode(struct rd *r, struct msg_p11_add *m);
void msg_identities_encode(struct wb *w, const struct msg_identities *m);
int msg_identities_decode(struct rd *r, struct msg_identities *m);
void msg_list_cache_encode(struct wb *w, const struct msg_list_cache *m);
int msg_list_cache_decode(struct rd *r, struct msg_list_cache *m);
void msg_listed_encode(struct wb *w, const struct msg_listed *m);
int msg_listed_decode(struct rd *r, struct msg_listed *m);

/* MSG_REMOVE: the key blob of the identity to remove. */
void msg_remove_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice key_blob);
/* MSG_LOCK (unlock 0) or MSG_UNLOCK (unlock 1): the passphrase, hashed
 * whole. */
void msg_lock_write(struct wb *w, int unlock, uint32_t req, uint32_t conn,
    struct slice passphrase);
/* MSG_P11_REMOVE: the provider whose keys to remove. */
void msg_p11_remove_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice provider);
/* MSG_PEER: who the connection's peer is, a reply of keyward-peer
 * (wire/peer.h) as it came, or one the monitor made (unavailable). */
void msg_peer_write(struct wb *w, uint32_t conn, struct slice peer_reply);
/* MSG_POLICY_LOAD: a rules file's text (keyward(5)). */
void msg_policy_load_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice rules_text);

/* The answer of an extension (wire/agent.h: the reply type its row
 * names): the body after the name in the client's reply. */
void msg_ext_reply_write(struct wb *w, uint8_t reply, uint32_t req,
    uint32_t conn, struct slice body);

#endif
