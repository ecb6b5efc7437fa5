# tests/integration/lib-dest.sh - helpers for the destination-constraint
# integration tests (1NN-dest-*.t). Source it after lib.sh.
#
# Every "host" is a real sshd on 127.0.0.1 started by start_sshd NAME (its
# own host keys, HostKeyAlias NAME, a line in $T/known_hosts). Remote
# commands run on this same machine, so a hop "on scylla" is an ssh started
# inside the session on scylla, using the forwarded agent.
#
#   dest_agent                 start the agent under test (bails on failure)
#   dest_hosts NAME...         start_sshd for each (bails on failure)
#   dest_key NAME              ed25519 user key, authorised on every host
#   dest_add NAME [ssh-add options]
#                              ssh-add -H $T/known_hosts OPTIONS KEY (the
#                              private half is shown to ssh-add only for
#                              the add, then hidden again); $RC/$OUT/$ERR.
#                              DEST_KH=FILE: that known_hosts file instead
#   dest_add_ok NAME [options] the same as an assertion; bails if it fails
#   dest_ssh [-m MODE] [-c CMD] [-A] [-o OPT]... [-i LOGINKEY] KEY HOP...
#                              log in along HOP1 -> HOP2 -> ... (HOP is
#                              "host" or "user@host"), ssh -A on every hop
#                              that has a next one, with the one identity
#                              LOGINKEY (default KEY) everywhere; the
#                              last hop runs CMD (MODE login), "ssh-add -l"
#                              (MODE list) or "ssh-keygen -Y sign" with KEY
#                              (MODE sshsig). -A: forward at the last hop too
#                              (implied by list); -o: options for the last
#                              hop's ssh only. With no HOP: the command runs
#                              locally (list, sshsig, or MODE test = ssh-add -T).
#              Sets DEST_RESULT = ALLOW | DENY | ERROR and DEST_HOW:
#                login : ok | not-offered (key not in the list ssh got) |
#                        refused-sign (listed, but the agent refused to sign)
#                list  : listed | not-listed | empty ("no identities")
#                sshsig/test: ok | refused
#              ERROR means the path broke somewhere else (an earlier hop
#              failed, no sshd, wrong message): it never equals a wanted value.
#   dest_row NAME WANT [WANT_HOW]
#                              assert DEST_RESULT (and DEST_HOW) and record
#                              "SCENARIO/NAME<TAB>DEST_RESULT" in the matrix
#                              $KW_MATRIX_DIR/$(basename $AGENT).tsv when
#                              KW_MATRIX_DIR is set.
#   dest_users_setup NAME...   (root only) create local users NAME with a
#                              login shell, removed again at exit; makes $T
#                              readable to them.

DEST_SCENARIO=${DEST_SCENARIO:-$(basename "$0" .t)}
DEST_TIMEOUT=${DEST_TIMEOUT:-60}
DEST_USERS=()
DEST_RESULT="" DEST_HOW="" DEST_REACHED=0

dest_agent() {
	if [ -n "${DEST_AGENT_DEBUG:-}" ]; then
		AGENT_FG_FLAG=-d start_agent_fg "$T/agent.sock"
	else
		start_agent
	fi
	ok $? "agent ${AGENT##*/} started" || bail "agent did not start"
}

dest_hosts() {
	local h
	for h in "$@"; do
		start_sshd "$h" || bail "sshd $h did not start"
	done
	ok 0 "sshd started for: $*"
}

dest_key() {
	gen_key "$1" ed25519 || bail "ssh-keygen $1 failed"
	cat "$T/keys/$1.pub" >>"$T/authorized_keys"
	hide_key "$1"
}

dest_add() {
	local k=$1; shift
	unhide_key "$k"
	run ssh-add -H "${DEST_KH:-$T/known_hosts}" "$@" "$T/keys/$k"
	hide_key "$k"
	return "$RC"
}

# dest_add_ok KEY [options]: dest_add as an assertion (and bail if it failed:
# every later row would be meaningless)
dest_add_ok() {
	local k=$1; shift
	dest_add "$k" "$@"
	ok "$RC" "ssh-add $* $k" || bail "ssh-add $* $k failed"
}

dest_fp() { fp "$T/keys/$1.pub"; }

_dest_ssh_words() { # HOP KEY [opts...]: an ssh command line (quoted for sh)
	local hop=$1 key=$2; shift 2
	local w o
	printf -v w 'ssh -n -F %q -o IdentityFile=%q' "$T/ssh_config" "$T/keys/$key"
	for o in "$@"; do printf -v o ' %q' "$o"; w+=$o; done
	printf -v o '%q' "$hop"
	printf '%s %s' "$w" "$o"
}

dest_ssh() {
	local mode=login cmd=true fwd_last=0 OPTIND=1 opt login=""
	local last_opts=()
	while getopts m:c:Ao:i: opt; do
		case $opt in
		i) login=$OPTARG ;;
		m) mode=$OPTARG ;;
		c) cmd=$OPTARG ;;
		A) fwd_last=1 ;;
		o) last_opts+=(-o "$OPTARG") ;;
		*) bail "dest_ssh: bad option" ;;
		esac
	done
	shift $((OPTIND - 1))
	local key=$1; shift
	local hops=("$@") n=$#
	[ -n "$login" ] || login=$key
	local pub=$T/keys/$key.pub
	case $mode in
	list) cmd="ssh-add -l"; fwd_last=1 ;;
	sshsig)
		fwd_last=1
		rm -f "$T/dest-msg.sig"
		echo "data for $key" >"$T/dest-msg"
		cmd="ssh-keygen -Y sign -f $(printf %q "$pub") -n file $(printf %q "$T/dest-msg")" ;;
	test) fwd_last=1; cmd="ssh-add -T $(printf %q "$pub")" ;;
	login) ;;
	*) bail "dest_ssh: unknown mode $mode" ;;
	esac

	if [ "$n" = 0 ]; then
		# locally, on the agent's own host: no binding at all
		run timeout "$DEST_TIMEOUT" sh -c "echo KW-REACHED-0; $cmd"
	else
		# innermost first: the command run on hop i logs in to hop i+1
		local i c opts q
		c="echo KW-REACHED-$n; $cmd"
		for ((i = n; i >= 1; i--)); do
			opts=()
			if [ "$i" = "$n" ]; then
				[ "$fwd_last" = 1 ] && opts+=(-A)
				opts+=("${last_opts[@]}")
			else
				opts+=(-A)
			fi
			if [ "$i" -gt 1 ]; then
				printf -v q '%q' "$c"
				c="echo KW-REACHED-$((i - 1)); $(_dest_ssh_words "${hops[i - 1]}" "$login" "${opts[@]}") $q"
			fi
		done
		run timeout "$DEST_TIMEOUT" ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/$login" "${opts[@]}" "${hops[0]}" "$c"
	fi
	LAST_CMD="dest_ssh -m $mode $key ${hops[*]} (${LAST_CMD})"

	# how far did it get? (the text is looked at by the shell, with
	# lib.sh's has_line and lines_match: no grep per question)
	DEST_REACHED=-1
	[ "$n" -gt 0 ] && DEST_REACHED=0 # the origin
	for ((i = 0; i <= n; i++)); do
		has_line "$OUT" "KW-REACHED-$i" && DEST_REACHED=$i
	done
	local pfx_ok=1 # every hop before the last one worked
	[ "$DEST_REACHED" -ge $((n - 1)) ] || pfx_ok=0
	[ "$n" = 0 ] && [ "$DEST_REACHED" != 0 ] && pfx_ok=0
	DEST_RESULT=ERROR DEST_HOW="?"
	case $mode in
	login)
		if [ "$RC" = 0 ] && [ "$DEST_REACHED" = "$n" ]; then
			DEST_RESULT=ALLOW DEST_HOW=ok
		elif [ $pfx_ok = 1 ] && [ "$DEST_REACHED" != "$n" ] && [ "$RC" = 255 ] &&
			[[ $ERR == *'Permission denied (publickey)'* ]]; then
			DEST_RESULT=DENY
			if lines_match "$ERR" 'signing failed for .* from agent: agent refused operation'; then
				DEST_HOW=refused-sign
			else
				DEST_HOW=not-offered
			fi
		fi ;;
	list)
		if [ "$DEST_REACHED" = "$n" ]; then
			if [ "$RC" = 0 ] && [[ $OUT == *" $(fp "$pub") "* ]]; then
				DEST_RESULT=ALLOW DEST_HOW=listed
			elif [ "$RC" = 0 ] && [[ $OUT == *' SHA256:'* ]]; then
				DEST_RESULT=DENY DEST_HOW=not-listed
			elif [ "$RC" = 1 ] && lines_match "$OUT" '^The agent has no identities.$'; then
				DEST_RESULT=DENY DEST_HOW=empty
			fi
		fi ;;
	sshsig | test)
		if [ "$DEST_REACHED" = "$n" ]; then
			if [ "$RC" = 0 ]; then
				if [ "$mode" = test ] || [ -s "$T/dest-msg.sig" ]; then
					DEST_RESULT=ALLOW DEST_HOW=ok
				fi
			elif [[ $ERR == *'agent refused operation'* ]]; then
				DEST_RESULT=DENY DEST_HOW=refused
			fi
		fi ;;
	esac
	[ "$DEST_RESULT" = ALLOW ]
}

# KW_MATRIX_SHARE (make check-integration sets it: a directory of its
# own per pass): the rows go to $T/matrix-share.rows as well, moved to
# $KW_MATRIX_SHARE/$(basename $AGENT)/SCENARIO.tsv when the file exits,
# whatever its status, so that 199-dest-matrix.t compares the rows of
# this very run with ssh-agent's instead of running every scenario
# against keyward a second time.
_dest_share_publish() {
	local d
	[ -n "${KW_MATRIX_SHARE:-}" ] && [ -e "$T/matrix-share.rows" ] || return 0
	d=$KW_MATRIX_SHARE/${AGENT##*/}
	mkdir -p "$d" &&
		cp "$T/matrix-share.rows" "$d/.$DEST_SCENARIO.$$" &&
		mv -f "$d/.$DEST_SCENARIO.$$" "$d/$DEST_SCENARIO.tsv"
}
if [ -n "${KW_MATRIX_SHARE:-}" ]; then
	: >"$T/matrix-share.rows"
	trap '_dest_rc=$?; _dest_share_publish; (exit $_dest_rc); cleanup' EXIT
fi

dest_record() { # NAME VALUE
	[ -z "${KW_MATRIX_SHARE:-}" ] ||
		printf '%s\t%s\n' "$1" "$2" >>"$T/matrix-share.rows"
	[ -n "${KW_MATRIX_DIR:-}" ] || return 0
	mkdir -p "$KW_MATRIX_DIR" &&
		printf '%s\t%s\n' "$1" "$2" >>"$KW_MATRIX_DIR/${AGENT##*/}.tsv"
}

dest_row() { # NAME WANT [WANT_HOW]
	local name=$1 want=$2 how=${3:-}
	dest_record "$DEST_SCENARIO/$name" "$DEST_RESULT"
	if [ -n "$how" ]; then
		is "$DEST_RESULT/$DEST_HOW" "$want/$how" "$name: $want ($how)"
	else
		is "$DEST_RESULT" "$want" "$name: $want"
	fi
}

# ------------------------------------------------------------------ users
_dest_users_cleanup() {
	local u
	for u in "${DEST_USERS[@]}"; do
		# its sessions were children of our sshds, ended before this runs
		userdel -r -f "$u" >/dev/null 2>&1
	done
}

dest_users_setup() {
	local u
	[ "$(id -u)" = 0 ] || return 1
	command -v useradd >/dev/null || return 1
	trap '_dest_rc=$?; _kill_tree "${EXTRA_PIDS[@]}" "${AGENT_PIDS[@]}" "${SSHD_PIDS[@]}"; _dest_users_cleanup; _dest_share_publish; (exit $_dest_rc); cleanup' EXIT
	for u in "$@"; do
		userdel -r -f "$u" >/dev/null 2>&1 # left over from an interrupted run
		useradd -m -s /bin/bash "$u" >/dev/null 2>&1 || return 1
		DEST_USERS+=("$u")
		# sshd refuses accounts with a locked ("!") password for publickey
		# logins when UsePAM is off: give it a "no password" marker instead
		usermod -p '*' "$u" >/dev/null 2>&1
	done
	# the test users read authorized_keys (sshd opens it as the user), the
	# ssh_config, known_hosts and public keys (ssh on a hop runs as them)
	chmod 711 "$T"
	chmod 644 "$T/ssh_config" "$T/known_hosts" "$T/authorized_keys"
	chmod 755 "$T/keys"
	chmod 644 "$T"/keys/*.pub 2>/dev/null
	return 0
}
