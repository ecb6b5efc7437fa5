/*
 * test_peer.c - the caller-identity inspector: its protocol (wire/peer.c)
 * as a table of requests and replies the decoders take or refuse, every
 * truncation and trailing byte refused, encoders read back; its /proc text
 * parsers (peer/proc.c) on fixture strings a hostile process could make
 * (a comm with spaces and ')', a status whose lines try to look like
 * others, cmdlines with NULs and raw bytes); and proc_inspect on this very
 * process, on a child that exited, and with a pidfd of another pid.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "wire/peer.h"
#include "peer/proc.h"
#include "tests/unit/tap.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ requests */

struct req_row {
	const char *name;
	uint8_t type;
	uint32_t pid;
	uint8_t flags;
	int trailing;
	int want_ok;
};

static const struct req_row req_rows[] = {
	{ "with a pidfd", PEER_MSG_REQUEST, 4242, PEER_REQ_PIDFD, 0, 1 },
	{ "without a pidfd", PEER_MSG_REQUEST, 4242, 0, 0, 1 },
	{ "pid 1", PEER_MSG_REQUEST, 1, PEER_REQ_PIDFD, 0, 1 },
	{ "the highest pid", PEER_MSG_REQUEST, PEER_MAX_PID, 0, 0, 1 },
	{ "pid 0", PEER_MSG_REQUEST, 0, 0, 0, 0 },
	{ "a pid above the kernel's limit", PEER_MSG_REQUEST, PEER_MAX_PID + 1, 0, 0, 0 },
	{ "a pid that is -1", PEER_MSG_REQUEST, UINT32_MAX, 0, 0, 0 },
	{ "an unknown flag", PEER_MSG_REQUEST, 4242, 0x02, 0, 0 },
	{ "every flag", PEER_MSG_REQUEST, 4242, 0xff, 0, 0 },
	{ "a reply's type", PEER_MSG_REPLY, 4242, 0, 0, 0 },
	{ "type 0", 0, 4242, 0, 0, 0 },
	{ "a trailing byte", PEER_MSG_REQUEST, 4242, 0, 1, 0 },
};

static void
requests(void)
{
	struct peer_req m;
	struct wb w;
	struct rd r;
	size_t i, cut;

	for (i = 0; i < sizeof(req_rows) / sizeof(req_rows[0]); i++) {
		const struct req_row *row = &req_rows[i];

		wb_init(&w);
		wb_u8(&w, row->type);
		wb_u32(&w, 77);
		wb_u32(&w, row->pid);
		wb_u32(&w, 1000);
		wb_u8(&w, row->flags);
		if (row->trailing)
			wb_u8(&w, 0);
		rd_init(&r, w.p, w.len);
		is_int(peer_req_decode(&r, &m) == 0, row->want_ok, "request: %s",
		    row->name);
		if (row->want_ok)
			ok(m.id == 77 && m.pid == row->pid && m.uid == 1000 &&
			    m.flags == row->flags, "request: %s: fields read back",
			    row->name);
		else
			ok(m.id == 0 && m.pid == 0, "request: %s: nothing left in m",
			    row->name);
		wb_free(&w);
	}
	wb_init(&w);
	peer_req_encode(&w, &(struct peer_req){ 5, 4242, 1000, PEER_REQ_PIDFD });
	is_int(w.len, PEER_MAX_REQUEST, "an encoded request is PEER_MAX_REQUEST bytes");
	for (cut = 0; cut < w.len; cut++) {
		rd_init(&r, w.p, cut);
		if (peer_req_decode(&r, &m) == 0)
			break;
	}
	is_int(cut, w.len, "every truncated request is refused");
	wb_free(&w);
}

/* ------------------------------------------------------------ replies */

struct rep_row {
	const char *name;
	uint8_t type;
	uint32_t status;
	size_t exe_len, cmd_len;        /* bytes of 'e', 'c' */
	int exe_nul, cmd_nul;
	uint32_t nanc;                  /* written count */
	uint32_t nanc_real;             /* entries actually written */
	uint32_t anc_pid;
	size_t anc_exe_len, argv0_len;
	int argv0_nul;
	int trailing;
	int want_ok;
};

#define E PEER_MAX_EXE
#define C PEER_MAX_CMDLINE
#define A PEER_MAX_ANCESTORS
#define V PEER_MAX_ARGV0

static const struct rep_row rep_rows[] = {
	{ "ok with two ancestors", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 2, 2, 100, 9, 4, 0, 0, 1 },
	{ "ok without ancestors", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ "no-pidfd carries data", PEER_MSG_REPLY, PEER_NOPIDFD, 12, 20, 0, 0, 1, 1, 1, 9, 4, 0, 0, 1 },
	{ "gone, empty", PEER_MSG_REPLY, PEER_GONE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ "unreadable, empty", PEER_MSG_REPLY, PEER_UNREADABLE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ "every field at its bound", PEER_MSG_REPLY, PEER_OK, E, C, 0, 0, A, A, PEER_MAX_PID - A, E, V, 0, 0, 1 },
	{ "an ancestor with no exe (another uid)", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 1, 7, 0, 4, 0, 0, 1 },
	{ "an empty cmdline (a kernel thread's)", PEER_MSG_REPLY, PEER_OK, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ "gone with an exe", PEER_MSG_REPLY, PEER_GONE, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "gone with a cmdline", PEER_MSG_REPLY, PEER_GONE, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "unreadable with ancestors", PEER_MSG_REPLY, PEER_UNREADABLE, 0, 0, 0, 0, 1, 1, 7, 3, 3, 0, 0, 0 },
	{ "unavailable, empty", PEER_MSG_REPLY, PEER_UNAVAILABLE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ "unavailable with an exe", PEER_MSG_REPLY, PEER_UNAVAILABLE, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "status 5 (none such)", PEER_MSG_REPLY, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "a request's type", PEER_MSG_REQUEST, PEER_OK, 12, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "exe one byte too long", PEER_MSG_REPLY, PEER_OK, E + 1, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "cmdline one byte too long", PEER_MSG_REPLY, PEER_OK, 12, C + 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "a NUL in the exe", PEER_MSG_REPLY, PEER_OK, 12, 20, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "a NUL in the cmdline", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "one ancestor too many", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, A + 1, A + 1, 100, 9, 4, 0, 0, 0 },
	{ "a count beyond the entries", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 3, 2, 100, 9, 4, 0, 0, 0 },
	{ "an entry beyond the count", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 2, 100, 9, 4, 0, 0, 0 },
	{ "an ancestor of pid 0", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 1, 0, 9, 4, 0, 0, 0 },
	{ "an ancestor pid above the limit", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 1, PEER_MAX_PID + 1, 9, 4, 0, 0, 0 },
	{ "an ancestor exe too long", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 1, 7, E + 1, 4, 0, 0, 0 },
	{ "an argv[0] too long", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 1, 7, 9, V + 1, 0, 0, 0 },
	{ "a NUL in an argv[0]", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 1, 7, 9, 4, 1, 0, 0 },
	{ "a trailing byte", PEER_MSG_REPLY, PEER_OK, 12, 20, 0, 0, 1, 1, 7, 9, 4, 0, 1, 0 },
};

static void
text(struct wb *w, char c, size_t n, int nul)
{
	char *p = malloc(n + 1);

	memset(p, c, n);
	if (nul && n > 1)
		p[n / 2] = '\0';
	wb_string(w, p, n);
	free(p);
}

static void
build_reply(struct wb *w, const struct rep_row *row)
{
	wb_u8(w, row->type);
	wb_u32(w, 99);
	wb_u32(w, row->status);
	text(w, 'e', row->exe_len, row->exe_nul);
	text(w, 'c', row->cmd_len, row->cmd_nul);
	wb_u32(w, row->nanc);
	for (uint32_t i = 0; i < row->nanc_real; i++) {
		wb_u32(w, row->anc_pid + i);
		text(w, 'x', row->anc_exe_len, 0);
		text(w, 'a', row->argv0_len, row->argv0_nul);
	}
	if (row->trailing)
		wb_u8(w, 0);
}

static void
replies(void)
{
	struct peer_reply m, m2;
	struct wb w, w2;
	struct rd r;
	size_t i, cut;

	for (i = 0; i < sizeof(rep_rows) / sizeof(rep_rows[0]); i++) {
		const struct rep_row *row = &rep_rows[i];

		wb_init(&w);
		build_reply(&w, row);
		rd_init(&r, w.p, w.len);
		is_int(peer_reply_decode(&r, &m) == 0, row->want_ok, "reply: %s",
		    row->name);
		if (!row->want_ok) {
			ok(m.status == 0 && m.nanc == 0 && m.exe.len == 0,
			    "reply: %s: nothing left in m", row->name);
			wb_free(&w);
			continue;
		}
		ok(m.id == 99 && m.status == row->status &&
		    m.exe.len == row->exe_len && m.cmdline.len == row->cmd_len &&
		    m.nanc == row->nanc, "reply: %s: fields read back", row->name);
		ok(w.len <= PEER_MAX_REPLY, "reply: %s: within PEER_MAX_REPLY",
		    row->name);
		wb_init(&w2);
		peer_reply_encode(&w2, &m);
		ok(!w2.err && w2.len == w.len && memcmp(w2.p, w.p, w.len) == 0,
		    "reply: %s: encodes back to the same bytes", row->name);
		for (cut = 0; cut < w.len; cut++) {
			rd_init(&r, w.p, cut);
			if (peer_reply_decode(&r, &m2) == 0)
				break;
		}
		is_int(cut, w.len, "reply: %s: every truncation refused", row->name);
		wb_free(&w2);
		wb_free(&w);
	}
	/* The encoder drops the data of a status that carries none. */
	memset(&m, 0, sizeof(m));
	m.status = PEER_GONE;
	m.exe = (struct slice){ (const uint8_t *)"/bin/sh", 7 };
	m.cmdline = (struct slice){ (const uint8_t *)"sh", 2 };
	m.nanc = 1;
	m.anc[0] = (struct peer_anc){ 1, { (const uint8_t *)"/sbin/init", 10 },
	    { (const uint8_t *)"init", 4 } };
	wb_init(&w);
	peer_reply_encode(&w, &m);
	rd_init(&r, w.p, w.len);
	ok(peer_reply_decode(&r, &m2) == 0 && m2.status == PEER_GONE &&
	    m2.exe.len == 0 && m2.cmdline.len == 0 && m2.nanc == 0,
	    "a gone reply is sent without what was read");
	wb_free(&w);
	is_str(peer_status_name(PEER_OK), "ok", "status name: ok");
	is_str(peer_status_name(PEER_GONE), "gone", "status name: gone");
	is_str(peer_status_name(PEER_UNREADABLE), "unreadable", "status name: unreadable");
	is_str(peer_status_name(PEER_NOPIDFD), "no-pidfd", "status name: no-pidfd");
	is_str(peer_status_name(PEER_UNAVAILABLE), "unavailable",
	    "status name: unavailable");
	is_str(peer_status_name(9), "?", "status name: unknown");
}

/* ------------------------------------------------------------ fd passing */

static void
passing(void)
{
	uint8_t buf[PEER_MAX_REQUEST + 1];
	struct peer_req m;
	struct rd r;
	size_t n;
	int sv[2], fd, p[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0 || pipe(p) != 0) {
		ok(0, "socketpair and pipe");
		return;
	}
	ok(peer_req_send(sv[0], &(struct peer_req){ 1, 42, 7, PEER_REQ_PIDFD },
	    p[0]) == 0, "a request sent with an fd");
	ok(peer_req_recv(sv[1], buf, sizeof(buf), &n, &fd) == 1 && fd >= 0,
	    "received with one fd");
	rd_init(&r, buf, n);
	ok(peer_req_decode(&r, &m) == 0 && m.pid == 42 && m.uid == 7,
	    "and it decodes");
	ok(fd >= 0 && write(p[1], "x", 1) == 1 && read(fd, buf, 1) == 1 &&
	    buf[0] == 'x', "the fd received is the pipe sent");
	if (fd >= 0)
		close(fd);
	ok(peer_req_send(sv[0], &(struct peer_req){ 2, 42, 7, 0 }, -1) == 0,
	    "a request sent without an fd");
	ok(peer_req_recv(sv[1], buf, sizeof(buf), &n, &fd) == 1 && fd == -1,
	    "received with none");
	ok(send(sv[0], buf, sizeof(buf) + 0, 0) == (ssize_t)sizeof(buf) &&
	    peer_req_recv(sv[1], buf, sizeof(buf), &n, &fd) == -1,
	    "a datagram longer than any request is refused");
	close(sv[0]);
	ok(peer_req_recv(sv[1], buf, sizeof(buf), &n, &fd) == 0,
	    "the requester's close is end of file");
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

/* ------------------------------------------------------------ /proc text */

#define STAT_TAIL "4200 4242 4100 34816 4242 4194304 97 0 0 0 0 0 0 0 20 0 1 0 " \
	"987654 8441856 230 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0\n"

static void
stat_text(void)
{
	static const struct {
		const char *name, *text;
		int want_ok;
		int64_t pid, ppid, session;
		uint64_t start;
	} rows[] = {
		{ "a plain comm", "4242 (sleep) S " STAT_TAIL, 1, 4242, 4200, 4100, 987654 },
		{ "a comm with spaces", "4242 (my prog) S " STAT_TAIL, 1, 4242, 4200, 4100, 987654 },
		{ "a comm with ')' and '('", "4242 (a) b) (c ) S " STAT_TAIL, 1, 4242, 4200, 4100, 987654 },
		{ "a comm that imitates the fields",
		  "4242 (x) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5) S " STAT_TAIL,
		  1, 4242, 4200, 4100, 987654 },
		{ "a comm with a newline", "4242 (a\nb) S " STAT_TAIL, 1, 4242, 4200, 4100, 987654 },
		{ "an empty comm", "4242 () S " STAT_TAIL, 1, 4242, 4200, 4100, 987654 },
		{ "no newline at the end, start time last",
		  "7 (init) S 0 1 1 0 -1 4194560 1 1 1 1 1 1 1 1 20 0 1 0 12", 1, 7, 0, 1, 12 },
		{ "pid 1's parent 0", "1 (systemd) S 0 1 1 0 -1 " "4194560 97 0 0 0 0 0 0 0 20 0 1 0 9 1\n", 1, 1, 0, 1, 9 },
		{ "no ')'", "4242 (sleep S " STAT_TAIL, 0, 0, 0, 0, 0 },
		{ "no '('", "4242 sleep) S " STAT_TAIL, 0, 0, 0, 0, 0 },
		{ "cut before field 22", "4242 (sleep) S 4200 4242 4100 34816 4242 4194304 97 0 0 0 0 0 0 0 20 0 1 0 ", 0, 0, 0, 0, 0 },
		{ "a word at field 22", "4242 (sleep) S 4200 4242 4100 34816 4242 4194304 97 0 0 0 0 0 0 0 20 0 1 0 start 1\n", 0, 0, 0, 0, 0 },
		{ "digits glued to a word at 22", "4242 (sleep) S 4200 4242 4100 34816 4242 4194304 97 0 0 0 0 0 0 0 20 0 1 0 12x 1\n", 0, 0, 0, 0, 0 },
		{ "two spaces between fields", "4242 (sleep) S 4200  4242 4100 34816 4242 4194304 97 0 0 0 0 0 0 0 20 0 1 0 12 1\n", 0, 0, 0, 0, 0 },
		{ "a negative parent", "4242 (sleep) S -2 4242 4100 34816 4242 4194304 97 0 0 0 0 0 0 0 20 0 1 0 12 1\n", 0, 0, 0, 0, 0 },
		{ "no pid", "(sleep) S " STAT_TAIL, 0, 0, 0, 0, 0 },
		{ "pid 0", "0 (sleep) S " STAT_TAIL, 0, 0, 0, 0, 0 },
		{ "a start time beyond 64 bits", "4242 (s) S 4200 4242 4100 34816 4242 4194304 97 0 0 0 0 0 0 0 20 0 1 0 99999999999999999999999 1\n", 0, 0, 0, 0, 0 },
		{ "empty", "", 0, 0, 0, 0, 0 },
	};
	struct proc_stat st;
	char b[PEER_MAX_PROCFILE];
	ssize_t n;
	FILE *f;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = proc_stat_parse(rows[i].text, strlen(rows[i].text), &st);

		is_int(r == 0, rows[i].want_ok, "stat: %s", rows[i].name);
		if (rows[i].want_ok)
			ok(st.pid == rows[i].pid && st.ppid == rows[i].ppid &&
			    st.session == rows[i].session && st.start == rows[i].start,
			    "stat: %s: pid, ppid, session, start time (field 22)",
			    rows[i].name);
	}
	/* and this process's own */
	if ((f = fopen("/proc/self/stat", "r")) != NULL) {
		n = (ssize_t)fread(b, 1, sizeof(b), f);
		fclose(f);
		ok(proc_stat_parse(b, (size_t)n, &st) == 0 && st.pid == getpid() &&
		    st.ppid == getppid() && st.start > 0,
		    "stat: this process's own /proc/self/stat");
	} else
		ok(0, "stat: /proc/self/stat readable");
}

#define STATUS_HEAD "Name:\tbash\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\n" \
	"Ngid:\t0\nPid:\t4242\n"

static void
status_text(void)
{
	static const struct {
		const char *name, *text;
		int ppid_ok;
		int64_t ppid;
		int uid_ok;
		uint32_t euid;
	} rows[] = {
		{ "a plain status", STATUS_HEAD "PPid:\t4200\nTracerPid:\t0\nUid:\t1000\t1001\t1000\t1000\n", 1, 4200, 1, 1001 },
		{ "pid 1's", "Name:\tsystemd\nPid:\t1\nPPid:\t0\nUid:\t0\t0\t0\t0\n", 1, 0, 1, 0 },
		{ "PPid: inside the Name line is not PPid",
		  "Name:\tPPid:\t1\nPPid:\t4200\nUid:\t5\t6\t5\t5\n", 1, 4200, 1, 6 },
		{ "no PPid, no Uid", STATUS_HEAD "TracerPid:\t0\n", 0, 0, 0, 0 },
		{ "PPid with a word after it", STATUS_HEAD "PPid:\t42x\nUid:\t1\t2\t1\t1\n", 0, 0, 1, 2 },
		{ "a negative PPid", STATUS_HEAD "PPid:\t-3\nUid:\t1\t2\t1\t1\n", 0, 0, 1, 2 },
		{ "an empty PPid", STATUS_HEAD "PPid:\t\nUid:\t1\n", 0, 0, 0, 0 },
		{ "a uid beyond 32 bits", "PPid:\t1\nUid:\t1\t4294967296\t1\t1\n", 1, 1, 0, 0 },
		{ "the last line, without newline", "Uid:\t3\t4\t3\t3\nPPid:\t9", 1, 9, 1, 4 },
		{ "PPid at the very end, cut", "Uid:\t3\t4\t3\t3\nPPid:", 0, 0, 1, 4 },
	};
	uint32_t euid;
	int64_t v;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t n = strlen(rows[i].text);

		is_int(proc_status_ppid(rows[i].text, n, &v) == 0, rows[i].ppid_ok,
		    "status PPid: %s", rows[i].name);
		if (rows[i].ppid_ok)
			is_int(v, rows[i].ppid, "status PPid: %s: value", rows[i].name);
		is_int(proc_status_euid(rows[i].text, n, &euid) == 0, rows[i].uid_ok,
		    "status Uid: %s", rows[i].name);
		if (rows[i].uid_ok)
			is_int(euid, rows[i].euid, "status Uid: %s: the effective uid",
			    rows[i].name);
	}
	ok(proc_fdinfo_pid("pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\n"
	    "Pid:\t4242\nNSpid:\t4242\n", 65, &v) == 0 && v == 4242,
	    "fdinfo: the pid of a pidfd");
	ok(proc_fdinfo_pid("pos:\t0\nPid:\t-1\nNSpid:\t-1\n", 25, &v) == 0 && v == -1,
	    "fdinfo: -1 for a process gone");
	ok(proc_fdinfo_pid("TracerPid:\t9\nNSpid:\t4\n", 22, &v) != 0,
	    "fdinfo: TracerPid or NSpid are not Pid");
}

static void
cmdline_text(void)
{
	static const struct {
		const char *name;
		const char *raw;
		size_t n, cap;
		const char *want, *argv0;
	} rows[] = {
		{ "argv of two", "sleep\0" "1000\0", 11, C, "sleep 1000", "sleep" },
		{ "no NUL at the end (rewritten title)", "sshd: user [priv]", 17, C, "sshd: user [priv]", "sshd: user [priv]" },
		{ "empty arguments", "a\0\0b\0", 5, C, "a  b", "a" },
		{ "trailing NULs (a title padded)", "ssh\0-A\0\0\0\0", 10, C, "ssh -A", "ssh" },
		{ "empty", "", 0, C, "", "" },
		{ "only NULs", "\0\0\0", 3, C, "", "" },
		{ "raw bytes kept as they are", "\xff\x1b[31m\n\0x\0", 9, C, "\xff\x1b[31m\n x", "\xff\x1b[31m\n" },
		{ "cut at the bound", "abcdef\0gh\0", 10, 4, "abcd", "abcd" },
		{ "an empty argv[0]", "\0prog\0", 6, C, " prog", "" },
	};
	char out[PEER_MAX_CMDLINE + 1];
	size_t n;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		n = proc_cmdline_join((const uint8_t *)rows[i].raw, rows[i].n, out,
		    rows[i].cap);
		ok(n == strlen(rows[i].want) && memcmp(out, rows[i].want, n) == 0 &&
		    out[n] == '\0' && memchr(out, '\0', n) == NULL,
		    "cmdline: %s", rows[i].name);
		n = proc_argv0((const uint8_t *)rows[i].raw, rows[i].n, out,
		    rows[i].cap);
		ok(n == strlen(rows[i].argv0) && memcmp(out, rows[i].argv0, n) == 0 &&
		    out[n] == '\0', "argv[0]: %s", rows[i].name);
	}
}

/* ------------------------------------------------------------ inspecting */

static struct proc_report rep;

static void
inspecting(void)
{
	char self[PATH_MAX];
	ssize_t n;
	pid_t child;
	int pidfd, st, p[2];

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0) {
		ok(0, "pidfd_open of this process (%s)", strerror(errno));
		return;
	}
	proc_inspect((uint32_t)getpid(), (uint32_t)geteuid(), pidfd, &rep);
	is_str(peer_status_name(rep.status), "ok", "this process: ok");
	is_str(rep.exe, self, "this process: its exe");
	ok(strstr(rep.cmdline, "test_peer") != NULL, "this process: its cmdline");
	ok(rep.nanc >= 1 && rep.anc[0].pid == (uint32_t)getppid(),
	    "this process: its parent is the first ancestor");
	proc_inspect((uint32_t)getpid(), (uint32_t)geteuid() + 1, pidfd, &rep);
	is_str(peer_status_name(rep.status), "gone",
	    "this process under another uid than SO_PEERCRED said: gone");
	ok(rep.exe_len == 0 && rep.cmdline_len == 0 && rep.nanc == 0,
	    "and nothing read is kept");
	proc_inspect((uint32_t)getpid(), (uint32_t)geteuid(), -1, &rep);
	is_str(peer_status_name(rep.status), "no-pidfd", "without a pidfd: no-pidfd");
	is_str(rep.exe, self, "without a pidfd: still read");
	proc_inspect((uint32_t)getppid(), (uint32_t)geteuid(), pidfd, &rep);
	is_str(peer_status_name(rep.status), "gone",
	    "a pidfd of another pid than asked: gone, never the other's data");
	close(pidfd);

	/* a child that exits after its pidfd is taken */
	if (pipe(p) != 0 || (child = fork()) < 0) {
		ok(0, "fork");
		return;
	}
	if (child == 0) {
		char c;

		close(p[1]);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	close(p[1]);
	waitpid(child, &st, 0);
	proc_inspect((uint32_t)child, (uint32_t)geteuid(), pidfd, &rep);
	is_str(peer_status_name(rep.status), "gone", "a child that exited: gone");
	close(pidfd);
	proc_inspect((uint32_t)child, (uint32_t)geteuid(), -1, &rep);
	is_str(peer_status_name(rep.status), "gone",
	    "a child that exited, without a pidfd: gone");
}

int
main(void)
{
	requests();
	replies();
	passing();
	stat_text();
	status_text();
	cmdline_text();
	inspecting();
	return done_testing();
}
