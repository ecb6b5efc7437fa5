/*
 * auditor/main.c - keyward-auditor, the audit writer: started by policy
 * (spawn(), with its channel at fd 3, a file trail at fd 4 and the list
 * of wire/args.h) before policy's sandbox; a program of its own, it
 * shares no memory with policy. It holds only its channel to policy, the
 * audit trail (a file, stderr, or a datagram socket to syslog) and, with
 * -O audit-key=, the key file.
 *
 * Each record arrives as one datagram and leaves as one write() of one
 * line (or one syslog message), so lines never interleave; with
 * -O audit-sync=yes each is on disk before it is acknowledged. Policy
 * waits for the acknowledgement before it lets a signature be made: no
 * signature goes unrecorded.
 *
 * The auditor puts each record in the chain (crypto/auditchain.h): its
 * seq and the hash of the line before; with a key it seals the chain every
 * AUDIT_SEAL_RECORDS records, AUDIT_SEAL_INTERVAL_S after the first
 * unsealed one, and at exit, and after each seal evolves the key and
 * rewrites the key file, so no key already used is kept anywhere.
 *
 * This file: start, the chain, seals, policy's records; trail.c: the
 * file or syslog the lines go to (auditor.h).
 */
#include "auditor/auditor.h"
#include "ipc/clock.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/sibling.h"
#include "ipc/start.h"
#include "wire/args.h"
#include "wire/auditor.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Write one line of the chain: {"seq":N,"prev":"H", then rest (a record's
 * members and its closing brace). On success the chain moves on. */
static int
chain_write(struct auditor *a, const void *rest, size_t n)
{
	char head[128], hex[AUDIT_HEX_LEN + 1];
	struct wb w;
	int len, rc;

	auditchain_hex(a->prev, sizeof(a->prev), hex);
	len = snprintf(head, sizeof(head), "{\"seq\":%llu,\"prev\":\"%s\",",
	    (unsigned long long)a->seq, hex);
	wb_init(&w);
	wb_bytes(&w, head, (size_t)len);
	wb_bytes(&w, rest, n);
	if (w.err) {
		wb_free(&w);
		return -1;
	}
	rc = write_line(a, wb_slice_of(&w));
	if (rc == 0) {
		auditchain_hash(w.p, w.len, a->prev);
		a->seq++;
		if (a->unsealed++ == 0)
			a->unsealed_since_ms = clock_mono_ms();
	}
	wb_free(&w);
	return rc;
}

static void
start_record(struct auditor *a)
{
	char rest[160], ts[40];
	int n;

	utc_now(ts, sizeof(ts));
	n = snprintf(rest, sizeof(rest), "\"event\":\"audit-start\",\"sealed\":%s,"
	    "\"epoch\":%llu,\"time\":\"%s\"}", a->key_fd >= 0 ? "true" : "false",
	    (unsigned long long)a->st.epoch, ts);
	if (chain_write(a, rest, (size_t)n) != 0)
		log_error("cannot write the audit trail's first record (%m)");
}

/* Seal what was written since the last seal, then evolve the key and
 * keep only the new one (in memory and in the key file). */
static void
seal(struct auditor *a)
{
	uint8_t mac[AUDIT_HASH_LEN];
	char rest[256], hex[AUDIT_HEX_LEN + 1], ts[40], state[AUDIT_STATE_LEN];
	uint64_t seq = a->seq;
	int n;

	if (a->key_fd < 0 || a->unsealed == 0)
		return;
	if (auditchain_mac(a->st.key, seq, a->st.epoch, a->prev, mac) != 0)
		return;
	auditchain_hex(mac, sizeof(mac), hex);
	utc_now(ts, sizeof(ts));
	n = snprintf(rest, sizeof(rest), "\"event\":\"seal\",\"epoch\":%llu,"
	    "\"hmac\":\"%s\",\"time\":\"%s\"}", (unsigned long long)a->st.epoch,
	    hex, ts);
	if (chain_write(a, rest, (size_t)n) != 0) {
		log_error("cannot write an audit seal (%m); trying again later");
		/* the key stays: the next seal covers these too */
		a->unsealed_since_ms = clock_mono_ms();
		return;
	}
	a->unsealed = 0;
	auditchain_evolve(a->st.key);
	a->st.epoch++;
	a->st.seq = seq + 1;
	memcpy(a->st.last, a->prev, sizeof(a->st.last));
	auditstate_format(&a->st, state);
	if (pwrite(a->key_fd, state, sizeof(state), 0) != (ssize_t)sizeof(state) ||
	    fdatasync(a->key_fd) != 0)
		log_error("cannot rewrite the audit key file (%m): it may still "
		    "hold the key of the last seal");
	wipe(state, sizeof(state));
	if (a->st.epoch >= AUDIT_MAX_EPOCH) {
		log_error("the audit key is used up (%lu seals): no more seals; "
		    "make a new one (keyward-ctl audit keygen)", AUDIT_MAX_EPOCH);
		wipe(&a->st, sizeof(a->st));
		close(a->key_fd);
		a->key_fd = -1;
	}
}

static int
seal_timeout(const struct auditor *a)
{
	uint64_t due, now;

	if (a->key_fd < 0 || a->unsealed == 0)
		return -1;
	due = a->unsealed_since_ms + AUDIT_SEAL_INTERVAL_S * 1000ULL;
	now = clock_mono_ms();
	return due <= now ? 0 : (int)(due - now);
}

/* The key file: opened, locked (one agent per key) and read before the
 * sandbox. */
static void
key_open(struct auditor *a, const char *path)
{
	char buf[AUDIT_STATE_LEN + 1];
	ssize_t n;

	a->key_fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (a->key_fd < 0)
		fatal("cannot open the audit key %s: %m", path);
	if (flock(a->key_fd, LOCK_EX | LOCK_NB) != 0)
		fatal("the audit key %s is in use by another agent", path);
	n = pread(a->key_fd, buf, sizeof(buf), 0);
	if (n != AUDIT_STATE_LEN || auditstate_parse(buf, (size_t)n, &a->st) != 0)
		fatal("%s is not an audit key (keyward-ctl audit keygen)", path);
	wipe(buf, sizeof(buf));
	a->seq = a->st.seq;
	memcpy(a->prev, a->st.last, sizeof(a->prev));
}

static struct auditor a;
static struct chan c;
static struct wb out;
static int failed;              /* the last record could not be written */

#define POLICY "keyward-policy"

/* However the auditor ends, what it wrote is sealed first. */
static void
seal_at_end(void)
{
	seal(&a);
	wipe(&a.st, sizeof(a.st));
}

/* MSG_AUDIT: one record into the chain, acknowledged unless req is 0. */
static void
h_record(uint32_t req, struct rd *r)
{
	struct slice line;
	int rc;

	if (msg_string_read(r, &line) != 0)
		peer_broke(POLICY, "a malformed record");
	/* policy's record is one JSON object: the chain fields go first,
	 * then its members */
	if (line.len < 2 || line.p[0] != '{')
		rc = -1;
	else
		rc = chain_write(&a, line.p + 1, line.len - 1);
	if (rc != 0 && !failed)
		log_error("cannot write the audit trail (%m): signing "
		    "is refused until it can be written");
	else if (rc == 0 && failed)
		log_error("the audit trail is written again");
	failed = rc != 0;
	if (rc == 0 && a.unsealed >= AUDIT_SEAL_RECORDS)
		seal(&a);
	if (req == 0)
		return;                 /* no one waits for this one */
	msg_status_reply(&out, req, 0, rc == 0 ? ST_OK : ST_FAIL);
	if (chan_send(&c, &out) != 0)
		peer_gone(POLICY);
}

/* Policy's messages, one handler each. Anything else is policy gone
 * wrong: the auditor seals what it has and ends, and policy with it
 * (ipc/sibling.h; seal_at_end). */
static const struct {
	uint8_t type;
	void (*fn)(uint32_t req, struct rd *r);
} from_policy[] = {
	{ MSG_AUDIT, h_record },
};

static void
request(const uint8_t *p, size_t n)
{
	struct msg_hdr h;
	struct rd r;

	msg_sibling_hdr(POLICY, p, n, &r, &h);
	MSG_ROW(POLICY, from_policy, h.type)->fn(h.req, &r);
}

/* Everything that needs a file (the trail, the syslog socket, the key,
 * libcrypto's configuration, the time zone) before the sandbox. */
static void
setup(const struct auditor_args *args, int audit_fd)
{
	a.fd = audit_fd;
	a.sync = args->audit_sync;
	a.use_syslog = args->audit == AUDIT_SYSLOG;
	a.log_fd = -1;
	a.key_fd = -1;
	a.facility = (int)args->audit_facility;
	a.tag = args->audit_tag;
	a.pid = (long)getpid();
	/* The time zone, for syslog's local time stamp, read while there
	 * are files. */
	tzset();
	if (a.use_syslog) {
		a.sa.sun_family = AF_UNIX;
		snprintf(a.sa.sun_path, sizeof(a.sa.sun_path), "%s", args->audit_socket);
		log_connect(&a);        /* if nothing listens yet, at the first record */
	}
	if (args->audit_key != NULL)
		key_open(&a, args->audit_key);
	{
		/* libcrypto reads its configuration at its first use: let
		 * that be now, while there are files */
		uint8_t k[AUDIT_KEY_LEN] = { 0 }, o[AUDIT_HASH_LEN];
		if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1 ||
		    auditchain_mac(k, 0, 0, k, o) != 0)
			fatal("cannot initialise libcrypto");
		auditchain_hash(k, sizeof(k), o);
	}
}

int
main(int argc, char **argv)
{
	static uint8_t buf[IPC_MAX_MSG + 1];
	struct auditor_args args;
	struct pollfd pfd;
	size_t n;
	int rc, audit_fd = -1;

	/* policy starts the auditor with exactly one argument list
	 * (wire/args.h); anything else is refused whole */
	if (args_auditor_decode(argc, argv, &args) != 0)
		start_refused("keyward-auditor");
	start_helper("keyward-auditor", args.debug, START_IGNORE_INT);
	if (args.audit == AUDIT_FD) {
		audit_fd = 4;           /* the trail (ipc/spawn.h) */
		if (fcntl(audit_fd, F_GETFD) < 0)
			fatal("audit trail fd 4 is not open");
	}
	chan_init(&c, 3);
	wb_init(&out);
	setup(&args, audit_fd);
	sandbox_harden();
	sandbox_landlock("auditor", NULL, NULL);
	sandbox_auditor(c.fd, audit_fd, a.use_syslog, a.key_fd);
	start_record(&a);
	peer_at_end(seal_at_end);
	for (;;) {
		int timeout = seal_timeout(&a);
		pfd = (struct pollfd){ c.fd, chan_events(&c), 0 };
		if (timeout == 0) {
			seal(&a);
			continue;
		}
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR) {
			seal_at_end();
			fatal("poll: %m");
		}
		if ((pfd.revents & POLLOUT) && chan_flush(&c) != 0)
			peer_gone(POLICY);
		while ((rc = chan_recv(&c, buf, sizeof(buf), &n)) > 0)
			request(buf, n);
		if (rc < 0)
			peer_recv_end(POLICY, rc, n);
	}
}
