/*
 * p11stores.c - what a PKCS#11 module writes (p11stores.h): found before
 * keyward-pkcs11's sandbox, for Landlock to leave writable.
 */
#include "ipc/log.h"
#include "token/pkcs11/p11stores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOFTHSM_CONF_DEFAULT "/etc/softhsm/softhsm2.conf"
#define SOFTHSM_VAR_STEM "SOFTHSM2_CON"
#define TOKENDIR_KEY    "directories.tokendir"
#define TPM2_STORE_SYSTEM "/etc/tpm2_pkcs11"
#define TPM2_STORE_HOME ".tpm2_pkcs11"

/* Add a store: the realpath of dir, read-write under Landlock. */
static void
add_store(struct p11stores *st, const char *what, const char *dir)
{
	char real[PATH_MAX];

	if (realpath(dir, real) == NULL) {
		log_debug("%s %s: %m: not kept", what, dir);
		return;
	}
	for (size_t i = 0; i < st->nstores; i++)
		if (strcmp(st->stores[i], real) == 0)
			return;
	if (st->nstores == P11_MAX_STORES) {
		log_error("%s %s: more than %d stores: not kept", what, real,
		    P11_MAX_STORES);
		return;
	}
	memcpy(st->stores[st->nstores++], real, strlen(real) + 1);
	log_debug("%s: %s (read-write)", what, real);
}

/* A softhsm2.conf: it stays readable, and its directories.tokendir is a
 * store. Read the way SoftHSM reads it: "key = value" lines, '#' starts
 * a comment. */
static void
softhsm_conf(struct p11stores *st, const char *conf)
{
	char line[PATH_MAX + 64], real[PATH_MAX];
	char *k, *v, *e;
	size_t total = 0;
	FILE *fp;

	if (realpath(conf, real) == NULL || (fp = fopen(real, "re")) == NULL) {
		log_debug("SoftHSM2 configuration %s: %m", conf);
		return;
	}
	if (st->nconfs < P11_MAX_STORES)
		memcpy(st->confs[st->nconfs++], real, strlen(real) + 1);
	while (total < P11_MAX_CONF && fgets(line, sizeof(line), fp) != NULL) {
		total += strlen(line);
		if ((e = strchr(line, '#')) != NULL)
			*e = '\0';
		if ((v = strchr(line, '=')) == NULL)
			continue;
		*v++ = '\0';
		for (k = line; *k == ' ' || *k == '\t'; k++)
			;
		for (e = k + strlen(k); e > k && (e[-1] == ' ' || e[-1] == '\t'); )
			*--e = '\0';
		if (strcmp(k, TOKENDIR_KEY) != 0)
			continue;
		for (; *v == ' ' || *v == '\t'; v++)
			;
		for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t' ||
		    e[-1] == '\n' || e[-1] == '\r'); )
			*--e = '\0';
		add_store(st, "SoftHSM2 token directory", v);
	}
	fclose(fp);
}

/* Where the modules Debian ships keep what they write, whichever module
 * this is (p11-kit-proxy may load any of them, so the module's name says
 * nothing): SoftHSM2's token directory, named by the configuration in
 * $SOFTHSM2_CONF (or in any SOFTHSM2_CON? variable: the name a renamed
 * copy reads, as the tests' second provider does), else its default
 * configuration; tpm2-pkcs11's store, $TPM2_PKCS11_STORE, else the
 * places it searches. Found before the sandbox, as the modules find
 * them; what does not exist is not kept. */
void
p11_find_stores(struct p11stores *st)
{
	extern char **environ;
	const char *home = getenv("HOME"), *tpm = getenv("TPM2_PKCS11_STORE");
	char path[PATH_MAX];
	int conf_named = 0;

	for (char **e = environ; *e != NULL; e++)
		if (strncmp(*e, SOFTHSM_VAR_STEM, sizeof(SOFTHSM_VAR_STEM) - 1) == 0 &&
		    (*e)[sizeof(SOFTHSM_VAR_STEM) - 1] >= 'A' &&
		    (*e)[sizeof(SOFTHSM_VAR_STEM) - 1] <= 'Z' &&
		    (*e)[sizeof(SOFTHSM_VAR_STEM)] == '=') {
			softhsm_conf(st, *e + sizeof(SOFTHSM_VAR_STEM) + 1);
			conf_named = 1;
		}
	if (!conf_named)
		softhsm_conf(st, SOFTHSM_CONF_DEFAULT);
	if (tpm != NULL && *tpm != '\0')
		add_store(st, "tpm2-pkcs11 store", tpm);
	else {
		add_store(st, "tpm2-pkcs11 store", TPM2_STORE_SYSTEM);
		if (home != NULL && *home == '/' && (size_t)snprintf(path,
		    sizeof(path), "%s/%s", home, TPM2_STORE_HOME) < sizeof(path))
			add_store(st, "tpm2-pkcs11 store", path);
	}
}
