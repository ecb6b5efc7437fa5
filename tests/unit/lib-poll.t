#!/bin/bash
# The integration suite's waiting helpers (tests/integration/lib.sh):
# poll_until and the conditions on what a command prints (prints,
# prints_more, prints_some, prints_none), on a table of outputs, then on a
# value that changes only after the poll has begun -- a log line written
# 0.3 s later, as an agent writes one after the event a test caused. The
# form those helpers replace, test "$(...)" = WANT as poll_until's
# arguments, reads the value once, before the first turn: it is shown
# failing on the same change, so that the difference is the helpers'.
. "$(dirname "$0")/../integration/lib.sh"

say() { printf '%s' "$1"; }
quiet() { :; }

# one row each: the condition, its arguments, 0 (holds) or 1 (does not)
while IFS='|' read -r cond args want; do
	eval "set -- $args"
	"$cond" "$@"
	is "$?" "$want" "$cond $args"
done <<'ROWS'
prints|2 say 2|0
prints|2 say 3|1
prints|2 say ''|1
prints|'' quiet|0
prints|'a b' say 'a b'|0
prints_more|1 say 2|0
prints_more|2 say 2|1
prints_more|0 say 0|1
prints_more|0 say 10|0
prints_more|0 say ''|1
prints_more|0 say x|1
prints_more|0 say ' 3'|1
prints_some|say x|0
prints_some|say ' '|0
prints_some|quiet|1
prints_none|quiet|0
prints_none|say x|1
ROWS

# a file that holds one line, and a second line 0.3 s after the poll
# began: the count a test waits for
LOG=$T/log
later() {
	echo one >"$LOG"
	(nap 300000; echo two >>"$LOG") &
	EXTRA_PIDS+=($!)
}
lines() { grep -c . "$LOG"; }

later
poll_until 5 prints 2 lines
ok $? "poll_until prints: sees the line written after it began"
later
poll_until 5 prints_more 1 lines
ok $? "poll_until prints_more: the same"
later
poll_until 1 test "$(lines)" = 2
is "$?" 1 "poll_until test \"\$(...)\": read once, before the line came (the form replaced)"
wait
done_testing
