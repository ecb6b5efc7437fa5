/*
 * proc.h - what keyward-peer reads of a process in /proc, and the parsers
 * of the text it reads there. The parsers take bounded, untrusted bytes (a
 * process names itself: its comm and argv are its own choice) and are pure
 * functions, unit-tested and fuzzed on fixture strings; proc_inspect does
 * the reading.
 */
#ifndef KEYWARD_PEER_PROC_H
#define KEYWARD_PEER_PROC_H

#include "ipc/limits.h"
#include "wire/peer.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The fields of /proc/PID/stat used here. comm is between the first '('
 * and the LAST ')': a comm may hold spaces and parentheses itself. */
struct proc_stat {
	int64_t pid;            /* field 1 */
	char state;             /* field 3 */
	int64_t ppid;           /* field 4 */
	int64_t session;        /* field 6 */
	uint64_t start;         /* field 22, clock ticks after boot */
};

int proc_stat_parse(const char *s, size_t n, struct proc_stat *st);
/* The PPid: line of /proc/PID/status. */
int proc_status_ppid(const char *s, size_t n, int64_t *ppid);
/* The Uid: line (real, effective, saved, fs): the effective uid. */
int proc_status_euid(const char *s, size_t n, uint32_t *euid);
/* The Pid: line of /proc/self/fdinfo/FD of a pidfd: the pid it refers to,
 * 0 or -1 once the process is gone. */
int proc_fdinfo_pid(const char *s, size_t n, int64_t *pid);
/* /proc/PID/cmdline's raw bytes as one line: the NULs between arguments
 * become spaces, trailing NULs go, the rest is kept as it is (raw bytes)
 * and cut at cap. out gets at most cap bytes and a NUL; the length. */
size_t proc_cmdline_join(const uint8_t *raw, size_t n, char *out, size_t cap);
/* argv[0]: the bytes before the first NUL, cut at cap; as above. */
size_t proc_argv0(const uint8_t *raw, size_t n, char *out, size_t cap);

struct proc_anc {
	uint32_t pid;
	char exe[PEER_MAX_EXE + 1];
	size_t exe_len;
	char argv0[PEER_MAX_ARGV0 + 1];
	size_t argv0_len;
};

/* One inspection's results, all in fixed buffers. */
struct proc_report {
	uint32_t status;                /* PEER_* */
	char exe[PEER_MAX_EXE + 1];
	size_t exe_len;
	char cmdline[PEER_MAX_CMDLINE + 1];
	size_t cmdline_len;
	uint32_t nanc;
	struct proc_anc anc[PEER_MAX_ANCESTORS];
};

/* How /proc/PID/exe is read, given a directory fd of /proc/PID: its path
 * and length, or -errno. NULL (the default): readlinkat here. keyward-peer
 * sets it to ask its exe reader, the one process of its two that is not
 * under Landlock (peer/main.c says why). */
typedef ssize_t (*proc_exe_fn)(int dirfd, char *out, size_t cap);
extern proc_exe_fn proc_read_exe_hook;

/* Test builds: milliseconds to wait between the first reading of a peer
 * and the checks that it is still the same process (the race test). */
extern int proc_test_pause_ms;

/* Read process pid (who SO_PEERCRED said had euid uid) through pidfd (-1:
 * none, PEER_NOPIDFD) and fill r. The race rule: everything is read, then
 * the pidfd must still be a live process and /proc/pid's start time and
 * executable those read first; otherwise PEER_GONE, and nothing read is
 * kept. Ancestors are read best-effort, each checked the same way by its
 * start time (not later than its child's). */
void proc_inspect(uint32_t pid, uint32_t uid, int pidfd, struct proc_report *r);

#endif
