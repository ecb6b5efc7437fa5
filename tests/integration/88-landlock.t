#!/bin/bash
# Landlock takes the file system away from every sandboxed process: in the
# test-only build (make TESTING=1 -> build-testing/, never installed) each
# of monitor, policy, keyholder, reaper, auditor and peer tries to read a file
# right after Landlock is on and before its seccomp filter (which would kill
# it for trying), and logs the result. Each must be refused with EACCES,
# while the file is readable to the same user outside. On a kernel without
# Landlock each must say so in one warning instead: never silently.
. "$(dirname "$0")/lib.sh"

TB=${KEYWARD_TESTING_BUILD:-$(dirname "$AGENT")/../build-testing}
PROCS="monitor policy keyholder reaper auditor peer"
NTESTS=10
if ! is_keyward || [ ! -x "$TB/keyward" ]; then
	skip_n $NTESTS "needs keyward and its test build (make TESTING=1)"
	done_testing
fi

PROBE=$T/probe.txt
echo "readable outside the sandbox" >"$PROBE"
chmod 644 "$PROBE"
run cat "$PROBE"
ok $RC "the probe file is readable to this user"

KEYWARD_TEST_LANDLOCK=$PROBE AGENT=$TB/keyward \
	start_agent_fg "$T/agent.sock" -O audit="$T/audit.log"
ok $? "test-build agent started with the probe and an audit trail" || bail "agent did not start"
run ssh-add -l
is "$RC" 1 "it serves clients (no identities)"

if grep -q 'Landlock is not available' "$T/agent.log"; then
	diag "this kernel has no Landlock: checking for the warning instead"
	want() { echo "warning: $1: Landlock is not available"; }
else
	want() { echo "test build: $1 under Landlock: open $PROBE: Permission denied"; }
fi
for p in $PROCS; do
	poll_until 5 grep -qF "$(want "$p")" "$T/agent.log"
	ok $? "$p: $(want "$p")"
done
unlike "$(cat "$T/agent.log")" "under Landlock: open .*: opened" "no process could open the file"
[ $? = 0 ] || diag_file "$T/agent.log"
done_testing
