/*
 * helper.c - the set-up both token helpers share (helper.h); token/common/
 * is their library (libkwtoken.a), the one folder both programs link.
 */
#include "ipc/log.h"
#include "ipc/start.h"
#include "token/common/helper.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void
token_helper_setup(void)
{
	start_only_channel(TOKEN_CHAN_FD);
	/* libcrypto's configuration and DRBG now (libfido2, provider
	 * libraries and PKCS#11 modules may share it), while files may
	 * still be read. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1 ||
	    RAND_status() != 1)
		fatal("cannot initialise libcrypto");
}

int
token_provider_ok(const char *p)
{
	char real[PATH_MAX];
	struct stat st;

	if (p[0] != '/' || realpath(p, real) == NULL || strcmp(real, p) != 0 ||
	    stat(p, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return 1;
}
