/*
 * helper.c - the set-up both token helpers share (helper.h); token/common/
 * is their library (libkwtoken.a), the one folder both programs link.
 */
#include "ipc/chan.h"
#include "ipc/log.h"
#include "token/common/helper.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

void
token_helper_setup(void)
{
	socklen_t len;
	int type = 0;

	len = sizeof(type);
	if (getsockopt(TOKEN_CHAN_FD, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
	    type != SOCK_SEQPACKET)
		fatal("fd %d is not a SOCK_SEQPACKET socket", TOKEN_CHAN_FD);
	signal(SIGPIPE, SIG_IGN);
	/* Nothing else of keyward's is this process's business. */
	if (close_range(TOKEN_CHAN_FD + 1, ~0U, 0) != 0)
		fatal("close_range: %m");
	chan_setup_fd(TOKEN_CHAN_FD);
	/* libcrypto's configuration and DRBG now (libfido2, provider
	 * libraries and PKCS#11 modules may share it), while files may
	 * still be read. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1 ||
	    RAND_status() != 1)
		fatal("cannot initialise libcrypto");
}
