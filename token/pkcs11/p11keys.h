/*
 * p11keys.h - the keys of a PKCS#11 token as keyward-pkcs11 lists them:
 * RSA, ECDSA (P-256, P-384, P-521) and Ed25519 private key objects whose
 * public halves can be read, from the object itself or from the public
 * key object with the same CKA_ID.
 */
#ifndef KEYWARD_P11KEYS_H
#define KEYWARD_P11KEYS_H

#include "ipc/limits.h"
#include "keys/sshkey.h"

#include <stddef.h>
#include <stdint.h>

#include <p11-kit/pkcs11.h>

struct p11key {
	CK_SESSION_HANDLE sess;
	CK_OBJECT_HANDLE obj;
	enum key_kind kind;
	uint32_t flags;                 /* P11_KEY_* (wire/pkcs11.h) */
	uint8_t blob[P11_MAX_KEY_BLOB]; /* the public key, doc/protocol.md §4.2 */
	size_t blob_len;
	char label[P11_MAX_LABEL];      /* CKA_LABEL, cut at its first NUL
	                                 * and at a character boundary */
	size_t label_len;
};

struct p11list {
	CK_FUNCTION_LIST_PTR f;         /* the module */
	struct p11key keys[P11_MAX_KEYS];
	size_t n;
};

/* Add the private keys session s can see to l (a key already listed, by
 * its blob, is not listed twice); past P11_MAX_KEYS the rest are left out,
 * with a log line. */
void p11_list_keys(struct p11list *l, CK_SESSION_HANDLE s);

#endif
