#!/bin/bash
# 110-hostile-bind-failed - hostile client (tests/hostile/bind.c):
# hidden keys: after a failed session-bind LIST hides destination-constrained
# keys and keyward refuses constraints@keyward.dev.
# Throughout, a probe does LIST and an Ed25519 SIGN every 100 ms: the
# agent must survive, keep its keys and answer it within 1 s (x3 sanitized).
. "$(dirname "$0")/lib-hostile.sh"

hostile_case bind-failed
# The connection lists 100 times more after its failed bind: the key it
# cannot see is logged once for that state, not once a LIST.
if is_keyward; then
	n=$(grep -c '"dest-perseus" not listed' "$T/agent-keyward.log")
	is "$n" 1 "the hidden key is logged once for all of that connection's LISTs"
else
	skip "keyward only: the log lines of a hidden key"
fi
done_testing
