/*
 * audit.c - keyward-ctl audit: keygen makes the key the auditor seals the
 * trail with (-O audit-key=) and prints its verification key, once;
 * verify checks a trail read back (crypto/auditchain.h) and says where it
 * was first changed; tail prints it for a person, and follows it.
 * The trail is a file anyone with the uid may have written: nothing of it
 * reaches the terminal unescaped.
 */
#include "ctl/audit.h"
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "ipc/text.h"
#include "crypto/auditchain.h"
#include "wire/args.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

enum { EX_OK = 0, EX_TAMPERED = 1, EX_UNPROVEN = 3, EX_USAGE = 255 };

static const char *
shown(const char *s)
{
	static char t[TEXT_TERM_MAX];

	return text_term_str(t, sizeof(t), s);
}

static int
keygen(const char *path)
{
	struct audit_state st = { 0 };
	char buf[AUDIT_STATE_LEN], hex[AUDIT_HEX_LEN + 1];
	int fd;

	if (getrandom(st.key, sizeof(st.key), 0) != (ssize_t)sizeof(st.key)) {
		fprintf(stderr, "keyward-ctl: getrandom: %s\n", strerror(errno));
		return EX_USAGE;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "keyward-ctl: cannot create %s: %s\n", shown(path),
		    strerror(errno));
		wipe(&st, sizeof(st));
		return EX_USAGE;
	}
	auditstate_format(&st, buf);
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd) != 0 ||
	    close(fd) != 0) {
		fprintf(stderr, "keyward-ctl: cannot write %s: %s\n", shown(path),
		    strerror(errno));
		unlink(path);
		wipe(&st, sizeof(st));
		wipe(buf, sizeof(buf));
		return EX_USAGE;
	}
	auditchain_hex(st.key, sizeof(st.key), hex);
	/* Named by its prefix, not by its place: on a terminal stdout and
	 * stderr interleave in either order. */
	fprintf(stderr, "keyward-ctl: the audit key is %s: give it to keyward as "
	    "-O audit-key=%s.\nkeyward-ctl: the line beginning %s is its "
	    "verification key, shown this once: keep it away from this machine "
	    "(whoever holds it can forge seals); keyward-ctl audit verify needs "
	    "it.\n", shown(path), shown(path), AUDIT_VKEY_PREFIX);
	printf("%s%s\n", AUDIT_VKEY_PREFIX, hex);
	fflush(stdout);
	wipe(&st, sizeof(st));
	wipe(buf, sizeof(buf));
	wipe(hex, sizeof(hex));
	return ferror(stdout) ? EX_USAGE : EX_OK;
}

/* A whole file into memory (the trail, a key): NULL and a message if not. */
static uint8_t *
slurp(const char *path, size_t *len, size_t max)
{
	struct wb w;
	uint8_t chunk[65536];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		fprintf(stderr, "keyward-ctl: cannot open %s: %s\n", shown(path),
		    strerror(errno));
		return NULL;
	}
	wb_init(&w);
	while ((r = read(fd, chunk, sizeof(chunk))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || w.len + (size_t)r > max) {
			fprintf(stderr, "keyward-ctl: cannot read %s: %s\n", shown(path),
			    r < 0 ? strerror(errno) : "too long");
			close(fd);
			wb_free_secret(&w);
			return NULL;
		}
		wb_bytes(&w, chunk, (size_t)r);
	}
	close(fd);
	wipe(chunk, sizeof(chunk));
	if (w.err) {
		fprintf(stderr, "keyward-ctl: %s: out of memory\n", shown(path));
		wb_free_secret(&w);
		return NULL;
	}
	*len = w.len;
	if (w.p == NULL)
		return calloc(1, 1);
	return w.p;
}

/* KEY: the verification key as keygen printed it, its 64 hex digits, or
 * a file holding either. */
static int
read_vkey(const char *arg, uint8_t key[AUDIT_KEY_LEN])
{
	const char *s = arg;
	uint8_t *file = NULL;
	size_t n, plen = strlen(AUDIT_VKEY_PREFIX);
	int rc = -1;

	n = strlen(s);
	if (!(n == AUDIT_HEX_LEN || (n == plen + AUDIT_HEX_LEN &&
	    memcmp(s, AUDIT_VKEY_PREFIX, plen) == 0))) {
		if ((file = slurp(arg, &n, 4096)) == NULL)
			return -1;
		while (n > 0 && (file[n - 1] == '\n' || file[n - 1] == ' ' ||
		    file[n - 1] == '\r'))
			n--;
		s = (const char *)file;
	}
	if (n == plen + AUDIT_HEX_LEN && memcmp(s, AUDIT_VKEY_PREFIX, plen) == 0) {
		s += plen;
		n -= plen;
	}
	if (n == AUDIT_HEX_LEN && auditchain_unhex(s, n, key) == 0)
		rc = 0;
	else
		fprintf(stderr, "keyward-ctl: %s is not an audit verification key\n",
		    file != NULL ? shown(arg) : "the key given");
	if (file != NULL) {
		wipe(file, n);
		free(file);
	}
	return rc;
}

/* A syslog file holds other programs' lines: keep keyward's, those
 * whose tag (before its "[PID]" or ":") is tag or, with any_tag (no
 * --tag given), that carry a trail record, and note each one's line in
 * the file; the chain then finds any of them changed or missing. A file whose first
 * line is a trail line is the trail itself: nothing is dropped, as a
 * line added there is tampering. NULL if out of memory. */
static uint8_t *
own_lines(const uint8_t *buf, size_t len, const char *tag, int any_tag,
    size_t **map, size_t *nmap, size_t *olen, size_t *dropped)
{
	size_t off = 0, lineno = 0, k = 0, tl = strlen(tag), nlines = 1;
	uint8_t *out;
	int syslog_file;

	for (size_t i = 0; i < len; i++)
		nlines += buf[i] == '\n';
	*dropped = 0;
	*olen = 0;
	if ((out = malloc(len + 1)) == NULL ||
	    (*map = calloc(nlines + 1, sizeof(**map))) == NULL) {
		free(out);
		return NULL;
	}
	syslog_file = len > 0 && buf[0] != '{';
	while (off < len) {
		const uint8_t *p = buf + off, *nl = memchr(p, '\n', len - off);
		size_t n = nl != NULL ? (size_t)(nl - p) : len - off;
		const uint8_t *m;
		int mine = 1;

		off += n + (nl != NULL);
		lineno++;
		if (syslog_file) {
			/* " TAG[" or " TAG:" before the message; without
			 * --tag, any line that carries a trail record too */
			mine = !any_tag ? 0 : memmem(p, n, "{\"seq\":", 7) != NULL;
			for (m = p; !mine && m + tl + 2 <= p + n; m++)
				if (*m == ' ' && memcmp(m + 1, tag, tl) == 0 &&
				    (m[1 + tl] == '[' || m[1 + tl] == ':'))
					mine = 1;
		}
		if (!mine) {
			(*dropped)++;
			continue;
		}
		memcpy(out + *olen, p, n);
		*olen += n;
		out[(*olen)++] = '\n';
		(*map)[++k] = lineno;
	}
	*nmap = k;
	return out;
}

/* What verify says of a trail it found no tampering in: EX_OK or
 * EX_UNPROVEN; -1 for another finding. */
static int
say_unproven(const char *name, enum audit_finding f,
    const struct audit_verdict *v)
{
	switch (f) {
	case AV_INTACT:
		printf("%s: intact: %zu lines, %zu seals verified, every line "
		    "sealed\n", name, v->lines, v->seals);
		return EX_OK;
	case AV_UNSEALED:
		printf("%s: no tampering found in %zu lines, %zu seals verified; "
		    "but %zu lines ", name, v->lines, v->seals, v->unsealed);
		if (v->last_seal > 0)
			printf("after the last seal (line %zu) are unsealed",
			    v->last_seal);
		else
			printf("are unsealed (no seal at all)");
		if (v->lost > 0)
			printf(", and %zu lines of a run that ended without its "
			    "final seal", v->lost);
		printf(": nothing vouches for them\n");
		return EX_UNPROVEN;
	case AV_UNCHECKED:
		printf("%s: the chain of %zu lines is unbroken (%zu seals, not "
		    "checked: no verification key given)\n", name, v->lines, v->seals);
		return EX_UNPROVEN;
	case AV_EMPTY:
		printf("%s: empty: no record at all\n", name);
		return EX_UNPROVEN;
	default:
		return -1;
	}
}

/* ... of lines changed, added, removed or moved: EX_TAMPERED; -1 for
 * another finding. */
static int
say_tampered(const char *name, enum audit_finding f,
    const struct audit_verdict *v)
{
	switch (f) {
	case AV_HEAD_CUT:
		printf("%s: the trail begins at seq %llu, not at its first "
		    "record: %llu records before it were cut off (if the file "
		    "was rotated, verify the files joined in order)\n", name,
		    (unsigned long long)v->seq, (unsigned long long)v->seq);
		return EX_TAMPERED;
	case AV_WIPED:
		printf("%s: empty, but the key file says %llu records were "
		    "written: the trail was wiped\n", name,
		    (unsigned long long)v->seq);
		return EX_TAMPERED;
	case AV_NOT_RECORD:
		printf("%s: line %zu is not an audit record: changed or added\n",
		    name, v->line);
		return EX_TAMPERED;
	case AV_CHANGED:
		printf("%s: line %zu (seq %llu) was changed: line %zu does not "
		    "carry its hash\n", name, v->other, (unsigned long long)v->seq,
		    v->line);
		return EX_TAMPERED;
	case AV_REMOVED:
		printf("%s: record seq %llu was removed: it should be at line %zu\n",
		    name, (unsigned long long)v->seq, v->line);
		return EX_TAMPERED;
	case AV_REORDERED:
		printf("%s: records were reordered: seq %llu should be at line %zu "
		    "and is at line %zu\n", name, (unsigned long long)v->seq, v->line,
		    v->other);
		return EX_TAMPERED;
	case AV_ADDED:
		printf("%s: line %zu was added: it repeats a record or comes out of "
		    "order (seq %llu expected)\n", name, v->line,
		    (unsigned long long)v->seq);
		return EX_TAMPERED;
	default:
		return -1;
	}
}

/* ... of seals that do not verify or are missing: EX_TAMPERED; -1 for
 * another finding. */
static int
say_seal(const char *name, enum audit_finding f,
    const struct audit_verdict *v)
{
	switch (f) {
	case AV_BAD_SEAL:
		if (v->last_seal > 0)
			printf("%s: the seal at line %zu does not verify: a line "
			    "after the seal before it (line %zu) was changed, or "
			    "the key is wrong\n", name, v->line, v->last_seal);
		else
			printf("%s: the seal at line %zu does not verify: the "
			    "key is wrong, or a line before it was changed\n",
			    name, v->line);
		return EX_TAMPERED;
	case AV_SEAL_EPOCH:
		printf("%s: the seal at line %zu is out of its order (epoch %llu "
		    "expected): replayed or moved\n", name, v->line,
		    (unsigned long long)v->seq);
		return EX_TAMPERED;
	case AV_TRUNCATED:
		if (v->last_seal > 0)
			printf("%s: sealed records are missing at the end: the "
			    "key is at epoch %llu, the last seal here (line %zu) "
			    "leaves it at %llu\n", name, (unsigned long long)v->seq,
			    v->last_seal, (unsigned long long)v->next_epoch);
		else
			printf("%s: sealed records are missing at the end: the "
			    "key is at epoch %llu, and no seal here vouches for "
			    "any line\n", name, (unsigned long long)v->seq);
		return EX_TAMPERED;
	default:
		return -1;
	}
}

/* The verification key and, with --state, the key file's state: 0, or
 * EX_USAGE once said why. */
static int
verify_keys(const char *keyarg, const char *statepath,
    uint8_t key[AUDIT_KEY_LEN], struct audit_state *st)
{
	uint8_t *sbuf;
	size_t slen;
	int rc;

	if (statepath != NULL && keyarg == NULL) {
		fputs("keyward-ctl: --state needs the verification key\n", stderr);
		return EX_USAGE;
	}
	if (keyarg != NULL && read_vkey(keyarg, key) != 0)
		return EX_USAGE;
	if (statepath == NULL)
		return 0;
	if ((sbuf = slurp(statepath, &slen, AUDIT_STATE_LEN + 1)) == NULL)
		return EX_USAGE;
	rc = auditstate_parse((const char *)sbuf, slen, st);
	wipe(sbuf, slen);
	free(sbuf);
	if (rc != 0) {
		fprintf(stderr, "keyward-ctl: %s is not an audit key\n",
		    shown(statepath));
		return EX_USAGE;
	}
	return 0;
}

/* What verify says before its finding: lines of other programs left out,
 * and where the trail begins. */
static void
say_head(const char *name, const char *tag, size_t dropped,
    enum audit_finding f, const struct audit_verdict *v)
{
	if (dropped > 0)
		printf("%s: %zu lines of other programs left out (keyward's: "
		    "tagged %s%s)\n", name, dropped, shown(tag != NULL ? tag :
		    AUDIT_TAG_DEFAULT), tag != NULL ? "" : ", or a trail record");
	if (v->lines > 0 && (f == AV_INTACT || f == AV_UNSEALED ||
	    f == AV_UNCHECKED || f == AV_TRUNCATED))
		printf("%s: the trail begins at seq %llu%s\n", name,
		    (unsigned long long)v->first_seq, v->first_seq == 0 ?
		    " (its first record)" : ": the records before it are not "
		    "in this file");
}

static int
verify(const char *path, const char *keyarg, const char *statepath,
    const char *tag)
{
	uint8_t key[AUDIT_KEY_LEN], *buf, *own;
	struct audit_state st;
	struct audit_verdict v;
	enum audit_finding f;
	char name[TEXT_TERM_MAX];
	size_t len, olen, dropped, *map, nmap;
	int rc;

	if ((rc = verify_keys(keyarg, statepath, key, &st)) != 0)
		return rc;
	if ((buf = slurp(path, &len, SIZE_MAX / 2)) == NULL)
		return EX_USAGE;
	if ((own = own_lines(buf, len, tag != NULL ? tag : AUDIT_TAG_DEFAULT,
	    tag == NULL, &map, &nmap, &olen, &dropped)) == NULL) {
		fputs("keyward-ctl: out of memory\n", stderr);
		free(buf);
		return EX_USAGE;
	}
	free(buf);
	f = audit_verify(own, olen, keyarg != NULL ? key : NULL,
	    statepath != NULL ? &st : NULL, &v);
	wipe(key, sizeof(key));
	wipe(&st, sizeof(st));
	free(own);
	/* lines as the file numbers them */
	v.line = map[v.line <= nmap ? v.line : 0];
	v.other = map[v.other <= nmap ? v.other : 0];
	v.last_seal = map[v.last_seal <= nmap ? v.last_seal : 0];
	free(map);
	text_term_str(name, sizeof(name), path);
	say_head(name, tag, dropped, f, &v);
	if ((rc = say_unproven(name, f, &v)) < 0 &&
	    (rc = say_tampered(name, f, &v)) < 0 &&
	    (rc = say_seal(name, f, &v)) < 0)
		rc = EX_USAGE;
	if (fflush(stdout) != 0)
		return EX_USAGE;
	return rc;
}

/* ------------------------------------------------------------------ tail */

/* The string value of "name" in a record's top level, or of its first
 * occurrence anywhere (for key.comment, ...): a minimal reader, enough for
 * what keyward writes; NULL if absent. Unescapes \" \\ and \uXXXX < 0x80
 * and leaves other escapes as they are (the terminal form escapes them
 * again). */
static const char *
field(const char *rec, const char *name, char *out, size_t n)
{
	char pat[64];
	const char *p;
	size_t k = 0;

	snprintf(pat, sizeof(pat), "\"%s\":", name);
	if ((p = strstr(rec, pat)) == NULL)
		return NULL;
	p += strlen(pat);
	if (*p != '"') {
		/* a number, true, false or null */
		while (*p != '\0' && *p != ',' && *p != '}' && *p != ']' && k + 1 < n)
			out[k++] = *p++;
		out[k] = '\0';
		return strcmp(out, "null") == 0 ? NULL : out;
	}
	for (p++; *p != '\0' && *p != '"' && k + 1 < n; p++) {
		if (*p == '\\' && p[1] != '\0') {
			p++;
			if (*p == 'u' && strlen(p) >= 5 && p[1] == '0' && p[2] == '0' &&
			    p[3] < '8') {
				out[k++] = (char)strtol((char[]){ p[3], p[4], 0 }, NULL, 16);
				p += 4;
				continue;
			}
		}
		out[k++] = *p;
	}
	out[k] = '\0';
	return out;
}

static void
tail_line(const char *line, int json)
{
	char t[TEXT_TERM_MAX], v[1024];
	const char *body = strstr(line, "{\"seq\":");

	if (body == NULL)
		body = line;
	if (json) {
		printf("%s\n", text_term_str(t, sizeof(t), body));
		return;
	}
#define F(label, name) do { \
		if (field(body, name, v, sizeof(v)) != NULL) \
			printf(" %s=%s", label, text_term_str(t, sizeof(t), v)); \
	} while (0)
	printf("%s", field(body, "time", v, sizeof(v)) != NULL ?
	    text_term_str(t, sizeof(t), v) : "-");
	F("event", "event");
	F("decision", "decision");
	F("key", "fingerprint");
	F("comment", "comment");
	F("caller", "exe");
	F("pid", "peer_pid");
	F("uid", "peer_uid");
	F("via", "name");
	F("purpose", "purpose");
	F("user", "user");
	F("namespace", "namespace");
	F("repeated", "repeated");
	F("reason", "reason");
	F("seq", "seq");
#undef F
	printf("\n");
}

static int
tail(const char *path, int follow, int json)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = fopen(path, "re");

	if (f == NULL) {
		fprintf(stderr, "keyward-ctl: cannot open %s: %s\n", shown(path),
		    strerror(errno));
		return EX_USAGE;
	}
	for (;;) {
		while ((n = getline(&line, &cap, f)) > 0) {
			if (line[n - 1] != '\n' && follow) {
				/* a line still being written: read it whole later */
				fseeko(f, -(off_t)n, SEEK_CUR);
				break;
			}
			if (line[n - 1] == '\n')
				line[n - 1] = '\0';
			tail_line(line, json);
		}
		if (fflush(stdout) != 0)
			break;
		if (!follow)
			break;
		clearerr(f);
		poll(NULL, 0, 250);
	}
	free(line);
	fclose(f);
	return ferror(stdout) ? EX_USAGE : EX_OK;
}

int
audit_cmd(int argc, char **argv, int json, int follow, const char *state,
    const char *tag)
{
	if (tag != NULL && (argc < 1 || strcmp(argv[0], "verify") != 0))
		return -1;
	if (argc == 2 && strcmp(argv[0], "keygen") == 0 && !json && !follow &&
	    state == NULL)
		return keygen(argv[1]);
	if ((argc == 2 || argc == 3) && strcmp(argv[0], "verify") == 0 &&
	    !json && !follow)
		return verify(argv[1], argc == 3 ? argv[2] : NULL, state, tag);
	if (argc == 2 && strcmp(argv[0], "tail") == 0 && state == NULL)
		return tail(argv[1], follow, json);
	return -1;
}
