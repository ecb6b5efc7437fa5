/*
 * helper.h - what both token helpers (keyward-sk, keyward-pkcs11) do the
 * same way before they load a provider: their one channel checked and
 * every other fd closed, and libcrypto set up while files can be read.
 */
#ifndef KEYWARD_TOKEN_HELPER_H
#define KEYWARD_TOKEN_HELPER_H

#define TOKEN_CHAN_FD 3

/* fd 3 must be a SOCK_SEQPACKET socket: sized for our datagrams; every
 * fd above it closed (ipc/start.h); libcrypto's configuration and DRBG
 * loaded now (a provider may share them). fatal() on any failure. After
 * start_helper, which ignored SIGPIPE. */
void token_helper_setup(void);

/* p is the absolute path of a regular file and already its own realpath
 * (policy resolved it against -P): nothing else is loaded. 1 if so. */
int token_provider_ok(const char *p);

#endif
