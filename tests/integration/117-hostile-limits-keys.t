#!/bin/bash
# 117-hostile-limits-keys - hostile client (tests/hostile/limits.c): the keys
# a forwarded server can make the agent hold. Adds past AGENT_MAX_HELD_BYTES
# and past AGENT_MAX_KEYS are refused, a removal makes room, and with the
# agent full a LIST is cut to one frame. The 50 LISTs at the limit leave at
# most one "identity list cut" line: the log says it when the key count
# changes, never once a request.
# check: serial (a flood that keeps the CPU busy, and the probe's latency bound)
. "$(dirname "$0")/lib-hostile.sh"

hostile_case limits-keys
if is_keyward; then
	LOG=$T/agent-keyward.log
	cuts=$(grep -c 'identity list cut at' "$LOG")
	# one line when the count changes: never the same count twice in a row
	again=$(sed -n 's/.*identity list cut at [0-9]* of \([0-9]*\) keys.*/\1/p' "$LOG" |
		uniq -d | wc -l)
	ok $((cuts > 0 ? 0 : 1)) "the agent logged that a list was cut ($cuts lines)"
	is "$again" 0 "no line repeats the one before it: one a key count, not one a LIST"
else
	skip "keyward only: the log lines of a cut list"
	skip "keyward only: the log lines of a cut list"
fi
done_testing
