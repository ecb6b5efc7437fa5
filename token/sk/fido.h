/*
 * fido.h - the "internal" FIDO middleware of keyward-sk: sk_sign's work
 * done with libfido2 on the USB HID tokens present, so a user needs no
 * provider library (what OpenSSH calls "internal").
 */
#ifndef KEYWARD_FIDO_H
#define KEYWARD_FIDO_H

#include "token/sk/skapi.h"

#include <stddef.h>

/* Before the sandbox: libfido2's and libcrypto's one-time set-up. */
void internal_init(int debug);
/* Before the sandbox: find the FIDO tokens (libfido2's listing through
 * libudev), open and lock each. Their descriptors, which the sandbox
 * must leave readable and writable, in *fds; their number returned. */
size_t internal_open_tokens(const int **fds);
/* sk_sign of the published interface (no options), on a token found now. */
int internal_sign(uint32_t alg, const uint8_t *data, size_t data_len,
    const char *application, const uint8_t *key_handle, size_t key_handle_len,
    uint8_t flags, const char *pin, struct sk_sign_response **resp);

#endif
