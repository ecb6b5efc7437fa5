#!/bin/bash
# 123-hostile-stall-readers - hostile client (tests/hostile/stalls.c):
# readers that never read: 8 connections pipelining LISTs of 200 keys; the agent
# tree's memory stays within 64 MiB of idle and returns to 1.5x idle.
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
# check: serial (a flood that keeps the CPU busy, and the probe's latency bound)
. "$(dirname "$0")/lib-hostile.sh"

hostile_case stall-readers
done_testing
