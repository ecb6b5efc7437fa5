/*
 * start.h - the first steps of every program keyward starts (policy,
 * keyholder, the helpers), taken the same way by each main(): an argument
 * list that does not decode refused with one line, logging set up,
 * signals, and for a helper whose channel is its only business, that
 * channel checked and every other fd closed. Each program's sandbox
 * (seccomp/, its filter and its Landlock rules) stays its own and comes
 * after.
 */
#ifndef KEYWARD_START_H
#define KEYWARD_START_H

/* start_helper's flags. */
#define START_IGNORE_INT  0x1   /* ^C reaches the monitor; it decides */
#define START_KEEP_PIPE   0x2   /* SIGPIPE as it was: a program this one
                                 * execs inherits an ignored signal */

/* The argument list (wire/args.h) did not decode: "PROG is started by
 * keyward, not by hand" on stderr, exit status 1, before any fd is
 * touched. */
void start_refused(const char *prog) __attribute__((noreturn));

/* Log to stderr as prog (debug lines when debug), SIGPIPE ignored unless
 * START_KEEP_PIPE, SIGINT ignored with START_IGNORE_INT. */
void start_helper(const char *prog, int debug, unsigned flags);

/* fd must be a SOCK_SEQPACKET socket, which is sized for our datagrams;
 * every fd above it is closed: nothing else of keyward's is this
 * process's business. fatal() on any failure. */
void start_only_channel(int fd);

#endif
