/*
 * prompter.c - the messages between policy and the prompter (prompter.h).
 */
#include "wire/prompter.h"

void
msg_prompt_write(struct wb *w, int secret, uint32_t req, struct slice question)
{
	msg_string_write(w, secret ? MSG_PROMPT_SECRET : MSG_PROMPT, req, 0,
	    question);
}

void
msg_secret_write(struct wb *w, uint32_t req, struct slice secret)
{
	msg_string_write(w, MSG_R_SECRET, req, 0, secret);
}
