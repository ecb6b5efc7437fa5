/*
 * test_trap.c - the SIGSYS reporter (seccomp/trap.c): a child loads a
 * filter built as every process's is (sandbox_filter_new: default trap,
 * plus the common rules), makes a call the filter does not allow, and
 * must die by SIGSYS after one line on stderr naming who, the module
 * (terminal-safe), and the call by name, or by number and architecture
 * where the kernel has no name for it.
 */
#include "ipc/log.h"
#include "seccomp/sandbox.h"
#include "tests/unit/tap.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run one child; its stderr in out, its wait status returned. */
static int
child(const char *module, long nr, char *out, size_t outsz)
{
	size_t got = 0;
	ssize_t n;
	int p[2], st = 0;
	pid_t pid;

	if (pipe(p) != 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		scmp_filter_ctx ctx;

		close(p[0]);
		if (dup2(p[1], STDERR_FILENO) != STDERR_FILENO)
			_exit(2);
		log_init("test_trap", LOG_LVL_INFO, 0);
		if (module != NULL)
			sandbox_trap_module(module);
		ctx = sandbox_filter_new();
		sandbox_allow_common(ctx);
		sandbox_load(ctx, "unit");
		(void)syscall(nr, 0, 0, 0, 0, 0, 0);
		_exit(3);       /* survived */
	}
	close(p[1]);
	while (got + 1 < outsz &&
	    ((n = read(p[0], out + got, outsz - 1 - got)) > 0 ||
	    (n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static int
died_by_sigsys(int st)
{
	return st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS;
}

int
main(void)
{
	char out[2048], want[512];
	int st;

	st = child("/usr/lib/libmod.so", SYS_getppid, out, sizeof(out));
	ok(died_by_sigsys(st), "a call the filter traps: the process dies by SIGSYS");
	snprintf(want, sizeof(want), "test_trap: unit for /usr/lib/libmod.so "
	    "stopped by its filter: syscall getppid (%d)\n", SYS_getppid);
	is_str(out, want, "one line: who, the module, the call by name and number");

	st = child(NULL, SYS_getppid, out, sizeof(out));
	ok(died_by_sigsys(st), "without a module: dies by SIGSYS");
	snprintf(want, sizeof(want), "test_trap: unit stopped by its filter: "
	    "syscall getppid (%d)\n", SYS_getppid);
	is_str(out, want, "without a module: no 'for' part");

	st = child("/tmp/evil\nkeyward: forged line\x1b[2J.so", SYS_getppid, out,
	    sizeof(out));
	ok(died_by_sigsys(st), "a module path with a newline and an escape: dies by SIGSYS");
	ok(strchr(out, '\n') == out + strlen(out) - 1,
	    "... and its line is one line (the newline escaped)");
	ok(strchr(out, '\x1b') == NULL, "... with no escape character");
	ok(strstr(out, "stopped by its filter: syscall getppid (") != NULL,
	    "... still naming the call");

	/* 999: no syscall on any architecture keyward builds for */
	st = child("/m.so", 999, out, sizeof(out));
	ok(died_by_sigsys(st), "a number the kernel has no name for: dies by SIGSYS");
	snprintf(want, sizeof(want), "test_trap: unit for /m.so stopped by its "
	    "filter: syscall number 999 of architecture 0x%08x\n",
	    seccomp_arch_native());
	is_str(out, want, "... and the line gives the number and the architecture");

	return done_testing();
}
