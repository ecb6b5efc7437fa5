#!/bin/bash
# 113-hostile-flood-big-rsa - hostile client (tests/hostile/floods.c):
# big RSA: an RSA-16384 key added and signing while the probe times Ed25519
# signatures (the issue's target, under 50 ms, is reported, not asserted).
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
# check: serial (a flood that keeps the CPU busy, and the probe's latency bound)
. "$(dirname "$0")/lib-hostile.sh"

hostile_case flood-big-rsa
done_testing
