/*
 * policypeers.h - a policy of the unit tests with its channels to the
 * monitor, the keyholder, the prompter, the auditor and the broker on
 * socket pairs, and what it sent read back from their other ends: the
 * tests that drive policy_from_monitor as the monitor would and answer
 * as the other processes would (test_barrier, test_addlive).
 */
#ifndef KEYWARD_TEST_POLICYPEERS_H
#define KEYWARD_TEST_POLICYPEERS_H

#include "policy/dispatch.h"
#include "tests/unit/testkeys.h"

#include <sys/socket.h>

enum { MON, KH, PR, AU, TK, NPEERS };

/* P's channels on fresh socket pairs, whose other ends go to peer[];
 * its tables empty, SHA-256 fingerprints. */
static inline void
policy_peers(struct policy *P, int peer[NPEERS])
{
	struct chan *c[NPEERS] = { &P->mon, &P->kh, &P->pr, &P->au, &P->tk };

	for (int i = 0; i < NPEERS; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
			tk_die("socketpair");
		chan_init(c[i], sv[0]);
		peer[i] = sv[1];
	}
	idt_init(&P->ids);
	wb_init(&P->out);
	wb_init(&P->secret);
	P->fp_hash = "sha256";
}

/* The next message policy sent to the peer at fd: its header, and its
 * body in *body (static; NULL: not wanted); -1 if none. */
static inline int
policy_sent(int fd, struct msg_hdr *h, struct rd *body)
{
	static uint8_t buf[IPC_MAX_MSG];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	struct rd r;

	if (n <= 0)
		return -1;
	rd_init(&r, buf, (size_t)n);
	if (msg_hdr_decode(&r, h) != 0)
		return -1;
	if (body != NULL)
		*body = r;
	return 0;
}

#endif
