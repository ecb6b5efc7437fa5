/*
 * prompter.h - the messages between policy and the prompter (wire/msg.h
 * for the header and MSG_R_STATUS): a question for the user, answered yes
 * or no (MSG_R_STATUS) or with a secret the user typed.
 */
#ifndef KEYWARD_WIRE_PROMPTER_H
#define KEYWARD_WIRE_PROMPTER_H

#include "ipc/buf.h"
#include "wire/msg.h"

#include <stdint.h>

enum {
	/* policy -> prompter */
	MSG_PROMPT = 48,        /* msg_prompt_*: a question, yes or no */
	MSG_PROMPT_CANCEL,      /* no payload: the asker went away */
	MSG_PROMPT_SECRET,      /* msg_prompt_*: a question answered by a secret */
	/* prompter -> policy, besides MSG_R_STATUS */
	MSG_R_SECRET = 70,      /* msg_secret_*: what askpass printed (wiped) */
};

/* MSG_PROMPT (secret 0) or MSG_PROMPT_SECRET (secret 1): the question. */
void msg_prompt_write(struct wb *w, int secret, uint32_t req,
    struct slice question);
/* MSG_R_SECRET: the secret the user gave. */
void msg_secret_write(struct wb *w, uint32_t req, struct slice secret);

#endif
