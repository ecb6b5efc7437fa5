/*
 * fido.c - keyward-sk's "internal" middleware on libfido2 (fido.h). Looks
 * for FIDO tokens (USB HID) each time it is asked, picks the one that
 * knows the key handle (a silent probe when there are several, so only
 * the right token blinks), and asks it for one assertion. Trusts the
 * request only as far as ipc/token.c's decoder checked it; trusts the
 * token's answer to be a signature, which policy verifies.
 */
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/token.h"
#include "token/fido.h"

#include <fido.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <stdlib.h>
#include <string.h>

void
internal_init(int debug)
{
	fido_init(debug ? FIDO_DEBUG : 0);
}

/* libfido2's answer as the interface's error codes. */
static int
fido_status(int r)
{
	switch (r) {
	case FIDO_OK:
		return TOKEN_OK;
	case FIDO_ERR_PIN_REQUIRED:
	case FIDO_ERR_PIN_INVALID:
	case FIDO_ERR_UV_INVALID:
		return TOKEN_ERR_PIN_REQUIRED;
	case FIDO_ERR_UNSUPPORTED_OPTION:
	case FIDO_ERR_UNSUPPORTED_ALGORITHM:
	case FIDO_ERR_UNSUPPORTED_EXTENSION:
		return TOKEN_ERR_UNSUPPORTED;
	default:
		return TOKEN_ERR_GENERAL;
	}
}

/* An assertion request for this key handle; up and uv as asked. */
static fido_assert_t *
assertion(const uint8_t *data, size_t data_len, const char *application,
    const uint8_t *kh, size_t kh_len, fido_opt_t up, fido_opt_t uv)
{
	fido_assert_t *a;

	if ((a = fido_assert_new()) == NULL)
		return NULL;
	if (fido_assert_set_clientdata(a, data, data_len) != FIDO_OK ||
	    fido_assert_set_rp(a, application) != FIDO_OK ||
	    fido_assert_allow_cred(a, kh, kh_len) != FIDO_OK ||
	    fido_assert_set_up(a, up) != FIDO_OK ||
	    fido_assert_set_uv(a, uv) != FIDO_OK) {
		fido_assert_free(&a);
		return NULL;
	}
	return a;
}

/* Does this (open) token know the key handle? A silent assertion (no
 * touch) answers without blinking; a U2F-only token answers "touch
 * needed" for a handle it knows. */
static int
knows_handle(fido_dev_t *dev, const char *application, const uint8_t *kh,
    size_t kh_len)
{
	static const uint8_t probe[32];
	fido_assert_t *a;
	int r;

	if ((a = assertion(probe, sizeof(probe), application, kh, kh_len,
	    FIDO_OPT_FALSE, FIDO_OPT_OMIT)) == NULL)
		return 0;
	r = fido_dev_get_assert(dev, a, NULL);
	fido_assert_free(&a);
	return r == FIDO_OK || r == FIDO_ERR_USER_PRESENCE_REQUIRED;
}

/* The token to ask: the only one there, or the first that knows the
 * handle. NULL with *err set when there is none. */
static fido_dev_t *
find_token(const char *application, const uint8_t *kh, size_t kh_len,
    int *err)
{
	fido_dev_info_t *list;
	fido_dev_t *dev = NULL;
	size_t n = 0, i;
	int r;

	*err = TOKEN_ERR_NO_DEVICE;
	if ((list = fido_dev_info_new(TOKEN_MAX_DEVICES)) == NULL) {
		*err = TOKEN_ERR_GENERAL;
		return NULL;
	}
	if ((r = fido_dev_info_manifest(list, TOKEN_MAX_DEVICES, &n)) != FIDO_OK) {
		log_error("cannot list FIDO tokens: %s", fido_strerr(r));
		n = 0;
	}
	log_debug("%zu FIDO token(s) present", n);
	for (i = 0; i < n; i++) {
		const char *path = fido_dev_info_path(fido_dev_info_ptr(list, i));

		if ((dev = fido_dev_new()) == NULL) {
			*err = TOKEN_ERR_GENERAL;
			break;
		}
		if ((r = fido_dev_open(dev, path)) != FIDO_OK) {
			log_error("token %s: %s", path, fido_strerr(r));
			fido_dev_free(&dev);
			continue;
		}
		if (n == 1 || knows_handle(dev, application, kh, kh_len)) {
			log_debug("using token %s", path);
			break;
		}
		fido_dev_close(dev);
		fido_dev_free(&dev);
		*err = TOKEN_ERR_GENERAL;       /* tokens, none knows the key */
	}
	fido_dev_info_free(&list, TOKEN_MAX_DEVICES);
	return dev;
}

static int
copy_out(const uint8_t *p, size_t n, uint8_t **out, size_t *out_len)
{
	if (n == 0 || (*out = malloc(n)) == NULL)
		return -1;
	memcpy(*out, p, n);
	*out_len = n;
	return 0;
}

/* An ECDSA token signs in DER; the interface wants r and s. */
static int
split_der(const uint8_t *der, size_t der_len, struct sk_sign_response *resp)
{
	const uint8_t *p = der;
	const BIGNUM *r, *s;
	ECDSA_SIG *sig;
	int nr, ns, ret = -1;

	if ((sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len)) == NULL)
		return -1;
	ECDSA_SIG_get0(sig, &r, &s);
	nr = BN_num_bytes(r);
	ns = BN_num_bytes(s);
	if (nr < 1 || ns < 1 || nr > TOKEN_MAX_SIG_PART / 2 ||
	    ns > TOKEN_MAX_SIG_PART / 2 ||
	    (resp->sig_r = malloc((size_t)nr)) == NULL ||
	    (resp->sig_s = malloc((size_t)ns)) == NULL)
		goto out;
	resp->sig_r_len = (size_t)BN_bn2bin(r, resp->sig_r);
	resp->sig_s_len = (size_t)BN_bn2bin(s, resp->sig_s);
	ret = 0;
 out:
	ECDSA_SIG_free(sig);
	return ret;
}

int
internal_sign(uint32_t alg, const uint8_t *data, size_t data_len,
    const char *application, const uint8_t *key_handle, size_t key_handle_len,
    uint8_t flags, const char *pin, struct sk_sign_response **resp_out)
{
	struct sk_sign_response *resp = NULL;
	fido_assert_t *a = NULL;
	fido_dev_t *dev;
	fido_opt_t uv = FIDO_OPT_OMIT;
	const uint8_t *sig;
	size_t sig_len;
	int r, err;

	*resp_out = NULL;
	if (alg != TOKEN_ALG_ECDSA && alg != TOKEN_ALG_ED25519)
		return TOKEN_ERR_UNSUPPORTED;
	if ((dev = find_token(application, key_handle, key_handle_len,
	    &err)) == NULL)
		return err;
	if (pin != NULL && *pin == '\0')
		pin = NULL;
	/* User verification without a PIN: the token's own (a fingerprint),
	 * or else a PIN is what is needed. */
	if ((flags & SK_FLAG_UV_REQD) != 0 && pin == NULL) {
		if (!fido_dev_has_uv(dev)) {
			err = TOKEN_ERR_PIN_REQUIRED;
			goto out;
		}
		uv = FIDO_OPT_TRUE;
	}
	err = TOKEN_ERR_GENERAL;
	if ((a = assertion(data, data_len, application, key_handle,
	    key_handle_len, (flags & SK_FLAG_UP_REQD) ? FIDO_OPT_TRUE :
	    FIDO_OPT_FALSE, uv)) == NULL)
		goto out;
	if ((r = fido_dev_get_assert(dev, a, pin)) != FIDO_OK) {
		log_info("token refused to sign: %s", fido_strerr(r));
		err = fido_status(r);
		goto out;
	}
	if (fido_assert_count(a) != 1 || (resp = calloc(1, sizeof(*resp))) == NULL)
		goto out;
	resp->flags = fido_assert_flags(a, 0);
	resp->counter = fido_assert_sigcount(a, 0);
	sig = fido_assert_sig_ptr(a, 0);
	sig_len = fido_assert_sig_len(a, 0);
	if (alg == TOKEN_ALG_ED25519 ? copy_out(sig, sig_len, &resp->sig_r,
	    &resp->sig_r_len) : split_der(sig, sig_len, resp)) {
		log_error("token's signature is malformed");
		goto out;
	}
	*resp_out = resp;
	resp = NULL;
	err = TOKEN_OK;
 out:
	if (resp != NULL) {
		free(resp->sig_r);
		free(resp->sig_s);
		free(resp);
	}
	fido_assert_free(&a);
	fido_dev_close(dev);
	fido_dev_free(&dev);
	return err;
}
