/*
 * whois.h - the monitor asks keyward-peer who each client is (whois.c) and
 * holds the client's requests until policy knows.
 */
#ifndef KEYWARD_MONITOR_WHOIS_H
#define KEYWARD_MONITOR_WHOIS_H

#include "monitor/client.h"

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

/* fd: the monitor's end of the inspector's socket, or -1 (none). */
void whois_init(int fd);
/* A pidfd of the client's process on sock (pid from SO_PEERCRED), or -1:
 * none wanted (no inspector, pid 0), the kernel has no pidfd (warned
 * once), or the process is gone (*gone set). */
int whois_pidfd(int sock, pid_t pid, int *gone);
/* After MSG_OPEN: gate the client and ask, or tell policy it is gone, or
 * let it be served at once (unavailable). Takes pidfd. */
void whois_start(struct client *c, int pidfd, int gone, uint64_t now);
/* The client goes: out of the FIFO, its answer to be discarded. */
void whois_forget(struct client *c);
/* Send what waits, as far as PEER_MAX_QUEUE allows. */
void whois_pump(void);
/* The inspector's socket is readable (or writable again). */
void whois_input(void);
/* Release the clients whose PEER_TIMEOUT_MS is up. */
void whois_expire(uint64_t now);
/* ms until the next client's time is up (for poll), -1 if none waits. */
int whois_timeout(uint64_t now);
short whois_events(void);
/* Log why once, close the channel and release everyone. */
void whois_gone(const char *why);

#endif
