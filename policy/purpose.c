/*
 * purpose.c - what the data of a sign request is, decided once
 * (purpose.h): the userauth and SSHSIG parsers of userauth.c run here
 * and nowhere else on the sign path.
 */
#include "ipc/log.h"
#include "keys/sshkey.h"
#include "policy/hop.h"
#include "policy/purpose.h"

#include <openssl/evp.h>
#include <string.h>

void
purpose_decide(struct purpose *pu, struct slice data, struct slice key_blob)
{
	memset(pu, 0, sizeof(*pu));
	wb_init(&pu->hostkey);
	pu->data = data;
	if (userauth_parse(data, key_blob, &pu->ua) == 0) {
		pu->kind = PURPOSE_LOGIN;
		/* userauth_parse has parsed the host key: only the writing of
		 * its canonical form can fail here, for want of memory */
		if (pu->ua.hostbound && key_canonical(pu->ua.hostkey, NULL,
		    &pu->hostkey, NULL) != 0)
			fatal("out of memory");
	} else if (sshsig_parse(data, &pu->ns) == 0) {
		pu->kind = PURPOSE_SSHSIG;
	}
}

const char *
purpose_unverified(const struct purpose *pu, const struct bindings *b)
{
	if (b == NULL)
		return "no client connection";
	if (b->n == 0)
		return "no session-bind on this connection";
	return login_bound(b, pu);
}

int
purpose_sha256(const struct purpose *pu, uint8_t md[PURPOSE_SHA256_LEN])
{
	unsigned int n = 0;

	if (EVP_Digest(pu->data.p, pu->data.len, md, &n, EVP_sha256(),
	    NULL) != 1 || n != PURPOSE_SHA256_LEN)
		return -1;
	return 0;
}

void
purpose_free(struct purpose *pu)
{
	wb_free(&pu->hostkey);
	memset(pu, 0, sizeof(*pu));
}
