/*
 * conns.h - keyward-ctl connections: the CONNS_EXTENSION request, its
 * reply decoded whole (wire/conns.h) and the two listings of it, a table
 * and JSON lines. Every string in the reply is text a client of the agent
 * chose (its executable, its command line): escaped on the way out.
 */
#ifndef KEYWARD_CTL_CONNS_H
#define KEYWARD_CTL_CONNS_H

#include "ctl/listing.h"
#include "wire/conns.h"

#include <stdio.h>

void conns_request(struct wb *w);
enum ext_answer conns_reply_decode(struct slice reply,
    struct conns_list *l, const char **why);
void conns_print_text(FILE *f, const struct conns_list *l);
/* One JSON object a line, one line a connection. */
void conns_print_json(FILE *f, const struct conns_list *l);

#endif
