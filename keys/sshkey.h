/*
 * sshkey.h - structural parsing of SSH public keys, certificates and the
 * private key encodings of ADD messages (doc/protocol.md §4.2-§4.4). No cryptography
 * here: the monitor links this and must not link libcrypto. Checks that
 * need arithmetic (points on the curve, CA signatures, private halves that
 * match public halves) are made by crypto/ in policy and keyholder.
 */
#ifndef KEYWARD_SSHKEY_H
#define KEYWARD_SSHKEY_H

#include "ipc/buf.h"

enum key_kind {
	KEY_NONE = 0,
	KEY_ED25519,
	KEY_ECDSA_P256,
	KEY_ECDSA_P384,
	KEY_ECDSA_P521,
	KEY_RSA,
	KEY_SK_ECDSA_P256,              /* FIDO: sk-ecdsa-sha2-nistp256@openssh.com */
	KEY_SK_ED25519,                 /* FIDO: sk-ssh-ed25519@openssh.com */
	KEY_MLDSA44_ED25519,            /* ssh-mldsa44-ed25519@openssh.com */
};

/* FIDO (sk-) keys, doc/protocol.md §4.7: the algorithm numbers of the middleware API
 * (what a SecurityKeyProvider's sk_sign takes) and the flags byte of the
 * key and of each signature. */
#define SK_ALG_ECDSA_P256               0x00
#define SK_ALG_ED25519                  0x01
#define SK_FLAG_USER_PRESENCE           0x01
#define SK_FLAG_USER_VERIFICATION       0x04
#define SK_FLAG_FORCE_OPERATION         0x10
#define SK_FLAG_RESIDENT                0x20

struct key_cert {
	struct slice nonce;
	uint64_t serial;
	uint32_t type;                  /* 1 user, 2 host */
	struct slice key_id;
	struct slice principals;        /* repeat{ string } */
	uint32_t nprincipals;
	uint64_t valid_after, valid_before;
	struct slice critical_options;  /* repeat{ string name; string data } */
	struct slice extensions;
	struct slice signature_key;     /* a plain key blob (the CA) */
	struct slice signature;
	size_t signed_len;              /* blob bytes the CA signed */
};

struct pubkey {
	enum key_kind kind;
	int is_cert;
	struct slice cert_blob;         /* whole certificate, if is_cert */
	struct slice ed_a;              /* Ed25519 public key, 32 bytes */
	struct slice ec_q;              /* uncompressed SEC1 point */
	struct slice rsa_e, rsa_n;      /* magnitudes, leading zeros cut */
	unsigned rsa_bits;
	struct slice sk_app;            /* FIDO application (text, no NUL) */
	struct slice mldsa_pk;          /* ML-DSA-44 || Ed25519 public keys */
	struct key_cert cert;
};

struct privkey {
	struct pubkey pub;
	struct slice ed_k;              /* 64 bytes: seed || A */
	struct slice ec_d;
	struct slice rsa_d, rsa_iqmp, rsa_p, rsa_q;
	/* FIDO: no private key here, a key handle for the authenticator,
	 * which is as secret as one (sealed like one by the keyholder). */
	uint8_t sk_flags;
	struct slice sk_key_handle, sk_reserved;
	struct slice mldsa_sk;          /* ML-DSA-44 seed || Ed25519 seed */
};

/* Names for a kind: the plain key type, its certificate type, the curve. */
const char *key_kind_name(enum key_kind kind);
const char *key_kind_cert_name(enum key_kind kind);
const char *key_kind_curve(enum key_kind kind);
/* Type name -> kind; *is_cert set. KEY_NONE with *why for refused types. */
enum key_kind key_kind_from_name(struct slice name, int *is_cert, const char **why);
/* Is this a FIDO (sk-) kind? Its SK_ALG_* number (-1 for other kinds),
 * and the kind whose public key and signature arithmetic it uses
 * (KEY_ED25519 or KEY_ECDSA_P256; every other kind is its own). */
int key_is_sk(enum key_kind kind);
int key_sk_alg(enum key_kind kind);
enum key_kind key_kind_base(enum key_kind kind);

/* Parse a whole key blob (plain or certificate); nothing may trail. On
 * failure *why (if given) says what was wrong, for the log. */
int key_parse_public(struct slice blob, struct pubkey *k, const char **why);
/* Parse the key part of an ADD message (doc/protocol.md §4.4) from r: the monitor and
 * the keyholder only (keys/sshkey_private.c, which policy does not link). */
int key_parse_private(struct rd *r, struct privkey *k, const char **why);

/* The canonical public blob: the certificate as received, or the plain key
 * re-encoded with minimal mpints (doc/protocol.md §4.5). */
void key_write_public(struct wb *w, const struct pubkey *k);
/* The plain private encoding (doc/protocol.md §4.4, non-certificate form) of k, which is
 * what the keyholder keeps for plain and certificate keys alike. */
void key_write_private_plain(struct wb *w, const struct privkey *k);

/* The algorithm names a signature blob may carry. */
enum sig_alg {
	SIG_NONE = 0,
	SIG_ED25519,
	SIG_ECDSA_P256,
	SIG_ECDSA_P384,
	SIG_ECDSA_P521,
	SIG_RSA_SHA1,
	SIG_RSA_SHA256,
	SIG_RSA_SHA512,
	SIG_SK_ECDSA_P256,      /* made by an authenticator (keys/sksig.h) */
	SIG_SK_ED25519,
	SIG_MLDSA44_ED25519,
};
const char *sig_alg_name(enum sig_alg alg);
enum sig_alg sig_alg_from_name(struct slice name);
/* The algorithm an identity of this kind signs with, given the request
 * flags (doc/protocol.md §4.6: 0x02 wins over 0x04; none means SHA-1 for RSA). */
enum sig_alg sig_alg_for(enum key_kind kind, uint32_t flags);
/* Is alg a valid signature algorithm for keys of this kind? */
int sig_alg_fits(enum sig_alg alg, enum key_kind kind);

#define SSH_AGENT_RSA_SHA2_256 0x02
#define SSH_AGENT_RSA_SHA2_512 0x04

/* Parse a public key blob (plain or certificate) and append its canonical
 * form (doc/protocol.md §4.5) to w: a plain key re-encoded with minimal mpints, a
 * certificate whole as received. Two blobs name the same key iff their
 * canonical forms are equal bytes, so every comparison of keys goes
 * through this. The parsed key goes to *k if k is not NULL. -1 on a blob
 * that does not parse (*why, if given, says why) or on w's error. */
int key_canonical(struct slice blob, struct pubkey *k, struct wb *w,
    const char **why);

#endif
