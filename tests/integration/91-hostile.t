#!/bin/bash
# Hostile peers (keyward only): tests/hostile/hostile_monitor plays a
# compromised monitor against keyward-policy and keyward-keyholder started
# exactly as the monitor starts them; tests/hostile/hostile_policy plays a
# compromised policy against keyward-keyholder alone. Each is a TAP
# program of its own; its lines are shown here indented (a subtest) and
# each counts as one test: it passes when the program ran every one of its
# tests and all passed. On a failure the failing lines, the program's
# stderr and the helpers' log are shown.
# check: serial (hostile_policy's fairness cases count in which order the
# keyholder's workers answer: a machine busy with other files reorders them)
# hostile_monitor counts no order or time of answers: 128-hostile-monitor.t
# runs it here with HOSTILE_PROGS=hostile_monitor, among the files that
# run side by side, and this file alone runs only hostile_policy unless
# HOSTILE_PROGS names the programs. Nor do hostile_policy's other cases:
# 129-hostile-policy.t runs them (HOSTILE_POLICY_CASES=others) beside the
# other files, and this file, alone, its fairness cases only
# (HOSTILE_POLICY_CASES=fair unless set; "all" for every case).
. "$(dirname "$0")/lib.sh"

PROGS=${HOSTILE_PROGS:-hostile_policy}
export HOSTILE_POLICY_CASES=${HOSTILE_POLICY_CASES:-fair}
NTESTS=$((2 * $(wc -w <<<"$PROGS")))
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi

for prog in $PROGS; do
	bin=$KEYWARD_BUILD/tests/$prog
	if [ ! -x "$bin" ]; then
		ok 1 "$prog is built ($bin; make tests)"
		skip "$prog did not run"
		continue
	fi
	tap=$T/$prog.tap err=$T/$prog.err log=$T/$prog.log
	HOSTILE_LOG=$log timeout 1800 "$bin" "$KEYWARD_BUILD" >"$tap" 2>"$err"
	rc=$?
	sed 's/^/    /' "$tap"
	total=$(grep -cE '^(not )?ok [0-9]+' "$tap")
	failed=$(grep -cE '^not ok [0-9]+' "$tap")
	plan=$(grep -E '^1\.\.[0-9]+$' "$tap" | tail -n 1)
	if [ "$rc" != 0 ] || [ "$failed" != 0 ]; then
		diag "$prog exited with status $rc; its failures:"
		grep -E -A 3 '^not ok|^Bail out|^# (LEAK|FORBIDDEN|.*KILLED)' "$tap" |
			sed 's/^/  /' | while IFS= read -r l; do diag "$l"; done
		diag_file "$err" "$prog stderr"
		diag_file "$log" "$prog: the helpers' log"
	fi
	ok "$rc" "$prog: $((total - failed)) of $total tests passed"
	is "$plan" "1..$total" "$prog: ran to its plan ($plan)"
done

done_testing
