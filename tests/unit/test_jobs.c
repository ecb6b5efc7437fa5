/*
 * test_jobs.c - the keyholder's signing queue (keyholder/jobs.c): jobs
 * are taken by client connection in turn, a newcomer ahead of those that
 * have had the current turn, each connection's own jobs in the order
 * they came, and the lanes never mix (a hostile forwarded
 * server cannot stall the agent).
 *
 * A row is a sequence of events and the order in which workers get the
 * jobs. "A1" is job 1 of connection A in the fast lane, "a1" the same
 * connection in the slow lane; "-" is a fast worker taking a job now, "~"
 * a slow worker. After the events, what is left is drained, fast lane
 * first. Connection A is id 0: 0 is just one more connection.
 */
#include "keyholder/jobs.h"
#include "ipc/limits.h"
#include "keys/sshkey.h"
#include "tests/unit/tap.h"

#include <string.h>

static const uint32_t conn_id[] = { 0, 1, 0xffffffffu, 7, 2 };   /* A B C D E */

static const struct {
	const char *name;
	const char *events;
	const char *order;
} rows[] = {
	{ "one connection: its own order",
	  "A1 A2 A3", "A1 A2 A3" },
	{ "two connections: turns alternate",
	  "A1 A2 A3 B1 B2 B3", "A1 B1 A2 B2 A3 B3" },
	{ "16 pipelined on A, then one on B: B goes second",
	  "A1 A2 A3 A4 A5 A6 A7 A8 A9 Aa Ab Ac Ad Ae Af Ag B1",
	  "A1 B1 A2 A3 A4 A5 A6 A7 A8 A9 Aa Ab Ac Ad Ae Af Ag" },
	{ "B arrives while A's first job is being signed: B next",
	  "A1 A2 A3 A4 - B1", "A1 B1 A2 A3 A4" },
	{ "two workers busy with A, then B: B next, one job per worker at most",
	  "A1 A2 A3 A4 - - B1", "A1 A2 B1 A3 A4" },
	{ "16 pipelined on A, both workers busy with A, then B: B next",
	  "A1 A2 A3 A4 A5 A6 A7 A8 A9 Aa Ab Ac Ad Ae Af Ag - - B1",
	  "A1 A2 B1 A3 A4 A5 A6 A7 A8 A9 Aa Ab Ac Ad Ae Af Ag" },
	{ "A and B both had their turn, then C: C next",
	  "A1 A2 B1 B2 - - C1", "A1 B1 C1 A2 B2" },
	{ "only one newcomer a turn goes ahead: the second waits for the next",
	  "A1 A2 - B1 C1", "A1 B1 A2 C1" },
	{ "fresh connections one after another cannot starve A",
	  "A1 A2 - B1 - C1 - D1 - E1", "A1 B1 A2 C1 D1 E1" },
	{ "A's queue ran dry as its job was taken, A sends more: B still goes first",
	  "A1 - A2 A3 B1", "A1 B1 A2 A3" },
	{ "a connection that drained and comes back joins the end",
	  "A1 - B1 B2 A2", "A1 B1 A2 B2" },
	{ "three connections, uneven",
	  "A1 A2 A3 B1 C1 C2", "A1 B1 C1 A2 C2 A3" },
	{ "a new connection joins at the end of the round",
	  "A1 A2 B1 B2 - D1", "A1 B1 D1 A2 B2" },
	{ "lanes: a slow job does not hold up fast ones",
	  "a1 a2 A1 B1", "A1 B1 a1 a2" },
	{ "lanes: a slow worker takes slow jobs only",
	  "A1 ~ a1 ~", "a1 A1" },
	{ "lanes: empty slow lane gives nothing",
	  "A1 ~ -", "A1" },
	{ "slow lane: round-robin by connection too",
	  "a1 a2 a3 b1 c1", "a1 b1 c1 a2 a3" },
	{ "one connection in both lanes: each lane keeps its own order",
	  "A1 a1 A2 a2 ~ - -", "a1 A1 A2 a2" },
	{ "five connections, one job each: arrival order",
	  "E1 D1 C1 B1 A1", "E1 D1 C1 B1 A1" },
};

struct tjob {
	struct jq_node node;    /* first */
	char tag[3];
};

static void
take(struct jobq *q, enum jq_lane lane, char *out, size_t n)
{
	struct tjob *j = (struct tjob *)jq_pop(q, lane);

	if (j == NULL)
		return;
	if (out[0] != '\0')
		strncat(out, " ", n - strlen(out) - 1);
	strncat(out, j->tag, n - strlen(out) - 1);
}

static void
test_rows(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tjob jobs[64];
		struct jobq q;
		char out[256] = "", ev[256];
		size_t nj = 0;
		int pushed = 1;

		jq_init(&q);
		snprintf(ev, sizeof(ev), "%s", rows[i].events);
		for (char *t = strtok(ev, " "); t != NULL; t = strtok(NULL, " ")) {
			if (strcmp(t, "-") == 0) {
				take(&q, JQ_FAST, out, sizeof(out));
			} else if (strcmp(t, "~") == 0) {
				take(&q, JQ_SLOW, out, sizeof(out));
			} else {
				int slow = t[0] >= 'a';
				struct tjob *j = &jobs[nj++];

				j->node.conn = conn_id[(slow ? t[0] - 'a' : t[0] - 'A')];
				memcpy(j->tag, t, 2);
				j->tag[2] = '\0';
				pushed &= jq_push(&q, slow ? JQ_SLOW : JQ_FAST, &j->node) == 0;
			}
		}
		for (size_t k = 0; k < nj; k++)
			take(&q, JQ_FAST, out, sizeof(out));
		for (size_t k = 0; k < nj; k++)
			take(&q, JQ_SLOW, out, sizeof(out));
		ok(pushed, "%s: queued", rows[i].name);
		is_str(out, rows[i].order, "%s: %s", rows[i].name, rows[i].order);
		ok(jq_pop(&q, JQ_FAST) == NULL && jq_pop(&q, JQ_SLOW) == NULL &&
		    q.lane[JQ_FAST].njobs == 0 && q.lane[JQ_SLOW].njobs == 0,
		    "%s: nothing left", rows[i].name);
		jq_clear(&q);
	}
}

/* Random arrivals and takes on five connections in two lanes: every job
 * comes out once, each connection's in its own order, and once a job is
 * the next of its connection, at most one job of each other connection
 * is taken before it, plus the one newcomer a turn lets jump. */
static void
test_random(void)
{
	enum { NJ = 4000, NC = 5 };
	static struct tjob jobs[NJ];
	static size_t fifo[JQ_LANES][NC][NJ], waited[NJ];
	size_t head[JQ_LANES][NC] = { { 0 } }, tail[JQ_LANES][NC] = { { 0 } };
	size_t nj = 0, out = 0, order_bad = 0, maxwait = 0;
	struct jobq q;

	srand(13);
	jq_init(&q);
	while (out < NJ) {
		int lane = rand() % 2, c = rand() % NC;

		if (nj < NJ && rand() % 3 != 0) {
			struct tjob *j = &jobs[nj];

			j->node.conn = conn_id[c];
			j->tag[0] = (char)c;
			j->tag[1] = (char)lane;
			if (jq_push(&q, (enum jq_lane)lane, &j->node) != 0)
				break;
			fifo[lane][c][tail[lane][c]++] = nj++;
		} else {
			struct tjob *j = (struct tjob *)jq_pop(&q, (enum jq_lane)lane);
			size_t idx;
			int jc;

			if (j == NULL)
				continue;
			idx = (size_t)(j - jobs);
			jc = j->tag[0];
			/* FIFO per connection and lane */
			if (head[lane][jc] == tail[lane][jc] ||
			    fifo[lane][jc][head[lane][jc]] != idx) {
				order_bad++;
				continue;
			}
			head[lane][jc]++;
			if (waited[idx] > maxwait)
				maxwait = waited[idx];
			/* the next job of every other connection waited one more */
			for (int o = 0; o < NC; o++)
				if (o != jc && head[lane][o] < tail[lane][o])
					waited[fifo[lane][o][head[lane][o]]]++;
			out++;
		}
	}
	is_int(out, NJ, "random: all %d jobs came out", NJ);
	is_int(order_bad, 0, "random: each connection's jobs in their order, per lane");
	ok(maxwait <= NC, "random: a connection's next job waits behind at most %d "
	    "jobs of others (%zu)", NC, maxwait);
	jq_clear(&q);
}

/* Which lane a key signs in. */
static void
test_lanes(void)
{
	static const struct {
		const char *name;
		int kind;
		unsigned bits;
		enum jq_lane lane;
	} lrows[] = {
		{ "Ed25519", KEY_ED25519, 0, JQ_FAST },
		{ "ECDSA P-521", KEY_ECDSA_P521, 0, JQ_FAST },
		{ "RSA-2048", KEY_RSA, 2048, JQ_FAST },
		{ "RSA at the limit", KEY_RSA, KEYHOLDER_FAST_RSA_BITS, JQ_FAST },
		{ "RSA one bit over the limit", KEY_RSA, KEYHOLDER_FAST_RSA_BITS + 1, JQ_SLOW },
		{ "RSA-8192", KEY_RSA, 8192, JQ_SLOW },
		{ "RSA-16384", KEY_RSA, 16384, JQ_SLOW },
	};

	for (size_t i = 0; i < sizeof(lrows) / sizeof(lrows[0]); i++)
		is_int(jq_lane_for(lrows[i].kind, lrows[i].bits), lrows[i].lane,
		    "lane of %s: %s", lrows[i].name,
		    lrows[i].lane == JQ_FAST ? "fast" : "slow");
}

int
main(void)
{
	test_rows();
	test_random();
	test_lanes();
	return done_testing();
}
