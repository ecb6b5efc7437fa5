/*
 * log.c - one line per event, written with a single write() so lines from
 * several processes never interleave. Every line is made terminal-safe
 * here, at the sink (ipc/text.h), so no caller that logs a client's
 * comment or user name can forget to: a line holds no control, no bidi
 * control and no invalid UTF-8, on stderr and in syslog alike.
 */
#include "ipc/log.h"
#include "ipc/limits.h"
#include "ipc/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

static const char *prog = "keyward";
static int level = LOG_LVL_INFO;
static int to_syslog;
static int errors_too;          /* log_errors_to_stderr() */

void
log_init(const char *progname, int lvl, int use_syslog)
{
	prog = progname;
	level = lvl;
	to_syslog = use_syslog;
	if (to_syslog)
		openlog(progname, LOG_PID | LOG_NDELAY, LOG_AUTH);
}

void
log_errors_to_stderr(int on)
{
	errors_too = on;
}

const char *
log_ident(void)
{
	return prog;
}

int
log_level(void)
{
	return level;
}

static void
emit(int lvl, const char *line)
{
	char buf[LOG_LINE_MAX + 64];
	int n;

	if (to_syslog) {
		syslog(lvl == LOG_LVL_ERROR ? LOG_ERR :
		    lvl == LOG_LVL_INFO ? LOG_INFO : LOG_DEBUG, "%s", line);
		if (!errors_too || lvl != LOG_LVL_ERROR)
			return;
		n = snprintf(buf, sizeof(buf), "%s: %s\n", prog, line);
	} else
		n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (n > 0)
		(void)!write(STDERR_FILENO, buf,
		    (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void
vlog(int lvl, const char *fmt, va_list ap)
{
	/* Twice the line: whatever vsnprintf cuts lies beyond where the
	 * terminal form is cut, so no character is shown cut in half. */
	char msg[2 * LOG_LINE_MAX], safe[LOG_LINE_MAX], line[LOG_LINE_MAX + 32];

	if (lvl > level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* A newline becomes \n: a client-chosen string cannot forge a line. */
	text_term_str(safe, sizeof(safe), msg);
	if (to_syslog)
		snprintf(line, sizeof(line), "%s", safe);
	else
		snprintf(line, sizeof(line), "%s: %s", prog, safe);
	emit(lvl, line);
}

#define DEFINE_LOG(fn, lvl) \
void fn(const char *fmt, ...) \
{ \
	va_list ap; \
	va_start(ap, fmt); \
	vlog(lvl, fmt, ap); \
	va_end(ap); \
}

DEFINE_LOG(log_error, LOG_LVL_ERROR)
DEFINE_LOG(log_info, LOG_LVL_INFO)
DEFINE_LOG(log_debug, LOG_LVL_DEBUG)

/* A well-behaved child made its line safe already, and escaping it again
 * would double its backslashes; a compromised child's raw bytes are
 * escaped here all the same. */
void
log_relay(const char *line)
{
	char safe[LOG_LINE_MAX];

	if (text_term_clean(line, strlen(line)))
		emit(LOG_LVL_INFO, line);
	else
		emit(LOG_LVL_INFO, text_term_str(safe, sizeof(safe), line));
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERROR, fmt, ap);
	va_end(ap);
	_exit(255);
}
