/*
 * purpose.h - what the data of one sign request is, decided once when
 * the request arrives (h_sign) and kept with it (pending.h): a login
 * (an SSH userauth request for the key, plain or hostbound), an SSHSIG
 * blob with its namespace, or other data. The deciders read it -- the
 * destination check (hop.c), websafe and the confirm prompt (sign.c), the
 * rules (ruling.c), prompts (describe.c, token.c) and the audit trail
 * (audit.c) -- and none parses the data again.
 */
#ifndef KEYWARD_PURPOSE_H
#define KEYWARD_PURPOSE_H

#include "ipc/buf.h"
#include "policy/userauth.h"

#include <stdint.h>

struct bindings;

enum purpose_kind {
	PURPOSE_OTHER,          /* neither of the below */
	PURPOSE_LOGIN,          /* an SSH userauth request for this key */
	PURPOSE_SSHSIG,         /* an SSHSIG blob (ssh-keygen -Y sign) */
};

#define PURPOSE_SHA256_LEN 32

struct purpose {
	enum purpose_kind kind;
	struct slice data;      /* the data to sign, whole (its owner's) */
	struct userauth ua;     /* LOGIN: user, session id, the key's blob and,
	                         * hostbound, the server's host key as sent
	                         * (all slices of data) */
	struct wb hostkey;      /* LOGIN, hostbound: that host key in
	                         * canonical form (the bindings' form) */
	struct slice ns;        /* SSHSIG: the namespace (a slice of data) */
};

/* Decide what data is, for the identity whose canonical blob is
 * key_blob: the one place a sign request's data is parsed. pu points
 * into data, which must outlive it; purpose_free() after. */
void purpose_decide(struct purpose *pu, struct slice data,
    struct slice key_blob);
/* A login checked against the connection's bindings as they are now (b
 * NULL: the client has gone): NULL if it is for the last host bound, in
 * its session (doc/protocol.md §8.6 steps 3.4-3.6), else why not. */
const char *purpose_unverified(const struct purpose *pu,
    const struct bindings *b);
/* The SHA-256 of the data (what the audit trail records of it, and what
 * a yes is remembered under when the data names no verified destination).
 * -1 if it cannot be made. */
int purpose_sha256(const struct purpose *pu, uint8_t md[PURPOSE_SHA256_LEN]);
void purpose_free(struct purpose *pu);

#endif
