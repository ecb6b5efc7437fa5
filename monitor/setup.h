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
/* Fork into the background or to run the command; the starter waits
 * (bounded) for setup_ready() before it prints or runs anything. */
int setup_detach(const char *path, const char *made_dir);
/* The blocked signals, now read from a signalfd (SIGINT ignored when
 * daemonised). */
void setup_signals(void);
/* The reapers, policy (with the prompter and auditor) and keyholder. */
void setup_children(const char *path, const char *made_dir);
/* The agent serves: the environment printed (-D, -d), or the waiting
 * starter told to print it or run the command; stderr then /dev/null. */
void setup_ready(const char *path);

#endif
