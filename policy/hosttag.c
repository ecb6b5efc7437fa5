/*
 * hosttag.c - "keyward-policy --host-tag": the 10 characters that name
 * this host in default socket names, derived as ssh-agent 10.1+ does
 * (doc/protocol.md §11.3). The monitor asks us because it has no libcrypto.
 */
#include "policy/policy.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
host_tag_print(void)
{
	static const char alpha[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char host[256 + 1], tag[11];

	if (gethostname(host, sizeof(host) - 1) != 0)
		return 1;
	host[sizeof(host) - 1] = '\0';
	if (EVP_Digest(host, strlen(host), md, &mdlen, EVP_sha512(), NULL) != 1)
		return 1;
	for (int i = 0; i < 10; i++)
		tag[i] = alpha[md[i] % 62];
	tag[10] = '\0';
	printf("%s\n", tag);
	return 0;
}
