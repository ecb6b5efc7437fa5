/*
 * trap.c - the SIGSYS reporter every sandboxed process shares. Filters
 * answer a forbidden syscall with SECCOMP_RET_TRAP, not a silent kill:
 * the kernel skips the call and raises SIGSYS, and the handler installed
 * here writes one line to stderr naming the process (for a token helper,
 * its module) and the syscall by name, then the process dies by SIGSYS
 * as it would have under SECCOMP_RET_KILL_PROCESS. Killing stays the
 * outcome; the difference is that a user with an unusual PKCS#11 module
 * reads which call it needs instead of a bare "agent refused operation".
 *
 * The handler is async-signal-safe: the names are resolved by libseccomp
 * into a table when the filter is installed, the line's prefix is made
 * then too, and the handler only copies bytes and calls write and kill.
 */
#include "seccomp/sandbox.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/text.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1           /* si_code of a seccomp SIGSYS */
#endif

static char *names[SANDBOX_SYSCALL_NAMES];
static int names_made;
static char detail[LOG_LINE_MAX / 2];
static char prefix[LOG_LINE_MAX];
static unsigned int native_arch;

void
sandbox_trap_module(const char *module)
{
	char raw[sizeof(detail)];

	/* a path the user chose: terminal-safe before it is kept */
	snprintf(raw, sizeof(raw), "for %s", module);
	text_term_str(detail, sizeof(detail), raw);
}

/* Append s to buf (at *n, capacity cap); async-signal-safe. */
static void
put(char *buf, size_t *n, size_t cap, const char *s)
{
	size_t len = strlen(s);

	if (len > cap - *n)
		len = cap - *n;
	memcpy(buf + *n, s, len);
	*n += len;
}

static void
put_num(char *buf, size_t *n, size_t cap, unsigned long v)
{
	char d[24];
	size_t i = sizeof(d) - 1;

	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 && i > 0);
	put(buf, n, cap, d + i);
}

static void
on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char line[LOG_LINE_MAX + 64];
	size_t n = 0, cap = sizeof(line) - 1;
	int saved = errno;

	(void)sig;
	(void)uc;
	put(line, &n, cap, prefix);
	if (si->si_code == SYS_SECCOMP) {
		put(line, &n, cap, "syscall ");
		if (si->si_arch == native_arch && si->si_syscall >= 0 &&
		    si->si_syscall < SANDBOX_SYSCALL_NAMES &&
		    names[si->si_syscall] != NULL) {
			put(line, &n, cap, names[si->si_syscall]);
			put(line, &n, cap, " (");
			put_num(line, &n, cap, (unsigned long)si->si_syscall);
			put(line, &n, cap, ")");
		} else {
			put(line, &n, cap, "number ");
			put_num(line, &n, cap, (unsigned long)(unsigned)si->si_syscall);
			put(line, &n, cap, " of architecture 0x");
			for (int s = 28; s >= 0; s -= 4)
				line[n < cap ? n++ : n] =
				    "0123456789abcdef"[(si->si_arch >> s) & 0xf];
		}
	} else
		put(line, &n, cap, "SIGSYS not from the filter");
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, n);
	/* SA_RESETHAND made SIGSYS's action the default (die), and SIGSYS is
	 * blocked while this runs: where the filter allows kill to itself,
	 * the signal waits until this returns; where it does not, the kill
	 * is trapped in turn, and the kernel forces the blocked SIGSYS with
	 * its default action at once. Either way: dead by SIGSYS. */
	(void)syscall(SYS_kill, syscall(SYS_getpid), SIGSYS);
	errno = saved;
}

void
sandbox_trap_install(const char *who)
{
	struct sigaction sa;
	const char *ident = log_ident();
	sigset_t set;

	if (!names_made) {
		for (int nr = 0; nr < SANDBOX_SYSCALL_NAMES; nr++)
			names[nr] = seccomp_syscall_resolve_num_arch(
			    SCMP_ARCH_NATIVE, nr);
		native_arch = seccomp_arch_native();
		names_made = 1;
	}
	snprintf(prefix, sizeof(prefix), "%s: %s%s%s stopped by its filter: ",
	    ident, who, detail[0] != '\0' ? " " : "", detail);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) != 0)
		fatal("sigaction(SIGSYS): %m");
	/* a SIGSYS blocked on entry would be forced with its default action
	 * and the line lost: unblocked here */
	sigemptyset(&set);
	sigaddset(&set, SIGSYS);
	if (sigprocmask(SIG_UNBLOCK, &set, NULL) != 0)
		fatal("sigprocmask: %m");
}
