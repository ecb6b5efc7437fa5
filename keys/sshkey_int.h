/*
 * sshkey_int.h - what keys/sshkey.c shares with keys/sshkey_private.c alone:
 * the field readers and writers both forms of a key use.
 */
#ifndef KEYWARD_SSHKEY_INT_H
#define KEYWARD_SSHKEY_INT_H

#include "keys/sshkey.h"

/* Set *why (if given) to msg; -1. */
int key_fail(const char **why, const char *msg);
/* e odd, 1024 to 16384 bits of modulus (doc/protocol.md §4.2); sets k->rsa_bits. */
int key_rsa_check_public(struct pubkey *k, const char **why);
/* A FIDO key's application: text, at most AGENT_MAX_SK_APPLICATION. */
int key_parse_sk_app(struct rd *r, struct slice *app, const char **why);
/* The public fields of a key of a known kind (after its type name). */
int key_parse_pub_fields(struct rd *r, enum key_kind kind, struct pubkey *k,
    const char **why);
/* Their encoding. */
void key_write_pub_fields(struct wb *w, enum key_kind kind,
    const struct pubkey *k);

#endif
