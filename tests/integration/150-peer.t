#!/bin/bash
# keyward-peer, the caller-identity inspector, driven alone as keyward
# will drive it (tests/tools/peer_drive.c: spawn() with fd 3 a
# SOCK_SEQPACKET socketpair, requests with a pidfd from pidfd_open): a
# known child of this shell named by exe, cmdline and ancestors; another
# uid's process "unreadable"; a process that exited "gone"; a recycled pid
# never attributed; its sandbox (Seccomp, NoNewPrivs, capabilities; in the
# test build Landlock and a forbidden syscall).
#
# As root the inspector and the processes it is asked about run as a uid
# of their own (UID_A): it has no capabilities, so root's processes are
# "unreadable" to it, as another user's are to a user's agent.
. "$(dirname "$0")/lib.sh"

HELPER=$KEYWARD_BUILD/keyward-peer
DRIVE=$KEYWARD_BUILD/tests/peer_drive
TB=${KEYWARD_TESTING_BUILD:-$KEYWARD_BUILD/../build-testing}
for f in "$HELPER" "$DRIVE"; do
	[ -x "$f" ] || bail "$f missing (make all tests)"
done
SLEEP=$(readlink -f "$(command -v sleep)")

if [ "$(id -u)" = 0 ]; then
	UID_A=4242 UID_B=65534
	AS_A=(setpriv --reuid=$UID_A --regid=$UID_A --clear-groups)
	AS_B=(setpriv --reuid=$UID_B --regid=$UID_B --clear-groups)
	DRIVE_U=(-u "$UID_A")
else
	UID_A=$(id -u) UID_B=
	AS_A=() AS_B=()
	DRIVE_U=()
fi
drive() { run "$DRIVE" -h "$HELPER" -l debug "${DRIVE_U[@]}" "$@"; }

# --- a known child: a sleep of this shell with a recognisable argv
# (exec ...): the subshell becomes setpriv, then sleep: $! is the sleep,
# and its parent this shell
(exec "${AS_A[@]}" sleep 300.4242) &
known=$!
EXTRA_PIDS+=("$known")
poll_until 5 grep -q 300.4242 "/proc/$known/cmdline"
ok $? "the known child runs (pid $known)"
drive "pid:$known" status
contains "$OUT" "reply 1 ok" "a child of this shell: ok"
contains "$OUT" "exe $SLEEP" "its exe is $SLEEP"
like "$OUT" '^cmdline sleep 300\.4242$' "its cmdline is its argv joined with spaces"
like "$OUT" "anc $$ [^ ]* ?[^ ]*bash" "its first ancestor is this shell (pid $$, bash)"
first=$(sed -n 's/^anc \([0-9]*\) .*/\1/p' <<<"$OUT" | head -n 1)
is "$first" "$$" "the shell is the first ancestor, the direct parent"
n=$(grep -c '^anc ' <<<"$OUT")
[ "$n" -ge 1 ] && [ "$n" -le 8 ]
ok $? "the chain has 1 to PEER_MAX_ANCESTORS (8) entries ($n)"
like "$OUT" $'helper Seccomp:\t2' "the inspector: Seccomp 2"
like "$OUT" $'helper NoNewPrivs:\t1' "the inspector: NoNewPrivs 1"
like "$OUT" $'helper CapEff:\t0000000000000000' "the inspector: CapEff 0"
like "$OUT" $'helper CapPrm:\t0000000000000000' "the inspector: CapPrm 0"
contains "$OUT" "exit 0" "closing the channel ends it (exit 0)"
contains "$ERR" "peer sandbox active" "the inspector answered from inside its sandbox"
contains "$ERR" "peer-exe sandbox active" "and so did its exe reader"

drive "nopidfd:$known"
contains "$OUT" "reply 1 no-pidfd" "without a pidfd: no-pidfd (degraded)"
contains "$OUT" "exe $SLEEP" "without a pidfd: still read"
contains "$ERR" "warning: requests without a pidfd" "and the degradation is logged"

# --- another uid's process
if [ -n "$UID_B" ]; then
	(exec "${AS_B[@]}" sleep 300.65534) &
	other=$!
	EXTRA_PIDS+=("$other")
	poll_until 5 grep -q 300.65534 "/proc/$other/cmdline"
	ok $? "uid $UID_B's sleep runs (pid $other)"
	what="uid $UID_B"
else
	other=1
	what="pid 1 (root's)"
	[ "$(stat -c %u /proc/1)" != "$UID_A" ]
	ok $? "pid 1 is another uid's"
fi
drive "pid:$other"
contains "$OUT" "reply 1 unreadable" "$what: unreadable"
unlike "$OUT" "exe /|cmdline .|anc " "$what: nothing of it is sent"

# --- a process that exited before the request
drive exited
contains "$OUT" "reply 1 gone" "a process that exited before the request: gone"

# --- a recycled pid, through the pidfd taken before it was recycled
drive recycle
if grep -q '^recycled ' <<<"$OUT"; then
	contains "$OUT" "reply 1 gone" "a recycled pid, asked through the old pidfd: gone"
	# the same pid without a pidfd names the new process: the recycling
	# did happen, and only the pidfd told the two apart
	contains "$OUT" "cmdline sleep 29.5150" "(control) the pid does name another process now"
else
	skip_n 2 "the kernel did not hand the pid out again in time"
fi

# --- requests one at a time, in arrival order
drive "burst:$known"
contains "$OUT" "burst 64 of 64 answered in order" "64 requests sent at once: all answered, in order"

# --- a requester that sends what is no request: the inspector stops
drive garbage
contains "$OUT" "no reply" "a malformed request: no reply"
contains "$OUT" "exit 255" "a malformed request: the inspector exits 255 (a broken peer)"
contains "$ERR" "malformed request" "and says why"

# --- arguments
run "$HELPER"
[ "$RC" != 0 ]
ok $? "keyward-peer without arguments refuses to run"
run "$HELPER" verbose
[ "$RC" != 0 ]
ok $? "keyward-peer with a bad log level refuses to run"
run "$HELPER" debug 3</dev/null
contains "$ERR" "not a SOCK_SEQPACKET socket" "keyward-peer whose fd 3 is no socket refuses to run"

# --- the test-only build (make TESTING=1)
if [ ! -x "$TB/keyward-peer" ]; then
	skip_n 10 "no test build in $TB (make TESTING=1)"
else
	tdrive() { run "$DRIVE" -h "$TB/keyward-peer" -l debug "${DRIVE_U[@]}" "$@"; }
	tdrive -e KEYWARD_TEST_LANDLOCK=/etc/passwd "pid:$known"
	contains "$ERR" "peer under Landlock: open /etc/passwd: Permission denied" \
		"test build: Landlock refuses /etc/passwd"
	contains "$OUT" "reply 1 ok" "test build: and the inspector still answers"
	tdrive -e KEYWARD_TEST_LANDLOCK=/proc/self/status "pid:$known"
	contains "$ERR" "peer under Landlock: open /proc/self/status: opened" \
		"test build: Landlock leaves /proc readable"
	tdrive -e KEYWARD_TEST_FORBIDDEN=peer:execve "pid:$known"
	contains "$OUT" "signal 31" "test build: execve kills the inspector by SIGSYS"
	tdrive -e KEYWARD_TEST_FORBIDDEN=peer-exe:open "pid:$known"
	contains "$ERR" "peer-exe attempts forbidden syscall open" "test build: the exe reader tries open"
	contains "$OUT" "no reply" "test build: open kills the exe reader, and the inspector with it"
	# The race: the inspector reads a process, then waits 1.5 s before its
	# checks; meanwhile the process is killed and its pid handed to a fork
	# with the same exe and cmdline. With a pidfd, the pidfd catches it;
	# without, the start time alone must.
	tdrive -e KEYWARD_TEST_PEER_PAUSE_MS=1500 race race-nopidfd
	if [ "$(grep -c '^recycled ' <<<"$OUT")" = 2 ]; then
		contains "$OUT" "reply 1 gone" "test build: recycled while read, with a pidfd: gone"
		contains "$OUT" "reply 2 gone" "test build: recycled while read, without a pidfd: gone (start time)"
		unlike "$OUT" "reply [12] (ok|no-pidfd)" "test build: the new process's data is never sent for the old"
		# and it was the check after the reading that caught both (the
		# process was read before it died), not a pidfd already dead
		is "$(grep -c 'changed while read: gone' <<<"$ERR")" 2 \
			"test build: both caught by the checks after the reading"
	else
		skip_n 4 "the kernel did not hand the pid out again in time"
	fi
fi

done_testing
