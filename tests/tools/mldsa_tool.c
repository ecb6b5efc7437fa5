/*
 * mldsa_tool - ML-DSA-44 (crypto/mldsa44*.c) in lines of hex, for the
 * cross-check against another implementation (tests/integration/
 * 195-mldsa-noble.t). A line: xi pk ctx msg rnd sig, each hex ("-" for
 * empty).
 *
 *   mldsa_tool sign COUNT TAG   COUNT keys, messages, contexts and rnds
 *                               drawn from SHAKE256(TAG || i), signed
 *   mldsa_tool verify           reads lines; the keys are made again from
 *                               xi and must equal pk; each signature is
 *                               verified as it is, then with one byte
 *                               flipped (must fail). Prints
 *                               "good N bad M" and exits 1 on a mismatch.
 *   mldsa_tool composite TAG    an ssh-mldsa44-ed25519@openssh.com key
 *                               from the seeds SHAKE256(TAG): lines
 *                               "pub HEX" (its blob), "add HEX" (an ADD
 *                               message with comment TAG), "addbad HEX"
 *                               (the same, one seed bit flipped).
 */
#include "crypto/composite.h"
#include "crypto/mldsa44.h"
#include "ipc/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
puthex(const uint8_t *p, size_t n)
{
	size_t i;

	if (n == 0)
		fputs("-", stdout);
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static size_t
gethex(const char *h, uint8_t *o, size_t max)
{
	size_t n = strlen(h) / 2, i;

	if (strcmp(h, "-") == 0)
		return 0;
	if (n > max)
		exit(2);
	for (i = 0; i < n; i++)
		if (sscanf(h + 2 * i, "%2hhx", &o[i]) != 1)
			exit(2);
	return n;
}

static int
do_sign(int count, const char *tag)
{
	uint8_t draw[32 + 1 + 1 + 32 + 255 + 512], in[300];
	uint8_t pk[MLDSA44_PK_LEN], sig[MLDSA44_SIG_LEN];
	size_t taglen = strlen(tag) > 200 ? 200 : strlen(tag);
	int i;

	for (i = 0; i < count; i++) {
		const uint8_t *xi = draw, *rnd = draw + 34, *ctx = draw + 66;
		size_t ctxlen, mlen;

		memcpy(in, tag, taglen);
		memcpy(in + taglen, &i, sizeof(i));
		mldsa44_shake(256, in, taglen + sizeof(i), draw, sizeof(draw));
		ctxlen = draw[32] % 3 == 0 ? 0 : draw[32] % 64;
		mlen = (size_t)draw[33] * 2;
		if (mldsa44_keygen(pk, NULL, xi) != 0 ||
		    mldsa44_sign_seed(sig, xi, ctx + ctxlen, mlen, ctx, ctxlen,
		    rnd) != 0)
			return 1;
		puthex(xi, 32); putchar(' ');
		puthex(pk, sizeof(pk)); putchar(' ');
		puthex(ctx, ctxlen); putchar(' ');
		puthex(ctx + ctxlen, mlen); putchar(' ');
		puthex(rnd, 32); putchar(' ');
		puthex(sig, sizeof(sig)); putchar('\n');
	}
	return 0;
}

static int
do_verify(void)
{
	static char line[20000];
	char *f[6];
	uint8_t xi[32], pk[MLDSA44_PK_LEN], pk2[MLDSA44_PK_LEN], ctx[256];
	uint8_t msg[2048], rnd[32], sig[MLDSA44_SIG_LEN];
	size_t ctxlen, mlen, siglen;
	int good = 0, bad = 0, i;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		f[0] = strtok(line, " \n");
		for (i = 1; i < 6; i++)
			f[i] = strtok(NULL, " \n");
		if (f[5] == NULL)
			return 2;
		gethex(f[0], xi, sizeof(xi));
		gethex(f[1], pk, sizeof(pk));
		ctxlen = gethex(f[2], ctx, sizeof(ctx));
		mlen = gethex(f[3], msg, sizeof(msg));
		gethex(f[4], rnd, sizeof(rnd));
		siglen = gethex(f[5], sig, sizeof(sig));
		if (mldsa44_keygen(pk2, NULL, xi) != 0 ||
		    memcmp(pk, pk2, sizeof(pk)) != 0) {
			bad++;
			continue;
		}
		if (mldsa44_verify(pk, msg, mlen, ctx, ctxlen, sig, siglen) != 0) {
			bad++;
			continue;
		}
		sig[(good * 7919) % siglen] ^= 0x10;
		if (mldsa44_verify(pk, msg, mlen, ctx, ctxlen, sig, siglen) == 0) {
			bad++;
			continue;
		}
		good++;
	}
	printf("good %d bad %d\n", good, bad);
	return bad != 0 || good == 0;
}

static void
add_msg(const char *label, const uint8_t *pk, const uint8_t *sk, const char *tag)
{
	struct wb w;

	wb_init(&w);
	wb_u8(&w, 17);          /* SSH_AGENTC_ADD_IDENTITY */
	wb_cstring(&w, "ssh-mldsa44-ed25519@openssh.com");
	wb_string(&w, pk, MLDSA44_ED25519_PK_LEN);
	wb_string(&w, sk, MLDSA44_ED25519_SK_LEN);
	wb_cstring(&w, tag);
	printf("%s ", label);
	puthex(w.p, w.len);
	putchar('\n');
	wb_free(&w);
}

static int
do_composite(const char *tag)
{
	uint8_t sk[MLDSA44_ED25519_SK_LEN], pk[MLDSA44_ED25519_PK_LEN];
	struct wb w;

	mldsa44_shake(256, (const uint8_t *)tag, strlen(tag), sk, sizeof(sk));
	if (composite_public(sk, pk) != 0)
		return 1;
	wb_init(&w);
	wb_cstring(&w, "ssh-mldsa44-ed25519@openssh.com");
	wb_string(&w, pk, sizeof(pk));
	printf("pub ");
	puthex(w.p, w.len);
	putchar('\n');
	wb_free(&w);
	add_msg("add", pk, sk, tag);
	sk[40] ^= 1;
	add_msg("addbad", pk, sk, tag);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "composite") == 0)
		return do_composite(argv[2]);
	if (argc == 4 && strcmp(argv[1], "sign") == 0)
		return do_sign(atoi(argv[2]), argv[3]);
	if (argc == 2 && strcmp(argv[1], "verify") == 0)
		return do_verify();
	fprintf(stderr, "usage: mldsa_tool sign COUNT TAG | verify | composite TAG\n");
	return 2;
}
