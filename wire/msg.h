/*
 * msg.h - what every inter-process message has in common. Each message is
 * one SOCK_SEQPACKET datagram: a header (type, request id, connection id)
 * and a payload of SSH wire types. The messages of each boundary, their
 * type numbers, encoders and decoders, are in that boundary's file:
 *   wire/monitor.h    monitor <-> policy
 *   wire/keyholder.h  policy <-> keyholder
 *   wire/prompter.h   policy <-> prompter
 *   wire/auditor.h    policy <-> auditor
 *   wire/broker.h     policy <-> broker
 * Three more boundaries have messages of their own, with no such header
 * (one request, one reply, each its own type byte):
 *   wire/token.h      broker <-> keyward-sk (carried to and from policy
 *                     inside wire/broker.h's messages)
 *   wire/pkcs11.h     broker <-> keyward-pkcs11 (likewise)
 *   wire/peer.h       monitor <-> keyward-peer
 * and wire/args.h holds the argument list each program is started with.
 * Type numbers are unique across all of them (requests have a range per
 * boundary, replies share 64..79; test_msg checks), so a datagram sent
 * down the wrong channel is refused by type.
 *
 * Conventions: msg_X_encode / msg_X_decode write and read the payload of
 * a message whose payload is a struct (after msg_begin, after
 * msg_hdr_decode). A message whose payload is one string has a typed
 * writer instead: msg_X_write builds the whole datagram (header and
 * payload), so the type and its payload are named together; its payload is
 * read by msg_string_read, whatever the type. Decoders refuse trailing
 * bytes; slices point into the datagram.
 */
#ifndef KEYWARD_MSG_H
#define KEYWARD_MSG_H

#include "ipc/buf.h"

#include <stddef.h>
#include <stdint.h>

/* The replies every boundary shares. Replies are numbered 64..79 whatever
 * their boundary. */
enum {
	MSG_R_STATUS = 64,      /* msg_status: any process's answer */
	MSG_R_SIGNATURE = 65,   /* string signature blob: keyholder -> policy,
	                         * then policy -> monitor (msg_signature_*) */
};

enum msg_status_code {
	ST_OK = 0,
	ST_FAIL = 1,            /* SSH_AGENT_FAILURE */
	ST_EXT_FAIL = 2,        /* SSH_AGENT_EXTENSION_FAILURE */
};

struct msg_hdr {
	uint8_t type;
	uint32_t req;           /* chosen by the asker, echoed in the reply */
	uint32_t conn;          /* client connection, 0 for none */
};

struct msg_status { uint8_t status; };

/* Header: begin a message in w; decode the header of a datagram. */
void msg_begin(struct wb *w, uint8_t type, uint32_t req, uint32_t conn);
int msg_hdr_decode(struct rd *r, struct msg_hdr *h);
/* A message with no payload. */
int msg_empty_decode(struct rd *r);

/* A datagram from a sibling (ipc/sibling.h): its header into h and r at
 * its payload, or, with no header, peer_broke(peer). */
void msg_sibling_hdr(const char *peer, const uint8_t *p, size_t n,
    struct rd *r, struct msg_hdr *h);
/* The row for type in a handler table whose rows begin with their
 * uint8_t type (MSG_ROW checks that), or, for a type the sibling never
 * sends, peer_broke(peer). */
const void *msg_row(const char *peer, const void *rows, size_t nrows,
    size_t rowsize, uint8_t type);
#define MSG_ROW(peer, rows, t) \
	((const __typeof__((rows)[0]) *)msg_row((peer), (rows), \
	    sizeof(rows) / sizeof((rows)[0]) + 0 * sizeof(char[ \
	    offsetof(__typeof__((rows)[0]), type) == 0 ? 1 : -1]), \
	    sizeof((rows)[0]), (t)))

/* The whole of a message whose payload is one string s, and that
 * payload's decoder. Each boundary file's typed msg_X_write names the type
 * and what the string holds; msg_string_read reads any of them, the type
 * having chosen the handler already. */
void msg_string_write(struct wb *w, uint8_t type, uint32_t req, uint32_t conn,
    struct slice s);
int msg_string_read(struct rd *r, struct slice *s);

void msg_status_encode(struct wb *w, const struct msg_status *m);
int msg_status_decode(struct rd *r, struct msg_status *m);
/* A whole MSG_R_STATUS reply in w (msg_begin, then the status): the one
 * way every process answers with a status. */
void msg_status_reply(struct wb *w, uint32_t req, uint32_t conn, uint8_t st);

/* MSG_R_SIGNATURE: an SSH signature blob. */
void msg_signature_write(struct wb *w, uint32_t req, uint32_t conn,
    struct slice sig);

#endif
