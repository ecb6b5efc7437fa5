# shellcheck shell=bash
# tests/integration/lib-hostile.sh - one case of the hostile-client suite
# (tests/hostile/attack: one file per attack family in
# tests/hostile/), for 1NN-hostile-*.t, 22N-hostile-*.t and
# tests/hostile/*.t. Sourced after nothing: it sources lib.sh itself.
#
#   hostile_case CASE   starts $AGENT (-D, fresh socket), runs
#                       "attack CASE" against it and turns its TAP into
#                       this test's lines (a case that fails also tells
#                       its diagnostics and the agent's log on stderr,
#                       which prove --failures shows); then, when $AGENT
#                       is keyward, runs the same case against
#                       /usr/bin/ssh-agent as a reference (attack -r: its
#                       results are diagnostics) and prints both agents'
#                       figures side by side.
#   hostile_askpass     the askpass of the prompt cases (prompts-*): a
#                       forwarded prompt held open a second and refused, a
#                       local one ("No session-bind") accepted at once, each
#                       logged "start|end NS local|fwd PID" in $T/askpass.log;
#                       keyward only beside ssh-agent (HOSTILE_REFERENCE=0:
#                       OpenSSH's agent runs one prompt at a time and stops
#                       serving anyone while it is open)
#   hostile_fwd_open CASE   after hostile_case CASE: the most forwarded
#                       prompts open at once and how many started ("MOST
#                       STARTED"), before the attack closed its connections
#
# Environment: HOSTILE_REFERENCE=0 skips the reference run (make check sets
# it: the run gives only diagnostics; it is also the default for a
# build-asan agent, beside which it is the same ssh-agent as beside build/);
# HOSTILE_NOFILE=N starts the agents with RLIMIT_NOFILE N (connections);
# HOSTILE_STRESS=1 longer windows (make stress); HOSTILE_SLOW=1 (set here
# for a build-asan agent) scales the latency bound x3.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ATTACK=$KEYWARD_BUILD/tests/attack
REF_AGENT=${REF_AGENT:-/usr/bin/ssh-agent}
export HOSTILE_KEYS=$REPO/tests/hostile/keys
case $KEYWARD_BUILD in *asan*) export HOSTILE_SLOW=1 HOSTILE_REFERENCE=${HOSTILE_REFERENCE:-0} ;; esac

# _hostile_run BIN NAME CASE OUT [-r]: the agent BIN in the foreground on
# its own socket, the attack against it, then the agent stopped.
_hostile_run() {
	local bin=$1 name=$2 cs=$3 out=$4 flag=${5:-} sock=$T/$2.sock pid rc
	(
		[ -n "${HOSTILE_NOFILE:-}" ] && ulimit -n "$HOSTILE_NOFILE"
		exec "$bin" -D -a "$sock"
	) >"$T/$name.stdout" 2>"$T/agent-$name.log" &
	pid=$!
	AGENT_PIDS+=("$pid")
	if ! wait_for_socket "$sock" 10; then
		echo "Bail out! $name did not start" >"$out"
		return 1
	fi
	timeout 1200 "$ATTACK" ${flag:+"$flag"} "$cs" "$sock" "$pid" "$name" >"$out" 2>"$T/attack-$name.err"
	rc=$?
	_kill_tree "$pid"
	diag_file "$T/attack-$name.err" "attack stderr ($name)"
	return $rc
}

hostile_case() {
	local cs=$1 name=ssh-agent line re_ok re_nok plan rc failed0=$FAILED
	is_keyward && name=keyward
	[ -x "$ATTACK" ] || bail "$ATTACK is not built (make tests)"
	_hostile_run "$AGENT" "$name" "$cs" "$T/attack.tap"
	rc=$?
	re_ok='^ok [0-9]+ - (.*)$'
	re_nok='^not ok [0-9]+ - (.*)$'
	while IFS= read -r line; do
		if [[ $line =~ ^ok\ [0-9]+\ \#\ skip\ (.*)$ ]]; then
			skip "${BASH_REMATCH[1]}"
		elif [[ $line =~ $re_ok ]]; then
			_result 0 "${BASH_REMATCH[1]}"
		elif [[ $line =~ $re_nok ]]; then
			_result 1 "${BASH_REMATCH[1]}"
		elif [[ $line == '#'* ]]; then
			printf '%s\n' "$line"
		elif [[ $line == 'Bail out!'* ]]; then
			_result 1 "attack $cs: ${line#Bail out! }"
		fi
	done <"$T/attack.tap"
	plan=$(grep -E '^1\.\.[0-9]+$' "$T/attack.tap" | tail -n 1)
	ok $((rc > 1 ? rc : 0)) "attack $cs against $name ran to its end (status $rc, plan ${plan:-none})"
	[ "$FAILED" = "$failed0" ] || _hostile_stderr "$cs" "$name" "$rc" >&2

	if is_keyward && [ "${HOSTILE_REFERENCE:-1}" != 0 ] && [ -x "$REF_AGENT" ]; then
		_hostile_run "$REF_AGENT" ssh-agent "$cs" "$T/ref.tap" -r
		grep -E '^#' "$T/ref.tap" | grep -v '^# FIGURE ' | sed 's/^# /#   /'
		_hostile_figures "$T/attack.tap" "$T/ref.tap"
	fi
}

# _hostile_stderr CASE NAME STATUS: a failed case told on stderr, which
# prove --failures (make check) shows where it shows none of the "#" lines
# of stdout: the attack's results and diagnostics, its stderr, and the
# agent's log, the tail of it with runs of lines that differ only in their
# numbers (a flood's "connection N closed") told once with their count.
# Every line bears this file's name (the stderr of the files running
# beside it is the same), is escaped (the log holds what clients sent,
# escaped by the agent but not trusted here) and cut; so is their number.
HOSTILE_ERR_LINES=60
HOSTILE_ERR_LOG=25
_hostile_stderr() {
	local cs=$1 name=$2 rc=$3
	{
		printf '# hostile case %s against %s failed (attack status %s):\n' "$cs" "$name" "$rc"
		grep -E '^(not ok|#|Bail out!)' "$T/attack.tap" | head -n "$HOSTILE_ERR_LINES"
		if [ -s "$T/attack-$name.err" ]; then
			echo "# --- attack stderr (its tail)"
			tail -n 10 "$T/attack-$name.err" | sed "s/^/#   /"
		fi
		if [ -s "$T/agent-$name.log" ]; then
			echo "# --- $name's log (its tail; xN: N lines like it in a row)"
			_hostile_runs "$T/agent-$name.log" | tail -n "$HOSTILE_ERR_LOG" |
				sed "s/^/#   /"
		fi
	} | _hostile_escape "$(basename "$0")"
}

# Runs of lines alike but for their numbers, told once: the run's first
# line, then " (xN, the last: ...)" when it has more.
_hostile_runs() {
	perl -ne '
		chomp; (my $k = $_) =~ s/[0-9]+/N/g;
		if (defined $key && $k eq $key) { $n++; $last = $_; next }
		out(); ($key, $first, $last, $n) = ($k, $_, $_, 1);
		sub out { return unless defined $key;
			print $first, ($n > 1 ? " (x$n, the last: $last)" : ""), "\n" }
		END { out() }' "$1"
}

# Each line "PREFIX: LINE", its bytes outside printable ASCII as \xNN,
# cut at 400 bytes.
_hostile_escape() {
	LC_ALL=C perl -ne '
		BEGIN { $p = shift }
		chomp; s/([^\x20-\x7e])/sprintf("\\x%02x", ord $1)/ge;
		$_ = substr($_, 0, 400) . "..." if length > 400;
		print "$p: $_\n"' "$1"
}

# Both agents' figures, one line per figure: "# KEY: keyward: ...; ssh-agent: ...".
_hostile_figures() {
	local key a b
	sed -n 's/^# FIGURE \([^ ]*\) .*/\1/p' "$1" "$2" | awk '!seen[$0]++' |
		while IFS= read -r key; do
			a=$(sed -n "s/^# FIGURE $key //p" "$1" | head -n 1)
			b=$(sed -n "s/^# FIGURE $key //p" "$2" | head -n 1)
			printf '# %s: %s; %s\n' "$key" "${a:--}" "${b:--}"
		done
}

hostile_askpass() {
	cat >"$T/askpass.sh" <<EOF
#!/bin/sh
case "\$1" in
*"No session-bind"*)
	echo "start \$(date +%s%N) local \$\$" >>"$T/askpass.log"
	echo "end \$(date +%s%N) local \$\$" >>"$T/askpass.log"
	exit 0 ;;
esac
echo "start \$(date +%s%N) fwd \$\$" >>"$T/askpass.log"
sleep 1
echo "end \$(date +%s%N) fwd \$\$" >>"$T/askpass.log"
exit 1
EOF
	chmod 755 "$T/askpass.sh"
	: >"$T/askpass.log"
	export SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force
	export HOSTILE_REFERENCE=0
}

hostile_fwd_open() {
	local closing most started
	closing=$(sed -n "s/^# $1: closing .* connections at \([0-9]*\)\$/\1/p" "$T/attack.tap")
	[ -n "$closing" ] || closing=99999999999999999999
	most=$(awk -v c="$closing" '$2 < c && $3 == "fwd" { print $2, ($1 == "start" ? 1 : -1) }' \
		"$T/askpass.log" | sort -n | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
	started=$(awk -v c="$closing" '$1 == "start" && $2 < c && $3 == "fwd"' "$T/askpass.log" | wc -l)
	echo "$most $started"
}
