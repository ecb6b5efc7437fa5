#!/bin/bash
# 118-hostile-pipeline-long - hostile client (tests/hostile/pipelines.c):
# long pipelines: 17, 100 and 1000 requests in one write, all answered in order.
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
. "$(dirname "$0")/lib-hostile.sh"

hostile_case pipeline-long
done_testing
