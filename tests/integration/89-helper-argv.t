#!/bin/bash
# keyward-policy and keyward-keyholder, and policy's own helpers
# keyward-broker, keyward-prompter and keyward-auditor, run only with the
# one argument list keyward gives them (wire/args.h); any other is refused at once, with
# status 1 and one line, before a channel is touched. A table of argument
# lists each helper must refuse; that they accept the right one is shown by
# every other test (the agent starts) and by 91-hostile.t (which starts them
# with exactly that list).
. "$(dirname "$0")/lib.sh"

POLICY_BAD=(
	""
	"debug"
	"debug sha256 -1"
	"debug sha256 -1 60"
	"debug sha256 -1 60 none"
	"debug sha256 -1 60 none nosync extra"
	"loud sha256 -1 60 none nosync"
	"debug sha3 -1 60 none nosync"
	"debug sha256 -2 60 none nosync"
	"debug sha256 1x 60 none nosync"
	"debug sha256 99999999999999999999 60 none nosync"
	"debug sha256 -1 0 none nosync"
	"debug sha256 -1 86401 none nosync"
	"debug sha256 -1 60 file nosync"
	"debug sha256 -1 60 none maybe"
	"--host-tag extra"
)
KEYHOLDER_BAD=("" "loud" "debug extra" "info info")
# keyward-broker LOGLEVEL TOUCH, keyward-prompter LOGLEVEL CONFIRM
TIMEOUT_BAD=("" "info" "loud 60" "info 0" "info 86401" "info 6x" "info 60 extra")
AUDITOR_BAD=(
	""
	"info"
	"info none nosync 32 keyward-audit /dev/log -"
	"info file nosync 32 keyward-audit /dev/log -"
	"info fd maybe 32 keyward-audit /dev/log -"
	"info fd nosync 33 keyward-audit /dev/log -"
	"info fd nosync 32 a:b /dev/log -"
	"info syslog nosync 32 keyward-audit dev/log -"
	"info fd nosync 32 keyward-audit /dev/log key"
	"info fd nosync 32 keyward-audit /dev/log - extra"
)
NTESTS=$((2 * (${#POLICY_BAD[@]} + ${#KEYHOLDER_BAD[@]} + 2 * ${#TIMEOUT_BAD[@]} + ${#AUDITOR_BAD[@]})))
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
BIN=$(dirname "$AGENT")

refused() { # HELPER ARGS...
	local h=$1; shift
	# fds 3 and 4 closed: a helper that went on would fail on them, not here
	run "$BIN/$h" "$@" 3<&- 4<&-
	is "$RC" 1 "$h ${*:-(no arguments)}: exit status 1"
	contains "$ERR" "$h is started by keyward, not by hand" "$h ${*:-(no arguments)}: says why"
}
for a in "${POLICY_BAD[@]}"; do
	# shellcheck disable=SC2086 # the table's fields are the arguments
	refused keyward-policy $a
done
for a in "${KEYHOLDER_BAD[@]}"; do
	# shellcheck disable=SC2086
	refused keyward-keyholder $a
done
for a in "${TIMEOUT_BAD[@]}"; do
	# shellcheck disable=SC2086
	refused keyward-broker $a
	# shellcheck disable=SC2086
	refused keyward-prompter $a
done
for a in "${AUDITOR_BAD[@]}"; do
	# shellcheck disable=SC2086
	refused keyward-auditor $a
done
done_testing
