#!/bin/bash
# 126-hostile-unlock-guessing - hostile client (tests/hostile/unlock.c):
# unlock guessing: 8 connections x 16 pipelined UNLOCKs, the right passphrase
# the 128th; the agent-wide rate limit (doc/protocol.md §5.8) keeps it locked. And a
# lock passphrase "pw\0" is not opened by "pw" (doc/protocol.md §2).
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib-hostile.sh"

hostile_case unlock-guessing
done_testing
