#!/bin/bash
# 119-hostile-pipeline-order - hostile client (tests/hostile/pipelines.c):
# effects in order: ADD/SIGN/LIST/REMOVE, REMOVE then re-ADD, UNLOCK then ADD,
# LOCK then ADD, each in one write, answered as OpenSSH's agent answers.
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
. "$(dirname "$0")/lib-hostile.sh"

hostile_case pipeline-order
done_testing
