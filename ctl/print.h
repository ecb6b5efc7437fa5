/*
 * print.h - keyward-ctl's two listings of a decoded listing (wire/listing.h): text in
 * the shape of ssh-add -l with the constraints beneath each key, and one
 * JSON array for scripts. Every string from the agent is escaped.
 */
#ifndef KEYWARD_CTL_PRINT_H
#define KEYWARD_CTL_PRINT_H

#include "wire/listing.h"

#include <stdio.h>

void print_text(FILE *f, const struct listing *l);
void print_json(FILE *f, const struct listing *l);

#endif
