/*
 * seccomp/broker.c - the broker starts the token helpers (keyward-sk),
 * which load a provider library before they enter their own allowlist,
 * and a seccomp filter is inherited across exec: so the broker's filter,
 * like the prompter's, allows by default and kills the deny list of
 * sandbox_deny_reach() (sandbox.c). What narrows it is Landlock: the
 * broker may execute the token helpers and nothing else (broker/main.c).
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

void
sandbox_broker(void)
{
	sandbox_deny_reach_only("broker");
}
