#!/bin/bash
# A policy that breaks, played to each of its helpers: the prompter, the
# auditor, the broker and the session watcher, each started alone as
# policy starts it (tests/tools/sibling_drive.c: spawn(), fd 3 its end of
# a SOCK_SEQPACKET pair sized by chan_setup_fd, the argv of args_*_encode),
# first served a well-formed message, then sent what policy's encoder
# cannot make: a datagram with no header, a body cut short, a type policy
# never sends it, a datagram longer than IPC_MAX_MSG. Each time the helper
# ends as doc/design.md ("A sibling that breaks") and ipc/sibling.h say:
# one error line naming keyward-policy and what it sent, exit 255, no
# signal, within the driver's bound; the auditor seals its trail first
# (keyward-ctl audit verify finds every line sealed). A closed channel is
# the ordered end, exit 0.
. "$(dirname "$0")/lib.sh"

DRIVE=$KEYWARD_BUILD/tests/sibling_drive
CTL=$KEYWARD_BUILD/keyward-ctl
for f in "$DRIVE" "$CTL" "$KEYWARD_BUILD"/keyward-{prompter,auditor,broker,session}; do
	[ -x "$f" ] || bail "$f missing (make all tests)"
done
# The watcher follows no session here (no system bus answers), but it
# needs some bus to stay for the bad message: with none it ends at once
# (keyward(1), SESSION WATCH). A private session bus, nothing on it.
. "$LIBDIR/lib-session.sh"
command -v dbus-daemon >/dev/null || bail "dbus-daemon missing (make deps)"
_bus sessbus session
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/no-system-bus
export DBUS_SESSION_BUS_ADDRESS=$(head -n1 "$T/sessbus.addr")
WAIT=10

run "$CTL" audit keygen "$T/audit.key"
ok $RC "an audit key for the auditor"
VKEY=$OUT

# drive HELPER STEP...: the auditor with a fresh trail and key each time
drive() {
	local k=$1
	shift
	if [ "$k" = auditor ]; then
		rm -f "$T/trail"
		cp "$T/audit.key" "$T/key.$k"
		set -- -t "$T/trail" -K "$T/key.$k" "$@"
	fi
	local t0=$SECONDS
	run "$DRIVE" -h "$KEYWARD_BUILD/keyward-$k" -k "$k" -w "$WAIT" "$@"
	ELAPSED=$((SECONDS - t0))
}

sealed() { # LABEL: the trail verifies, every line sealed
	run "$CTL" audit verify "$T/trail" "$VKEY"
	is "$RC" 0 "$1: the trail verifies"
	contains "$OUT" "every line sealed" "$1: every line of it sealed"
}

# what each helper says policy sent, per case (ERE)
declare -A WHY=(
	[short]='a message of 4 bytes with no header'
	[unknown]='a message of type 64, which it never sends'
	[oversize]='a message of [0-9]+ bytes, longer than any it sends'
	[trunc.prompter]='a malformed question'
	[trunc.auditor]='a malformed record'
	[trunc.broker]='a malformed MSG_TK_RESOLVE'
	[session]='a malformed message \([0-9]+ bytes\)'
)

for k in prompter auditor broker session; do
	for c in short trunc unknown oversize; do
		drive "$k" good "$c"
		l="$k, $c"
		is "$RC" 0 "$l: the good message was served, the bad one sent"
		like "$OUT" '^exit 255$' "$l: it ends with status 255"
		unlike "$OUT" '^(hang|signal)' "$l: no hang, no signal"
		[ "$ELAPSED" -le "$WAIT" ]
		ok $? "$l: ended within ${WAIT}s (${ELAPSED}s)"
		if [ "$k" = session ] && [ "$c" != oversize ]; then
			why=${WHY[session]}
		else
			why=${WHY[$c.$k]:-${WHY[$c]:-}}
		fi
		like "$ERR" "keyward-$k: keyward-policy broke: $why; ending" \
		    "$l: one error line names keyward-policy and what it sent"
		n=$(grep -c 'broke:' <<<"$ERR")
		is "$n" 1 "$l: one such line"
		[ "$k" = auditor ] && sealed "$l"
	done
	drive "$k" good close
	like "$OUT" '^exit 0$' "$k, closed: the ordered end, status 0"
	contains "$ERR" "keyward-policy closed our channel" "$k, closed: said at debug level"
	[ "$k" = auditor ] && sealed "$k, closed"
done

# The check of the seal can fail: an auditor killed (the driver's bound,
# SIGKILL) leaves its tail unsealed.
WAIT=2 drive auditor good
like "$OUT" '^hang$' "a helper still serving is a hang to the driver"
run "$CTL" audit verify "$T/trail" "$VKEY"
is "$RC" 3 "an auditor killed leaves its trail unsealed (exit 3)"

done_testing
