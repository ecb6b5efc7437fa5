/*
 * setup.h - the monitor's set-up, in the order main() calls it. Each
 * returns -1 to go on, or the exit status the process ends with.
 */
#ifndef KEYWARD_SETUP_H
#define KEYWARD_SETUP_H

#include <stddef.h>

/* Block the signals the agent acts on, first of all: one that came before
 * setup_signals() would otherwise end it by its default action, with the
 * socket made and no reaper yet to remove it. */
void setup_signals_block(void);
/* Command line, -k/-V/-u, stale sockets, fds, the audit trail's fd. */
int setup_options(int argc, char **argv);
/* The listening socket at path (made_dir: the -T directory, if made). */
int setup_socket(char *path, size_t n, const char **made_dir);
/* Print the environment; fork into the background or run the command. */
int setup_detach(const char *path);
/* The blocked signals, now read from a signalfd (SIGINT ignored when
 * daemonised). */
void setup_signals(void);
/* The reapers, policy (with the prompter and auditor) and keyholder. */
void setup_children(const char *path, const char *made_dir);

#endif
