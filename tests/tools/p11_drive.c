/*
 * p11_drive.c - drives one keyward-pkcs11 as policy will: a SOCK_SEQPACKET
 * socketpair on its fd 3, a LOGIN, then a SIGN with each listed key and
 * each algorithm its type signs with; every signature is verified with
 * OpenSSL (crypto/sig.c, policy's own verifier) against the public key
 * the listing gave, over the data that was sent. Then it closes the
 * socket and waits for the helper to end. Used by 143-p11-helper.t.
 *
 *   p11_drive -h HELPER -p PROVIDER [-P PIN] [-B BADPIN] [-C CONTEXTPIN]
 *             [-e NAME=VALUE]... [-l debug|info] [-W] [-n] [-S] [-D DIR]
 *
 * -B logs in with BADPIN first (and expects nothing listed); -C gives
 * CONTEXTPIN with every SIGN (keys marked always-authenticate); -W, once
 * logged in, prints "waiting" and reads stdin to its end before signing
 * (the test reads /proc meanwhile); -n lists only; -S sends a SIGN before
 * any LOGIN and a second LOGIN after one (both must be refused); -D
 * writes each datagram sent and received into DIR as fuzz_pkcs11 seeds
 * (tests/fuzz/fuzz_pkcs11.c: its mode byte first).
 * Prints, one a line:
 *   pid N                           as soon as the helper runs (flushed)
 *   login status 0xS keys N         each LOGIN's reply (or "login no reply")
 *   key I TYPE flags F label L      each listed key (blob in hex with -v)
 *   sign I ALG verified|BAD|status 0xS   each SIGN
 *   exit N | signal N               how the helper ended
 * Exits 0 when every reply decoded and every signature verified.
 */
#include "crypto/crypto.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "tests/tools/drive.h"
#include "wire/pkcs11.h"
#include "keys/sshkey.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPLY_WAIT_MS   60000

static const uint8_t data[] = "the data policy would have a token sign";
static uint8_t rbuf[P11_MAX_REPLY + 1];
static int failed;
static const char *dumpdir;

static void
die(const char *what)
{
	fprintf(stderr, "p11_drive: %s\n", what);
	exit(2);
}

/* One datagram as a fuzz_pkcs11 seed: DIR/NAME-N, mode bytes first. */
static void
dump(const char *name, const uint8_t *mode, size_t nmode, const uint8_t *p,
    size_t n)
{
	static int seq;
	char path[4096];
	FILE *f;

	if (dumpdir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%s-%02d", dumpdir, name, seq++);
	if ((f = fopen(path, "w")) == NULL ||
	    fwrite(mode, 1, nmode, f) != nmode ||
	    (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		die("cannot write a seed");
}


static void
send_msg(int fd, struct wb *w)
{
	if (w->err)
		die("encode");
	dump(w->p[0] == P11_MSG_LOGIN ? "req-login" : "req-sign",
	    (const uint8_t[]){ 0 }, 1, w->p, w->len);
	/* A helper that refused to start has closed its end. */
	if (send(fd, w->p, w->len, MSG_NOSIGNAL) != (ssize_t)w->len)
		printf("send failed: %s\n", strerror(errno));
	wb_free_secret(w);
}

static ssize_t
recv_reply(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };

	if (poll(&pfd, 1, REPLY_WAIT_MS) != 1)
		return -1;
	return recv(fd, rbuf, sizeof(rbuf), 0);
}

/* LOGIN; the listing goes to *keys (its slices point into rbuf). */
static int
login(int fd, const char *pin, struct p11_keys *keys)
{
	struct wb w;
	struct rd r;
	ssize_t n;

	wb_init(&w);
	p11_login_encode(&w, (struct slice){ (const uint8_t *)pin, strlen(pin) });
	send_msg(fd, &w);
	if ((n = recv_reply(fd)) <= 0) {
		printf("login no reply\n");
		return -1;
	}
	dump("rep-keys", (const uint8_t[]){ 1 }, 1, rbuf, (size_t)n);
	rd_init(&r, rbuf, (size_t)n);
	if (p11_keys_decode(&r, keys) != 0) {
		printf("login undecodable\n");
		failed = 1;
		return -1;
	}
	printf("login status 0x%x keys %u\n", keys->status, keys->n);
	return keys->status == P11_OK ? 0 : -1;
}

static void
sign(int fd, uint32_t i, const struct pubkey *pk, enum sig_alg alg,
    const char *cpin)
{
	struct p11_sig rep;
	enum sig_alg named;
	struct wb w;
	struct rd r;
	ssize_t n;

	wb_init(&w);
	p11_sign_encode(&w, i, alg, (struct slice){ data, sizeof(data) },
	    (struct slice){ (const uint8_t *)cpin, strlen(cpin) });
	send_msg(fd, &w);
	printf("sign %u %s ", i, sig_alg_name(alg));
	if ((n = recv_reply(fd)) <= 0) {
		printf("no reply\n");
		failed = 1;
		return;
	}
	dump("rep-sig", (const uint8_t[]){ 2, (uint8_t)alg }, 2, rbuf, (size_t)n);
	rd_init(&r, rbuf, (size_t)n);
	if (p11_sig_decode(&r, alg, &rep) != 0) {
		printf("undecodable\n");
		failed = 1;
	} else if (rep.status != P11_OK)
		printf("status 0x%x\n", rep.status);
	else if (pk != NULL && sig_verify(pk, rep.sig,
	    (struct slice){ data, sizeof(data) }, &named) == 0 && named == alg)
		printf("verified\n");
	else {
		printf("BAD\n");
		failed = 1;
	}
	fflush(stdout);
}

static void
sign_all(int fd, const struct p11_keys *keys, const char *cpin)
{
	static const enum sig_alg rsa[] = { SIG_RSA_SHA1, SIG_RSA_SHA256,
	    SIG_RSA_SHA512 };
	/* the listing lives in rbuf, which each reply overwrites */
	static uint8_t blobs[P11_MAX_KEYS][P11_MAX_KEY_BLOB];
	struct pubkey pk[P11_MAX_KEYS];
	uint32_t nkeys = keys->n;

	for (uint32_t i = 0; i < nkeys; i++) {
		memcpy(blobs[i], keys->key[i].blob.p, keys->key[i].blob.len);
		if (key_parse_public((struct slice){ blobs[i],
		    keys->key[i].blob.len }, &pk[i], NULL) != 0)
			die("a listed key that does not parse");
	}
	for (uint32_t i = 0; i < nkeys; i++) {
		if (pk[i].kind == KEY_RSA)
			for (size_t j = 0; j < 3; j++)
				sign(fd, i, &pk[i], rsa[j], cpin);
		else
			sign(fd, i, &pk[i], sig_alg_for(pk[i].kind, 0), cpin);
	}
	/* a key index past the list, and an algorithm of another type */
	sign(fd, nkeys, NULL, SIG_ED25519, cpin);
	if (nkeys > 0)
		sign(fd, 0, NULL, pk[0].kind == KEY_RSA ? SIG_ED25519 :
		    SIG_RSA_SHA256, cpin);
}

int
main(int argc, char **argv)
{
	const char *helper = NULL, *provider = NULL, *pin = "", *bad = NULL;
	const char *cpin = "", *level = "debug", *env[DRIVE_MAX_ENV];
	struct p11_keys keys;
	char line[256];
	pid_t pid;
	int sock, c, nenv = 0, wait_stdin = 0, list_only = 0;
	int out_of_order = 0;

	while ((c = getopt(argc, argv, "h:p:P:B:C:e:l:WnSD:")) != -1) {
		switch (c) {
		case 'h': helper = optarg; break;
		case 'p': provider = optarg; break;
		case 'P': pin = optarg; break;
		case 'B': bad = optarg; break;
		case 'C': cpin = optarg; break;
		case 'l': level = optarg; break;
		case 'W': wait_stdin = 1; break;
		case 'n': list_only = 1; break;
		case 'S': out_of_order = 1; break;
		case 'D': dumpdir = optarg; break;
		case 'e':
			if (drive_env(env, &nenv, optarg) != 0)
				die("-e NAME=VALUE");
			break;
		default:
			die("usage: p11_drive -h HELPER -p PROVIDER [-P PIN] "
			    "[-B BADPIN] [-C PIN] [-e NAME=VALUE]... [-l LEVEL] "
			    "[-W] [-n] [-S]");
		}
	}
	if (helper == NULL || provider == NULL)
		die("-h and -p are needed");
	if ((pid = drive_start(helper, level, provider, env, nenv, &sock)) < 0)
		die("spawn");

	if (out_of_order)
		sign(sock, 0, NULL, SIG_ED25519, "");
	if (bad != NULL && login(sock, bad, &keys) == 0) {
		printf("a wrong PIN was accepted\n");
		failed = 1;
	}
	if (login(sock, pin, &keys) == 0) {
		for (uint32_t i = 0; i < keys.n; i++) {
			struct pubkey pk;

			if (key_parse_public(keys.key[i].blob, &pk, NULL) != 0)
				die("a listed key that does not parse");
			printf("key %u %s flags %u label %.*s\n", i,
			    key_kind_name(pk.kind), keys.key[i].flags,
			    (int)keys.key[i].label.len,
			    (const char *)keys.key[i].label.p);
			printf("blob %u ", i);
			for (size_t j = 0; j < keys.key[i].blob.len; j++)
				printf("%02x", keys.key[i].blob.p[j]);
			printf("\n");
		}
		fflush(stdout);
		if (wait_stdin) {
			printf("waiting\n");
			fflush(stdout);
			while (fgets(line, sizeof(line), stdin) != NULL)
				;
		}
		if (!list_only)
			sign_all(sock, &keys, cpin);
		if (out_of_order) {
			struct p11_keys again;

			if (login(sock, pin, &again) == 0) {
				printf("a second login was accepted\n");
				failed = 1;
			}
		}
	}
	fflush(stdout);
	close(sock);
	if (drive_end(pid) != 0)
		die("waitpid");
	return failed;
}
