/*
 * session.h - keyward-ctl session: the SESSION_EXTENSION request, its
 * answer decoded whole (wire/session.h, struct session_view), and its two
 * forms, lines of text and one JSON object.
 */
#ifndef KEYWARD_CTL_SESSION_H
#define KEYWARD_CTL_SESSION_H

#include "wire/agent.h"
#include "wire/session.h"

#include <stdio.h>

void session_request(struct wb *w);
enum ext_answer session_reply_decode(struct slice reply,
    struct session_view *v, const char **why);
void session_print_text(FILE *f, const struct session_view *v);
void session_print_json(FILE *f, const struct session_view *v);

#endif
