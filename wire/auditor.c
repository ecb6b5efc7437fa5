/*
 * auditor.c - the message from policy to the auditor (auditor.h).
 */
#include "wire/auditor.h"

void
msg_audit_write(struct wb *w, uint32_t req, struct slice json_line)
{
	msg_string_write(w, MSG_AUDIT, req, 0, json_line);
}
