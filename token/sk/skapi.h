/*
 * skapi.h - the SecurityKeyProvider interface OpenSSH 9.2-10.5 load from a
 * FIDO middleware: the published structures, constants and entry points,
 * written out here from their documentation. keyward-sk calls sk_sign of
 * a provider library, or token/sk/fido.c's libfido2 code for "internal".
 */
#ifndef KEYWARD_SKAPI_H
#define KEYWARD_SKAPI_H

#include <stddef.h>
#include <stdint.h>

#define SK_API_VERSION          0x000a0000
#define SK_API_MAJOR_MASK       0xffff0000

#define SK_FLAG_UP_REQD         0x01    /* user presence required */
#define SK_FLAG_UV_REQD         0x04    /* user verification required */
#define SK_FLAG_FORCE           0x10
#define SK_FLAG_RESIDENT        0x20

struct sk_enroll_response {
	uint8_t flags;
	uint8_t *public_key;
	size_t public_key_len;
	uint8_t *key_handle;
	size_t key_handle_len;
	uint8_t *signature;
	size_t signature_len;
	uint8_t *attestation_cert;
	size_t attestation_cert_len;
	uint8_t *authdata;
	size_t authdata_len;
};

struct sk_sign_response {
	uint8_t flags;
	uint32_t counter;
	uint8_t *sig_r;
	size_t sig_r_len;
	uint8_t *sig_s;
	size_t sig_s_len;
};

struct sk_resident_key {
	uint32_t alg;
	size_t slot;
	char *application;
	struct sk_enroll_response key;
	uint8_t flags;
	uint8_t *user_id;
	size_t user_id_len;
};

struct sk_option {
	char *name;
	char *value;
	uint8_t required;
};

typedef uint32_t (*sk_api_version_fn)(void);
typedef int (*sk_enroll_fn)(uint32_t, const uint8_t *, size_t, const char *,
    uint8_t, const char *, struct sk_option **, struct sk_enroll_response **);
typedef int (*sk_sign_fn)(uint32_t, const uint8_t *, size_t, const char *,
    const uint8_t *, size_t, uint8_t, const char *, struct sk_option **,
    struct sk_sign_response **);

#endif
