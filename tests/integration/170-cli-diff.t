#!/bin/bash
# ssh-agent's command line, side by side: every invocation form of
# ssh-agent(1) runs against /usr/bin/ssh-agent (the reference, "ref") and
# $AGENT ("sut"), each in a directory and HOME of its own, and what they
# do is compared: exit status, standard output and standard error
# (normalised: the directory, pids, the program's name, a leading
# "keyward: ", the carriage return ssh-agent ends its messages with, the
# usage text as one USAGE line), which files remain, and
# that no process is left behind (every process of the run carries
# HOME=$T/ref/home or $T/sut/home; all are gone at the end, in a bounded
# wait, without being killed).
#
# Forms: -s/-c output, their eval in sh and in tcsh, SHELL choosing the
# form; -a absolute, relative, with a space, existing (file, live socket),
# too long, in a missing directory; -T with TMPDIR absolute, relative and
# unset; -k without SSH_AGENT_PID, with bad values, a dead pid, -s/-c; -D and
# -d output and exit; command mode (succeeds, fails, cannot be executed,
# exits at once, killed by a signal, sees the variables); -t, -E, -P, -O,
# -U, -u, -uu, -V and usage errors.
#
# Where keyward differs on purpose the check says "DIFFERENCE" and
# keyward(1) lists it under DIFFERENCES FROM SSH-AGENT: -T, -U, -u, -uu
# and -V (OpenSSH 10.1's; ssh-agent 9.2 rejects them), its own -O options,
# a socket path with a space quoted in -s/-c output, a relative socket
# removed at exit, ~/.ssh/agent created, -D logging to stderr, error
# messages prefixed "keyward: " and worded its own way for socket errors.
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib.sh"

REF=/usr/bin/ssh-agent
SUT=$AGENT
[ -x "$REF" ] || bail "no $REF (openssh-client)"
command -v tcsh >/dev/null || bail "tcsh is not installed (make deps)"
KW=0
is_keyward && KW=1

for w in ref sut; do
	mkdir -p "$T/$w/cwd" "$T/$w/home" "$T/$w/o"
	chmod 700 "$T/$w/home"
done
bin() { if [ "$1" = ref ]; then echo "$REF"; else echo "$SUT"; fi; }
# SIDES: the agents run here. ssh-agent's runs are not built with the
# sanitizers: make check's ASan pass takes what they left in the plain
# pass (its $T/ref/o, the file lists of same_files) rather than run them
# again (stock_get, lib.sh), and runs keyward's alone; the assertions on
# ssh-agent alone are not planned there (stock_part).
SIDES="ref sut" REPLAY=0
if stock_get 170-cli-diff "$T/ref/o"; then
	SIDES=sut REPLAY=1
	diag "ssh-agent's runs: those of the plain pass (not run again)"
fi
# o W NAME EXT: where a run's output is kept (NAME made a file name);
# opath VAR W NAME EXT sets VAR to it. The helpers of this file run a
# few thousand times: they work in the shell, with no process (no tr,
# cat, sed or awk) where one is not needed.
opath() { printf -v "$1" '%s/%s/o/%s.%s' "$T" "$2" "${3//[^A-Za-z0-9_.-]/_}" "$4"; }
o() { local p; opath p "$@"; printf '%s' "$p"; }
# cat_file FILE: cat FILE, by the shell
cat_file() {
	local -a a=()
	{ mapfile -d '' -t a <"$1"; } 2>/dev/null
	printf '%s' "${a[@]}"
}
# out_var VAR FILE ERE...: VAR the first group of the first ERE that each
# line of FILE matches, one line per matching line (sed -n 's/ERE/\1/p;
# ...': an ERE given here ends at the end of the line)
out_var() {
	local _ov=$1 _of=$2 _ol _ore _or=()
	shift 2
	while IFS= read -r _ol || [ -n "$_ol" ]; do
		for _ore in "$@"; do
			[[ $_ol =~ $_ore ]] && { _or+=("${BASH_REMATCH[1]}"); break; }
		done
	done 2>/dev/null <"$_of"
	local IFS=$'\n'
	printf -v "$_ov" '%s' "${_or[*]}"
	while [[ ${!_ov} == *$'\n' ]]; do printf -v "$_ov" '%s' "${!_ov%$'\n'}"; done
}
RE_PID_SH='^SSH_AGENT_PID=([0-9]*);' RE_PID_CSH='^setenv SSH_AGENT_PID ([0-9]*);$'
RE_SOCK_SH='^SSH_AUTH_SOCK=(.*); export SSH_AUTH_SOCK;$' RE_SOCK_CSH='^setenv SSH_AUTH_SOCK (.*);$'

# inv W NAME [env args...] -- ARGS...: the agent W with ARGS, in $T/W/cwd,
# HOME=$T/W/home; status, stdout, stderr in $T/W/o/NAME.{rc,out,err}.
# The env args come first in env's own order (-u VAR before VAR=VAL).
inv() {
	local w=$1 name=$2 envs=() pid b p
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	b=$SUT
	[ "$w" = ref ] && b=$REF
	opath p "$w" "$name" ""
	(cd "$T/$w/cwd" && exec env "${envs[@]}" HOME="$T/$w/home" timeout 20 "$b" "$@") \
		</dev/null >"${p}out" 2>"${p}err"
	echo $? >"${p}rc"
	out_var pid "${p}out" "$RE_PID_SH" "$RE_PID_CSH"
	[ -n "$pid" ] && AGENT_PIDS+=("$pid")
	return 0
}
both() { local w; for w in $SIDES; do inv $w "$@"; done; }
# in W CMD...: a command in W's directory and HOME (sh, tcsh, ssh-add)
in_w() {
	local w=$1; shift
	(cd "$T/$w/cwd" && exec env HOME="$T/$w/home" A="$(bin "$w")" "$@") </dev/null
}

# norm W NAME EXT: the normalised text, line by line: a trailing carriage
# return gone (ssh-agent ends its messages with one), W's directory "D",
# either program's name "AGENT", a leading "AGENT: " gone, the first pid
# after SSH_AGENT_PID, after "Agent pid " or "pid=" "N", every
# agent.DIGITS "agent.N"; a usage text (a "usage: " line and the
# indented lines after it) one line "USAGE". norm_lines W NAME EXT puts
# the lines in NORM; norm_var VAR W NAME EXT puts the text in VAR.
RE_NPID1='(SSH_AGENT_PID[= ])[0-9]+' RE_NPID2='(Agent pid |pid=)[0-9]+' RE_NAGENT='agent\.[0-9]+'
norm_lines() {
	local p l pre u=0
	local -a in=()
	opath p "$1" "$2" "$3"
	NORM=()
	{ mapfile -t in <"$p"; } 2>/dev/null
	for l in "${in[@]}"; do
		l=${l%$'\r'}
		l=${l//"$T/$1"/D}
		l=${l//ssh-agent/AGENT}
		l=${l//keyward/AGENT}
		l=${l#'AGENT: '}
		[[ $l =~ $RE_NPID1 ]] && l=${l/"${BASH_REMATCH[0]}"/"${BASH_REMATCH[1]}N"}
		[[ $l =~ $RE_NPID2 ]] && l=${l/"${BASH_REMATCH[0]}"/"${BASH_REMATCH[1]}N"}
		pre=
		while [[ $l =~ $RE_NAGENT ]]; do
			pre+=${l%%"${BASH_REMATCH[0]}"*}agent.N
			l=${l#*"${BASH_REMATCH[0]}"}
		done
		l=$pre$l
		if [[ $l == 'usage: '* ]]; then
			NORM+=(USAGE)
			u=1
		elif [ $u = 0 ] || [[ $l != ' '* ]]; then
			NORM+=("$l")
			u=0
		fi
	done
}
norm() {
	norm_lines "$@"
	[ ${#NORM[@]} = 0 ] || printf '%s\n' "${NORM[@]}"
}
norm_var() {
	local _nv=$1
	shift
	norm_lines "$@"
	local IFS=$'\n'
	printf -v "$_nv" '%s' "${NORM[*]}"
	while [[ ${!_nv} == *$'\n' ]]; do printf -v "$_nv" '%s' "${!_nv%$'\n'}"; done
}
# rc_var VAR W NAME: VAR the exit status W's run NAME left
rc_var() { local _rp; opath _rp "$2" "$3" rc; slurp "$1" "$_rp"; }
rc_of() { local p; opath p "$1" "$2" rc; cat_file "$p"; }
out_of() { local p; opath p "$1" "$2" out; cat_file "$p"; }
err_of() { local p; opath p "$1" "$2" err; cat_file "$p"; }

# same NAME DESC: status, stdout and stderr alike
same() {
	local a b
	rc_var a sut "$1"; rc_var b ref "$1"
	is "$a" "$b" "$2: exit status as ssh-agent's"
	norm_var a sut "$1" out; norm_var b ref "$1" out
	is "$a" "$b" "$2: standard output as ssh-agent's"
	norm_var a sut "$1" err; norm_var b ref "$1" err
	is "$a" "$b" "$2: standard error as ssh-agent's"
}
# files W: what is in W's directory (not HOME: keyward makes ~/.ssh/agent)
files() { (cd "$T/$1/cwd" && find . -mindepth 1 | sort | tr '\n' ' '); }
# same_files DESC: ssh-agent's list, at the Nth call, kept in
# $T/ref/o/files.N (replayed from there in the ASan pass)
FILES_N=0
same_files() {
	FILES_N=$((FILES_N + 1))
	[ $REPLAY = 1 ] || files ref >"$T/ref/o/files.$FILES_N"
	is "$(files sut)" "$(cat "$T/ref/o/files.$FILES_N")" "$1: the same files remain"
}
dir_empty() { [ -z "$(ls -A "$1")" ]; }
agent_answers() { ssh-add -l >/dev/null 2>&1; [ $? -le 1 ]; }
# kill_w W NAME: -k the agent NAME started (from its output)
kill_w() {
	local pid sock p rc
	opath p "$1" "$2" out
	out_var pid "$p" "$RE_PID_SH" "$RE_PID_CSH"
	[ -n "$pid" ] || return 1
	out_var sock "$p" "$RE_SOCK_SH" "$RE_SOCK_CSH"
	# stopped once it serves: a SIGTERM before an agent has set up its
	# handlers ends it without removing its socket (ssh-agent as well)
	[ -z "$sock" ] || SSH_AUTH_SOCK=$sock poll_until 10 agent_answers
	inv "$1" "$2.kill" SSH_AGENT_PID="$pid" -- -k
	# the socket goes a moment after the process (keyward's reapers)
	rc_var rc "$1" "$2.kill"
	[ "$rc" = 0 ] && wait_gone "$pid" 10 &&
		{ [ -z "$sock" ] || poll_until 10 not test -e "$sock"; }
}
# leftovers W: live processes of W's runs
leftovers() {
	local f p
	for f in $(grep -lzx "HOME=$T/$1/home" /proc/[0-9]*/environ 2>/dev/null); do
		p=${f#/proc/}; p=${p%/environ}
		pid_alive "$p" && echo "$p"
	done
}
no_leftovers() { [ -z "$(leftovers ref)$(leftovers sut)" ]; }

# ------------------------------------------------------------ -s and -c
for w in $SIDES; do inv $w s -- -s -a "$T/$w/cwd/s.sock"; done
same s "-s -a ABS"
is "$(out_of sut s | wc -l)" 3 "-s: three lines"
for w in $SIDES; do kill_w $w s; done
same s.kill "-k of the -s agent"
same_files "-s then -k"
for w in $SIDES; do inv $w c -- -c -a "$T/$w/cwd/c.sock"; done
same c "-c -a ABS"
for w in $SIDES; do inv $w c.kill SSH_AGENT_PID="$(out_of $w c | sed -n 's/^setenv SSH_AGENT_PID \([0-9]*\);$/\1/p')" -- -c -k; done
same c.kill "-c -k"
for sh in /bin/tcsh /bin/bash; do
	for w in $SIDES; do inv $w "shell${sh##*/}" SHELL=$sh -- -a "$T/$w/cwd/sh.sock"; kill_w $w "shell${sh##*/}"; done
	same "shell${sh##*/}" "SHELL=$sh without -s or -c"
done
like "$(out_of sut shelltcsh | head -n 1)" '^setenv ' "SHELL=/bin/tcsh: csh commands"

# eval in sh and in tcsh: the variables reach the shell and name an agent
# that answers; -k's output evaluated unsets them
for w in $SIDES; do
	in_w $w sh -c 'eval "$("$A" -s -a "$PWD/e.sock")"; echo "sock=$SSH_AUTH_SOCK"; ssh-add -l; echo "list=$?"; eval "$("$A" -k)"; echo "after=${SSH_AUTH_SOCK-unset}${SSH_AGENT_PID-unset}"' \
		>"$T/$w/o/evalsh.out" 2>"$T/$w/o/evalsh.err"
	echo $? >"$T/$w/o/evalsh.rc"
done
same evalsh "eval in sh, ssh-add -l, eval of -k"
is "$(norm sut evalsh out | sed -n 1,3p)" "Agent pid N
sock=D/cwd/e.sock
The agent has no identities." "eval in sh: the agent answers"
for w in $SIDES; do
	in_w $w tcsh -f -c 'eval `$A -c -a $cwd/t.sock`; echo "sock=$SSH_AUTH_SOCK"; ssh-add -l; echo "list=$status"; eval `$A -c -k`; if ($?SSH_AUTH_SOCK) echo still; echo done' \
		>"$T/$w/o/evalcsh.out" 2>"$T/$w/o/evalcsh.err"
	echo $? >"$T/$w/o/evalcsh.rc"
done
same evalcsh "eval in tcsh, ssh-add -l, eval of -c -k"
contains "$(norm sut evalcsh out)" "The agent has no identities." "eval in tcsh: the agent answers"
# -k signals the agent and returns; the agent removes its socket as it
# ends, a moment later: wait (bounded) for that before the files are
# compared. A socket that stays fails same_files as before.
for w in $SIDES; do
	poll_until 10 not test -e "$T/$w/cwd/e.sock"
	poll_until 10 not test -e "$T/$w/cwd/t.sock"
done
same_files "eval in sh and tcsh"

# ------------------------------------------------------------ -a
# relative: printed as given (ssh-agent does so too) and served from there
for w in $SIDES; do
	in_w $w sh -c 'eval "$("$A" -s -a rel.sock)" >/dev/null; echo "sock=$SSH_AUTH_SOCK"; ssh-add -l; "$A" -k >/dev/null; echo "k=$?"' \
		>"$T/$w/o/rel.out" 2>"$T/$w/o/rel.err"
	echo $? >"$T/$w/o/rel.rc"
done
same rel "-a rel.sock, ssh-add -l, -k"
is "$(out_of sut rel | head -n 2)" "sock=rel.sock
The agent has no identities." "-a rel.sock: SSH_AUTH_SOCK=rel.sock, and the agent serves"
if [ $KW = 1 ]; then
	poll_until 20 not test -e "$T/sut/cwd/rel.sock"
	ok $? "-a rel.sock: the socket is removed at exit"
	if stock_part "ssh-agent leaves rel.sock behind"; then
		[ -S "$T/ref/cwd/rel.sock" ]
		ok $? "DIFFERENCE: ssh-agent leaves rel.sock behind (it unlinks it from /)"
	fi
else
	skip_n 2 "keyward removes a relative socket, ssh-agent does not"
fi
rm -f "$T/ref/cwd/rel.sock" "$T/sut/cwd/rel.sock"

# a space in the path: keyward quotes it, ssh-agent's output breaks eval
for w in $SIDES; do inv $w space -- -s -a "$T/$w/cwd/a b.sock"; kill_w $w space; done
if [ $KW = 1 ]; then
	is "$(out_of sut space | head -n 1)" "SSH_AUTH_SOCK=\"$T/sut/cwd/a b.sock\"; export SSH_AUTH_SOCK;" \
		"DIFFERENCE: a path with a space is quoted"
else
	skip "keyward quotes a path with a space"
fi
stock_part "ssh-agent prints a path with a space bare" &&
	is "$(out_of ref space | head -n 1)" "SSH_AUTH_SOCK=$T/ref/cwd/a b.sock; export SSH_AUTH_SOCK;" \
		"(ssh-agent prints it bare)"
same_files "-a with a space, then -k"

# existing: a file, a live agent's socket
for w in $SIDES; do : >"$T/$w/cwd/file"; inv $w exists -- -a "$T/$w/cwd/file"; done
is "$(rc_of sut exists):$(out_of sut exists)" "$(rc_of ref exists):" "-a an existing file: exit 1, nothing on stdout"
like "$(norm sut exists err)" "^bind D/cwd/file: Address already in use\$|^unix_listener: cannot bind to path D/cwd/file: Address already in use\$" \
	"-a an existing file: one line naming the path and the reason"
[ -f "$T/sut/cwd/file" ] && [ ! -s "$T/sut/cwd/file" ]
ok $? "-a an existing file: the file is left as it was"
for w in $SIDES; do
	inv $w live -- -s -a "$T/$w/cwd/live.sock"
	inv $w live2 -- -s -a "$T/$w/cwd/live.sock"
done
is "$(rc_of sut live2):$(out_of sut live2)" "$(rc_of ref live2):" "-a a live agent's socket: exit 1, nothing on stdout"
SSH_AUTH_SOCK=$T/sut/cwd/live.sock run ssh-add -l
is "$RC" 1 "-a a live agent's socket: that agent still answers"
for w in $SIDES; do kill_w $w live; done
same_files "-a existing"

# too long, and in a missing directory
long=$(printf 'x%.0s' $(seq 120))
for w in $SIDES; do inv $w long -- -a "$T/$w/cwd/$long"; done
is "$(rc_of sut long):$(out_of sut long)" "$(rc_of ref long):" "-a a path too long: status as ssh-agent's ($(rc_of ref long)), nothing on stdout"
is "$(err_of sut long | wc -l):$(err_of ref long | wc -l)" "1:1" "-a a path too long: one line on stderr"
contains "$(err_of sut long)" "$long" "-a a path too long: the line names the path"
for w in $SIDES; do inv $w nodir -- -a "$T/$w/cwd/no/such/dir.sock"; done
is "$(rc_of sut nodir):$(out_of sut nodir)" "$(rc_of ref nodir):" "-a in a missing directory: status as ssh-agent's, nothing on stdout"
contains "$(err_of sut nodir)" "No such file or directory" "-a in a missing directory: says why"
same_files "-a too long, in a missing directory"

# ------------------------------------------------------------ -T and the default
# ssh-agent 9.2 has no -T; its default socket ($TMPDIR is dropped, as it
# is set-group-id) is what keyward's -T makes
for w in $SIDES; do inv $w T -- -T; done
if stock_part "ssh-agent 9.2's -T and default socket"; then
	is "$(rc_of ref T):$(norm ref T err | head -n 1)" "1:unknown option -- T" "DIFFERENCE: ssh-agent 9.2 rejects -T"
	inv ref deflt -u TMPDIR -- -s
	like "$(out_of ref deflt | head -n 1)" '^SSH_AUTH_SOCK=/tmp/ssh-[A-Za-z0-9]{10,12}/agent\.[0-9]+; export SSH_AUTH_SOCK;$' \
		"ssh-agent's default socket: /tmp/ssh-XXXXXXXXXXXX/agent.N"
	kill_w ref deflt
fi
if [ $KW = 1 ]; then
	like "$(out_of sut T | head -n 1)" "^SSH_AUTH_SOCK=$T/ssh-[A-Za-z0-9]{10,12}/agent\.[0-9]+; export SSH_AUTH_SOCK;\$" \
		"-T, TMPDIR=$T: \$TMPDIR/ssh-XXXXXXXXXX/agent.N"
	d=$(out_of sut T | sed -n 's#^SSH_AUTH_SOCK=\(.*\)/agent\.[0-9]*; .*#\1#p')
	kill_w sut T
	ok $? "-T: -k"
	poll_until 5 not test -e "$d"
	ok $? "-T: the directory is removed at exit"
	inv sut Tunset -u TMPDIR -- -T
	like "$(out_of sut Tunset | head -n 1)" '^SSH_AUTH_SOCK=/tmp/ssh-[A-Za-z0-9]{10,12}/agent\.[0-9]+; export SSH_AUTH_SOCK;$' \
		"-T, TMPDIR unset: /tmp/ssh-XXXXXXXXXX/agent.N, as ssh-agent's default"
	d=$(out_of sut Tunset | sed -n 's#^SSH_AUTH_SOCK=\(.*\)/agent\.[0-9]*; .*#\1#p')
	kill_w sut Tunset
	poll_until 5 not test -e "$d"
	ok $? "-T, TMPDIR unset: the directory is removed at exit"
	mkdir -p "$T/sut/cwd/tmp"
	in_w sut sh -c 'eval "$(TMPDIR=tmp "$A" -s -T)" >/dev/null; echo "sock=$SSH_AUTH_SOCK"; ssh-add -l; "$A" -k >/dev/null; echo "k=$?"' \
		>"$T/sut/o/Trel.out" 2>"$T/sut/o/Trel.err"
	like "$(out_of sut Trel | tr '\n' ' ')" '^sock=tmp/ssh-[A-Za-z0-9]+/agent\.[0-9]+ The agent has no identities\. k=0 $' \
		"-T, TMPDIR=tmp (relative): printed as given, the agent serves, -k"
	poll_until 20 dir_empty "$T/sut/cwd/tmp"
	st=$?
	ok $st "-T, TMPDIR relative: the directory is removed at exit"
	[ $st = 0 ] || diag "$(cat "$T/sut/o/Trel.out" "$T/sut/o/Trel.err"; ls -laR "$T/sut/cwd/tmp"; ps -ef | grep -F "$T/sut" | grep -v grep)"
	rm -rf "$T/sut/cwd/tmp"
	inv sut dfl -- -s
	like "$(out_of sut dfl | head -n 1)" "^SSH_AUTH_SOCK=$T/sut/home/.ssh/agent/s\\.[^;]+; export SSH_AUTH_SOCK;\$" \
		"DIFFERENCE: keyward's default socket is in ~/.ssh/agent (as OpenSSH 10.1's)"
	kill_w sut dfl
	ok $? "the default socket's agent: -k"
else
	skip_n 10 "-T and the default socket: keyward only"
fi

# ------------------------------------------------------------ -k
for w in $SIDES; do inv $w knone -u SSH_AGENT_PID -- -k; done
same knone "-k without SSH_AGENT_PID"
for v in "" 1 abc -5 2147483648 99999999999999999999 12x; do
	for w in $SIDES; do inv $w "kbad$v" SSH_AGENT_PID="$v" -- -k; done
	same "kbad$v" "-k with SSH_AGENT_PID=\"$v\""
done
# a pid that is surely gone: a child of this shell that was reaped
sh -c 'exit 0' &
dead=$!
wait "$dead"
for w in $SIDES; do inv $w kdead SSH_AGENT_PID=$dead -- -k; done
same kdead "-k with a pid that is gone"

# ------------------------------------------------------------ -D and -d
for flag in -D -d; do
	for w in $SIDES; do
		(cd "$T/$w/cwd" && exec env HOME="$T/$w/home" "$(bin $w)" $flag -a "$T/$w/cwd/fg.sock") \
			</dev/null >"$T/$w/o/fg$flag.out" 2>"$T/$w/o/fg$flag.err" &
		eval "fg_$w=\$!"
		AGENT_PIDS+=($!)
		wait_for_socket "$T/$w/cwd/fg.sock" 10
		SSH_AUTH_SOCK=$T/$w/cwd/fg.sock ssh-add -l >/dev/null 2>&1
		echo $? >"$T/$w/o/fg$flag.list"
	done
	is "$(cat "$T/sut/o/fg$flag.list")" "$(cat "$T/ref/o/fg$flag.list")" "$flag: the agent answers ssh-add -l as ssh-agent does"
	for w in $SIDES; do
		eval "p=\$fg_$w"
		kill -TERM "$p"
		wait "$p"
		echo $? >"$T/$w/o/fg$flag.rc"
	done
	is "$(norm sut "fg$flag" out)" "$(norm ref "fg$flag" out)" "$flag: standard output as ssh-agent's (no SSH_AGENT_PID line)"
	is "$(norm sut "fg$flag" out)" "SSH_AUTH_SOCK=D/cwd/fg.sock; export SSH_AUTH_SOCK;
echo Agent pid N;" "$flag: the socket line and the pid"
	is "$(rc_of sut "fg$flag")" "$(rc_of ref "fg$flag")" "$flag: SIGTERM ends it with ssh-agent's status ($(rc_of ref "fg$flag"))"
	# the socket goes a moment after the process (keyward's reapers)
	for w in $SIDES; do poll_until 10 not test -e "$T/$w/cwd/fg.sock"; done
	same_files "$flag, then SIGTERM"
done
[ -s "$T/ref/o/fg-d.err" ] && [ -s "$T/sut/o/fg-d.err" ]
ok $? "-d: both write debug lines to stderr"
stock_part "ssh-agent -D's standard error" &&
	is "$(err_of ref fg-D)" "" "-D: ssh-agent writes nothing to stderr"
if [ $KW = 1 ]; then
	like "$(err_of sut fg-D)" '^keyward: keyward .* listening on ' "DIFFERENCE: keyward -D logs its info lines to stderr (keyward(1) LOGGING)"
else
	skip "keyward only"
fi
for args in "-D -d" "-d true" "-D true" "-k true" "-s -c" "-c -s -a x"; do
	for w in $SIDES; do inv $w "use$args" -- $args; done
	same "use$args" "usage error: $args"
done

# ------------------------------------------------------------ command mode
# each leaves an agent that must notice its command (the process it
# was) has gone, and end; all are checked together below
cmd_case() { # NAME ARGS...
	local name=$1; shift
	for w in $SIDES; do inv $w "cmd$name" -- -a "$T/$w/cwd/cmd$name.sock" "$@"; done
}
cmd_case ok sh -c 'echo "sock=$SSH_AUTH_SOCK pid=$SSH_AGENT_PID"; ssh-add -l; echo "list=$?"'
same cmdok "command: sees SSH_AUTH_SOCK and SSH_AGENT_PID, the agent serves"
is "$(norm sut cmdok out)" "sock=D/cwd/cmdok.sock pid=N
The agent has no identities.
list=1" "command: the variables and the answer"
cmd_case fail sh -c 'exit 3'
same cmdfail "command fails (exit 3)"
cmd_case noexec "$T/no/such/command"
same cmdnoexec "command cannot be executed (missing)"
cmd_case noperm /etc/passwd
same cmdnoperm "command cannot be executed (not executable)"
cmd_case now true
same cmdnow "command exits at once"
cmd_case sig sh -c 'kill -TERM $$'
same cmdsig "command killed by a signal"
is "$(rc_of sut cmdsig)" 143 "command killed by SIGTERM: status 143, as the shell reports it"
for w in $SIDES; do inv $w cmdopt -- -c true; done
same cmdopt "command with -c"

# ------------------------------------------------------------ -t -E -P -O
set -f  # "-P /usr/lib/*" is ssh-agent's pattern, not the shell's
for args in "-t 1h" "-t 90m30s" "-t 0" "-E md5" "-E sha256" "-P /usr/lib/*" \
	"-O allow-remote-pkcs11" "-O no-restrict-websafe"; do
	for w in $SIDES; do inv $w "opt$args" -- -s -a "$T/$w/cwd/opt.sock" $args; kill_w $w "opt$args"; done
	same "opt$args" "$args accepted"
done
for args in "-t abc" "-t 5x" "-t" "-E sha3" "-E" "-P /a -P /b" "-P" "-O bogus" "-O" \
	"-Z" "-a"; do
	for w in $SIDES; do inv $w "bad$args" -- $args; done
	same "bad$args" "$args refused"
done
set +f
# -t's effect: a key added without its own lifetime goes
gen_key tk ed25519 || bail "ssh-keygen"
for w in $SIDES; do
	inv $w tlife -- -s -a "$T/$w/cwd/tl.sock" -t 2
	SSH_AUTH_SOCK=$T/$w/cwd/tl.sock ssh-add "$T/keys/tk" >/dev/null 2>&1
	SSH_AUTH_SOCK=$T/$w/cwd/tl.sock poll_until 20 agent_empty
	echo $? >"$T/$w/o/tlife.gone"
	kill_w $w tlife
done
is "$(cat "$T/sut/o/tlife.gone"):$(cat "$T/ref/o/tlife.gone")" "0:0" "-t 2: the key is deleted by both"

# keyward's own options: ssh-agent 9.2 has none of them
stock_part "ssh-agent 9.2 rejecting keyward's own options" &&
	for args in "-U" "-u" "-uu" "-V" "-O confirm-timeout=30" "-O policy=/dev/null"; do
		inv ref "own$args" -- $args
		like "$(rc_of ref "own$args"):$(norm ref "own$args" err | head -n 1)" "^(1:unknown option -- [UuV]|255:Unknown -O option)\$" \
			"DIFFERENCE: ssh-agent 9.2 rejects $args"
	done
if [ $KW = 1 ]; then
	inv sut own-u -- -u
	is "$(rc_of sut own-u):$(out_of sut own-u)" "0:Deleted stale agent sockets in ~/.ssh/agent" "-u: keyward cleans ~/.ssh/agent, exit 0"
	inv sut own-uu -- -uu
	is "$(rc_of sut own-uu)" 0 "-uu: exit 0"
	inv sut own-V -- -V
	like "$(rc_of sut own-V):$(err_of sut own-V)" '^0:keyward [0-9]' "-V: the version on stderr, exit 0"
	inv sut own-U -- -s -U -a "$T/sut/cwd/u.sock"
	is "$(rc_of sut own-U)" 0 "-U: accepted"
	kill_w sut own-U
	inv sut own-O -- -s -a "$T/sut/cwd/o.sock" -O confirm-timeout=30
	is "$(rc_of sut own-O)" 0 "-O confirm-timeout=30: accepted"
	kill_w sut own-O
	inv sut own-Obad -- -O confirm-timeout=0
	is "$(rc_of sut own-Obad)" 255 "-O confirm-timeout=0: exit 255, like any invalid -O"
else
	skip_n 7 "keyward's own options"
fi

# ------------------------------------------------------------ nothing left
# Command-mode agents notice within ssh-agent's 10 s that the command is
# gone; the bound is generous for a loaded machine.
poll_until 40 no_leftovers
ok $? "no process left behind, of either agent"
[ -z "$(leftovers sut)" ] || diag "left: $(ps -o pid,ppid,args -p "$(leftovers sut | tr '\n' ',' | sed 's/,$//')")"
[ -z "$(leftovers ref)" ] || diag "ssh-agent's left: $(leftovers ref | tr '\n' ' ')"
# whatever was left (command-mode agents are in no list) goes now
for p in $(leftovers ref) $(leftovers sut); do kill -TERM "$p" 2>/dev/null; done
poll_until 5 eval '[ -z "$(cd "$T/sut/cwd" && ls -d cmd*.sock 2>/dev/null)" ]'
ok $? "command mode: every socket is removed"
same_files "at the end"

# every difference checked above is listed in keyward(1)
diffs=$(MANWIDTH=200 man -l "$REPO/doc/keyward.1" 2>/dev/null | col -b |
	sed -n '/^DIFFERENCES FROM SSH-AGENT/,/^[A-Z]/p' | tr -s ' \t\n' '   ')
for phrase in "-T, -U, -u, -uu and -V are OpenSSH 10.1's" "the socket is in ~/.ssh/agent" \
	"keyward's own (ssh-agent says Unknown -O option" "printed in double quotes" \
	"A relative -a path" "-D writes the agent's LOG_INFO lines to standard error" \
	"error messages begin with keyward:" "keyward: bind PATH: REASON"; do
	contains "$diffs" "$phrase" "keyward(1) DIFFERENCES FROM SSH-AGENT: $phrase"
done

# ssh-agent's results, for make check's ASan pass
stock_keep 170-cli-diff "$T/ref/o"
done_testing
