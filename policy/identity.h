/*
 * identity.h - the table of identities policy holds: public blob, comment,
 * constraints, expiry, and the id under which the keyholder keeps the
 * private half. Listed in first-add order; found by blob, and by the
 * keyholder's key id, in O(1): every lookup of an identity is here.
 */
#ifndef KEYWARD_IDENTITY_H
#define KEYWARD_IDENTITY_H

#include "ipc/buf.h"
#include "keys/sshkey.h"
#include "policy/hop.h"

#include <stdint.h>

struct identity {
	struct identity *hnext;         /* hash chain, by blob */
	struct identity *knext;         /* hash chain, by key_id */
	size_t order;                   /* index in the order array */
	uint8_t *blob;                  /* canonical public blob (doc/protocol.md §4.5) */
	size_t blob_len;
	char *comment;
	enum key_kind kind;
	int is_cert;
	uint64_t key_id;                /* keyholder's name for the private key */
	uint64_t expiry_ms;             /* CLOCK_BOOTTIME ms, 0 = never */
	int confirm;
	struct dest_set dest;           /* destination constraints, n = 0: none */
	char *provider;                 /* FIDO: "internal" or the library's
	                                 * resolved path; PKCS#11: the module's;
	                                 * NULL for other keys */
	int p11;                        /* on a PKCS#11 token: no keyholder */
	uint32_t p11_key;               /* its index in the helper's listing */
	char fp[96];                    /* fingerprint in the -E hash, for logs */
	size_t cost;                    /* charged against AGENT_MAX_HELD_BYTES */
	uint32_t sock;                  /* added through this socket: its
	                                 * scope (rules/scope.h); 0 main */
	struct pubkey *pub;             /* blob parsed on first use
	                                 * (identity_pub), else NULL */
	uint8_t *owner;                 /* added over a forwarded connection:
	                                 * the host key of its first binding,
	                                 * the only host it serves (keyward(1)
	                                 * -O allow-remote-add); NULL: local */
	size_t owner_len;
	int added_over;                 /* where the ADD came from: an
	                                 * enum origin_kind (policy/origin.h),
	                                 * kept whatever -O allow-remote-add
	                                 * says, for keyward-ctl and prompts */
	uint8_t *added_by;              /* ORIGIN_FORWARDED: the host key of
	                                 * the adding connection's first
	                                 * binding; else NULL */
	size_t added_by_len;
};

struct idtable {
	struct identity **order;        /* first-add order */
	size_t n, cap;
	struct identity **buckets;      /* by blob */
	struct identity **kbuckets;     /* by key_id, as many */
	size_t nbuckets;
	size_t bytes;                   /* sum of the held identities' cost */
	uint64_t gen;                   /* changes whenever an identity comes,
	                                 * goes or is replaced */
};

/* strdup, or the end: policy out of memory fails closed. */
char *str_dup(const char *s);
/* A copy of s's bytes, or the end, as str_dup. */
uint8_t *bytes_dup(struct slice s);

void idt_init(struct idtable *t);
/* blob in canonical form (key_canonical, keys/sshkey.h): keys are found by
 * their bytes. */
struct identity *idt_find(const struct idtable *t, struct slice blob);
/* A blob as a request names a key (any encoding key_canonical accepts):
 * its identity, or NULL (a blob that does not parse logged). */
struct identity *idt_find_request(const struct idtable *t, struct slice blob);
/* The identity whose private half the keyholder calls key_id, or NULL. */
struct identity *idt_find_key(const struct idtable *t, uint64_t key_id);
/* A re-add gives the identity held the new add's key id. */
void idt_rekey(struct idtable *t, struct identity *id, uint64_t key_id);
/* Append a new identity (takes ownership). -1 on allocation failure. */
int idt_insert(struct idtable *t, struct identity *id);
void idt_remove(struct idtable *t, struct identity *id);
/* A re-add replaces held in place: it is charged cost instead of its own. */
void idt_recharge(struct idtable *t, struct identity *held, size_t cost);
/* Whether the table has room for an identity of this cost, replacing held
 * (NULL: a new one): AGENT_MAX_KEYS and AGENT_MAX_HELD_BYTES. */
int idt_room(const struct idtable *t, const struct identity *held, size_t cost);
void identity_free(struct identity *id);
/* The identity's public key parsed, once for its lifetime (a FIDO key's
 * application for websafe, the key a token's signature is verified
 * against); NULL if the blob does not parse. */
const struct pubkey *identity_pub(struct identity *id);

#endif
