/*
 * seccomp/pkcs11.c - keyward-pkcs11, the PKCS#11 token helper: requests
 * from policy on fd 3, one at a time, answered by a module the user chose
 * (-P), loaded and initialised before this filter. The module is foreign
 * code that OpenSSH runs with no sandbox at all, and the modules people
 * own need very different things (SoftHSM2 files and locks, tpm2-pkcs11
 * sqlite and TCP to its TPM, OpenSC and ykcs11 pcscd's socket with
 * sendto, non-blocking descriptors and poll; threads in some), so this
 * filter allows by default and traps what no module needs: exec, fork,
 * reaching another process (ptrace, another's memory or descriptors,
 * signals outside this one), new privileges, kernel modules, namespaces
 * and mounts, keyrings, making memory executable after the module is
 * loaded. Landlock (seccomp/landlock.c) confines files: the system's
 * read-only, the modules' stores read-write, nothing else.
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Calls trapped whatever their arguments, by what they would reach. */
static const int no_program[] = {
	/* no program started: no exec, no fork */
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork),
};
static const int no_other_memory[] = {
	/* other processes' memory placement */
	SCMP_SYS(process_madvise), SCMP_SYS(migrate_pages), SCMP_SYS(move_pages),
};
static const int no_identity[] = {
	/* identities (no capability makes them succeed; trapped so that a
	 * module that tries is reported) */
	SCMP_SYS(setuid), SCMP_SYS(setgid), SCMP_SYS(setreuid),
	SCMP_SYS(setregid), SCMP_SYS(setresuid), SCMP_SYS(setresgid),
	SCMP_SYS(setfsuid), SCMP_SYS(setfsgid), SCMP_SYS(setgroups),
};
static const int no_mount[] = {
	/* the new mount API, beside mount and umount2 */
	SCMP_SYS(open_tree), SCMP_SYS(move_mount), SCMP_SYS(fsopen),
	SCMP_SYS(fsmount), SCMP_SYS(fspick), SCMP_SYS(chroot),
};
/* no code loaded after the module: nothing mapped executable */
static const int no_exec_mapping[] = {
	SCMP_SYS(mmap), SCMP_SYS(mprotect), SCMP_SYS(pkey_mprotect),
};

#define TRAP_EACH(ctx, nrs) trap_each((ctx), (nrs), sizeof(nrs) / sizeof((nrs)[0]))

static void
trap_each(scmp_filter_ctx ctx, const int *nrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sandbox_trap(ctx, nrs[i], 0);
}

/* signals to itself only (pthread_kill, abort); kill(0) and kill(-1)
 * reach others */
static void
signals_to_self(scmp_filter_ctx ctx, scmp_datum_t self)
{
	sandbox_trap(ctx, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(tkill), 0);
	sandbox_trap(ctx, SCMP_SYS(rt_sigqueueinfo), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(rt_tgsigqueueinfo), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(pidfd_open), 0);
	sandbox_trap(ctx, SCMP_SYS(pidfd_send_signal), 0);
}

void
sandbox_pkcs11(int chan_fd)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	(void)chan_fd;
	if (ctx == NULL)
		fatal("seccomp_init failed");
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0)
		fatal("seccomp: cannot request thread synchronisation");
	/* reaching a sibling, the kernel, namespaces, keyrings */
	sandbox_deny_reach(ctx);
	/* a thread (CLONE_THREAD) is the module's business. clone3 passes
	 * its flags in memory a filter cannot read: ENOSYS, and glibc falls
	 * back to clone */
	TRAP_EACH(ctx, no_program);
	sandbox_trap(ctx, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0)
		fatal("seccomp: cannot add the clone3 rule");
	signals_to_self(ctx, (scmp_datum_t)getpid());
	TRAP_EACH(ctx, no_other_memory);
	/* the reporter stays the SIGSYS handler */
	sandbox_trap(ctx, SCMP_SYS(rt_sigaction), 2, SCMP_A0(SCMP_CMP_EQ, SIGSYS),
	    SCMP_A1(SCMP_CMP_NE, 0));
	/* dumpable again would let the user's other processes read this
	 * one's memory (PINs); a new personality could make every mapping
	 * executable (READ_IMPLIES_EXEC) */
	sandbox_trap(ctx, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_DUMPABLE));
	sandbox_trap(ctx, SCMP_SYS(personality), 0);
	for (size_t i = 0; i < sizeof(no_exec_mapping) / sizeof(int); i++)
		sandbox_trap(ctx, no_exec_mapping[i], 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	TRAP_EACH(ctx, no_identity);
	TRAP_EACH(ctx, no_mount);
	/* files by handle bypass the path walk Landlock checks */
	sandbox_trap(ctx, SCMP_SYS(open_by_handle_at), 0);
	sandbox_load(ctx, "pkcs11");
}
