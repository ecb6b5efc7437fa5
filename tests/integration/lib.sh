# tests/integration/lib.sh - shared helpers for keyward's integration tests.
#
# Sourced (bash) by every tests/integration/*.t. Each test gets its own
# temporary directory $T, a private HOME=$T/home, and an EXIT trap that kills
# every agent and sshd the test started and removes $T. Nothing here reads or
# writes the real ~/.ssh: ssh always runs with -F $T/ssh_config.
#
# make check runs the files CHECK_JOBS at a time (mk/tests.mk): a file
# keeps to its $T, its own agents and sshd (random free ports), and looks
# at its own processes only. One that cannot -- it changes the machine, or
# bounds how fast something is answered while it loads the CPU -- says so
# with a line "# check: serial (REASON)" in its head, and runs alone.
#
# Agent under test:
#   AGENT           binary to test (default $KEYWARD_BUILD/keyward);
#                   /usr/bin/ssh-agent works too, for every shared behaviour.
#   KEYWARD_BUILD   keyward's build directory (default <repo>/build).
#
# TAP:
#   ok STATUS NAME        passes when STATUS (an exit status) is 0
#   is GOT WANT NAME      passes when the strings are equal
#   like GOT ERE NAME     passes when GOT matches the extended regexp ERE
#   unlike GOT ERE NAME   passes when GOT does not match
#   contains GOT STR NAME passes when GOT contains the fixed string STR
#   skip REASON           prints "ok N # skip REASON" (never a pass)
#   skip_n COUNT REASON   COUNT skips
#   diag TEXT / diag_file FILE   "# "-prefixed diagnostics (stderr-safe: stdout)
#   done_testing          prints 1..N; exits 1 if anything failed
#
# run CMD...   runs CMD, keeps stdout in $OUT, stderr in $ERR, status in $RC;
#              the next failing assertion prints them (and the agent log).
#
# Text, read by the shell (no process; see "text" below):
#   slurp VAR FILE         VAR=$(cat FILE)
#   lines_match TEXT ERE   a line of TEXT matches ERE (grep -Eq)
#   has_line TEXT LINE     a line of TEXT is LINE (grep -qxF)
#   file_has FILE STRING   a line of FILE contains STRING (grep -qF FILE)
#
# Waiting: poll_until SECONDS CMD... runs CMD until it succeeds. CMD is run
# again each turn, but a "$(...)" in its arguments only once: to wait on
# what a command prints, poll prints WANT CMD..., prints_more N CMD...,
# prints_some CMD... or prints_none CMD... (see "prints" below).

set -u

LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$LIBDIR/../.." && pwd)
KEYWARD_BUILD=${KEYWARD_BUILD:-$REPO/build}
AGENT=${AGENT:-$KEYWARD_BUILD/keyward}
RAWCLIENT=$REPO/tests/tools/rawclient.pl
SSHD=/usr/sbin/sshd
# Debian's python3, the one make deps gives its modules (paramiko,
# dbusmock), not a python3 first in PATH (a pyenv shim took 0.5-2.3 s
# to start here, and a receiver it started missed its wait under load).
PY3=/usr/bin/python3

is_keyward() { [ "${AGENT##*/}" = keyward ]; }

# ------------------------------------------------------------------ passes
# make check runs the suite twice: on the plain build, then on the
# ASan/UBSan build with KW_STOCK_FROM=DIR, DIR where the plain pass left
# what it shares (its KW_MATRIX_SHARE; mk/tests.mk). The second pass is
# there to run keyward's own code under the sanitizers. A part of a file
# that runs none of it -- /usr/bin/ssh-agent as the baseline, the test
# tools alone, a check of the sources or documents -- proves nothing new
# there, and that pass does not plan it:
#   stock_part REASON  status 0: run the part. Status 1, and a diag line
#                      saying why, when an earlier pass of the same make
#                      check ran it (KW_STOCK_FROM set): the caller leaves
#                      the part out, its assertions are not printed (no
#                      skip lines: the plan is shorter).
#   A whole file that is such a part says "# check: plain only (REASON)"
#                      in its head: that pass does not run it (mk/tests.mk).
#   stock_keep NAME DIR   (plain pass, KW_MATRIX_SHARE set) keeps the
#                      files of DIR, the baseline's results, for the
#                      later pass as NAME, with this file's $T.
#   stock_get NAME DIR    (that later pass) copies them into DIR, the
#                      kept $T in their text replaced by this one's;
#                      status 1 when there are none (then the caller runs
#                      the baseline itself).
stock_part() {
	[ -n "${KW_STOCK_FROM:-}" ] || return 0
	diag "not planned in this pass (an earlier pass of make check ran it): $*"
	return 1
}

stock_keep() { # NAME DIR
	[ -n "${KW_MATRIX_SHARE:-}" ] && [ -z "${KW_STOCK_FROM:-}" ] || return 0
	local d=$KW_MATRIX_SHARE/stock/$1
	rm -rf "$d" && mkdir -p "$d/files" && cp -a "$2/." "$d/files/" &&
		printf '%s\n' "$T" >"$d/T"
}

stock_get() { # NAME DIR
	local d=${KW_STOCK_FROM:+$KW_STOCK_FROM/stock/$1} old f
	[ -n "$d" ] && [ -s "$d/T" ] && [ -d "$d/files" ] || return 1
	old=$(cat "$d/T")
	mkdir -p "$2" && cp -a "$d/files/." "$2/" || return 1
	for f in "$2"/*; do
		[ -f "$f" ] || continue
		grep -qF "$old" "$f" && sed -i "s#$old#$T#g" "$f"
	done
	return 0
}

# ------------------------------------------------------------------ text
# The helpers below run at every assertion, command and turn of a poll:
# they look at text with the shell's own means, not with a grep, cat or
# sed per call (a process each, which made them one of the suite's
# costs). Each does what the command it replaces did.
#
# slurp VAR FILE: VAR=$(cat FILE) without a process: NUL bytes dropped
# and trailing newlines removed, as a command substitution does; VAR
# empty when FILE cannot be read.
slurp() {
	local -a _sl=()
	{ mapfile -t -d '' _sl <"$2"; } 2>/dev/null
	printf -v "$1" '%s' "${_sl[@]}"
	while [[ ${!1} == *$'\n' ]]; do printf -v "$1" '%s' "${!1%$'\n'}"; done
}

# lines_match TEXT ERE: some line of TEXT matches ERE (printf '%s\n'
# TEXT | grep -Eq -- ERE). grep itself where the shell's regcomp refuses
# the expression (grep -E takes a few forms it does not, e.g. a stray
# "{") or where ERE has several lines (grep: several patterns), and for
# a TEXT over 8 KiB: each turn of the shell's loop copies and converts
# the rest of TEXT, so a log of many thousand lines (151's) cost minutes
# of CPU where one grep costs milliseconds.
lines_match() {
	local rest=$1 line
	if [[ $2 == *$'\n'* ]] || [ ${#1} -gt 8192 ]; then
		printf '%s\n' "$1" | grep -Eq -- "$2"
		return
	fi
	while :; do
		line=${rest%%$'\n'*}
		[[ $line =~ $2 ]]
		case $? in
		0) return 0 ;;
		2) printf '%s\n' "$1" | grep -Eq -- "$2"; return ;;
		esac
		[[ $rest == *$'\n'* ]] || return 1
		rest=${rest#*$'\n'}
	done
}

# has_line TEXT LINE: a line of TEXT is LINE (grep -qxF)
has_line() { [[ $'\n'$1$'\n' == *$'\n'"$2"$'\n'* ]]; }

# file_has FILE STRING: a line of FILE contains STRING (grep -qF; status
# 1 as well when FILE cannot be read)
file_has() {
	local l
	[ -r "$1" ] || return 1
	while IFS= read -r l || [ -n "$l" ]; do
		[[ $l == *"$2"* ]] && return 0
	done 2>/dev/null <"$1"
	return 1
}

# ------------------------------------------------------------------ TAP
TESTNUM=0
FAILED=0
OUT="" ERR="" RC=0 LAST_CMD=""

diag() {
	local line
	while IFS= read -r line; do printf '# %s\n' "$line"; done <<<"$*"
}

diag_file() { # FILE [LABEL]
	[ -s "$1" ] || return 0
	printf '# --- %s\n' "${2:-$1}"
	tail -n 40 "$1" | sed 's/^/#   /'
}

# On a failure: the last command run (once per command), its status and
# output. Agent and sshd logs are shown once, by done_testing.
RUN_SHOWN=0
_fail_diag() {
	if [ -n "$LAST_CMD" ] && [ "$RUN_SHOWN" = 0 ]; then
		RUN_SHOWN=1
		diag "last command: $LAST_CMD"
		diag "exit status: $RC"
		[ -n "$OUT" ] && { echo "# stdout:"; printf '%s\n' "$OUT" | sed 's/^/#   /'; }
		[ -n "$ERR" ] && { echo "# stderr:"; printf '%s\n' "$ERR" | sed 's/^/#   /'; }
	fi
	return 0
}

_result() { # PASS(0/1) NAME
	TESTNUM=$((TESTNUM + 1))
	if [ "$1" = 0 ]; then
		printf 'ok %d - %s\n' "$TESTNUM" "$2"
	else
		printf 'not ok %d - %s\n' "$TESTNUM" "$2"
		FAILED=$((FAILED + 1))
		_fail_diag
	fi
}

ok() { # STATUS NAME
	local st=$1; shift
	if [ "$st" = 0 ]; then _result 0 "$*"; else _result 1 "$*"; diag "status was $st"; fi
}

is() { # GOT WANT NAME
	local got=$1 want=$2; shift 2
	if [ "$got" = "$want" ]; then _result 0 "$*"; else
		_result 1 "$*"
		echo "#          got: '$(printf '%s' "$got" | sed '2,$s/^/#                /')'"
		echo "#     expected: '$(printf '%s' "$want" | sed '2,$s/^/#                /')'"
	fi
}

like() { # GOT ERE NAME
	local got=$1 re=$2; shift 2
	if lines_match "$got" "$re"; then _result 0 "$*"; else
		_result 1 "$*"
		echo "#   '$(printf '%s' "$got" | sed '2,$s/^/#    /')'"
		echo "#   does not match /$re/"
	fi
}

unlike() { # GOT ERE NAME
	local got=$1 re=$2; shift 2
	if ! lines_match "$got" "$re"; then _result 0 "$*"; else
		_result 1 "$*"
		echo "#   '$(printf '%s' "$got" | sed '2,$s/^/#    /')'"
		echo "#   matches /$re/ (it must not)"
	fi
}

contains() { # GOT FIXED-STRING NAME (a string of several lines: those lines, in a row)
	local got=$1 str=$2 found=1; shift 2
	# grep -F would take each line of a string as a pattern of its own,
	# and an empty one matches anything: several lines are matched whole.
	# One line is in a line of GOT wherever it is in GOT.
	if [[ $str == *$'\n'* ]]; then
		[[ $got$'\n' == *"$str"* ]] && found=0
	elif [[ $got == *"$str"* ]]; then
		found=0
	fi
	if [ "$found" = 0 ]; then _result 0 "$*"; else
		_result 1 "$*"
		echo "#   '$(printf '%s' "$got" | sed '2,$s/^/#    /')'"
		echo "#   does not contain '$str'"
	fi
}

skip() { TESTNUM=$((TESTNUM + 1)); printf 'ok %d # skip %s\n' "$TESTNUM" "$*"; }
skip_n() { local i; for ((i = 0; i < $1; i++)); do skip "$2"; done; }

done_testing() {
	printf '1..%d\n' "$TESTNUM"
	[ "$FAILED" = 0 ] && exit 0
	diag "$FAILED of $TESTNUM failed"
	local f
	for f in "$T"/agent*.log "$T"/fg*.log.old "$T"/*/sshd.log; do
		[ -e "$f" ] && diag_file "$f" "${f#"$T"/}"
	done
	exit 1
}

bail() { printf 'Bail out! %s\n' "$*"; exit 255; }

# The output goes to files of $T/.run named by the shell's pid (a
# subshell has its own) and by how deep in runs this one is (CMD may be
# a function that runs another): no mktemp, and no rm, the next run of
# the same name truncates them.
RUN_DEPTH=0
run() {
	LAST_CMD="$*" RUN_SHOWN=0
	local o=$T/.run/$BASHPID.$((++RUN_DEPTH))
	"$@" >"$o.out" 2>"$o.err"
	RC=$?
	RUN_DEPTH=$((RUN_DEPTH - 1))
	slurp OUT "$o.out"
	slurp ERR "$o.err"
	return $RC
}

# ------------------------------------------------------------------ setup
[ -x "$AGENT" ] || bail "AGENT=$AGENT is not executable (build keyward or set AGENT)"

T=$(mktemp -d /tmp/kwit.XXXXXXXX) || bail "mktemp failed"
NAP_FIFO=$T/.nap
mkfifo -m 600 "$NAP_FIFO" || bail "mkfifo $NAP_FIFO failed"
export HOME=$T/home
mkdir -p "$HOME" "$T/keys" "$T/hidden" "$T/.run"
chmod 700 "$HOME"
: >"$T/ssh_config"
: >"$T/known_hosts"
: >"$T/authorized_keys"
chmod 600 "$T/ssh_config"
unset SSH_AUTH_SOCK SSH_AGENT_PID SSH_ASKPASS SSH_ASKPASS_REQUIRE DISPLAY \
	WAYLAND_DISPLAY LISTEN_PID LISTEN_FDS SSH_CONNECTION SSH_CLIENT SSH_TTY
export TMPDIR=$T
cd "$T" || bail "cd $T"

AGENT_PIDS=()   # every agent process (monitor) we started
SSHD_PIDS=()    # every sshd we started
EXTRA_PIDS=()   # helper processes (raw clients, background ssh-add ...)

# pid_alive PID: a live (non-zombie) process. Read by the shell itself, as
# children below: both run at every turn of the polls, and a process
# started per call (awk, ps) made polling one of the suite's costs.
pid_alive() {
	local line
	[ -n "${1:-}" ] || return 1
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	line=${line##*) }	# the state follows the command name, "(comm) "
	case ${line%% *} in
	Z | X | "") return 1 ;;
	esac
}

# alive PID...: those of the PIDs that are alive, one a line
alive() {
	local p
	for p in "$@"; do pid_alive "$p" && echo "$p"; done
	return 0
}

# helpers_up MONITOR: the agent's keyward-policy and keyward-peer are in
# their filters, which each enters only once it has started its own
# processes (policy its helpers, the session watcher last; the peer its
# exe reader): none is still to come, none is between its fork and its
# exec. A test that lists the agent's processes waits for this first.
helpers_up() {
	local p c st n=0
	for p in $(children "$1"); do
		c=$(cat "/proc/$p/comm" 2>/dev/null)
		case $c in keyward-policy | keyward-peer) ;; *) continue ;; esac
		slurp st "/proc/$p/status"
		[[ $st == *$'\nSeccomp:\t2'* ]] || return 1
		n=$((n + 1))
	done
	[ $n = 2 ]
}

# children PID: pids whose PPid is PID (live ones only), from the kernel's
# list of each of its threads' children; ps where that list is missing
# (a kernel without CONFIG_PROC_CHILDREN). ps reads all of /proc, and
# skips a process that exits meanwhile.
children() {
	local pid f c kids=()
	[ -n "${1:-}" ] || return 0
	if [ -r "/proc/$1/task/$1/children" ]; then
		for f in /proc/"$1"/task/*/children; do
			c=()
			read -r -a c 2>/dev/null <"$f"
			kids+=("${c[@]}")
		done
	else
		kids=($(ps -o pid= --ppid "$1" 2>/dev/null))
	fi
	for pid in "${kids[@]}"; do
		pid_alive "$pid" && echo "$pid"
	done
}

descendants() {
	local c
	for c in $(children "$1"); do echo "$c"; descendants "$c"; done
}

# nap MICROSECONDS (below a second): a sleep that starts no process. The
# read waits on a fifo of $T opened for reading and writing, which never
# has data and never ends: only its timeout returns. A poll's turn costs
# no fork and exec of sleep(1), and the fifo is open only during the read
# (never inherited by an agent a test starts).
nap() {
	local s
	printf -v s '0.%06d' "$1"
	read -r -t "$s" s <>"$NAP_FIFO" 2>/dev/null
	return 0
}

# poll_until SECONDS CMD...: run CMD until it succeeds, for SECONDS. The
# waits between turns grow from 10 ms to 0.2 s: most events (a socket
# bound, a process gone) come within milliseconds, and a fixed 0.2 s turn
# made every start and stop of the suite's agents cost that much; a
# long wait still costs a turn per 0.2 s.
poll_until() {
	local secs=$1 d=10000 end t; shift
	t=${EPOCHREALTIME//[!0-9]/}
	end=$((10#$t + secs * 1000000))
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		t=${EPOCHREALTIME//[!0-9]/}
		[ $((10#$t)) -lt $end ] || break
		nap $d
		d=$((d * 2 > 200000 ? 200000 : d * 2))
	done
	"$@" >/dev/null 2>&1
}

not() { ! "$@"; }

# Conditions on what a command prints, for poll_until, which runs its
# arguments again each turn. A "$(...)" among those arguments is expanded
# once, before the first turn: the poll would wait on a value that cannot
# change, and fail whenever the event comes after the call. So
#   poll_until 10 prints 2 count 'unlocked'     not
#   poll_until 10 test "$(count 'unlocked')" = 2
# prints WANT CMD...    CMD's output is WANT
# prints_more N CMD...  CMD's output is a number greater than N
# prints_some CMD...    CMD prints something
# prints_none CMD...    CMD prints nothing
prints() { local want=$1; shift; [ "$("$@")" = "$want" ]; }
prints_more() {
	local n=$1 got; shift
	got=$("$@")
	[[ $got =~ ^[0-9]+$ ]] && [ "$got" -gt "$n" ]
}
prints_some() { [ -n "$("$@")" ]; }
prints_none() { [ -z "$("$@")" ]; }

# wait_gone PID [SECONDS]
wait_gone() { poll_until "${2:-10}" not pid_alive "$1"; }

wait_for_socket() { poll_until "${2:-10}" test -S "$1"; }

_kill_tree() { # PID...: TERM, then KILL what is left
	local p all=()
	for p in "$@"; do
		pid_alive "$p" || continue
		all+=("$p" $(descendants "$p"))
	done
	[ ${#all[@]} -gt 0 ] || return 0
	kill -TERM "${all[@]}" 2>/dev/null
	for p in "${all[@]}"; do
		poll_until 3 not pid_alive "$p" || kill -KILL "$p" 2>/dev/null
	done
}

cleanup() {
	local rc=$?
	set +e
	_kill_tree "${EXTRA_PIDS[@]}" "${AGENT_PIDS[@]}" "${SSHD_PIDS[@]}"
	[ -n "${KEEP_T:-}" ] || rm -rf "$T"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ------------------------------------------------------------------ agents
# start_agent [extra args]: daemonised agent on $AGENT_SOCK (default
# $T/agent.sock), variables eval'ed from its -s output (ssh-agent style).
# Environment assignments given before the call reach the agent.
start_agent() {
	local sock=${AGENT_SOCK:-$T/agent.sock} out rc
	LAST_CMD="$AGENT -s -a $sock $*" RUN_SHOWN=0
	out=$("$AGENT" -s -a "$sock" "$@" 2>"$T/agent.start.err")
	rc=$?
	OUT=$out RC=$rc
	slurp ERR "$T/agent.start.err"
	eval "$out" >/dev/null
	[ -n "${SSH_AGENT_PID:-}" ] && AGENT_PIDS+=("$SSH_AGENT_PID")
	[ $rc = 0 ] && [ -n "${SSH_AGENT_PID:-}" ] && [ "${SSH_AUTH_SOCK:-}" = "$sock" ] || return 1
	wait_for_socket "$sock" 5
}

# stop_agent: "$AGENT -k" for $SSH_AGENT_PID; succeeds when it printed the
# unset lines, exited 0 and the process and its socket are gone.
stop_agent() {
	local pid=${SSH_AGENT_PID:-} sock=${SSH_AUTH_SOCK:-}
	run "$AGENT" -k || return 1
	[[ $'\n'$OUT == *$'\n''unset SSH_AGENT_PID;'* ]] || return 1
	wait_gone "$pid" 10 || return 1
	poll_until 5 not test -e "$sock" || return 1
	unset SSH_AUTH_SOCK SSH_AGENT_PID
}

# start_agent_fg SOCK [extra args]: "$AGENT -D -a SOCK" in the background,
# stdout in $T/agent-fg.out, log (stderr) in $T/agent.log; sets
# AGENT_FG_PID and SSH_AUTH_SOCK. AGENT_FG_FLAG=-d for debug instead.
start_agent_fg() {
	local sock=$1; shift
	LAST_CMD="$AGENT ${AGENT_FG_FLAG:--D} -a $sock $*" RUN_SHOWN=0
	"$AGENT" "${AGENT_FG_FLAG:--D}" -a "$sock" "$@" >"$T/agent-fg.out" 2>"$T/agent.log" &
	AGENT_FG_PID=$!
	AGENT_PIDS+=("$AGENT_FG_PID")
	export SSH_AUTH_SOCK=$sock
	wait_for_socket "$sock" 10 || return 1
	# keyward prints its lines once it serves, a moment after the socket
	# exists (ssh-agent right after binding it): read them only then
	poll_until 10 file_has "$T/agent-fg.out" 'echo Agent pid'
}

# stop_pid PID: SIGTERM it and wait until it (and its children) are gone.
stop_pid() {
	local p=$1 kids
	kids=$(descendants "$p")
	kill -TERM "$p" 2>/dev/null || return 1
	wait_gone "$p" 10 || return 1
	for k in $kids; do wait_gone "$k" 10 || return 1; done
}

# ------------------------------------------------------------------ keys
# KW_KEY_CACHE=DIR (make check sets it; tests/tools/mkkeys.sh fills DIR
# once before the passes, and no test writes there): RSA keys made once
# per run, RSA key generation being the costly one.
# key_cached BITS: prints DIR/rsaBITS-N, the first of DIR's keys of that
# size this file has not taken yet (DIR/rsaBITS-N{,.pem,.pub}), and marks
# it taken; status 1 when none is left or there is no cache: the caller
# makes its own key. A counter file of $T, so that a key taken in a
# subshell is taken for the whole file: two keys of a file are never one.
key_cached() {
	local c=$T/.keycache.$1 n=0
	[ -n "${KW_KEY_CACHE:-}" ] || return 1
	[ -s "$c" ] && read -r n <"$c"
	n=$((n + 1))
	[ -s "$KW_KEY_CACHE/rsa$1-$n" ] && [ -s "$KW_KEY_CACHE/rsa$1-$n.pem" ] || return 1
	echo "$n" >"$c"
	echo "$KW_KEY_CACHE/rsa$1-$n"
}

# key_from_cache BITS FILE COMMENT: FILE{,.pub} a cached RSA key, with
# that comment; status 1 when there is none (key_cached)
key_from_cache() {
	local k
	k=$(key_cached "$1") || return 1
	cp "$k" "$2" && cp "$k.pub" "$2.pub" && chmod 600 "$2" && chmod 644 "$2.pub" &&
		ssh-keygen -q -c -C "$3" -P '' -f "$2" </dev/null >/dev/null
}

# gen_key NAME TYPE [BITS]: $T/keys/NAME{,.pub}, comment NAME@kwtest
# (an RSA key from KW_KEY_CACHE while there is one)
gen_key() {
	local name=$1 type=$2 bits=${3:-}
	rm -f "$T/keys/$name" "$T/keys/$name.pub"
	[ "$type" = rsa ] &&
		key_from_cache "${bits:-3072}" "$T/keys/$name" "$name@kwtest" && return 0
	ssh-keygen -q -N '' -t "$type" ${bits:+-b "$bits"} -C "$name@kwtest" \
		-f "$T/keys/$name" </dev/null >/dev/null || return 1
	chmod 600 "$T/keys/$name"
}

# mk_sk_key NAME SKTYPE FROM: a FIDO key file $T/keys/NAME{,.pub} with no
# token behind it (openssh-key-v1, no cipher), made around the public half
# of the software key FROM (ed25519 for sk-ssh-ed25519@openssh.com, ecdsa
# 256 for sk-ecdsa-sha2-nistp256@openssh.com): application ssh:, flags
# 0x01 (user presence), key handle 0x40..0x6f, comment SKTYPE@kwtest.
# ssh-add and ssh-keygen load it; only signing needs a token. NAME.add
# holds, in hex, the ADD (17) payload of the key with that comment.
mk_sk_key() { # NAME SKTYPE FROM-KEY
	perl - "$T/keys/$3.pub" "$2" "$T/keys/$1" <<'EOP' || return 1
use strict; use warnings; use MIME::Base64;
my ($from, $type, $out) = @ARGV;
open(my $i, '<', $from) or die; my (undef, $b64) = split ' ', <$i>; close $i;
my $blob = decode_base64($b64);
sub str { pack('N', length $_[0]) . $_[0] }
sub rs { my ($s, $o) = @_; my $l = unpack('N', substr($$s, $$o, 4)); my $r = substr($$s, $$o + 4, $l); $$o += 4 + $l; $r }
my $o = 0; rs(\$blob, \$o);
my $fields = substr($blob, $o);         # A, or curve and Q
my $pub = str($type) . $fields . str('ssh:');
my $priv = str($type) . $fields . str('ssh:') . pack('C', 0x01) .
	str(join('', map { chr(0x40 + $_) } 0 .. 47)) . str('');
my $sec = pack('NN', 0x4b574b57, 0x4b574b57) . $priv . str("$type\@kwtest");
$sec .= chr($_) for 1 .. (8 - length($sec) % 8) % 8;
my $f = "openssh-key-v1\0" . str('none') . str('none') . str('') . pack('N', 1) .
	str($pub) . str($sec);
open(my $k, '>', $out) or die; my $e = encode_base64($f, '');
print $k "-----BEGIN OPENSSH PRIVATE KEY-----\n";
print $k substr($e, $_ * 70, 70), "\n" for 0 .. int((length($e) - 1) / 70);
print $k "-----END OPENSSH PRIVATE KEY-----\n"; close $k; chmod 0600, $out;
open($k, '>', "$out.pub") or die; print $k "$type ", encode_base64($pub, ''), " $type\@kwtest\n"; close $k;
# the ADD (17) payload ssh-add would send without constraints, in hex
open($k, '>', "$out.add") or die; print $k unpack('H*', pack('C', 17) . $priv . str("$type\@kwtest")); close $k;
EOP
}

# sk_cert_add NAME: hex of the ADD (17) payload of NAME's certificate
# (NAME-cert.pub from ssh-keygen -s) with NAME's private fields (doc/protocol.md §4.4:
# the certificate, Ed25519's A again, application, flags, key handle,
# reserved).
sk_cert_add() {
	perl - "$T/keys/$1.add" "$T/keys/$1-cert.pub" <<'EOP'
use strict; use warnings; use MIME::Base64;
my ($add, $certpub) = @ARGV;
open(my $i, '<', $add) or die; my $p = pack('H*', scalar <$i>); close $i;
open($i, '<', $certpub) or die; my ($ct, $b64) = split ' ', <$i>; close $i;
sub str { pack('N', length $_[0]) . $_[0] }
sub rs { my ($s, $o) = @_; my $l = unpack('N', substr($$s, $$o, 4)); my $r = substr($$s, $$o + 4, $l); $$o += 4 + $l; $r }
my $o = 1; my $type = rs(\$p, \$o);
# ECDSA: curve and Q are in the certificate only; Ed25519: A is repeated
my $keep = '';
if ($type =~ /ecdsa/) { rs(\$p, \$o) for 1 .. 2 } else { $keep = str(rs(\$p, \$o)) }
print unpack('H*', pack('C', 17) . str($ct) . str(decode_base64($b64)) . $keep . substr($p, $o));
EOP
}

# hide_key NAME / unhide_key NAME: move the private half out of reach so
# only the agent can sign with it.
hide_key() { mv "$T/keys/$1" "$T/hidden/$1"; }
unhide_key() { mv "$T/hidden/$1" "$T/keys/$1"; }

# fp_line FILE: what "ssh-add -l" must print for this key ("BITS SHA256:.. COMMENT (TYPE)")
fp_line() { ssh-keygen -lf "$1" 2>/dev/null; }
# fp FILE: the second field of each line ssh-keygen -l prints (awk's
# '{print $2}', without the awk)
fp() {
	local l w
	while IFS= read -r l || [ -n "$l" ]; do
		read -r -a w <<<"$l"
		printf '%s\n' "${w[1]-}"
	done < <(ssh-keygen -lf "$1" 2>/dev/null)
	return 0
}

# count_ids: number of identities listed (0 when the agent is empty)
count_ids() { # (status 1 when there are none, as grep -c's)
	local l n=0
	while IFS= read -r l || [ -n "$l" ]; do
		[[ $l == *' SHA256:'* ]] && n=$((n + 1))
	done < <(ssh-add -l 2>/dev/null)
	echo "$n"
	[ "$n" -gt 0 ]
}
agent_empty() { ssh-add -l >/dev/null 2>&1; [ $? = 1 ]; }
agent_has() { # (a file of several keys: grep, one pattern per key)
	local f l
	f=$(fp "$1")
	l=$(ssh-add -l 2>/dev/null)
	[[ $f == *$'\n'* ]] && { printf '%s\n' "$l" | grep -qF " $f "; return; }
	[[ $l == *" $f "* ]]
}

# an askpass-style script: mk_script PATH BODY
mk_script() {
	printf '#!/bin/sh\n%s\n' "$2" >"$1"
	chmod 755 "$1"
}

# token_askpass SCRIPT PIN-PATTERN: the askpass of the token tests
# (lib-p11.sh p11_askpass, lib-sk.sh sk_askpass, which say what it
# answers), written to SCRIPT and exported as SSH_ASKPASS with
# SSH_ASKPASS_REQUIRE=force and DISPLAY=:0; a prompt matching the case
# pattern PIN-PATTERN is answered $T/pin. askpass_calls KIND: how many
# calls of that kind it logged.
token_askpass() {
	cat >"$1" <<EOF
#!/bin/sh
kind=\${SSH_ASKPASS_PROMPT:-ask}
printf '%s\t%s\n' "\$kind" "\$(printf '%s' "\$1" | tr '\n' ' ' 2>/dev/null)" >>'$T/askpass.log'
hold() { # RELEASE-FILE
	: >'$T/askpass.waiting'
	i=0
	while [ ! -e "\$1" ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
}
case \$kind in
none) exit 0 ;;
confirm)
	case \$(cat '$T/confirm.mode' 2>/dev/null) in
	yes) echo yes; exit 0 ;;
	block) hold '$T/confirm.release'; echo yes; exit 0 ;;
	*) echo no; exit 1 ;;
	esac ;;
esac
case \$1 in
$2)
	[ -e '$T/pin.block' ] && hold '$T/pin.release'
	cat '$T/pin' ;;
*) cat '$T/pass' ;;
esac
EOF
	chmod 755 "$1"
	: >"$T/askpass.log"
	export SSH_ASKPASS=$1 SSH_ASKPASS_REQUIRE=force DISPLAY=:0
}

askpass_calls() { grep -c "^$1"$'\t' "$T/askpass.log" 2>/dev/null; }

# token_agent ALLOW [args]: the agent started (start_agent) with -P ALLOW,
# one test; bails if it does not start. token_agent_fg: the same in the
# foreground on $T/agent.sock (start_agent_fg). For lib-p11.sh and
# lib-sk.sh.
token_agent() {
	local allow=$1; shift
	start_agent -P "$allow" "$@"
	ok $? "agent $(basename "$AGENT") started with -P $allow${*:+ $*}" ||
		bail "agent did not start"
}

token_agent_fg() {
	local allow=$1; shift
	start_agent_fg "$T/agent.sock" -P "$allow" "$@"
	ok $? "agent $(basename "$AGENT") started in the foreground with -P $allow${*:+ $*}" ||
		bail "agent did not start"
}

# ------------------------------------------------------------------ sshd
SSHD_HOSTKEYS=${SSHD_HOSTKEYS:-ed25519}
# SSH_KEX: the key exchange ssh uses with the test sshds. Not OpenSSH
# 9.2's default, sntrup761x25519-sha512, whose key generation costs ssh
# a tenth of a CPU-second at every login, but one as cheap as curve25519
# with the same SHA-512 exchange hash: the session ids the agent is given
# to bind (session-bind@openssh.com) stay 64 bytes long, as with the
# default. SSH_KEX= leaves ssh its default.
SSH_KEX=${SSH_KEX-ecdh-sha2-nistp521}

_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_sshd NAME [sshd_config lines...]: a private sshd on 127.0.0.1.
# Extra lines come first in the file (sshd keeps the first value it reads,
# so they override the defaults below). Host key types: $SSHD_HOSTKEYS.
# Sets SSHD_PORT_<NAME>; adds "Host NAME" to $T/ssh_config and its host keys
# to $T/known_hosts.
start_sshd() {
	local name=$1; shift
	local d=$T/$name conf port tries pid kt line ka kb
	mkdir -p /run/sshd "$d"
	chmod 755 /run/sshd
	for kt in $SSHD_HOSTKEYS; do
		if ! { [ "$kt" = rsa ] && key_from_cache 3072 "$d/host_$kt" "host-$name"; }; then
			ssh-keygen -q -N '' -t "$kt" -C "host-$name" -f "$d/host_$kt" </dev/null >/dev/null || return 1
		fi
		chmod 600 "$d/host_$kt"
	done
	conf=$d/sshd_config
	for ((tries = 0; tries < 15; tries++)); do
		port=$((20000 + RANDOM % 40000))
		_port_in_use "$port" && continue
		{
			for line in "$@"; do printf '%s\n' "$line"; done
			echo "ListenAddress 127.0.0.1"
			echo "Port $port"
			echo "PidFile $d/sshd.pid"
			for kt in $SSHD_HOSTKEYS; do echo "HostKey $d/host_$kt"; done
			echo "AuthorizedKeysFile $T/authorized_keys"
			echo "StrictModes no"
			echo "UsePAM no"
			echo "PermitRootLogin yes"
			echo "PasswordAuthentication no"
			echo "KbdInteractiveAuthentication no"
			echo "PubkeyAuthentication yes"
			echo "LogLevel VERBOSE"
			echo "AllowAgentForwarding yes"
			echo "X11Forwarding no"
			echo "PrintMotd no"
			echo "UseDNS no"
			echo "PermitUserRC no"
			echo "PermitUserEnvironment no"
			echo "MaxStartups 100"
			# bash sources the login user's ~/.bashrc for a command
			# sshd starts (SSH_CLIENT set, SHLVL below 2): the tests'
			# remote commands would pay for, and depend on, whatever
			# that file does (one running "pyenv init" costs more CPU
			# than the whole login). SHLVL=1 makes bash skip it.
			echo "SetEnv SHLVL=1"
		} >"$conf"
		: >"$d/sshd.log"
		"$SSHD" -D -e -f "$conf" 2>>"$d/sshd.log" &
		pid=$!
		local i up=0
		for ((i = 0; i < 50; i++)); do
			if file_has "$d/sshd.log" "Server listening on 127.0.0.1 port $port"; then up=1; break; fi
			pid_alive "$pid" || break
			nap 50000
		done
		# listening according to its log; make sure the port accepts
		[ $up = 1 ] && { poll_until 5 _port_in_use "$port" || up=0; }
		if [ $up = 1 ]; then
			SSHD_PIDS+=("$pid")
			eval "SSHD_PID_$name=$pid SSHD_PORT_$name=$port"
			break
		fi
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		if ! grep -qiE 'bind|address already in use' "$d/sshd.log"; then
			diag "sshd $name failed to start:"; diag_file "$d/sshd.log"
			return 1
		fi
	done
	[ $up = 1 ] || { diag "no free port for sshd $name"; return 1; }
	: "${ID_UN:=$(id -un)}" # once per file
	cat >>"$T/ssh_config" <<EOF
Host $name
	HostName 127.0.0.1
	Port $port
	HostKeyAlias $name
	User $ID_UN
	UserKnownHostsFile $T/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	CheckHostIP no
	UpdateHostKeys no
	IdentitiesOnly yes
	BatchMode yes
	PreferredAuthentications publickey
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	ControlMaster no
	ControlPath none
	AddKeysToAgent no
	ForwardAgent no
	ConnectTimeout 20
	LogLevel ERROR
EOF
	[ -z "$SSH_KEX" ] || printf '\tKexAlgorithms %s\n' "$SSH_KEX" >>"$T/ssh_config"
	echo >>"$T/ssh_config"
	for kt in $SSHD_HOSTKEYS; do
		read -r ka kb _ <"$d/host_$kt.pub"
		echo "$name $ka $kb" >>"$T/known_hosts"
	done
}

# ssh_as HOST IDFILE [ssh options...] -- COMMAND...: log in with exactly
# one identity file (normally a .pub whose private half is hidden).
ssh_as() {
	local host=$1 id=$2; shift 2
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	ssh -F "$T/ssh_config" -o "IdentityFile=$id" "${opts[@]}" "$host" "$@" </dev/null
}

sshd_log() { echo "$T/$1/sshd.log"; }

# sshd_accepted HOST KEYFILE: sshd logged an accepted publickey login with it
sshd_accepted() {
	local f l
	f=$(fp "$2")
	[[ $f == *$'\n'* ]] &&
		{ grep -F "Accepted publickey for" "$T/$1/sshd.log" | grep -qF "$f"; return; }
	while IFS= read -r l || [ -n "$l" ]; do
		[[ $l == *"Accepted publickey for"* && $l == *"$f"* ]] && return 0
	done 2>/dev/null <"$T/$1/sshd.log"
	return 1
}

# ------------------------------------------------------------------ raw
# raw ARGS...: tests/tools/rawclient.pl (in the background use
# perl "$RAWCLIENT" directly, so that $! is the client itself)
raw() { perl "$RAWCLIENT" "$@"; }

# str HEXBYTES-of-text: SSH string of the given text, as hex
hexstr() {
	local h
	h=$(printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n')
	printf '%08x%s' $((${#h} / 2)) "$h"
}
