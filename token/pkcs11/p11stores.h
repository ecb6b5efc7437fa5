/*
 * p11stores.h - the places the PKCS#11 modules Debian ships write to
 * (their token stores) and the configuration files they read from
 * outside the system's directories, for keyward-pkcs11's Landlock rules.
 */
#ifndef KEYWARD_P11STORES_H
#define KEYWARD_P11STORES_H

#include "ipc/limits.h"

#include <limits.h>
#include <stddef.h>

struct p11stores {
	char stores[P11_MAX_STORES][PATH_MAX];  /* read-write */
	size_t nstores;
	char confs[P11_MAX_STORES][PATH_MAX];   /* read-only */
	size_t nconfs;
};

/* Fill st, as the modules find their stores: SoftHSM2's token directory
 * (from $SOFTHSM2_CONF or any SOFTHSM2_CON? variable, else the default
 * configuration) and tpm2-pkcs11's store ($TPM2_PKCS11_STORE, else the
 * places it searches). What does not exist is not kept. */
void p11_find_stores(struct p11stores *st);

#endif
