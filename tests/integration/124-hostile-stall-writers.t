#!/bin/bash
# 124-hostile-stall-writers - hostile client (tests/hostile/stalls.c):
# slow writers (a byte every 10 ms) and clients that vanish mid-frame and while
# a signature is pending.
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
. "$(dirname "$0")/lib-hostile.sh"

hostile_case stall-writers
done_testing
