/*
 * seccomp/prompter.c - the prompter must fork and exec $SSH_ASKPASS, and
 * a seccomp filter is inherited by what it executes: an allowlist would
 * kill every askpass program. So this filter denies what no prompt needs
 * and what would let it reach its siblings: debugging other processes,
 * kernel modules and namespaces. It holds no secret (DESIGN.md).
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <stddef.h>

static void
deny(scmp_filter_ctx ctx, int nr)
{
	if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0) != 0)
		fatal("seccomp: cannot add deny rule for syscall %d", nr);
}

void
sandbox_prompter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (ctx == NULL)
		fatal("seccomp_init failed");
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
	sandbox_load(ctx, "prompter");
}
