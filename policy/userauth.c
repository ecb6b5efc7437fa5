/*
 * userauth.c - is this data a userauth request for this key? Every field
 * is read through the one reader; anything else is "not userauth".
 */
#include "policy/userauth.h"
#include "keys/sshkey.h"

#include <string.h>

#define SSH2_MSG_USERAUTH_REQUEST 50

/* pkalg names a key type; the RSA SHA-2 names count as ssh-rsa and the
 * ECDSA curve is not compared (the key blob comparison covers it). */
static int
pkalg_fits(struct slice pkalg, const struct pubkey *k)
{
	static const struct { const char *alg; enum key_kind kind; int cert; } rsa2[] = {
		{ "rsa-sha2-256", KEY_RSA, 0 }, { "rsa-sha2-512", KEY_RSA, 0 },
		{ "rsa-sha2-256-cert-v01@openssh.com", KEY_RSA, 1 },
		{ "rsa-sha2-512-cert-v01@openssh.com", KEY_RSA, 1 },
	};
	enum key_kind kind;
	int is_cert;

	for (size_t i = 0; i < sizeof(rsa2) / sizeof(rsa2[0]); i++)
		if (slice_eq_str(pkalg, rsa2[i].alg))
			return k->kind == KEY_RSA && k->is_cert == rsa2[i].cert;
	if ((kind = key_kind_from_name(pkalg, &is_cert, NULL)) == KEY_NONE)
		return 0;
	if (is_cert != k->is_cert)
		return 0;
	if (kind == KEY_ECDSA_P256 || kind == KEY_ECDSA_P384 || kind == KEY_ECDSA_P521)
		return k->kind == KEY_ECDSA_P256 || k->kind == KEY_ECDSA_P384 ||
		    k->kind == KEY_ECDSA_P521;
	return kind == k->kind;
}

int
userauth_parse(struct slice data, struct slice key_blob, struct userauth *u)
{
	struct slice service, method, pkalg;
	struct pubkey k, hk;
	struct wb canon;
	struct rd r;
	uint8_t type, has_sig;
	int same;

	memset(u, 0, sizeof(*u));
	rd_init(&r, data.p, data.len);
	if (rd_string(&r, &u->session_id) != 0 || u->session_id.len == 0 ||
	    rd_u8(&r, &type) != 0 || type != SSH2_MSG_USERAUTH_REQUEST ||
	    rd_text(&r, &u->user) != 0 || rd_string(&r, &service) != 0 ||
	    !slice_eq_str(service, "ssh-connection") ||
	    rd_string(&r, &method) != 0 || rd_u8(&r, &has_sig) != 0 ||
	    has_sig != 1 || rd_string(&r, &pkalg) != 0 ||
	    rd_string(&r, &u->key) != 0)
		return -1;
	wb_init(&canon);
	same = key_canonical(u->key, &k, &canon, NULL) == 0 &&
	    pkalg_fits(pkalg, &k) && slice_eq(wb_slice_of(&canon), key_blob);
	wb_free(&canon);
	if (!same)
		return -1;
	if (slice_eq_str(method, "publickey-hostbound-v00@openssh.com")) {
		if (rd_string(&r, &u->hostkey) != 0 ||
		    key_parse_public(u->hostkey, &hk, NULL) != 0)
			return -1;
		u->hostbound = 1;
	} else if (!slice_eq_str(method, "publickey")) {
		return -1;
	}
	return rd_done(&r);
}

#define SSHSIG_MAGIC "SSHSIG"

int
sshsig_parse(struct slice data, struct slice *ns)
{
	struct slice reserved, alg, hash;
	struct rd r;

	if (data.len < sizeof(SSHSIG_MAGIC) - 1 ||
	    memcmp(data.p, SSHSIG_MAGIC, sizeof(SSHSIG_MAGIC) - 1) != 0)
		return -1;
	rd_init(&r, data.p + sizeof(SSHSIG_MAGIC) - 1,
	    data.len - (sizeof(SSHSIG_MAGIC) - 1));
	if (rd_text(&r, ns) != 0 || ns->len == 0 ||
	    rd_string(&r, &reserved) != 0 || rd_text(&r, &alg) != 0 ||
	    rd_string(&r, &hash) != 0 || rd_done(&r) != 0)
		return -1;
	return 0;
}
