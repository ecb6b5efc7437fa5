/*
 * test_mldsa_ct.c - ML-DSA-44 key generation and signing in constant
 * time, checked as ctgrind does: the seed xi, the expanded private key
 * and rnd are marked undefined for valgrind's memcheck, so that any
 * branch or memory index that depends on them is reported ("conditional
 * jump or move depends on uninitialised value", "use of uninitialised
 * value"). crypto/mldsa44_sign.c tells valgrind, with CT_PUBLIC, what
 * FIPS 204 lets a signer reveal (the rejection decisions, c~) and nothing
 * else.
 *
 * The test runs itself under valgrind twice: as built (no error may be
 * reported) and with ct_abs made to read a table at an index taken
 * from its secret argument (the error must be reported: the check can
 * fail). Without valgrind it is
 * skipped, never passed.
 */
#define MLDSA44_CTGRIND 1
#include "tests/unit/tap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crypto/mldsa44_common.c"
#include "crypto/mldsa44.c"
#include "crypto/mldsa44_sign.c"

/* Under valgrind: keygen and sign with the secrets undefined. */
static int
inner(void)
{
	uint8_t xi[32], pk[MLDSA44_PK_LEN], sk[MLDSA44_SK_LEN];
	uint8_t sig[MLDSA44_SIG_LEN], rnd[32];
	uint8_t msg[3] = { 'a', 'b', 'c' };
	int i, bad = 0;

	for (i = 0; i < 3; i++) {
		memset(xi, 0x30 + i, sizeof(xi));
		memset(rnd, 0x50 + i, sizeof(rnd));
		VALGRIND_MAKE_MEM_UNDEFINED(xi, sizeof(xi));
		VALGRIND_MAKE_MEM_UNDEFINED(rnd, sizeof(rnd));
		if (mldsa44_keygen(pk, sk, xi) != 0)
			return 3;
		VALGRIND_MAKE_MEM_UNDEFINED(sk, sizeof(sk));
		if (mldsa44_sign(sig, sk, msg, sizeof(msg), msg, 1, rnd) != 0)
			return 3;
		if (mldsa44_sign_seed(sig, xi, msg, sizeof(msg), NULL, 0,
		    rnd) != 0)
			return 3;
		/* Public from here: check the signature is right. */
		VALGRIND_MAKE_MEM_DEFINED(pk, sizeof(pk));
		VALGRIND_MAKE_MEM_DEFINED(sig, sizeof(sig));
		bad |= mldsa44_verify(pk, msg, sizeof(msg), NULL, 0, sig,
		    sizeof(sig)) != 0;
	}
	return bad ? 4 : 0;
}

/* valgrind on ourselves; the status, and its report in *report. */
static int
under_valgrind(const char *self, const char *mode, char *report, size_t n)
{
	char path[] = "/tmp/keyward-mldsa-ct-XXXXXX", logopt[64];
	int fd, st;
	ssize_t got;
	pid_t pid;

	if ((fd = mkstemp(path)) == -1)
		return -1;
	snprintf(logopt, sizeof(logopt), "--log-fd=%d", fd);
	if ((pid = fork()) == 0) {
		execlp("valgrind", "valgrind", "-q", "--error-exitcode=99",
		    "--track-origins=yes", logopt, self, mode, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	got = pread(fd, report, n - 1, 0);
	report[got > 0 ? got : 0] = '\0';
	close(fd);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
main(int argc, char **argv)
{
	static char report[1 << 16];
	int st;

	if (argc == 2 && strcmp(argv[1], "inner") == 0)
		return inner();
	if (argc == 2 && strcmp(argv[1], "leaky") == 0) {
		ct_leaky = 1;
		return inner();
	}
#ifdef KEYWARD_SANITIZE
	/* valgrind cannot run an ASan binary; make check runs this test in
	 * the plain build too, where it counts. */
	printf("ok 1 # skip ASan build: valgrind runs the plain build's copy\n");
	printf("ok 2 # skip ASan build: valgrind runs the plain build's copy\n");
	printf("ok 3 # skip ASan build: valgrind runs the plain build's copy\n");
	printf("1..3\n");
	return 0;
#endif
	if (system("valgrind --version >/dev/null 2>&1") != 0) {
		printf("ok 1 # skip valgrind is not installed\n");
		printf("ok 2 # skip valgrind is not installed\n");
		printf("ok 3 # skip valgrind is not installed\n");
		printf("1..3\n");
		return 0;
	}
	st = under_valgrind(argv[0], "inner", report, sizeof(report));
	is_int(st, 0, "keygen and sign with secrets undefined: no valgrind error");
	if (st != 0)
		printf("# %s\n", report);
	st = under_valgrind(argv[0], "leaky", report, sizeof(report));
	is_int(st, 99, "with a secret memory index, valgrind reports an error");
	ok(strstr(report, "Use of uninitialised value") != NULL,
	    "the report names the secret-dependent access");
	return done_testing();
}
