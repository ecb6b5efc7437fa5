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

void
sandbox_pkcs11(int chan_fd)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	scmp_datum_t self = (scmp_datum_t)getpid();

	(void)chan_fd;
	if (ctx == NULL)
		fatal("seccomp_init failed");
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0)
		fatal("seccomp: cannot request thread synchronisation");
	/* reaching a sibling, the kernel, namespaces, keyrings */
	sandbox_deny_reach(ctx);
	/* no program started: no exec, no fork; a thread (CLONE_THREAD) is
	 * the module's business. clone3 passes its flags in memory a filter
	 * cannot read: ENOSYS, and glibc falls back to clone */
	sandbox_trap(ctx, SCMP_SYS(execve), 0);
	sandbox_trap(ctx, SCMP_SYS(execveat), 0);
	sandbox_trap(ctx, SCMP_SYS(fork), 0);
	sandbox_trap(ctx, SCMP_SYS(vfork), 0);
	sandbox_trap(ctx, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0)
		fatal("seccomp: cannot add the clone3 rule");
	/* signals to itself only (pthread_kill, abort); kill(0) and kill(-1)
	 * reach others */
	sandbox_trap(ctx, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(tkill), 0);
	sandbox_trap(ctx, SCMP_SYS(rt_sigqueueinfo), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(rt_tgsigqueueinfo), 1, SCMP_A0(SCMP_CMP_NE, self));
	sandbox_trap(ctx, SCMP_SYS(pidfd_open), 0);
	sandbox_trap(ctx, SCMP_SYS(pidfd_send_signal), 0);
	/* other processes' memory placement */
	sandbox_trap(ctx, SCMP_SYS(process_madvise), 0);
	sandbox_trap(ctx, SCMP_SYS(migrate_pages), 0);
	sandbox_trap(ctx, SCMP_SYS(move_pages), 0);
	/* the reporter stays the SIGSYS handler */
	sandbox_trap(ctx, SCMP_SYS(rt_sigaction), 2, SCMP_A0(SCMP_CMP_EQ, SIGSYS),
	    SCMP_A1(SCMP_CMP_NE, 0));
	/* dumpable again would let the user's other processes read this
	 * one's memory (PINs); a new personality could make every mapping
	 * executable (READ_IMPLIES_EXEC) */
	sandbox_trap(ctx, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_DUMPABLE));
	sandbox_trap(ctx, SCMP_SYS(personality), 0);
	/* no code loaded after the module: nothing mapped executable */
	sandbox_trap(ctx, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	sandbox_trap(ctx, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	sandbox_trap(ctx, SCMP_SYS(pkey_mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	/* identities (no capability makes them succeed; trapped so that a
	 * module that tries is reported) */
	sandbox_trap(ctx, SCMP_SYS(setuid), 0);
	sandbox_trap(ctx, SCMP_SYS(setgid), 0);
	sandbox_trap(ctx, SCMP_SYS(setreuid), 0);
	sandbox_trap(ctx, SCMP_SYS(setregid), 0);
	sandbox_trap(ctx, SCMP_SYS(setresuid), 0);
	sandbox_trap(ctx, SCMP_SYS(setresgid), 0);
	sandbox_trap(ctx, SCMP_SYS(setfsuid), 0);
	sandbox_trap(ctx, SCMP_SYS(setfsgid), 0);
	sandbox_trap(ctx, SCMP_SYS(setgroups), 0);
	/* the new mount API, beside mount and umount2 */
	sandbox_trap(ctx, SCMP_SYS(open_tree), 0);
	sandbox_trap(ctx, SCMP_SYS(move_mount), 0);
	sandbox_trap(ctx, SCMP_SYS(fsopen), 0);
	sandbox_trap(ctx, SCMP_SYS(fsmount), 0);
	sandbox_trap(ctx, SCMP_SYS(fspick), 0);
	sandbox_trap(ctx, SCMP_SYS(chroot), 0);
	/* files by handle bypass the path walk Landlock checks */
	sandbox_trap(ctx, SCMP_SYS(open_by_handle_at), 0);
	sandbox_load(ctx, "pkcs11");
}
