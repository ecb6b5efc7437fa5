/*
 * auditchain.h - what makes the audit trail tamper-evident (the
 * construction is in doc/threat-model.md, "The audit trail"): the line
 * format the auditor writes, the key that seals it, and the verifier
 * keyward-ctl audit verify runs over a trail read back.
 *
 * Every line is one JSON object beginning with its chain fields:
 *
 *   {"seq":N,"prev":"H",...the record...}
 *   {"seq":N,"prev":"H","event":"audit-start","sealed":B,"epoch":E,"time":T}
 *   {"seq":N,"prev":"H","event":"seal","epoch":E,"hmac":"M","time":T}
 *
 * N counts lines, H is the SHA-256 (hex) of the line before, whole and
 * without its newline; a seal's M is HMAC-SHA-256 under k_E of its seq,
 * epoch and prev; k_{E+1} = SHA-256("keyward-audit-evolve" || k_E), and
 * k_E is wiped once the seal is written. The verification key is k_0.
 */
#ifndef KEYWARD_AUDITCHAIN_H
#define KEYWARD_AUDITCHAIN_H

#include <stddef.h>
#include <stdint.h>

#define AUDIT_HASH_LEN  32
#define AUDIT_KEY_LEN   32
#define AUDIT_HEX_LEN   64

/* The key file (-O audit-key=FILE, keyward-ctl audit keygen): one line of
 * fixed length, rewritten in place after every seal, so it never holds a
 * key already used:
 *   keyward-audit-key 1 EPOCH SEQ KEY LAST\n
 * EPOCH and SEQ 20 decimal digits; KEY the next sealing key, LAST the
 * hash of the last seal written (zeros before the first), both hex. */
#define AUDIT_STATE_LEN (20 + 20 + 1 + 20 + 1 + AUDIT_HEX_LEN + 1 + AUDIT_HEX_LEN + 1)

struct audit_state {
	uint64_t epoch;                 /* the epoch of key */
	uint64_t seq;                   /* the seq the next run starts at */
	uint8_t key[AUDIT_KEY_LEN];
	uint8_t last[AUDIT_HASH_LEN];
};

/* The verification key as keyward-ctl audit keygen prints it. */
#define AUDIT_VKEY_PREFIX "keyward-audit-verify-key-1:"

void auditchain_hash(const void *line, size_t n, uint8_t out[AUDIT_HASH_LEN]);
/* k <- SHA-256("keyward-audit-evolve" || k); the old value is gone. */
void auditchain_evolve(uint8_t key[AUDIT_KEY_LEN]);
int auditchain_mac(const uint8_t key[AUDIT_KEY_LEN], uint64_t seq,
    uint64_t epoch, const uint8_t prev[AUDIT_HASH_LEN],
    uint8_t out[AUDIT_HASH_LEN]);
void auditchain_hex(const uint8_t *p, size_t n, char *out);    /* 2n + NUL */
int auditchain_unhex(const char *s, size_t n, uint8_t *out);   /* n hex -> n/2 */

/* buf: AUDIT_STATE_LEN bytes (no NUL). */
void auditstate_format(const struct audit_state *s, char *buf);
int auditstate_parse(const char *buf, size_t n, struct audit_state *s);

enum audit_line_kind { AL_RECORD, AL_START, AL_SEAL };

struct audit_line {
	enum audit_line_kind kind;
	uint64_t seq;
	uint8_t prev[AUDIT_HASH_LEN];
	int sealed;                     /* AL_START: a run with a key */
	uint64_t epoch;                 /* AL_START, AL_SEAL */
	uint8_t mac[AUDIT_HASH_LEN];    /* AL_SEAL */
};

/* One line of a trail (without its newline); a syslog line is accepted
 * too, from its "{"seq":" on. 0, or -1 if it is not a trail line. *body
 * and *blen: the JSON object (what is hashed). */
int auditline_parse(const uint8_t *p, size_t n, struct audit_line *l,
    const uint8_t **body, size_t *blen);

enum audit_finding {
	AV_INTACT,              /* every record sealed and in order */
	AV_UNSEALED,            /* in order, but a tail no seal vouches for */
	AV_UNCHECKED,           /* in order, but no key: seals not checked */
	AV_NOT_RECORD,          /* a line that is no trail line: changed or added */
	AV_CHANGED,             /* the line before `line` is not what it names */
	AV_REMOVED,             /* records before `line` are missing */
	AV_REORDERED,           /* the record expected at `line` is at `other` */
	AV_ADDED,               /* `line` repeats or precedes what came before */
	AV_BAD_SEAL,            /* the seal at `line` does not verify */
	AV_SEAL_EPOCH,          /* a seal out of its epoch order (replayed) */
	AV_TRUNCATED,           /* sealed records missing at the end (state) */
	AV_EMPTY,               /* no line at all */
	AV_HEAD_CUT,            /* with a key: the trail begins after seq 0
	                         * (`seq`): the records before are gone */
	AV_WIPED,               /* no line, but the key file says records
	                         * were written (`seq` of them) */
};

struct audit_verdict {
	enum audit_finding finding;
	size_t line;            /* 1-based line where it was found */
	size_t other;           /* AV_REORDERED: where the missing record is;
	                         * AV_CHANGED: the changed line */
	uint64_t seq;           /* the seq expected there */
	size_t lines;           /* lines read */
	size_t seals;           /* seals verified */
	size_t last_seal;       /* line of the last seal verified (0: none) */
	size_t unsealed;        /* lines after it */
	size_t lost;            /* unsealed lines of runs that ended without
	                         * their final seal (a crash) */
	uint64_t first_seq;     /* seq of the first line */
	uint64_t next_epoch;    /* the epoch the next seal would have */
};

/* Verify a whole trail. key: k_0, or NULL (the chain alone); state: the
 * key file now, or NULL. Returns the finding (also in v). Never reads
 * beyond buf[0..len). */
enum audit_finding audit_verify(const uint8_t *buf, size_t len,
    const uint8_t *key, const struct audit_state *state,
    struct audit_verdict *v);
const char *audit_finding_name(enum audit_finding f);

#endif
