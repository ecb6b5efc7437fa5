/*
 * userauth.h - the data a constrained key may sign: an SSH userauth
 * request (RFC 4252 §7, and OpenSSH's hostbound variant), doc/protocol.md §8.7; and
 * an SSHSIG blob. Policy parses a sign request's data with these once, in
 * purpose_decide (purpose.h), and keeps what they found.
 */
#ifndef KEYWARD_USERAUTH_H
#define KEYWARD_USERAUTH_H

#include "ipc/buf.h"

struct userauth {
	struct slice session_id;
	struct slice user;
	struct slice key;               /* the public key blob it names */
	struct slice hostkey;           /* hostbound only, else empty */
	int hostbound;
};

/* Parse data as a userauth request for the identity whose canonical blob
 * is key_blob. 0 on success; -1 if it is anything else. */
int userauth_parse(struct slice data, struct slice key_blob, struct userauth *u);

/* Parse data as the SSHSIG blob ssh-keygen -Y sign asks an agent to sign
 * (OpenSSH's PROTOCOL.sshsig: "SSHSIG", string namespace, string reserved,
 * string hash algorithm, string hash; nothing after). 0 with the
 * namespace (never empty) set; -1 if it is anything else. */
int sshsig_parse(struct slice data, struct slice *ns);

#endif
