/*
 * p11sign.h - keyward-pkcs11's SIGN request, answered with one of the
 * keys LOGIN listed (token/p11keys.h).
 */
#ifndef KEYWARD_P11SIGN_H
#define KEYWARD_P11SIGN_H

#include "ipc/buf.h"
#include "token/pkcs11/p11keys.h"
#include "wire/pkcs11.h"

/* Sign req's data with key req->key of l, by the mechanism req->alg
 * names, and encode the reply (wire/pkcs11.h) into w: the SSH signature,
 * or the module's status (CKR_*) or a refusal of ours. */
void p11_sign(const struct p11list *l, const struct p11_req *req, struct wb *w);

#endif
