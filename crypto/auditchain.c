/*
 * auditchain.c - the audit trail's chain, seals, key file and verifier
 * (auditchain.h). The verifier reads a file anyone with the uid may have
 * written: it parses each line by a fixed prefix, never beyond the line,
 * and stops at the first thing that is not as the auditor wrote it.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "crypto/auditchain.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

static const char hexd[] = "0123456789abcdef";

void
auditchain_hash(const void *line, size_t n, uint8_t out[AUDIT_HASH_LEN])
{
	unsigned int len = 0;

	if (EVP_Digest(line, n, out, &len, EVP_sha256(), NULL) != 1 ||
	    len != AUDIT_HASH_LEN)
		memset(out, 0xff, AUDIT_HASH_LEN);     /* never matches a line */
}

void
auditchain_evolve(uint8_t key[AUDIT_KEY_LEN])
{
	static const char label[] = "keyward-audit-evolve";
	uint8_t in[sizeof(label) - 1 + AUDIT_KEY_LEN];

	memcpy(in, label, sizeof(label) - 1);
	memcpy(in + sizeof(label) - 1, key, AUDIT_KEY_LEN);
	auditchain_hash(in, sizeof(in), key);
	wipe(in, sizeof(in));
}

static void
be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

int
auditchain_mac(const uint8_t key[AUDIT_KEY_LEN], uint64_t seq, uint64_t epoch,
    const uint8_t prev[AUDIT_HASH_LEN], uint8_t out[AUDIT_HASH_LEN])
{
	static const char label[] = "keyward-audit-seal";
	uint8_t in[sizeof(label) - 1 + 16 + AUDIT_HASH_LEN];
	unsigned int len = 0;

	memcpy(in, label, sizeof(label) - 1);
	be64(in + sizeof(label) - 1, seq);
	be64(in + sizeof(label) - 1 + 8, epoch);
	memcpy(in + sizeof(label) - 1 + 16, prev, AUDIT_HASH_LEN);
	if (HMAC(EVP_sha256(), key, AUDIT_KEY_LEN, in, sizeof(in), out, &len) == NULL ||
	    len != AUDIT_HASH_LEN) {
		memset(out, 0, AUDIT_HASH_LEN);
		return -1;
	}
	return 0;
}

void
auditchain_hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hexd[p[i] >> 4];
		out[2 * i + 1] = hexd[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
auditchain_unhex(const char *s, size_t n, uint8_t *out)
{
	if (n % 2 != 0)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

void
auditstate_format(const struct audit_state *s, char *buf)
{
	char k[AUDIT_HEX_LEN + 1], l[AUDIT_HEX_LEN + 1];
	char tmp[AUDIT_STATE_LEN + 1];

	auditchain_hex(s->key, AUDIT_KEY_LEN, k);
	auditchain_hex(s->last, AUDIT_HASH_LEN, l);
	snprintf(tmp, sizeof(tmp), "keyward-audit-key 1 %020llu %020llu %s %s\n",
	    (unsigned long long)s->epoch, (unsigned long long)s->seq, k, l);
	memcpy(buf, tmp, AUDIT_STATE_LEN);
	wipe(tmp, sizeof(tmp));
	wipe(k, sizeof(k));
}

/* Exactly n decimal digits (or, with n 0, 1 to 20 without a leading zero)
 * at *p, within end; *p moves past them. */
static int
digits(const char **p, const char *end, size_t n, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;
	size_t k = 0;

	while (q < end && *q >= '0' && *q <= '9' && k < 21) {
		unsigned d = (unsigned)(*q - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		q++, k++;
	}
	if (n != 0 ? k != n : (k == 0 || k > 20 || (k > 1 && **p == '0')))
		return -1;
	*p = q;
	*out = v;
	return 0;
}

static int
lit(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - *p) < n || memcmp(*p, s, n) != 0)
		return -1;
	*p += n;
	return 0;
}

static int
hexfield(const char **p, const char *end, uint8_t out[AUDIT_HASH_LEN])
{
	if (end - *p < AUDIT_HEX_LEN || auditchain_unhex(*p, AUDIT_HEX_LEN, out) != 0)
		return -1;
	*p += AUDIT_HEX_LEN;
	return 0;
}

int
auditstate_parse(const char *buf, size_t n, struct audit_state *s)
{
	const char *p = buf, *end = buf + n;

	memset(s, 0, sizeof(*s));
	if (n != AUDIT_STATE_LEN || lit(&p, end, "keyward-audit-key 1 ") != 0 ||
	    digits(&p, end, 20, &s->epoch) != 0 || lit(&p, end, " ") != 0 ||
	    digits(&p, end, 20, &s->seq) != 0 || lit(&p, end, " ") != 0 ||
	    hexfield(&p, end, s->key) != 0 || lit(&p, end, " ") != 0 ||
	    hexfield(&p, end, s->last) != 0 || lit(&p, end, "\n") != 0 ||
	    p != end || s->epoch >= AUDIT_MAX_EPOCH) {
		wipe(s, sizeof(*s));
		return -1;
	}
	return 0;
}

/* ,"time":"T"} to the end: T without quotes, backslashes or controls. */
static int
time_tail(const char *p, const char *end)
{
	if (lit(&p, end, ",\"time\":\"") != 0)
		return -1;
	for (; p < end && *p != '"'; p++)
		if (*p == '\\' || (unsigned char)*p < 0x20)
			return -1;
	return lit(&p, end, "\"}") == 0 && p == end ? 0 : -1;
}

int
auditline_parse(const uint8_t *up, size_t n, struct audit_line *l,
    const uint8_t **body, size_t *blen)
{
	static const char start[] = "{\"seq\":";
	const char *p = (const char *)up, *end = p + n;
	uint64_t v;

	memset(l, 0, sizeof(*l));
	if (n > 0 && *p != '{') {
		/* a syslog line: "... tag[pid]: {"seq":..." */
		const char *q = NULL;
		for (size_t i = 0; i + sizeof(start) - 1 <= n; i++)
			if (memcmp(p + i, start, sizeof(start) - 1) == 0) {
				q = p + i;
				break;
			}
		if (q == NULL)
			return -1;
		p = q;
	}
	*body = (const uint8_t *)p;
	*blen = (size_t)(end - p);
	for (const char *q = p; q < end; q++)
		if (*q == '\n' || *q == '\0')
			return -1;
	if (lit(&p, end, start) != 0 || digits(&p, end, 0, &l->seq) != 0 ||
	    lit(&p, end, ",\"prev\":\"") != 0 || hexfield(&p, end, l->prev) != 0 ||
	    lit(&p, end, "\",") != 0)
		return -1;
	if (lit(&p, end, "\"event\":\"seal\"") == 0) {
		l->kind = AL_SEAL;
		if (lit(&p, end, ",\"epoch\":") != 0 ||
		    digits(&p, end, 0, &l->epoch) != 0 ||
		    lit(&p, end, ",\"hmac\":\"") != 0 ||
		    hexfield(&p, end, l->mac) != 0 || lit(&p, end, "\"") != 0)
			return -1;
		return time_tail(p, end);
	}
	if (lit(&p, end, "\"event\":\"audit-start\"") == 0) {
		l->kind = AL_START;
		if (lit(&p, end, ",\"sealed\":true") == 0)
			l->sealed = 1;
		else if (lit(&p, end, ",\"sealed\":false") != 0)
			return -1;
		if (lit(&p, end, ",\"epoch\":") != 0 ||
		    digits(&p, end, 0, &v) != 0)
			return -1;
		l->epoch = v;
		return time_tail(p, end);
	}
	l->kind = AL_RECORD;
	/* the record as policy made it: a member, ..., and the closing brace */
	if (end - p < 2 || *p != '"' || end[-1] != '}')
		return -1;
	return 0;
}

const char *
audit_finding_name(enum audit_finding f)
{
	static const char *const names[] = {
		[AV_INTACT] = "intact", [AV_UNSEALED] = "unsealed",
		[AV_UNCHECKED] = "unchecked", [AV_NOT_RECORD] = "not-a-record",
		[AV_CHANGED] = "changed", [AV_REMOVED] = "removed",
		[AV_REORDERED] = "reordered", [AV_ADDED] = "added",
		[AV_BAD_SEAL] = "bad-seal", [AV_SEAL_EPOCH] = "seal-epoch",
		[AV_TRUNCATED] = "truncated", [AV_EMPTY] = "empty",
		[AV_HEAD_CUT] = "head-cut", [AV_WIPED] = "wiped",
	};
	return (size_t)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}

/* The next line of buf from *off: its start and length, without '\n'. */
static int
next_line(const uint8_t *buf, size_t len, size_t *off, const uint8_t **p, size_t *n)
{
	const uint8_t *nl;

	if (*off >= len)
		return 0;
	*p = buf + *off;
	nl = memchr(*p, '\n', len - *off);
	*n = nl != NULL ? (size_t)(nl - *p) : len - *off;
	*off += *n + (nl != NULL);
	return 1;
}

/* Is a record with this seq on a line after off? Its line number, or 0. */
static size_t
find_seq(const uint8_t *buf, size_t len, size_t off, size_t lineno, uint64_t seq)
{
	const uint8_t *p, *body;
	struct audit_line l;
	size_t n, blen;

	while (next_line(buf, len, &off, &p, &n)) {
		lineno++;
		if (auditline_parse(p, n, &l, &body, &blen) == 0 && l.seq == seq)
			return lineno;
	}
	return 0;
}

static enum audit_finding
found(struct audit_verdict *v, enum audit_finding f, size_t line)
{
	v->finding = f;
	v->line = line;
	return f;
}

/* Where audit_verify stands in a trail: what the next line must name. */
struct walk {
	const uint8_t *buf;
	size_t len, off, lineno;
	int keyed;                      /* a key was given: seals are checked */
	uint8_t key[AUDIT_KEY_LEN];     /* the seal key of key_epoch */
	uint64_t key_epoch;
	int epoch_known;                /* a seal has verified */
	uint8_t prev[AUDIT_HASH_LEN];   /* the hash of the line before */
	uint64_t exp_seq;               /* the seq the next record must have */
	int have_seal;                  /* the last seal: its seq and hash */
	uint64_t seal_seq;
	uint8_t seal_hash[AUDIT_HASH_LEN];
	int have_anchor;                /* where the key file stood at the last
	                                 * seal or sealed start: a run may go on
	                                 * from there */
	uint64_t anchor_seq;
	uint8_t anchor_prev[AUDIT_HASH_LEN];
};

/* A record whose seq is not the one expected: added before, or one
 * expected is missing, or stands later. */
static enum audit_finding
out_of_order(const struct walk *w, const struct audit_line *l,
    struct audit_verdict *v)
{
	size_t at;

	v->seq = w->exp_seq;
	if (l->seq < w->exp_seq)
		return found(v, AV_ADDED, w->lineno);
	if ((at = find_seq(w->buf, w->len, w->off, w->lineno, w->exp_seq)) == 0)
		return found(v, AV_REMOVED, w->lineno);
	v->other = at;
	return found(v, AV_REORDERED, w->lineno);
}

/* Does line l follow what came before? AV_INTACT if so. */
static enum audit_finding
follows(struct walk *w, const struct audit_line *l, struct audit_verdict *v)
{
	static const uint8_t zero[AUDIT_HASH_LEN];

	if (w->lineno == 1) {
		v->first_seq = l->seq;          /* the first line: taken as it is */
		/* ... but a trail begins at seq 0: one that begins later lost
		 * its head (cut, or rotated away), which the seals' epochs
		 * could not show */
		if (w->keyed && l->seq != 0) {
			v->seq = l->seq;
			return found(v, AV_HEAD_CUT, w->lineno);
		}
		if (l->kind == AL_START && l->sealed) {
			/* where the key file stood when this run began */
			w->have_anchor = 1;
			w->anchor_seq = l->seq;
			memcpy(w->anchor_prev, l->prev, sizeof(w->anchor_prev));
		}
		return AV_INTACT;
	}
	if (l->kind == AL_START && l->sealed && w->have_anchor &&
	    l->seq == w->anchor_seq &&
	    memcmp(l->prev, w->anchor_prev, sizeof(w->anchor_prev)) == 0 &&
	    (l->seq != w->exp_seq || memcmp(l->prev, w->prev, sizeof(w->prev)) != 0)) {
		/* a run that ended without its final seal: what it wrote
		 * after its last seal (or its start) is unsealed, and the
		 * next run went on from where the key file stood */
		v->lost += (size_t)(w->exp_seq - w->anchor_seq);
		return AV_INTACT;
	}
	if (l->kind == AL_START && !l->sealed && l->seq == 0 &&
	    memcmp(l->prev, zero, sizeof(zero)) == 0)
		return AV_INTACT;       /* a run without a key: a chain of its own */
	if (l->seq != w->exp_seq)
		return out_of_order(w, l, v);
	if (memcmp(l->prev, w->prev, sizeof(w->prev)) != 0) {
		v->seq = w->exp_seq - 1;
		v->other = w->lineno - 1;
		return found(v, AV_CHANGED, w->lineno);
	}
	return AV_INTACT;
}

/* A seal line (hash h): checked under the key of its epoch when there is
 * a key; the anchor and the last seal move to it. */
static enum audit_finding
seal_line(struct walk *w, const struct audit_line *l,
    const uint8_t h[AUDIT_HASH_LEN], struct audit_verdict *v)
{
	uint8_t mac[AUDIT_HASH_LEN];

	if (w->keyed) {
		if ((w->epoch_known && l->epoch != w->key_epoch) ||
		    l->epoch < w->key_epoch || l->epoch >= AUDIT_MAX_EPOCH) {
			v->seq = w->key_epoch;
			return found(v, AV_SEAL_EPOCH, w->lineno);
		}
		while (w->key_epoch < l->epoch) {
			auditchain_evolve(w->key);
			w->key_epoch++;
		}
		if (auditchain_mac(w->key, l->seq, l->epoch, l->prev, mac) != 0 ||
		    CRYPTO_memcmp(mac, l->mac, sizeof(mac)) != 0)
			return found(v, AV_BAD_SEAL, w->lineno);
		auditchain_evolve(w->key);
		w->key_epoch++;
		w->epoch_known = 1;
		v->last_seal = w->lineno;
	}
	v->seals++;
	w->have_seal = 1;
	w->seal_seq = l->seq;
	memcpy(w->seal_hash, h, sizeof(w->seal_hash));
	w->have_anchor = 1;
	w->anchor_seq = l->seq + 1;
	memcpy(w->anchor_prev, h, sizeof(w->anchor_prev));
	return AV_INTACT;
}

/* One line of the trail: AV_INTACT to go on, else the finding. */
static enum audit_finding
walk_line(struct walk *w, const uint8_t *p, size_t n, struct audit_verdict *v)
{
	uint8_t h[AUDIT_HASH_LEN];
	const uint8_t *body;
	struct audit_line l;
	enum audit_finding rc;
	size_t blen;

	if (auditline_parse(p, n, &l, &body, &blen) != 0)
		return found(v, AV_NOT_RECORD, w->lineno);
	auditchain_hash(body, blen, h);
	if ((rc = follows(w, &l, v)) != AV_INTACT)
		return rc;
	if (l.kind == AL_START && l.sealed && w->keyed && w->epoch_known &&
	    l.epoch != w->key_epoch)
		return found(v, AV_SEAL_EPOCH, w->lineno);
	if (l.kind == AL_SEAL && (rc = seal_line(w, &l, h, v)) != AV_INTACT)
		return rc;
	w->exp_seq = l.seq + 1;
	memcpy(w->prev, h, sizeof(w->prev));
	return AV_INTACT;
}

/* Every line followed: what the whole trail and the key file say. */
static enum audit_finding
verdict(const struct walk *w, const struct audit_state *state,
    struct audit_verdict *v)
{
	if (w->lineno == 0) {
		/* the key file counts what was written: none is left */
		if (w->keyed && state != NULL && (state->seq > 0 ||
		    state->epoch > 0)) {
			v->seq = state->seq;
			return found(v, AV_WIPED, 0);
		}
		return found(v, AV_EMPTY, 0);
	}
	v->unsealed = w->keyed ? w->lineno - v->last_seal : w->lineno;
	/* The key file names the next epoch, and the seq and hash of the
	 * last seal it made: a file that ends before that seal lost sealed
	 * records at its end. */
	if (w->keyed && state != NULL && (state->epoch != w->key_epoch ||
	    (w->have_seal && (state->seq != w->seal_seq + 1 ||
	    memcmp(state->last, w->seal_hash, sizeof(w->seal_hash)) != 0)))) {
		v->seq = state->epoch;
		return found(v, AV_TRUNCATED, w->lineno);
	}
	if (!w->keyed)
		return found(v, AV_UNCHECKED, 0);
	if (v->unsealed > 0 || v->lost > 0)
		return found(v, AV_UNSEALED, v->last_seal);
	return found(v, AV_INTACT, 0);
}

enum audit_finding
audit_verify(const uint8_t *buf, size_t len, const uint8_t *key0,
    const struct audit_state *state, struct audit_verdict *v)
{
	enum audit_finding rc = AV_INTACT;
	struct walk w;
	const uint8_t *p;
	size_t n;

	memset(v, 0, sizeof(*v));
	memset(&w, 0, sizeof(w));
	w.buf = buf;
	w.len = len;
	w.keyed = key0 != NULL;
	if (w.keyed)
		memcpy(w.key, key0, AUDIT_KEY_LEN);
	while (rc == AV_INTACT && next_line(buf, len, &w.off, &p, &n)) {
		w.lineno++;
		v->lines = w.lineno;
		if (n == 0 && w.off >= len)
			break;          /* cannot happen: a final '\n' ends the last */
		rc = walk_line(&w, p, n, v);
	}
	if (rc == AV_INTACT)
		rc = verdict(&w, state, v);
	v->next_epoch = w.key_epoch;
	wipe(&w, sizeof(w));
	return rc;
}
