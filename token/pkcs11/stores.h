/*
 * stores.h - what Landlock leaves keyward-pkcs11 beyond the system's
 * read-only directories: the modules' stores (read-write) and their
 * configuration files outside the system's directories (read-only).
 */
#ifndef KEYWARD_TOKEN_PKCS11_STORES_H
#define KEYWARD_TOKEN_PKCS11_STORES_H

#include "ipc/limits.h"

#include <limits.h>
#include <stddef.h>

struct p11stores {
	char stores[P11_MAX_STORES][PATH_MAX];  /* realpaths, read-write */
	size_t nstores;
	char confs[P11_MAX_STORES][PATH_MAX];   /* realpaths, readable */
	size_t nconfs;
};

/* Fill st (zeroed by the caller) from the environment and the modules'
 * defaults; what does not exist is not kept, past P11_MAX_STORES the
 * rest are left out with a log line. */
void p11_find_stores(struct p11stores *st);

#endif
