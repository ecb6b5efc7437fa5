/*
 * seccomp/prompter.c - the prompter must fork and exec $SSH_ASKPASS, and
 * a seccomp filter is inherited by what it executes: an allowlist would
 * kill every askpass program. So this filter is the deny list of
 * sandbox_deny_reach() (sandbox.c): what no prompt needs and what would
 * let it reach its siblings. It holds no secret (doc/design.md).
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <stddef.h>

void
sandbox_prompter(void)
{
	sandbox_deny_reach_only("prompter");
}
