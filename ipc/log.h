/*
 * log.h - logging for all keyward processes. Each line goes to stderr or,
 * for the daemonised monitor, to syslog. The policy and keyholder write to
 * their stderr, which the monitor relays, so no process but the monitor
 * ever needs a socket of its own for logging. Every line is made
 * terminal-safe at the sink (ipc/text.h): log a client's string as it
 * came, never escaped first, or its backslashes show doubled twice.
 */
#ifndef KEYWARD_LOG_H
#define KEYWARD_LOG_H

enum log_level { LOG_LVL_ERROR = 0, LOG_LVL_INFO = 1, LOG_LVL_DEBUG = 2 };

void log_init(const char *progname, int level, int use_syslog);
int log_level(void);
/* While on, a syslogging process writes its error lines to stderr too:
 * the daemon's start-up, whose stderr is then the starter's pipe. */
void log_errors_to_stderr(int on);
/* The program name lines start with (log_init's progname). */
const char *log_ident(void);
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Relay one line a child process wrote (already prefixed with its name). */
void log_relay(const char *line);
/* An invariant failed: log and end the process; the agent fails closed. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
