/*
 * describe.h - what policy can say about a request, and only what it
 * verified: the path a connection is bound along, and what the data to
 * sign is (its purpose, purpose.h: a login checked against that path, an
 * SSHSIG signature, or other data). Used by prompts, logs and the audit
 * trail alike.
 */
#ifndef KEYWARD_DESCRIBE_H
#define KEYWARD_DESCRIBE_H

#include "ipc/buf.h"
#include "policy/hop.h"
#include "policy/purpose.h"

#include <stddef.h>

struct policy;
struct identity;
struct conn;

/* "origin -> scylla -> charybdis": names from the key's own constraints
 * where a host key matches one, else the host key's fingerprint. */
void describe_path(const struct policy *P, const struct identity *id,
    const struct bindings *b, char *out, size_t n);
/* A sign request as the user is asked about it, in a confirm or a PIN
 * prompt alike: the key's fingerprint, what the data is (a login to
 * user@host, verified or not; an SSHSIG namespace; other), the path and
 * whether it is forwarded, and who asked -- each as far as policy
 * verified it, and saying so where it could not (doc/protocol.md §6.3). Lines
 * joined by newlines, client text made terminal-safe; c may be NULL (the
 * client has gone). Returns the length written, as snprintf. */
size_t describe_request(const struct policy *P, const struct identity *id,
    const struct conn *c, const struct purpose *pu, char *out, size_t n);
/* A name for host key K from the destination constraints of any key
 * held (the hosts the user named on ssh-add -h), or NULL. */
const char *describe_host_name(const struct policy *P, struct slice K);
/* Where identity id was added from, one line for a prompt ("" for a key
 * the user's own client added): the adding host's key fingerprint and
 * its name where one is known. Returns the length written, as snprintf. */
size_t describe_added(const struct policy *P, const struct identity *id,
    char *out, size_t n);

#endif
