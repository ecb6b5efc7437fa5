/*
 * print.h - keyward-ctl's two listings of a decoded inspect_list: text in
 * the shape of ssh-add -l with the constraints beneath each key, and one
 * JSON array for scripts. Every string from the agent is escaped.
 */
#ifndef KEYWARD_CTL_PRINT_H
#define KEYWARD_CTL_PRINT_H

#include "wire/constraints.h"

#include <stdio.h>

void print_text(FILE *f, const struct inspect_list *l);
void print_json(FILE *f, const struct inspect_list *l);

#endif
