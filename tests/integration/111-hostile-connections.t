#!/bin/bash
# 111-hostile-connections - hostile client (tests/hostile/connections.c):
# connection flood: as many idle connections as the agent accepts (agents started
# with RLIMIT_NOFILE 1024), then a new well-behaved client must be served.
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
# check: early (one of the longest files: make check starts it first)
HOSTILE_NOFILE=1024
. "$(dirname "$0")/lib-hostile.sh"

hostile_case connections
done_testing
