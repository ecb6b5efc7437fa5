/*
 * client.h - what the two raw clients of an agent, the hostile client
 * (tests/hostile/attack.c) and the bench (tests/bench/bench.c), share:
 * a connection to the agent's socket, the SSH encodings of the keys they
 * make (spec §4.2 public blob, §4.4 plain private encoding, written from
 * the key's OpenSSL parameters), and the agent's process tree (its
 * processes are what both measure). Header-only: each client is one program. Both
 * run against ssh-agent too, so nothing here is keyward's own code.
 */
#ifndef KEYWARD_TESTS_CLIENT_H
#define KEYWARD_TESTS_CLIENT_H

#define AC_MAX_PROCS    16384   /* processes scanned in /proc at most */

#include "ipc/buf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

/* A stream socket connected to the agent at path, flags (SOCK_NONBLOCK
 * or 0) given to socket(2): the fd, or -1 with errno set (EAGAIN: the
 * listener's backlog is full; ENAMETOOLONG: path does not fit). */
static inline int
ac_connect(const char *path, int flags)
{
	struct sockaddr_un sa;
	int fd, e;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | flags, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* One of pk's bignum parameters as an mpint (§2): 0, or -1. */
static inline int
ac_put_bn(struct wb *w, EVP_PKEY *pk, const char *param)
{
	BIGNUM *b = NULL;
	uint8_t *buf;
	int n;

	if (EVP_PKEY_get_bn_param(pk, param, &b) != 1)
		return -1;
	if ((buf = malloc((size_t)BN_num_bytes(b) + 1)) == NULL) {
		BN_clear_free(b);
		return -1;
	}
	n = BN_bn2bin(b, buf);
	wb_mpint(w, buf, (size_t)n);
	OPENSSL_cleanse(buf, (size_t)n);
	free(buf);
	BN_clear_free(b);
	return 0;
}

/* The public blob (§4.2) and the plain private encoding (§4.4) of an
 * Ed25519, ECDSA (P-256, P-384, P-521) or RSA key, appended to blob and
 * priv: 0, or -1 for any other key or a parameter OpenSSL will not give. */
static inline int
ac_key_encode(EVP_PKEY *pk, struct wb *blob, struct wb *priv)
{
	uint8_t a[32], s[32], kk[64], q[133];
	char name[32], curve[16];
	size_t n;
	int rc = 0;

	switch (EVP_PKEY_get_base_id(pk)) {
	case EVP_PKEY_ED25519:
		n = sizeof(a);
		if (EVP_PKEY_get_raw_public_key(pk, a, &n) != 1 || n != 32)
			return -1;
		n = sizeof(s);
		if (EVP_PKEY_get_raw_private_key(pk, s, &n) != 1 || n != 32)
			return -1;
		memcpy(kk, s, 32);
		memcpy(kk + 32, a, 32);
		wb_cstring(blob, "ssh-ed25519");
		wb_string(blob, a, 32);
		wb_cstring(priv, "ssh-ed25519");
		wb_string(priv, a, 32);
		wb_string(priv, kk, 64);
		OPENSSL_cleanse(s, sizeof(s));
		OPENSSL_cleanse(kk, sizeof(kk));
		break;
	case EVP_PKEY_EC:
		snprintf(curve, sizeof(curve), "nistp%d", EVP_PKEY_get_bits(pk));
		snprintf(name, sizeof(name), "ecdsa-sha2-%s", curve);
		if (EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY,
		    q, sizeof(q), &n) != 1 || q[0] != 0x04)
			return -1;
		wb_cstring(blob, name);
		wb_cstring(blob, curve);
		wb_string(blob, q, n);
		wb_cstring(priv, name);
		wb_cstring(priv, curve);
		wb_string(priv, q, n);
		rc |= ac_put_bn(priv, pk, OSSL_PKEY_PARAM_PRIV_KEY);
		break;
	case EVP_PKEY_RSA:
		wb_cstring(blob, "ssh-rsa");                    /* e before n */
		rc |= ac_put_bn(blob, pk, OSSL_PKEY_PARAM_RSA_E);
		rc |= ac_put_bn(blob, pk, OSSL_PKEY_PARAM_RSA_N);
		wb_cstring(priv, "ssh-rsa");                    /* n before e */
		rc |= ac_put_bn(priv, pk, OSSL_PKEY_PARAM_RSA_N);
		rc |= ac_put_bn(priv, pk, OSSL_PKEY_PARAM_RSA_E);
		rc |= ac_put_bn(priv, pk, OSSL_PKEY_PARAM_RSA_D);
		/* OpenSSL's coefficient is q^-1 mod p, SSH's iqmp */
		rc |= ac_put_bn(priv, pk, OSSL_PKEY_PARAM_RSA_COEFFICIENT1);
		rc |= ac_put_bn(priv, pk, OSSL_PKEY_PARAM_RSA_FACTOR1);
		rc |= ac_put_bn(priv, pk, OSSL_PKEY_PARAM_RSA_FACTOR2);
		break;
	default:
		return -1;
	}
	return rc != 0 || blob->err || priv->err ? -1 : 0;
}

/* The parent of pid (from /proc/PID/stat), or -1. */
static inline pid_t
ac_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;
	int pp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %d", &pp) != 1)
		return -1;
	return pp;
}

/* root and all its descendants into tree (n of them, at most max): n, or
 * -1 if /proc cannot be read. */
static inline int
ac_tree_pids(pid_t root, pid_t *tree, int max)
{
	static pid_t pids[AC_MAX_PROCS], par[AC_MAX_PROCS];
	struct dirent *de;
	int np = 0, nt = 0, grew;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL && np < AC_MAX_PROCS) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pids[np] = (pid_t)atoi(de->d_name);
		par[np] = ac_ppid(pids[np]);
		np++;
	}
	closedir(d);
	tree[nt++] = root;
	do {
		grew = 0;
		for (int i = 0; i < np && nt < max; i++) {
			int in = 0, child = 0;

			for (int j = 0; j < nt; j++) {
				in |= tree[j] == pids[i];
				child |= tree[j] == par[i];
			}
			if (!in && child) {
				tree[nt++] = pids[i];
				grew = 1;
			}
		}
	} while (grew);
	return nt;
}

#endif
