/*
 * sandbox.c - hardening common to all processes and the rules every
 * filter shares. Each rule has the reason it exists.
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
sandbox_harden(void)
{
	struct rlimit zero = { 0, 0 };
	int setpcap;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		fatal("prctl(PR_SET_DUMPABLE): %m");
	if (setrlimit(RLIMIT_CORE, &zero) != 0)
		fatal("setrlimit(RLIMIT_CORE): %m");
	/* Without CAP_SETPCAP (any non-root user) the bounding set cannot
	 * shrink, and no_new_privs below makes it unusable anyway. It is
	 * not even tried then: libcap-ng 0.8 would report the failure to
	 * syslog at LOG_ERR itself, from every process at every start. */
	setpcap = capng_get_caps_process() == 0 &&
	    capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(setpcap ? CAPNG_SELECT_ALL :
	    CAPNG_SELECT_CAPS | CAPNG_SELECT_AMBIENT) != 0)
		fatal("cannot drop capabilities");
	if (!setpcap)
		log_debug("bounding capability set kept: not permitted to drop it");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		fatal("prctl(PR_SET_NO_NEW_PRIVS): %m");
}

void
sandbox_limit_fds(void)
{
	struct rlimit lim;
	int highest = 2;

	/* Probe every fd up to the current limit; set-up opened only a few. */
	if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
		fatal("getrlimit(RLIMIT_NOFILE): %m");
	for (int fd = 3; fd < 1024 && (rlim_t)fd < lim.rlim_cur; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			highest = fd;
	lim.rlim_cur = lim.rlim_max = (rlim_t)highest + 1;
	if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
		fatal("setrlimit(RLIMIT_NOFILE): %m");
}

scmp_filter_ctx
sandbox_filter_new(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);

	if (ctx == NULL)
		fatal("seccomp_init failed");
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0)
		fatal("seccomp: cannot request thread synchronisation");
	return ctx;
}

/* One rule, with as many argument checks as a syscall has arguments
 * (six): more is a mistake in the filter, never silently cut. */
static void
add_rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned nargs,
    va_list ap)
{
	struct scmp_arg_cmp args[6];
	int r;

	if (nargs > 6)
		fatal("seccomp: too many argument checks");
	for (unsigned i = 0; i < nargs; i++)
		args[i] = va_arg(ap, struct scmp_arg_cmp);
	if ((r = seccomp_rule_add_array(ctx, action, nr, nargs, args)) != 0)
		fatal("seccomp: cannot add rule for syscall %d: %d", nr, r);
}

void
sandbox_allow(scmp_filter_ctx ctx, int nr, unsigned nargs, ...)
{
	va_list ap;

	va_start(ap, nargs);
	add_rule(ctx, SCMP_ACT_ALLOW, nr, nargs, ap);
	va_end(ap);
}

void
sandbox_trap(scmp_filter_ctx ctx, int nr, unsigned nargs, ...)
{
	va_list ap;

	va_start(ap, nargs);
	add_rule(ctx, SCMP_ACT_TRAP, nr, nargs, ap);
	va_end(ap);
}

void
sandbox_allow_fd(scmp_filter_ctx ctx, int nr, int fd)
{
	sandbox_allow(ctx, nr, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd));
}

/* The kernel reads madvise's advice and futex's op as an int: only the
 * low 32 bits of the register count, and only they are compared. */
#define INT_BITS 0xffffffffULL

void
sandbox_allow_futex(scmp_filter_ctx ctx, int op)
{
	/* private or shared, any clock: only the operation itself counts */
	scmp_datum_t mask = INT_BITS & ~(scmp_datum_t)(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);

	sandbox_allow(ctx, SCMP_SYS(futex), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, mask, (scmp_datum_t)op));
}

void
sandbox_allow_common(scmp_filter_ctx ctx)
{
	/* malloc and free */
	sandbox_allow(ctx, SCMP_SYS(brk), 0);
	sandbox_allow(ctx, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	sandbox_allow(ctx, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	sandbox_allow(ctx, SCMP_SYS(munmap), 0);
	/* realloc of a chunk malloc mmapped (over 128 KiB): MREMAP_MAYMOVE
	 * only, never MREMAP_FIXED or MREMAP_DONTUNMAP */
	sandbox_allow(ctx, SCMP_SYS(mremap), 1, SCMP_A3(SCMP_CMP_EQ, MREMAP_MAYMOVE));
	/* free of a thread's heap top or stack: MADV_DONTNEED only (no
	 * MADV_DODUMP to undo MADV_DONTDUMP, no KSM merging, no DONTFORK) */
	sandbox_allow(ctx, SCMP_SYS(madvise), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, INT_BITS, MADV_DONTNEED));
	/* the one poll loop, and timers for expiry and delays */
	sandbox_allow(ctx, SCMP_SYS(poll), 0);
	/* clocks (normally the vDSO; the syscall is its fallback) */
	sandbox_allow(ctx, SCMP_SYS(clock_gettime), 0);
	/* log lines: stderr, which the monitor relays when it is a daemon */
	sandbox_allow_fd(ctx, SCMP_SYS(write), STDERR_FILENO);
	/* closing what the process owns (no new fd can be made anyway) */
	sandbox_allow(ctx, SCMP_SYS(close), 0);
	/* glibc's locks and pthread_once (libcrypto's run-once): wait and
	 * wake only; no requeue, wake-op or priority inheritance */
	sandbox_allow_futex(ctx, FUTEX_WAIT);
	sandbox_allow_futex(ctx, FUTEX_WAKE);
	/* RAND_bytes; libcrypto compares getpid to notice a fork */
	sandbox_allow(ctx, SCMP_SYS(getrandom), 0);
	sandbox_allow(ctx, SCMP_SYS(getpid), 0);
	sandbox_allow(ctx, SCMP_SYS(gettid), 0);
	/* signal delivery and blocking */
	sandbox_allow(ctx, SCMP_SYS(rt_sigreturn), 0);
	sandbox_allow(ctx, SCMP_SYS(rt_sigprocmask), 0);
	/* a syscall interrupted by a stopped process is resumed */
	sandbox_allow(ctx, SCMP_SYS(restart_syscall), 0);
	/* glibc registers each new thread (keyholder workers start while
	 * the filter is being synchronised to them) */
	sandbox_allow(ctx, SCMP_SYS(rseq), 0);
	sandbox_allow(ctx, SCMP_SYS(set_robust_list), 0);
	/* leaving */
	sandbox_allow(ctx, SCMP_SYS(exit), 0);
	sandbox_allow(ctx, SCMP_SYS(exit_group), 0);
#ifdef KEYWARD_SANITIZE
	/* ASan/UBSan runtime only (never in a release build): reports,
	 * shadow memory bookkeeping, symbolising /proc/self/maps. */
	sandbox_allow(ctx, SCMP_SYS(sigaltstack), 0);
	sandbox_allow(ctx, SCMP_SYS(sched_yield), 0);
	sandbox_allow(ctx, SCMP_SYS(sched_getaffinity), 0);
	sandbox_allow(ctx, SCMP_SYS(getrlimit), 0);
	sandbox_allow(ctx, SCMP_SYS(prlimit64), 0);
	sandbox_allow(ctx, SCMP_SYS(openat), 0);
	sandbox_allow(ctx, SCMP_SYS(open), 0);
	sandbox_allow(ctx, SCMP_SYS(readlink), 0);
	sandbox_allow(ctx, SCMP_SYS(prctl), 0);
	sandbox_allow(ctx, SCMP_SYS(rt_sigaction), 0);
	/* the ASan allocator advises and moves its own regions freely */
	sandbox_allow(ctx, SCMP_SYS(madvise), 0);
	sandbox_allow(ctx, SCMP_SYS(mremap), 0);
#endif
}

#ifdef KEYWARD_TESTING
/* Test builds only (make TESTING=1, never installed): with
 * KEYWARD_TEST_FORBIDDEN=who:what in the environment, the process named
 * who attempts a syscall its filter forbids, right after loading it. The
 * sandbox test expects it to die by SIGSYS and the agent to fail closed. */
static void
attempt_forbidden(const char *who)
{
	const char *want = getenv("KEYWARD_TEST_FORBIDDEN"), *what;
	size_t n = strlen(who);
	char *argv[] = { "/bin/true", NULL };
	void *page;

	if (want == NULL || strncmp(want, who, n) != 0 || want[n] != ':')
		return;
	what = want + n + 1;
	log_error("test build: %s attempts forbidden syscall %s", who, what);
	if (strcmp(what, "open") == 0)
		(void)syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY);
	else if (strcmp(what, "socket") == 0)
		(void)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	else if (strcmp(what, "execve") == 0)
		(void)syscall(SYS_execve, argv[0], argv, NULL);
	else if (strcmp(what, "mprotect") == 0 &&
	    (page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED)
		(void)mprotect(page, 4096, PROT_READ | PROT_EXEC);
	fatal("test build: %s survived forbidden syscall %s", who, what);
}
#endif

void
sandbox_load(scmp_filter_ctx ctx, const char *who)
{
	int r;

	sandbox_trap_install(who);
	if ((r = seccomp_load(ctx)) != 0)
		fatal("seccomp: cannot load the %s filter: %d", who, r);
	seccomp_release(ctx);
	log_debug("%s sandbox active", who);
#ifdef KEYWARD_TESTING
	attempt_forbidden(who);
#endif
}

#ifdef KEYWARD_SANITIZE
/* LeakSanitizer stops the world with clone and ptrace at exit, which no
 * filter allows; the sandboxed programs run without it (leaks are checked
 * by the unit tests, which run unsandboxed). */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

static void
deny(scmp_filter_ctx ctx, int nr)
{
	/* trapped: the reporter names the call, then the process dies by
	 * SIGSYS; a program these processes exec has no handler (exec
	 * resets it), so SIGSYS's default action kills it outright */
	sandbox_trap(ctx, nr, 0);
}

/* For the processes that must exec programs they do not control (the
 * prompter, the broker): a seccomp filter is inherited across exec, so
 * theirs allows by default and kills what no such program needs and what
 * would reach a sibling: debugging other processes, kernel modules,
 * namespaces, keyrings. */
void
sandbox_deny_reach(scmp_filter_ctx ctx)
{
	deny(ctx, SCMP_SYS(ptrace));            /* attach to a sibling */
	deny(ctx, SCMP_SYS(process_vm_readv));  /* read a sibling's memory */
	deny(ctx, SCMP_SYS(process_vm_writev));
	deny(ctx, SCMP_SYS(pidfd_getfd));       /* steal a sibling's fd */
	deny(ctx, SCMP_SYS(kcmp));
	deny(ctx, SCMP_SYS(bpf));
	deny(ctx, SCMP_SYS(perf_event_open));
	deny(ctx, SCMP_SYS(init_module));
	deny(ctx, SCMP_SYS(finit_module));
	deny(ctx, SCMP_SYS(delete_module));
	deny(ctx, SCMP_SYS(kexec_load));
	deny(ctx, SCMP_SYS(kexec_file_load));
	deny(ctx, SCMP_SYS(mount));
	deny(ctx, SCMP_SYS(umount2));
	deny(ctx, SCMP_SYS(pivot_root));
	deny(ctx, SCMP_SYS(unshare));
	deny(ctx, SCMP_SYS(setns));
	deny(ctx, SCMP_SYS(userfaultfd));
	deny(ctx, SCMP_SYS(io_uring_setup));
	deny(ctx, SCMP_SYS(keyctl));
	deny(ctx, SCMP_SYS(add_key));
	deny(ctx, SCMP_SYS(request_key));
	deny(ctx, SCMP_SYS(reboot));
	deny(ctx, SCMP_SYS(swapon));
	deny(ctx, SCMP_SYS(swapoff));
}

/* A filter that allows by default and kills sandbox_deny_reach()'s list. */
void
sandbox_deny_reach_only(const char *who)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (ctx == NULL)
		fatal("seccomp_init failed");
	sandbox_deny_reach(ctx);
	sandbox_load(ctx, who);
}
