/*
 * test_whoisq.c - the queue of connections waiting for keyward-peer
 * (monitor/whoisq.c), as a table of scripts: clients pushed, requests sent
 * as far as PEER_MAX_QUEUE allows, answers (known, unknown, late), clients
 * that go or whose time is up, and the inspector gone. Each row ends in
 * the state of every client (W waiting, O asked, D served), the counts,
 * and the pidfds closed.
 *
 * Script: "pN" push N clients (pidfd 100+i, deadline 1000+i; "PN": without
 * pidfd), "s" send while there is room, "aR" answer request R, "fI" the
 * client I goes, "eT" expire at time T, "g" the inspector is gone.
 */
#include "monitor/whoisq.h"
#include "tests/unit/tap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NCLI 80

static struct whois_item cli[NCLI];
static int ncli, closed[NCLI + 200], nclosed, unknown, discarded, answered;

static void
close_fd(int fd)
{
	if (fd >= 0)
		closed[nclosed++] = fd;
}

static void
release(struct whois_item *it, int fd, void *arg)
{
	(void)it;
	(void)arg;
	close_fd(fd);
}

static void
script(struct whoisq *q, const char *s)
{
	struct whois_item *it;
	long n;
	int fd;

	while (*s != '\0') {
		char op = *s++;
		n = strtol(s, (char **)&s, 10);
		switch (op) {
		case 'p':
		case 'P':
			for (long i = 0; i < n; i++, ncli++)
				whoisq_push(q, &cli[ncli], (uint32_t)ncli + 1, 4242, 1000,
				    op == 'p' ? 100 + ncli : -1, 1000 + (uint64_t)ncli);
			break;
		case 's':
			while (whoisq_next(q) != NULL) {
				uint32_t id = whoisq_next_id(q);
				if (whoisq_sent(q, &fd) != id)
					unknown += 1000;        /* shows in the row */
				close_fd(fd);
			}
			break;
		case 'a':
			if (!whoisq_answer(q, (uint32_t)n, &it))
				unknown++;
			else if (it == NULL)
				discarded++;
			else
				answered++;
			break;
		case 'f':
			close_fd(whoisq_forget(q, &cli[n]));
			break;
		case 'e':
			while ((it = whoisq_expired(q, (uint64_t)n)) != NULL)
				close_fd(whoisq_forget(q, it));
			break;
		case 'g':
			whoisq_flush(q, release, NULL);
			break;
		}
	}
}

static const struct {
	const char *name, *script, *states;
	size_t nwait, nout, nfds;
	int closed, answered, discarded, unknown;
	uint64_t deadline;              /* whoisq_deadline() after */
} cases[] = {
	{ "one client, asked and answered", "p1sa1", "D", 0, 0, 0, 1, 1, 0, 0,
	  UINT64_MAX },
	{ "asked: its pidfd is closed, it waits", "p1s", "O", 0, 1, 0, 1, 0, 0, 0,
	  1000 },
	{ "not yet sent: it holds its pidfd", "p2", "WW", 2, 0, 2, 0, 0, 0, 0,
	  1000 },
	{ "without a pidfd it holds none", "P2", "WW", 2, 0, 0, 0, 0, 0, 0, 1000 },
	{ "answers out of order", "p3sa3a1", "DOD", 0, 1, 0, 3, 2, 0, 0, 1001 },
	{ "an id never asked (the inspector lies)", "p1sa7", "O", 0, 1, 0, 1, 0,
	  0, 1, 1000 },
	{ "an id answered twice", "p1sa1a1", "D", 0, 0, 0, 1, 1, 0, 1,
	  UINT64_MAX },
	{ "id 0 is never asked", "p1sa0", "O", 0, 1, 0, 1, 0, 0, 1, 1000 },
	{ "PEER_MAX_QUEUE at the inspector, the rest wait",
	  "p40s", "OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOWWWWWWWW", 8, 32, 8, 32, 0, 0, 0,
	  1000 },
	{ "an answer makes room for the next in line",
	  "p40sa5s", "OOOODOOOOOOOOOOOOOOOOOOOOOOOOOOOOWWWWWWW", 7, 32, 7, 33, 1, 0,
	  0, 1000 },
	{ "a waiting client goes: out of the FIFO, its pidfd closed",
	  "p40sf35", "OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOWWWDWWWW", 7, 32, 7, 33, 0, 0,
	  0, 1000 },
	{ "the FIFO's head and tail go", "p3f0f2", "DWD", 1, 0, 1, 2, 0, 0, 0,
	  1001 },
	{ "an asked client goes: its answer is discarded",
	  "p2sf0a1", "DO", 0, 1, 0, 2, 0, 1, 0, 1001 },
	{ "a gone client's request still counts until answered",
	  "p33sf0s", "DOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOW", 1, 32, 1, 32, 0, 0, 0,
	  1001 },
	{ "time up, asked: served; the late answer discarded",
	  "p1se1000a1", "D", 0, 0, 0, 1, 0, 1, 0, UINT64_MAX },
	{ "time up, waiting: served, pidfd closed",
	  "p34se1033", "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD", 0, 32, 0, 34, 0, 0, 0,
	  UINT64_MAX },
	{ "time up for the first only", "p3e1000", "DWW", 2, 0, 2, 1, 0, 0, 0,
	  1001 },
	{ "not yet time", "p2se999", "OO", 0, 2, 0, 2, 0, 0, 0, 1000 },
	{ "the inspector gone: everyone served, every pidfd closed",
	  "p40sg", "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD", 0, 0, 0, 40, 0, 0, 0,
	  UINT64_MAX },
	{ "after gone, no old id is known", "p2sga1", "DD", 0, 0, 0, 2, 0, 0, 1,
	  UINT64_MAX },
	{ "a client forgotten twice", "p2f0f0", "DW", 1, 0, 1, 1, 0, 0, 0, 1001 },
};

int
main(void)
{
	struct whoisq q;
	char st[NCLI + 1];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		memset(cli, 0, sizeof(cli));
		for (int i = 0; i < NCLI; i++)
			cli[i].pidfd = -1;
		ncli = nclosed = unknown = discarded = answered = 0;
		whoisq_init(&q);
		script(&q, cases[k].script);
		for (int i = 0; i < ncli; i++)
			st[i] = "DWO"[cli[i].state];
		st[ncli] = '\0';
		is_str(st, cases[k].states, "%s: states", cases[k].name);
		is_int(q.nwait, cases[k].nwait, "%s: waiting", cases[k].name);
		is_int(q.nout, cases[k].nout, "%s: at the inspector", cases[k].name);
		is_int(q.nfds, cases[k].nfds, "%s: pidfds held", cases[k].name);
		is_int(nclosed, cases[k].closed, "%s: pidfds closed", cases[k].name);
		is_int(answered, cases[k].answered, "%s: answers passed on",
		    cases[k].name);
		is_int(discarded, cases[k].discarded, "%s: answers discarded",
		    cases[k].name);
		is_int(unknown, cases[k].unknown, "%s: answers never asked",
		    cases[k].name);
		ok(whoisq_deadline(&q) == cases[k].deadline, "%s: next deadline",
		    cases[k].name);
		/* every pidfd closed once, and only pidfds we gave */
		int dup = 0;
		for (int i = 0; i < nclosed; i++)
			for (int j = i + 1; j < nclosed; j++)
				dup += closed[i] == closed[j] || closed[i] < 100;
		is_int(dup, 0, "%s: no pidfd closed twice", cases[k].name);
		size_t nw = 0;
		for (struct whois_item *it = q.head; it != NULL; it = it->next)
			nw++;
		is_int(nw, q.nwait, "%s: the FIFO's links agree with its count",
		    cases[k].name);
	}
	/* request ids wrap past 0 */
	whoisq_init(&q);
	memset(cli, 0, sizeof(cli));
	q.next_req = UINT32_MAX;
	whoisq_push(&q, &cli[0], 1, 4242, 1000, -1, 5);
	{
		int fd;
		is_int(whoisq_sent(&q, &fd), 1, "the id after 2^32-1 is 1, never 0");
	}
	done_testing();
}
