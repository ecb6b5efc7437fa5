/*
 * auditor.h - the message from policy to the auditor (wire/msg.h for the
 * header and MSG_R_STATUS, the auditor's answer).
 */
#ifndef KEYWARD_WIRE_AUDITOR_H
#define KEYWARD_WIRE_AUDITOR_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stdint.h>

enum {
	MSG_AUDIT = 56,         /* msg_audit_*; req 0: no ack wanted */
};

/* MSG_AUDIT: one JSON line (policy/audit.c), without its newline. */
void msg_audit_write(struct wb *w, uint32_t req, struct slice json_line);

#endif
