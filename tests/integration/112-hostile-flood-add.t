#!/bin/bash
# 112-hostile-flood-add - hostile client (tests/hostile/floods.c):
# add flood: 17 connections each pipelining 16 valid 256 KiB ADDs (an Ed25519 key
# restricted to a host with 1,450 P-521 keys).
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
# check: serial (a flood that keeps the CPU busy, and the probe's latency bound)
. "$(dirname "$0")/lib-hostile.sh"

hostile_case flood-add
done_testing
