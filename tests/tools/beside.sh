#!/bin/sh
# tests/tools/beside.sh LOG 'BACKGROUND' FOREGROUND... - run the shell
# command BACKGROUND at nice 19 while FOREGROUND runs, then wait for it.
#
# make check runs the next build and its unit tests this way beside the
# integration files that run one at a time, which leave a core idle
# (mk/tests.mk, check). The background's output goes to LOG and is
# printed after the foreground's, with its exit status, so the two never
# interleave. The exit status is the foreground's if it failed, else the
# background's: a failure of either fails the caller.
#
# Nice 19 and the SCHED_IDLE policy (chrt --idle, where it is allowed)
# keep the background off a core the foreground wants: the scheduler
# gives such a task a sliver of a nice-0 one's share, and a normal task
# that wakes preempts a SCHED_IDLE one at once.
[ $# -ge 3 ] || { echo "usage: beside.sh LOG 'BACKGROUND' FOREGROUND..." >&2; exit 2; }
log=$1 bg=$2
shift 2

# Its own process group (setsid: a background job's pid is no group
# leader, so setsid makes it one without a fork), so that an interrupt
# stops the whole background (a make and its compilers), not its shell.
idle=
chrt --idle 0 true 2>/dev/null && idle="chrt --idle 0"
setsid -w nice -n 19 $idle sh -c "$bg" >"$log" 2>&1 </dev/null &
pid=$!
trap 'kill -TERM -$pid 2>/dev/null; exit 130' INT TERM HUP

"$@"
st=$?
[ $st = 0 ] || echo "  BESIDE  the foreground failed ($st); waiting for the background: $bg"
wait $pid
bst=$?
trap - INT TERM HUP
echo "  BESIDE  output of (nice 19, beside the above): $bg"
cat "$log"
echo "  BESIDE  exit status $bst: $bg"
[ $st = 0 ] || exit $st
exit $bst
