/*
 * sandbox.h - process hardening shared by every keyward process, and the
 * helpers the per-process filters (seccomp/<process>.c) are written with.
 *
 * Each rule of a filter has its reason in a comment beside it, naming the
 * code that needs it: a function of keyward as name(), best with its
 * file, monitor/loop.c:monitor_loop(); a file by its path, ipc/chan.c;
 * syscalls and library functions bare (read, getpid). 98-seccomp-reasons.t
 * checks that every function so named is defined where it says.
 */
#ifndef KEYWARD_SANDBOX_H
#define KEYWARD_SANDBOX_H

#include <seccomp.h>
#include <stddef.h>

/* Not dumpable, no core files, no capabilities in any set, no new
 * privileges. Call after set-up, before the filter. */
void sandbox_harden(void);

/* Landlock: no file-system access at all (and no TCP, no signals or
 * abstract sockets outside the process), except removing files in
 * rm_file_dir and directories in rm_dir_parent (either may be NULL).
 * Needs no_new_privs (sandbox_harden) first. */
void sandbox_landlock(const char *who, const char *rm_file_dir,
    const char *rm_dir_parent);
/* Landlock for a token helper: read (files and directories) beneath each
 * of ro_dirs, read and write (and device ioctls) on each of dev_files,
 * nothing else; NULL-terminated lists. -1, and nothing done, when the
 * kernel has no Landlock: the caller refuses to run (its filter allows
 * open, so Landlock is all that confines its file-system access). */
/* The same with several directories a file may be removed from (the
 * reaper: the main socket's and the named sockets' of keyward(5)),
 * NULL-terminated. */
void sandbox_landlock_rm(const char *who, const char *const *rm_file_dirs,
    const char *rm_dir_parent);
int sandbox_landlock_token(const char *who, const char *const *ro_dirs,
    const char *const *dev_files);

/* Landlock for the PKCS#11 token helper: read beneath the system's
 * directories (/etc, /usr, /lib...), read the files confs, read and write
 * (create and remove) beneath each of stores, read-write a few device
 * nodes (TPM, randomness); NULL-terminated lists. TCP is not confined.
 * -1, and nothing done, without Landlock, as for sandbox_landlock_token. */
int sandbox_landlock_pkcs11(const char *who, const char *const *confs,
    const char *const *stores);

/* Landlock for the broker: execute only exe[0..n) (seccomp/landlock.c). */
void sandbox_landlock_exec(const char *who, const char *const *exe, size_t n);
/* RLIMIT_NOFILE to just above the highest open fd: no new fd can exist. */
void sandbox_limit_fds(void);

/* The SIGSYS reporter (seccomp/trap.c). sandbox_load installs it: a
 * syscall the filter traps writes one line naming who (and a token
 * helper's module) and the syscall by name, then the process dies by
 * SIGSYS. sandbox_trap_module: a token helper's module, named in that
 * line as "for MODULE" (made terminal-safe); call before sandbox_load. */
void sandbox_trap_module(const char *module);
void sandbox_trap_install(const char *who);

/* A filter under construction: default action traps (SIGSYS; the
 * reporter then names the call and the process dies by SIGSYS). */
scmp_filter_ctx sandbox_filter_new(void);
/* Add one rule with nargs argument checks (struct scmp_arg_cmp, at most
 * six); fatal if there are more or libseccomp refuses it. */
void sandbox_allow(scmp_filter_ctx ctx, int nr, unsigned nargs, ...);
/* The same rule trapping (SIGSYS; the reporter names the call): the deny
 * lists of the filters that allow by default. */
void sandbox_trap(scmp_filter_ctx ctx, int nr, unsigned nargs, ...);
/* Allow syscall nr only on this fd (its first argument). */
void sandbox_allow_fd(scmp_filter_ctx ctx, int nr, int fd);
/* Allow futex with this operation (FUTEX_WAIT...), private or shared,
 * with either clock. */
void sandbox_allow_futex(scmp_filter_ctx ctx, int op);
/* Rules every process needs the same way (memory, time, exit, signals). */
void sandbox_allow_common(scmp_filter_ctx ctx);
/* The deny list of the filters that allow by default (prompter, broker). */
void sandbox_deny_reach(scmp_filter_ctx ctx);
/* ... and that filter alone, loaded. */
void sandbox_deny_reach_only(const char *who);
/* Load the filter (synchronised to all threads) and free it. */
void sandbox_load(scmp_filter_ctx ctx, const char *who);

/* The per-process filters. */
void sandbox_monitor(const int *listen_fds, size_t nlisten, int use_syslog,
    int peer_fd);
void sandbox_policy(const int *chan_fds, int n);
void sandbox_keyholder(int chan_fd);
void sandbox_prompter(void);
void sandbox_broker(void);
void sandbox_reaper(void);
void sandbox_auditor(int chan_fd, int audit_fd, int use_syslog, int key_fd);
/* token_fds NULL: a provider library, which finds its tokens itself;
 * else libfido2 ("internal"), talking to the n tokens opened for it. */
void sandbox_sk(int chan_fd, const int *token_fds, size_t n);
void sandbox_pkcs11(int chan_fd);
void sandbox_peer(int chan_fd, int exe_fd);
void sandbox_peer_exe(int fd);
void sandbox_session(int chan_fd, int bus_fd, int user_fd);

#endif
