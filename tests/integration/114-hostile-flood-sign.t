#!/bin/bash
# 114-hostile-flood-sign - hostile client (tests/hostile/floods.c):
# sign flood: an RSA-8192 key signing for 20 connections that pipeline 250 KiB
# sign requests.
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
# check: serial (a flood that keeps the CPU busy, and the probe's latency bound)
. "$(dirname "$0")/lib-hostile.sh"

hostile_case flood-sign
done_testing
