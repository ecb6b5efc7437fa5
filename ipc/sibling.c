/*
 * sibling.c - the end of a process whose sibling broke or went
 * (sibling.h).
 */
#include "ipc/sibling.h"
#include "ipc/chan.h"
#include "ipc/limits.h"
#include "ipc/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static void (*at_end)(void);

void
peer_at_end(void (*fn)(void))
{
	at_end = fn;
}

/* The one way out: the hook runs at most once even if it, in turn, finds
 * the peer gone. */
static void __attribute__((noreturn))
peer_end(int status)
{
	void (*fn)(void) = at_end;

	at_end = NULL;
	if (fn != NULL)
		fn();
	_exit(status);
}

void
peer_gone(const char *peer)
{
	log_debug("%s closed our channel: ending", peer);
	peer_end(PEER_GONE_STATUS);
}

void
peer_broke(const char *peer, const char *fmt, ...)
{
	char why[LOG_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_error("%s broke: %s; ending (the agent fails closed)", peer, why);
	peer_end(PEER_BROKE_STATUS);
}

void
peer_recv_end(const char *peer, int r, size_t n)
{
	if (r == CHAN_TOO_LONG)
		peer_broke(peer, "a message of %zu bytes, longer than any it "
		    "sends", n);
	peer_gone(peer);
}
