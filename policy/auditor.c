/*
 * auditor.c - the audit writer: forked by policy before its sandbox, it
 * holds only its channel to policy, the audit trail (a file, stderr, or a
 * datagram socket to syslog) and, with -O audit-key=, the key file.
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
 * Syslog is spoken here, not by glibc: glibc's syslog() opens files
 * (the time zone) the filter does not allow, and dies for it. A message is
 * "<PRI>Mmm dd hh:mm:ss TAG[PID]: RECORD", the local form journald and
 * rsyslog both read from /dev/log; the socket is connected before the
 * filter, and connected again (socket + connect, all the filter allows
 * beyond send) when the daemon restarted. A message that cannot be sent
 * is a record not written: signing is refused until one can be.
 */
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"
#include "ipc/spawn.h"
#include "wire/auditor.h"
#include "policy/audit.h"
#include "crypto/auditchain.h"
#include "seccomp/sandbox.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct auditor {
	int fd;                         /* the file trail, or -1 */
	int sync;
	int use_syslog;
	int log_fd;                     /* the syslog socket, -1: not connected */
	int stalled;                    /* its queue stayed full: do not wait */
	struct sockaddr_un sa;
	int facility;
	const char *tag;
	long pid;
	int key_fd;                     /* -1: no key, no seals */
	struct audit_state st;          /* key: the next sealing key */
	uint64_t seq;                   /* of the next line */
	uint8_t prev[AUDIT_HASH_LEN];   /* hash of the last line written */
	size_t unsealed;                /* lines since the last seal */
	uint64_t unsealed_since_ms;
};

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
log_connect(struct auditor *a)
{
	if (a->log_fd >= 0)
		close(a->log_fd);
	a->log_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (a->log_fd < 0)
		return;
	if (connect(a->log_fd, (struct sockaddr *)&a->sa, sizeof(a->sa)) != 0) {
		close(a->log_fd);
		a->log_fd = -1;
	}
}

/* One datagram to syslog; once more on a new connection if the daemon
 * went away (it restarted, or its socket is gone: then that fails too). */
static int
syslog_send(struct auditor *a, struct slice line)
{
	static const char mon[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
	    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	char head[96];
	struct timespec now;
	struct tm tm;
	struct wb w;
	int n, rc = -1;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	n = snprintf(head, sizeof(head), "<%d>%s %2d %02d:%02d:%02d %s[%ld]: ",
	    a->facility | 6 /* LOG_INFO */, mon[tm.tm_mon % 12], tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec, a->tag, a->pid);
	wb_init(&w);
	wb_bytes(&w, head, (size_t)n);
	wb_bytes(&w, line.p, line.len);
	if (w.err)
		goto out;
	for (int tries = 0; tries < 2; tries++) {
		ssize_t r;
		if (a->log_fd < 0)
			log_connect(a);
		if (a->log_fd < 0)
			continue;
		do
			r = send(a->log_fd, w.p, w.len, MSG_DONTWAIT | MSG_NOSIGNAL);
		while (r < 0 && errno == EINTR);
		if (r < 0 && errno == EAGAIN) {
			/* the daemon's queue is full: wait for it a little,
			 * and not again while it stays full (each record would
			 * hold the next back as long) */
			struct pollfd p = { a->log_fd, POLLOUT, 0 };
			if (poll(&p, 1, a->stalled ? 0 : AUDIT_SYSLOG_WAIT_MS) == 1)
				do
					r = send(a->log_fd, w.p, w.len,
					    MSG_DONTWAIT | MSG_NOSIGNAL);
				while (r < 0 && errno == EINTR);
			if (r < 0) {
				a->stalled = 1;
				break;  /* still full: this record is not written */
			}
		}
		if (r == (ssize_t)w.len) {
			a->stalled = 0;
			rc = 0;
			break;
		}
		if (r >= 0) {
			errno = EMSGSIZE;
			break;
		}
		if (errno != ECONNREFUSED && errno != ENOTCONN &&
		    errno != ECONNRESET && errno != EPIPE && errno != ENOENT)
			break;
		close(a->log_fd);       /* the daemon is gone: connect anew */
		a->log_fd = -1;
	}
out:
	wb_free(&w);
	return rc;
}

static int
write_line(struct auditor *a, struct slice line)
{
	struct wb w;
	size_t off = 0;
	ssize_t r;
	int rc = 0;

	if (a->use_syslog)
		return syslog_send(a, line);
	wb_init(&w);
	wb_bytes(&w, line.p, line.len);
	wb_u8(&w, '\n');
	if (w.err)
		return -1;
	/* O_APPEND: one write is one whole line at the end of the file. */
	while (off < w.len) {
		r = write(a->fd, w.p + off, w.len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)r;
	}
	if (rc == 0 && a->sync && fdatasync(a->fd) != 0 && errno != EINVAL)
		rc = -1;        /* EINVAL: a pipe or terminal, nothing to sync */
	wb_free(&w);
	return rc;
}

static void
utc_now(char *ts, size_t n)
{
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(ts, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
	    tm.tm_sec, now.tv_nsec / 1000000);
}

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
			a->unsealed_since_ms = mono_ms();
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
		a->unsealed_since_ms = mono_ms();
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

static void
seal_and_exit(struct auditor *a, int status)
{
	seal(a);
	wipe(&a->st, sizeof(a->st));
	_exit(status);
}

static int
seal_timeout(const struct auditor *a)
{
	uint64_t due, now;

	if (a->key_fd < 0 || a->unsealed == 0)
		return -1;
	due = a->unsealed_since_ms + AUDIT_SEAL_INTERVAL_S * 1000ULL;
	now = mono_ms();
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

static void
auditor_main(int chan_fd, int audit_fd, const struct policy_args *args)
{
	static uint8_t buf[IPC_MAX_MSG + 1];
	static struct auditor a;
	struct pollfd pfd;
	struct chan c;
	struct msg_hdr h;
	struct msg_blob m;
	struct wb out;
	struct rd r;
	size_t n;
	int rc, failed = 0;

	log_init("keyward-auditor", log_level(), 0);
	chan_init(&c, chan_fd);
	wb_init(&out);
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
	sandbox_harden();
	sandbox_landlock("auditor", NULL, NULL);
	sandbox_auditor(chan_fd, audit_fd, a.use_syslog, a.key_fd);
	start_record(&a);
	for (;;) {
		int timeout = seal_timeout(&a);
		pfd = (struct pollfd){ c.fd, chan_events(&c), 0 };
		if (timeout == 0) {
			seal(&a);
			continue;
		}
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR)
			seal_and_exit(&a, 1);
		if ((pfd.revents & POLLOUT) && chan_flush(&c) != 0)
			seal_and_exit(&a, 0);
		while ((rc = chan_recv(&c, buf, sizeof(buf), &n)) > 0) {
			rd_init(&r, buf, n);
			if (msg_hdr_decode(&r, &h) != 0 || h.type != MSG_AUDIT ||
			    msg_blob_decode(&r, &m) != 0)
				seal_and_exit(&a, 1);
			/* policy's record is one JSON object: the chain fields
			 * go first, then its members */
			if (m.blob.len < 2 || m.blob.p[0] != '{')
				rc = -1;
			else
				rc = chain_write(&a, m.blob.p + 1, m.blob.len - 1);
			if (rc != 0 && !failed)
				log_error("cannot write the audit trail (%m): signing "
				    "is refused until it can be written");
			else if (rc == 0 && failed)
				log_error("the audit trail is written again");
			failed = rc != 0;
			if (rc == 0 && a.unsealed >= AUDIT_SEAL_RECORDS)
				seal(&a);
			if (h.req == 0)
				continue;       /* no one waits for this one */
			msg_begin(&out, MSG_R_STATUS, h.req, 0);
			msg_status_encode(&out, &(struct msg_status){ rc == 0 ?
			    ST_OK : ST_FAIL });
			if (chan_send(&c, &out) != 0)
				seal_and_exit(&a, 0);
		}
		if (rc < 0)
			seal_and_exit(&a, 0);   /* policy is gone */
	}
}

struct auditor_start {
	int has_fd;
	const struct policy_args *args;
};

static void
auditor_run(void *arg)
{
	const struct auditor_start *s = arg;

	auditor_main(3, s->has_fd ? 4 : -1, s->args);
}

int
auditor_spawn(int audit_fd, const struct policy_args *args)
{
	struct auditor_start s = { audit_fd >= 0, args };
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0)
		fatal("socketpair: %m");
	chan_setup_fd(sp[0]);
	chan_setup_fd(sp[1]);
	/* Nothing but stderr, the channel and the trail stays open. */
	if (spawn(&(struct spawn){ .fds = { sp[1], audit_fd }, .nfds = 2,
	    .stdout_fd = -1, .stderr_fd = -1, .run = auditor_run, .arg = &s }) < 0)
		fatal("cannot start the auditor: %m");
	close(sp[1]);
	if (audit_fd >= 0)
		close(audit_fd);
	return sp[0];
}
