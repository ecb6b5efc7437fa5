/*
 * attack.c - a hostile agent-protocol client: the table
 * of its cases and the one it runs.
 *
 *   attack [-r] CASE SOCK PID NAME
 *
 * Plays a forwarded server that opens as many agent connections as it
 * likes and sends any well-formed request, against the agent listening on
 * SOCK whose process (tree) is PID; NAME is "keyward" or "ssh-agent". CASE
 * is one of the names below (each run by tests/integration/1NN-hostile-
 * CASE.t, the soak by tests/hostile/127-hostile-soak.t) and the output is TAP.
 * Throughout every case a probe (a well-behaved client: a connection of
 * a process of its own, forked before the case starts) does LIST and an
 * Ed25519 SIGN every PROBE_PERIOD_MS and records its worst latency; each
 * case asserts that the agent is alive, kept its keys and answered the
 * probe within PROBE_BOUND_MS (x3 for sanitizer builds: KEYWARD_SANITIZE
 * or HOSTILE_SLOW=1 in the environment).
 *
 * Every loop is bounded in count and in time; the only traffic is to SOCK.
 * Bounds OpenSSH's own agent misses (it is single-threaded and stalls)
 * become a skip line that says so and a diagnostic, never a pass; -r (the
 * reference run the .t wrappers make against /usr/bin/ssh-agent beside
 * keyward) turns every result into a diagnostic. Lines "# FIGURE key NAME:
 * text" carry the figures the wrappers print side by side.
 *
 * The cases live one file per family, named by what they attack (lib.h
 * lists them); the library they share is lib.c. Keys: Ed25519 and P-521
 * are generated here; the RSA-8192 and RSA-16384 keys come from
 * HOSTILE_KEYS (default tests/hostile/keys), because making them takes
 * minutes.
 */
#include "tests/hostile/lib.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	void (*fn)(void);
	const char *what;
} case_table[] = {
	{ "flood-add", attack_flood_add,
	  "add flood: 17 connections x 16 pipelined 256 KiB ADDs" },
	{ "flood-sign", attack_flood_sign,
	  "sign flood: RSA-8192 for 20 connections of 250 KiB requests" },
	{ "flood-big-rsa", attack_flood_big_rsa,
	  "big RSA: RSA-16384 add and signatures beside the probe" },
	{ "stall-readers", attack_stall_readers, "readers that never read: memory" },
	{ "stall-writers", attack_stall_writers, "slow writers and vanishing clients" },
	{ "connections", attack_connections, "connection flood" },
	{ "connections-idle", attack_connections_idle,
	  "connection flood beside a lone client's idle connection" },
	{ "pipeline-order", attack_pipeline_order, "effects in order within one write" },
	{ "pipeline-long", attack_pipeline_long, "long pipelines: 17, 100, 1000 "
	    "requests" },
	{ "unlock-guessing", attack_unlock_guessing,
	  "unlock guessing: 8 x 16 pipelined UNLOCKs; \"pw\\0\" vs \"pw\"" },
	{ "bind-failed", attack_bind_failed, "hidden keys after a failed session-bind" },
	{ "limits-keys", attack_limits_keys,
	  "keys held: the byte and count budgets, lists at the limit" },
	{ "prompts-one-host", attack_prompts_one_host,
	  "prompts from one forwarded host beside a local client's" },
	{ "prompts-many-hosts", attack_prompts_many_hosts,
	  "prompts from many forwarded hosts beside a local client's" },
	{ "planted-key", attack_planted_key,
	  "a forwarded host's own key: not the user's, not another host's" },
	{ "forwarded-readd", attack_forwarded_readd,
	  "a forwarded re-add of the user's key: refused, the key kept" },
	{ "soak", attack_soak, "mixed soak (make stress)" },
};

int
main(int argc, char **argv)
{
	const char *e;
	size_t i;
	int wt, found;

	if (argc > 1 && strcmp(argv[1], "-r") == 0) {
		reference = 1;
		argv++;
		argc--;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: attack [-r] CASE SOCK PID NAME\n");
		for (i = 0; i < sizeof(case_table) / sizeof(case_table[0]); i++)
			fprintf(stderr, "  %-18s  "
			    "%s\n", case_table[i].name, case_table[i].what);
		return 2;
	}
	sock_path = argv[2];
	agent_pid = (pid_t)atoi(argv[3]);
	agent_name = argv[4];
	if ((e = getenv("HOSTILE_KEYS")) != NULL && *e != '\0')
		keydir = e;
	stress = (e = getenv("HOSTILE_STRESS")) != NULL && strcmp(e, "1") == 0;
#ifdef KEYWARD_SANITIZE
	scale = SANITIZE_SCALE;
#endif
	if ((e = getenv("HOSTILE_SLOW")) != NULL && strcmp(e, "1") == 0)
		scale = SANITIZE_SCALE;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = now_ms();
	for (i = 0; i < sizeof(case_table) / sizeof(case_table[0]); i++)
		if (strcmp(case_table[i].name, argv[1]) == 0)
			break;
	if (i == sizeof(case_table) / sizeof(case_table[0]))
		die("unknown case %s", argv[1]);
	diag("case %s against %s (pid %d): %s; probe bound %d ms", case_table[i].name,
	    agent_name, (int)agent_pid, case_table[i].what, bound_ms(PROBE_BOUND_MS));

	probe_key = key_new(KEY_ED25519);
	wt = add_key(probe_key, PROBE_COMMENT);
	if (!tap_ok(wt == MSG_SUCCESS && list_fresh(probe_key, &found, 10000) > 0 && found,
	    "the probe's Ed25519 key is added and listed"))
		die("the agent does not take a key (answer %d)", wt);
	probe_init();
	case_table[i].fn();
	return tap_done();
}
