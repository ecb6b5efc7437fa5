/*
 * skvectors.h - FIDO key encodings made by the real OpenSSH 9.2 tools, no
 * token involved: two sk keys whose files were written by hand (key
 * handle 0x40..0x6f, application "ssh:", flags 0x01), certified by
 * ssh-keygen -s with an Ed25519 CA, then sent by ssh-add (9.2p1) to a
 * recording socket: each string is one whole ADD_ID_CONSTRAINED (25)
 * payload, with the comment and the sk-provider constraint "internal"
 * ssh-add adds. Base64, as in a .pub file.
 */
#ifndef KEYWARD_SKVECTORS_H
#define KEYWARD_SKVECTORS_H

#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SKV_ADD_ED25519_SK \
	"GQAAABpzay1zc2gtZWQyNTUxOUBvcGVuc3NoLmNvbQAAACB5tVYuj+ZU+UB4sRLo" \
	"qYunkB+FOuaVvtfg45ELrQSWZAAAAARzc2g6AQAAADBAQUJDREVGR0hJSktMTU5P" \
	"UFFSU1RVVldYWVpbXF1eX2BhYmNkZWZnaGlqa2xtbm8AAAAAAAAAFGt3dGVzdC1p" \
	"ZF9lZDI1NTE5X3Nr/wAAABdzay1wcm92aWRlckBvcGVuc3NoLmNvbQAAAAhpbnRl" \
	"cm5hbA=="

#define SKV_ADD_ED25519_SK_CERT \
	"GQAAACNzay1zc2gtZWQyNTUxOS1jZXJ0LXYwMUBvcGVuc3NoLmNvbQAAAcYAAAAj" \
	"c2stc3NoLWVkMjU1MTktY2VydC12MDFAb3BlbnNzaC5jb20AAAAguhU1ZBamPnaA" \
	"QfLatlLY/VXxZGrSkzH+gL7KnvOZnYoAAAAgebVWLo/mVPlAeLES6KmLp5AfhTrm" \
	"lb7X4OORC60ElmQAAAAEc3NoOgAAAAAAAAAAAAAAAQAAAAZza2NlcnQAAAAJAAAA" \
	"BWFsaWNlAAAAAGsRtEEAAAAAfd24bQAAAAAAAACCAAAAFXBlcm1pdC1YMTEtZm9y" \
	"d2FyZGluZwAAAAAAAAAXcGVybWl0LWFnZW50LWZvcndhcmRpbmcAAAAAAAAAFnBl" \
	"cm1pdC1wb3J0LWZvcndhcmRpbmcAAAAAAAAACnBlcm1pdC1wdHkAAAAAAAAADnBl" \
	"cm1pdC11c2VyLXJjAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIJ57yqkG" \
	"PYgIOVs9IjWmEfMXCn82j1rHZb3+1lW2w2zmAAAAUwAAAAtzc2gtZWQyNTUxOQAA" \
	"AEDorXb8VAh0M3DGkMCNvOBKfetRF2CiIZj9MrD9ruwHA/kBjKHVhJ3WL+DU0cXQ" \
	"6ZepRYofjjbssvZ2IzlsnsEDAAAAIHm1Vi6P5lT5QHixEuipi6eQH4U65pW+1+Dj" \
	"kQutBJZkAAAABHNzaDoBAAAAMEBBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltc" \
	"XV5fYGFiY2RlZmdoaWprbG1ubwAAAAAAAAAUa3d0ZXN0LWlkX2VkMjU1MTlfc2v/" \
	"AAAAF3NrLXByb3ZpZGVyQG9wZW5zc2guY29tAAAACGludGVybmFs"

#define SKV_ADD_ECDSA_SK \
	"GQAAACJzay1lY2RzYS1zaGEyLW5pc3RwMjU2QG9wZW5zc2guY29tAAAACG5pc3Rw" \
	"MjU2AAAAQQRHHD51jEkEKFu6flMRjtD1JK3rB1fSW9L457DXbfpxTN1SD3rKiouR" \
	"esw39R3o8Mm7462Fg4LnAtwloS0J96hYAAAABHNzaDoBAAAAMEBBQkNERUZHSElK" \
	"S0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ubwAAAAAAAAASa3d0" \
	"ZXN0LWlkX2VjZHNhX3Nr/wAAABdzay1wcm92aWRlckBvcGVuc3NoLmNvbQAAAAhp" \
	"bnRlcm5hbA=="

#define SKV_ADD_ECDSA_SK_CERT \
	"GQAAACtzay1lY2RzYS1zaGEyLW5pc3RwMjU2LWNlcnQtdjAxQG9wZW5zc2guY29t" \
	"AAAB+gAAACtzay1lY2RzYS1zaGEyLW5pc3RwMjU2LWNlcnQtdjAxQG9wZW5zc2gu" \
	"Y29tAAAAIN/YWA8QjFydO/PgrwiWhpCxeR7kKYBRcCC65XNA+uX+AAAACG5pc3Rw" \
	"MjU2AAAAQQRHHD51jEkEKFu6flMRjtD1JK3rB1fSW9L457DXbfpxTN1SD3rKiouR" \
	"esw39R3o8Mm7462Fg4LnAtwloS0J96hYAAAABHNzaDoAAAAAAAAAAAAAAAEAAAAH" \
	"c2tjZXJ0MgAAAAcAAAADYm9iAAAAAAAAAAD//////////wAAAAAAAACCAAAAFXBl" \
	"cm1pdC1YMTEtZm9yd2FyZGluZwAAAAAAAAAXcGVybWl0LWFnZW50LWZvcndhcmRp" \
	"bmcAAAAAAAAAFnBlcm1pdC1wb3J0LWZvcndhcmRpbmcAAAAAAAAACnBlcm1pdC1w" \
	"dHkAAAAAAAAADnBlcm1pdC11c2VyLXJjAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1" \
	"NTE5AAAAIJ57yqkGPYgIOVs9IjWmEfMXCn82j1rHZb3+1lW2w2zmAAAAUwAAAAtz" \
	"c2gtZWQyNTUxOQAAAEAr8WJoqmhwfDzyXYJ6n/C0qtqoXvr1o9XIMA+NcnnGyFqr" \
	"CO8oC1AIDgMZCxpL671nyaIQN4RqpH/4p4VtddAJAAAABHNzaDoBAAAAMEBBQkNE" \
	"RUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ubwAAAAAA" \
	"AAASa3d0ZXN0LWlkX2VjZHNhX3Nr/wAAABdzay1wcm92aWRlckBvcGVuc3NoLmNv" \
	"bQAAAAhpbnRlcm5hbA=="

/* The comments ssh-add sent, and the key's public fields. */
#define SKV_COMMENT_ED "kwtest-id_ed25519_sk"
#define SKV_COMMENT_EC "kwtest-id_ecdsa_sk"
#define SKV_CA_FP "SHA256:hgKtJoPXbkqepmJ/oRrYOaX5jf9ITRWmUJSn0W/GhEc"
/* ssh-keygen -l of the two keys */
#define SKV_FP_ED "SHA256:LcbCvojJ3PwZt6SUc/luleWrNmYVui3wqO6a9QysfRk"
#define SKV_FP_EC "SHA256:v6OHn+/Vibrrs5vuizFlMI3tcAlaBTO9Ld0oQUa+wR4"
static const uint8_t skv_ed_a[32] = {
	0x79, 0xb5, 0x56, 0x2e, 0x8f, 0xe6, 0x54, 0xf9, 0x40, 0x78, 0xb1, 0x12,
	0xe8, 0xa9, 0x8b, 0xa7, 0x90, 0x1f, 0x85, 0x3a, 0xe6, 0x95, 0xbe, 0xd7,
	0xe0, 0xe3, 0x91, 0x0b, 0xad, 0x04, 0x96, 0x64,
};
static const uint8_t skv_ec_q[65] = {
	0x04, 0x47, 0x1c, 0x3e, 0x75, 0x8c, 0x49, 0x04, 0x28, 0x5b, 0xba, 0x7e,
	0x53, 0x11, 0x8e, 0xd0, 0xf5, 0x24, 0xad, 0xeb, 0x07, 0x57, 0xd2, 0x5b,
	0xd2, 0xf8, 0xe7, 0xb0, 0xd7, 0x6d, 0xfa, 0x71, 0x4c, 0xdd, 0x52, 0x0f,
	0x7a, 0xca, 0x8a, 0x8b, 0x91, 0x7a, 0xcc, 0x37, 0xf5, 0x1d, 0xe8, 0xf0,
	0xc9, 0xbb, 0xe3, 0xad, 0x85, 0x83, 0x82, 0xe7, 0x02, 0xdc, 0x25, 0xa1,
	0x2d, 0x09, 0xf7, 0xa8, 0x58,
};

/* One vector, decoded; *len its length. The caller frees it. */
static inline uint8_t *
skv_decode(const char *b64, size_t *len)
{
	size_t n = strlen(b64);
	uint8_t *p = malloc(n);
	int r;

	if (p == NULL || (r = EVP_DecodeBlock(p, (const unsigned char *)b64,
	    (int)n)) < 0)
		abort();
	*len = (size_t)r - (n > 0 && b64[n - 1] == '=') - (n > 1 && b64[n - 2] == '=');
	return p;
}

#endif
