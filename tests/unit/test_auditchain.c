/*
 * test_auditchain.c - the audit trail's chain and seals (policy/
 * auditchain.h): a trail made here as the auditor makes it, then every
 * kind of tampering, each reported at the line it was done; the line
 * parser's table; the key file's format.
 */
#include "ipc/buf.h"
#include "ipc/limits.h"
#include "crypto/auditchain.h"
#include "tests/unit/tap.h"

#define MAXL 64

struct trail {
	char *line[MAXL];
	size_t n;
	uint8_t key[AUDIT_KEY_LEN];     /* the next sealing key */
	uint64_t epoch, seq;
	uint8_t prev[AUDIT_HASH_LEN];
	uint8_t seal_hash[AUDIT_HASH_LEN];
};

static const uint8_t key0[AUDIT_KEY_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };

static void
put(struct trail *t, const char *rest)
{
	char hex[AUDIT_HEX_LEN + 1], buf[1024];

	auditchain_hex(t->prev, sizeof(t->prev), hex);
	snprintf(buf, sizeof(buf), "{\"seq\":%llu,\"prev\":\"%s\",%s",
	    (unsigned long long)t->seq, hex, rest);
	t->line[t->n++] = strdup(buf);
	auditchain_hash(buf, strlen(buf), t->prev);
	t->seq++;
}

static void
start(struct trail *t, int sealed)
{
	char rest[256];

	snprintf(rest, sizeof(rest), "\"event\":\"audit-start\",\"sealed\":%s,"
	    "\"epoch\":%llu,\"time\":\"2026-01-01T00:00:00.000Z\"}",
	    sealed ? "true" : "false", (unsigned long long)t->epoch);
	put(t, rest);
}

static void
record(struct trail *t)
{
	char rest[256];

	snprintf(rest, sizeof(rest), "\"time\":\"2026-01-01T00:00:00.000Z\","
	    "\"event\":\"sign\",\"n\":%llu,\"decision\":\"allow\"}",
	    (unsigned long long)t->seq);
	put(t, rest);
}

static void
seal(struct trail *t)
{
	uint8_t mac[AUDIT_HASH_LEN];
	char hex[AUDIT_HEX_LEN + 1], rest[256];

	auditchain_mac(t->key, t->seq, t->epoch, t->prev, mac);
	auditchain_hex(mac, sizeof(mac), hex);
	snprintf(rest, sizeof(rest), "\"event\":\"seal\",\"epoch\":%llu,"
	    "\"hmac\":\"%s\",\"time\":\"2026-01-01T00:00:00.000Z\"}",
	    (unsigned long long)t->epoch, hex);
	put(t, rest);
	memcpy(t->seal_hash, t->prev, sizeof(t->prev));
	auditchain_evolve(t->key);
	t->epoch++;
}

/* line 1 start; 2-11 records seq 1-10; 12 seal epoch 0 (seq 11);
 * 13-21 records seq 12-20; 22 seal epoch 1 (seq 21); 23-25 records. */
static void
make(struct trail *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->key, key0, sizeof(key0));
	start(t, 1);
	for (int i = 0; i < 10; i++)
		record(t);
	seal(t);
	for (int i = 0; i < 9; i++)
		record(t);
	seal(t);
	for (int i = 0; i < 3; i++)
		record(t);
}

static void
drop(struct trail *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->line[i]);
	t->n = 0;
}

static enum audit_finding
check(struct trail *t, const uint8_t *key, const struct audit_state *st,
    struct audit_verdict *v)
{
	struct wb w;
	enum audit_finding f;

	wb_init(&w);
	for (size_t i = 0; i < t->n; i++) {
		wb_bytes(&w, t->line[i], strlen(t->line[i]));
		wb_u8(&w, '\n');
	}
	f = audit_verify(w.p, w.len, key, st, v);
	wb_free(&w);
	return f;
}

static void
remove_line(struct trail *t, size_t lineno)
{
	free(t->line[lineno - 1]);
	memmove(&t->line[lineno - 1], &t->line[lineno],
	    (t->n - lineno) * sizeof(char *));
	t->n--;
}

static void
insert_line(struct trail *t, size_t lineno, const char *s)
{
	memmove(&t->line[lineno], &t->line[lineno - 1],
	    (t->n - lineno + 1) * sizeof(char *));
	t->line[lineno - 1] = strdup(s);
	t->n++;
}

static void
tampering(void)
{
	struct trail t;
	struct audit_verdict v;
	struct audit_state st;
	uint8_t wrong[AUDIT_KEY_LEN] = { 9 };
	char *p;

	make(&t);
	is_int(check(&t, key0, NULL, &v), AV_UNSEALED, "untouched: no tampering, "
	    "a tail unsealed");
	is_int(v.seals, 2, "two seals verified");
	is_int(v.last_seal, 22, "the last at line 22");
	is_int(v.unsealed, 3, "three lines after it");
	is_int(check(&t, NULL, NULL, &v), AV_UNCHECKED, "without the key: unchecked");
	seal(&t);
	is_int(check(&t, key0, NULL, &v), AV_INTACT, "sealed to the end: intact");
	memset(&st, 0, sizeof(st));
	st.epoch = t.epoch;
	st.seq = t.seq;
	memcpy(st.last, t.seal_hash, sizeof(st.last));
	is_int(check(&t, key0, &st, &v), AV_INTACT, "and it is where the key file "
	    "says the last seal is");
	drop(&t);

	/* one byte of one record */
	make(&t);
	p = strstr(t.line[4], "allow");
	p[0] = 'A';
	is_int(check(&t, key0, NULL, &v), AV_CHANGED, "one byte of line 5 changed");
	is_int(v.other, 5, "reported at line 5");
	is_int(v.line, 6, "found at line 6, which names its hash");
	drop(&t);

	/* ... of the last record before a seal: its seal names it */
	make(&t);
	t.line[20][strlen(t.line[20]) - 3] ^= 1;
	is_int(check(&t, key0, NULL, &v), AV_CHANGED, "line 21 changed");
	is_int(v.other, 21, "reported at line 21");
	drop(&t);

	/* ... of a seal */
	make(&t);
	p = strstr(t.line[11], "\"hmac\":\"") + 8;
	*p = *p == '0' ? '1' : '0';
	is_int(check(&t, key0, NULL, &v), AV_BAD_SEAL, "the seal at line 12 changed");
	is_int(v.line, 12, "reported at line 12");
	drop(&t);

	/* a record removed */
	make(&t);
	remove_line(&t, 7);
	is_int(check(&t, key0, NULL, &v), AV_REMOVED, "line 7 removed");
	is_int(v.line, 7, "reported at line 7");
	is_int(v.seq, 6, "seq 6 missing");
	drop(&t);

	/* two swapped */
	make(&t);
	p = t.line[6];
	t.line[6] = t.line[7];
	t.line[7] = p;
	is_int(check(&t, key0, NULL, &v), AV_REORDERED, "lines 7 and 8 swapped");
	is_int(v.line, 7, "reported at line 7");
	is_int(v.other, 8, "the record for it is at line 8");
	drop(&t);

	/* a record repeated (added) */
	make(&t);
	insert_line(&t, 9, t.line[4]);
	is_int(check(&t, key0, NULL, &v), AV_ADDED, "a copy of line 5 added as line 9");
	is_int(v.line, 9, "reported at line 9");
	drop(&t);

	/* a line that is no record */
	make(&t);
	insert_line(&t, 4, "{\"time\":\"x\",\"event\":\"sign\"}");
	is_int(check(&t, key0, NULL, &v), AV_NOT_RECORD, "a line without chain "
	    "fields added as line 4");
	is_int(v.line, 4, "reported at line 4");
	drop(&t);

	/* the chain rewritten after an edit: only the seal can tell */
	make(&t);
	{
		struct trail u;
		memset(&u, 0, sizeof(u));
		memcpy(u.key, key0, sizeof(key0));
		start(&u, 1);
		for (int i = 0; i < 10; i++) {
			record(&u);
			if (i == 3) {
				char *q = strstr(u.line[u.n - 1], "allow");
				q[0] = 'A';     /* and rehash from here on */
				auditchain_hash(u.line[u.n - 1],
				    strlen(u.line[u.n - 1]), u.prev);
			}
		}
		/* the forger's seal, with a key he guessed */
		memcpy(u.key, wrong, sizeof(wrong));
		seal(&u);
		is_int(check(&u, key0, NULL, &v), AV_BAD_SEAL, "a record changed "
		    "and the chain recomputed: the seal at line 12 fails");
		is_int(v.line, 12, "reported at line 12");
		is_int(check(&u, NULL, NULL, &v), AV_UNCHECKED,
		    "(without the key the rewritten chain looks whole)");
		drop(&u);
	}
	drop(&t);

	/* truncated before a seal */
	make(&t);
	while (t.n > 18)
		remove_line(&t, t.n);
	is_int(check(&t, key0, NULL, &v), AV_UNSEALED, "cut before the second "
	    "seal: what follows the first is unsealed");
	is_int(v.last_seal, 12, "the last seal at line 12");
	is_int(v.unsealed, 6, "six lines unsealed");
	drop(&t);

	/* truncated after a seal: only the key file can tell */
	make(&t);
	seal(&t);
	memset(&st, 0, sizeof(st));
	st.epoch = t.epoch;
	st.seq = t.seq;
	memcpy(st.last, t.seal_hash, sizeof(st.last));
	while (t.n > 12)
		remove_line(&t, t.n);
	is_int(check(&t, key0, NULL, &v), AV_INTACT, "cut right after the first "
	    "seal: looks whole alone");
	is_int(check(&t, key0, &st, &v), AV_TRUNCATED, "but the key file is two "
	    "seals further");
	is_int(v.seq, 3, "at epoch 3");
	is_int(v.next_epoch, 1, "the file's seals end at 1");
	drop(&t);

	/* an old seal replayed in place of a newer one */
	make(&t);
	{
		char *old = strstr(t.line[11], ",\"epoch\":");
		char *cur = strstr(t.line[21], ",\"epoch\":");
		char buf[1024];
		snprintf(buf, sizeof(buf), "%.*s%s", (int)(cur - t.line[21]),
		    t.line[21], old);
		free(t.line[21]);
		t.line[21] = strdup(buf);
	}
	is_int(check(&t, key0, NULL, &v), AV_SEAL_EPOCH, "the first seal's epoch "
	    "and hmac replayed at line 22");
	is_int(v.line, 22, "reported at line 22");
	drop(&t);

	/* an old seal appended */
	make(&t);
	insert_line(&t, t.n + 1, t.line[11]);
	is_int(check(&t, key0, NULL, &v), AV_ADDED, "the first seal appended again");
	is_int(v.line, 26, "reported at line 26");
	drop(&t);

	/* the wrong key */
	make(&t);
	is_int(check(&t, wrong, NULL, &v), AV_BAD_SEAL, "a wrong key");
	is_int(v.line, 12, "fails at the first seal, line 12");
	drop(&t);

	/* a run that crashed after its first seal, then the next run */
	make(&t);
	while (t.n > 15)
		remove_line(&t, t.n);
	t.seq = 12;
	auditchain_hash(t.line[11], strlen(t.line[11]), t.prev);
	memcpy(t.key, key0, sizeof(key0));
	auditchain_evolve(t.key);
	t.epoch = 1;
	start(&t, 1);
	record(&t);
	seal(&t);
	is_int(check(&t, key0, NULL, &v), AV_UNSEALED, "a crash after line 15, "
	    "then a new run from the key file");
	is_int(v.lost, 3, "the crashed run's three unsealed lines are counted");
	is_int(v.unsealed, 0, "and nothing after the last seal");
	is_int(v.seals, 2, "both seals verify");
	drop(&t);

	/* a run killed before its first seal, then the next run */
	memset(&t, 0, sizeof(t));
	memcpy(t.key, key0, sizeof(key0));
	start(&t, 1);
	record(&t);
	record(&t);
	t.seq = 0;
	memset(t.prev, 0, sizeof(t.prev));
	start(&t, 1);
	record(&t);
	seal(&t);
	is_int(check(&t, key0, NULL, &v), AV_UNSEALED, "a run killed before any "
	    "seal, then a new run from the same key file");
	is_int(v.lost, 3, "its three lines are counted unsealed");
	is_int(v.seals, 1, "the next run's seal verifies");
	drop(&t);

	/* the same trail through syslog */
	make(&t);
	for (size_t i = 0; i < t.n; i++) {
		char buf[1024];
		snprintf(buf, sizeof(buf), "Jan  1 00:00:00 host kw[12]: %s",
		    t.line[i]);
		free(t.line[i]);
		t.line[i] = strdup(buf);
	}
	is_int(check(&t, key0, NULL, &v), AV_UNSEALED, "syslog lines verify alike");
	is_int(v.seals, 2, "with both seals");
	drop(&t);

	is_int(audit_verify((const uint8_t *)"", 0, key0, NULL, &v), AV_EMPTY,
	    "an empty file");
	{
		struct audit_state none = { 0 }, some = { .epoch = 2, .seq = 23 };

		is_int(audit_verify((const uint8_t *)"", 0, key0, &none, &v),
		    AV_EMPTY, "an empty file, the key file unused: empty");
		is_int(audit_verify((const uint8_t *)"", 0, key0, &some, &v),
		    AV_WIPED, "an empty file, the key file past records: wiped");
		is_int((int)v.seq, 23, "wiped: the records the key file counts");
	}

	/* the head cut off: with the key, tampering; without, where it begins */
	make(&t);
	free(t.line[0]);
	free(t.line[1]);
	memmove(t.line, t.line + 2, (t.n - 2) * sizeof(t.line[0]));
	t.n -= 2;
	is_int(check(&t, key0, NULL, &v), AV_HEAD_CUT, "head cut, with the key");
	is_int((int)v.seq, 2, "head cut: it begins at seq 2");
	is_int(check(&t, NULL, NULL, &v), AV_UNCHECKED, "head cut, no key: unchecked");
	is_int((int)v.first_seq, 2, "which says it begins at seq 2");
	drop(&t);
}

static void
lines(void)
{
	static const struct {
		const char *s;
		int rc, kind;
	} rows[] = {
		{ "{\"seq\":0,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":1}", 0, AL_RECORD },
		{ "{\"seq\":18446744073709551615,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":1}", 0, AL_RECORD },
		{ "{\"seq\":18446744073709551616,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":1}", -1, 0 },
		{ "{\"seq\":01,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":1}", -1, 0 },
		{ "{\"seq\":-1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":1}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"000000000000000000000000000000000000000000000000000000000000000\",\"a\":1}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"000000000000000000000000000000000000000000000000000000000000000A\",\"a\":1}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":1", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\"}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"event\":\"seal\",\"epoch\":3,\"hmac\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"time\":\"t\"}", 0, AL_SEAL },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"event\":\"seal\",\"epoch\":3,\"hmac\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"time\":\"t\",\"x\":1}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"event\":\"seal\",\"epoch\":3}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"event\":\"audit-start\",\"sealed\":true,\"epoch\":0,\"time\":\"t\"}", 0, AL_START },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"event\":\"audit-start\",\"sealed\":maybe,\"epoch\":0,\"time\":\"t\"}", -1, 0 },
		{ "{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"event\":\"audit-start\",\"sealed\":true,\"epoch\":0,\"time\":\"t\\\"\"}", -1, 0 },
		{ "Jan  1 host kw[1]: {\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":1}", 0, AL_RECORD },
		{ "Jan  1 host kw[1]: {\"sq\":1}", -1, 0 },
		{ "", -1, 0 },
		{ "{", -1, 0 },
	};
	struct audit_line l;
	const uint8_t *body;
	size_t blen;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int rc = auditline_parse((const uint8_t *)rows[i].s, strlen(rows[i].s),
		    &l, &body, &blen);
		ok(rc == rows[i].rc && (rc != 0 || (int)l.kind == rows[i].kind),
		    "line %zu: %s", i, rows[i].rc == 0 ? "parsed" : "refused");
	}
	ok(auditline_parse((const uint8_t *)"{\"seq\":1,\"prev\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"a\":\0}", 92, &l, &body, &blen) != 0,
	    "a NUL inside refused");
}

static void
states(void)
{
	struct audit_state s = { .epoch = 7, .seq = 1234 }, r;
	char buf[AUDIT_STATE_LEN];

	memset(s.key, 0xab, sizeof(s.key));
	memset(s.last, 0x01, sizeof(s.last));
	auditstate_format(&s, buf);
	ok(auditstate_parse(buf, sizeof(buf), &r) == 0 && r.epoch == 7 &&
	    r.seq == 1234 && memcmp(r.key, s.key, sizeof(s.key)) == 0 &&
	    memcmp(r.last, s.last, sizeof(s.last)) == 0, "key file round-trips");
	ok(auditstate_parse(buf, sizeof(buf) - 1, &r) != 0, "one byte short refused");
	buf[25] = 'x';
	ok(auditstate_parse(buf, sizeof(buf), &r) != 0, "a letter in the epoch refused");
	s.epoch = AUDIT_MAX_EPOCH;
	auditstate_format(&s, buf);
	ok(auditstate_parse(buf, sizeof(buf), &r) != 0, "a used-up key refused");
}

static void
evolve(void)
{
	uint8_t a[AUDIT_KEY_LEN], b[AUDIT_KEY_LEN], m1[32], m2[32];

	memcpy(a, key0, sizeof(a));
	memcpy(b, key0, sizeof(b));
	auditchain_evolve(b);
	ok(memcmp(a, b, sizeof(a)) != 0, "an evolved key differs");
	auditchain_mac(a, 1, 0, a, m1);
	auditchain_mac(b, 1, 0, a, m2);
	ok(memcmp(m1, m2, sizeof(m1)) != 0, "and seals differently");
	auditchain_mac(a, 1, 1, a, m2);
	ok(memcmp(m1, m2, sizeof(m1)) != 0, "the epoch is in the seal");
	auditchain_mac(a, 2, 0, a, m2);
	ok(memcmp(m1, m2, sizeof(m1)) != 0, "the seq is in the seal");
}

int
main(void)
{
	tampering();
	lines();
	states();
	evolve();
	done_testing();
}
