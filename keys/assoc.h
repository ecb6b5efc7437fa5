/*
 * assoc.h - the associated-certs-v00@openssh.com constraint of a PKCS#11
 * add (doc/protocol.md §6.7): certificates to graft onto the token keys
 * they certify. Structure only, no cryptography: the monitor runs it to
 * refuse garbage at the edge, policy runs it again and checks each CA
 * signature before a certificate becomes an identity.
 */
#ifndef KEYWARD_ASSOC_H
#define KEYWARD_ASSOC_H

#include "ipc/buf.h"
#include "keys/sshkey.h"

#define ASSOC_EXTENSION_NAME "associated-certs-v00@openssh.com"

/* Parse the certsblob (the string after the certs_only flag): key blobs,
 * each a string, back to back to its end, at most AGENT_MAX_ASSOC_CERTS.
 * Every blob must parse as a public key (a plain key parses and is
 * skipped later, as OpenSSH's agent skips it). fn, if given, sees each
 * blob and its parse; a non-zero return fails the parse. Returns the
 * number of blobs (0 for an empty list) or -1 with *why set. */
int assoc_parse(struct slice list,
    int (*fn)(void *ctx, struct slice blob, const struct pubkey *k), void *ctx,
    const char **why);

/* Does k, a parsed certificate, certify the plain key whose canonical
 * blob (keys/sshkey.h, key_canonical) is key? 0 for a plain k. */
int assoc_certifies(const struct pubkey *k, struct slice key);

#endif
