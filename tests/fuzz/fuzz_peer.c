/*
 * fuzz_peer.c - libFuzzer harness for the caller-identity inspector: the
 * reply the monitor decodes from a process that reads what hostile peers
 * put in /proc (wire/peer.c), the request it decodes, and the parsers of
 * /proc text a peer chooses (peer/proc.c: its comm is in stat, its argv is
 * its cmdline). The first byte chooses what the rest is:
 *
 *  0  a reply: peer_reply_decode; one that decodes is within its bounds
 *     (status known, no data unless ok or no-pidfd, no NUL in the texts)
 *     and encodes back to the same bytes;
 *  1  a request: peer_req_decode; the same;
 *  2  a stat line: proc_stat_parse; pid > 0 and ppid >= 0 when it parses;
 *  3  a status file: proc_status_ppid and proc_status_euid; 4 an fdinfo:
 *     proc_fdinfo_pid;
 *  5  a cmdline: proc_cmdline_join and proc_argv0, at the full bound and
 *     at a cut the next byte chooses; the output stays within the bound,
 *     holds no NUL and is NUL-terminated;
 *  other  every parser on the rest.
 *
 * Its seeds (tests/fuzz/corpus/fuzz_peer) are written by hand, one of each
 * kind above, from real /proc text; mkcorpus.sh does not make them.
 */
#include "tests/fuzz/fuzz.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "wire/peer.h"
#include "peer/proc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
no_nul(struct slice s)
{
	return s.len == 0 || memchr(s.p, '\0', s.len) == NULL;
}

static void
reply(const uint8_t *p, size_t n)
{
	struct peer_reply m;
	struct wb w;
	struct rd r;

	rd_init(&r, p, n);
	if (peer_reply_decode(&r, &m) != 0)
		return;
	CHECK(m.status <= PEER_STATUS_MAX && m.nanc <= PEER_MAX_ANCESTORS);
	CHECK(m.exe.len <= PEER_MAX_EXE && no_nul(m.exe));
	CHECK(m.cmdline.len <= PEER_MAX_CMDLINE && no_nul(m.cmdline));
	if (m.status != PEER_OK && m.status != PEER_NOPIDFD)
		CHECK(m.exe.len == 0 && m.cmdline.len == 0 && m.nanc == 0);
	for (uint32_t i = 0; i < m.nanc; i++) {
		CHECK(m.anc[i].pid >= 1 && m.anc[i].pid <= PEER_MAX_PID);
		CHECK(m.anc[i].exe.len <= PEER_MAX_EXE && no_nul(m.anc[i].exe));
		CHECK(m.anc[i].argv0.len <= PEER_MAX_ARGV0 && no_nul(m.anc[i].argv0));
	}
	CHECK(n <= PEER_MAX_REPLY);
	wb_init(&w);
	peer_reply_encode(&w, &m);
	CHECK(fuzz_same(&w, p, n));
	wb_free(&w);
}

static void
request(const uint8_t *p, size_t n)
{
	struct peer_req m;
	struct wb w;
	struct rd r;

	rd_init(&r, p, n);
	if (peer_req_decode(&r, &m) != 0)
		return;
	CHECK(m.pid >= 1 && m.pid <= PEER_MAX_PID);
	CHECK((m.flags & ~PEER_REQ_PIDFD) == 0);
	CHECK(n == PEER_MAX_REQUEST);
	wb_init(&w);
	peer_req_encode(&w, &m);
	CHECK(fuzz_same(&w, p, n));
	wb_free(&w);
}

/* The text parsers get a copy of exactly n bytes (no terminator), so ASan
 * sees any read past the end. */
static char *
copy(const uint8_t *p, size_t n)
{
	char *c = malloc(n ? n : 1);

	if (c == NULL)
		abort();
	memcpy(c, p, n);
	return c;
}

static void
stat_line(const uint8_t *p, size_t n)
{
	struct proc_stat st;
	char *c = copy(p, n);

	if (proc_stat_parse(c, n, &st) == 0)
		CHECK(st.pid > 0 && st.ppid >= 0);
	free(c);
}

static void
status_file(const uint8_t *p, size_t n)
{
	char *c = copy(p, n);
	uint32_t euid;
	int64_t v;

	if (proc_status_ppid(c, n, &v) == 0)
		CHECK(v >= 0);
	(void)proc_status_euid(c, n, &euid);
	free(c);
}

static void
fdinfo(const uint8_t *p, size_t n)
{
	char *c = copy(p, n);
	int64_t v;

	(void)proc_fdinfo_pid(c, n, &v);
	free(c);
}

static void
cmdline(const uint8_t *p, size_t n)
{
	static char out[PEER_MAX_CMDLINE + 1];
	size_t cap = PEER_MAX_CMDLINE, len;
	uint8_t *c;

	if (n > 0) {
		cap = p[0] % (PEER_MAX_CMDLINE + 1);
		p++;
		n--;
	}
	c = (uint8_t *)copy(p, n);
	for (int pass = 0; pass < 2; pass++) {
		size_t k = pass ? cap : PEER_MAX_CMDLINE;

		len = proc_cmdline_join(c, n, out, k);
		CHECK(len <= k && len <= n && out[len] == '\0');
		CHECK(memchr(out, '\0', len) == NULL);
		len = proc_argv0(c, n, out, k < PEER_MAX_ARGV0 ? k : PEER_MAX_ARGV0);
		CHECK(len <= PEER_MAX_ARGV0 && len <= n && out[len] == '\0');
		CHECK(memchr(out, '\0', len) == NULL);
	}
	free(c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0]) {
	case 0:
		reply(data + 1, size - 1);
		break;
	case 1:
		request(data + 1, size - 1);
		break;
	case 2:
		stat_line(data + 1, size - 1);
		break;
	case 3:
		status_file(data + 1, size - 1);
		break;
	case 4:
		fdinfo(data + 1, size - 1);
		break;
	case 5:
		cmdline(data + 1, size - 1);
		break;
	default:
		reply(data + 1, size - 1);
		request(data + 1, size - 1);
		stat_line(data + 1, size - 1);
		status_file(data + 1, size - 1);
		fdinfo(data + 1, size - 1);
		cmdline(data + 1, size - 1);
		break;
	}
	return 0;
}
