/*
 * log.c - one line per event, written with a single write() so lines from
 * several processes never interleave.
 */
#include "ipc/log.h"
#include "ipc/limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

static const char *prog = "keyward";
static int level = LOG_LVL_INFO;
static int to_syslog;

void
log_init(const char *progname, int lvl, int use_syslog)
{
	prog = progname;
	level = lvl;
	to_syslog = use_syslog;
	if (to_syslog)
		openlog(progname, LOG_PID | LOG_NDELAY, LOG_AUTH);
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
		return;
	}
	n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (n > 0)
		(void)!write(STDERR_FILENO, buf,
		    (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void
vlog(int lvl, const char *fmt, va_list ap)
{
	char msg[LOG_LINE_MAX], line[LOG_LINE_MAX + 32];

	if (lvl > level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Never let a client-chosen string forge a second log line. */
	for (char *p = msg; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	if (to_syslog)
		snprintf(line, sizeof(line), "%s", msg);
	else
		snprintf(line, sizeof(line), "%s: %s", prog, msg);
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

void
log_relay(const char *line)
{
	emit(LOG_LVL_INFO, line);
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
