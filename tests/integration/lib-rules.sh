# tests/integration/lib-rules.sh - helpers for the keyward(5) rules tests
# (16N-rules-*.t), each the worked example of the man page with the real
# programs. Source it after lib.sh (and lib-dest.sh where it is needed).
#
#   nocaps CMD...            run CMD so keyward-peer can read it: as root,
#                            with no capabilities (bounding, inheritable and
#                            ambient sets emptied by setpriv). keyward-peer
#                            runs without capabilities, and a process that
#                            holds some it lacks is "unreadable" to it.
#   rules_file NAME LINE...  write the rules file $T/NAME.rules, one LINE a
#                            line; prints its path
#   rules_askpass            the scripted askpass $T/askpass.sh: every run
#                            appends its prompt to $T/askpass.log (one
#                            "--- prompt" header each) and answers what
#                            $T/askpass.mode says (yes | no | local: yes
#                            unless the prompt says "forwarded agent"; yes
#                            at first)
#   prompts                  how many times askpass was run so far
#   last_prompt              the text of the last prompt
#   rules_agent [FILE] [options...]
#                            start the agent under test with the askpass
#                            above (DISPLAY=:0, SSH_ASKPASS_REQUIRE=force);
#                            keyward also gets -O policy=FILE (when FILE is
#                            not "") and -O audit=$AUDIT -O audit-sync=yes.
#                            Bails if it does not start.
#   audit_sel JQ-FILTER      the records of $AUDIT that the filter selects
#                            (jq -c); e.g. 'select(.event == "sign")'
#   audit_signs              every sign record, one a line
#   audit_count JQ-FILTER    how many records the filter selects
#   audit_await N JQ-FILTER  waits (10 s) until more than N records match.
#                            Only a signature waits for its record before
#                            it is answered (doc/design.md §1); any
#                            other record (a refusal, a list, an add, a
#                            session event) can reach the trail after the
#                            client has its answer: read one after this.
#   lock_unlock              ssh-add -x then -X (the password from askpass)
#   PARAMIKO_LOGIN           tests/tools/paramiko_login.py (run by lib.sh's
#                            PY3, Debian's python3 with python3-paramiko)
#
# Against stock ssh-agent (is_keyward false) a test runs what that agent can
# do as a baseline and skips (skip_n, never a pass) what only keyward does.

AUDIT=$T/audit.log
PARAMIKO_LOGIN=$REPO/tests/tools/paramiko_login.py

if [ "$(id -u)" = 0 ]; then
	NOCAPS=(setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all)
else
	NOCAPS=()
fi
nocaps() { "${NOCAPS[@]}" "$@"; }

rules_file() {
	local line f=$T/$1.rules; shift
	: >"$f"
	for line in "$@"; do printf '%s\n' "$line" >>"$f"; done
	echo "$f"
}

rules_askpass() {
	cat >"$T/askpass.sh" <<EOF
#!/bin/sh
{ echo "--- prompt"; printf '%s\n' "\$1"; } >>"$T/askpass.log"
case \$(cat "$T/askpass.mode") in
yes) echo yes; exit 0 ;;
local) case "\$1" in *"forwarded agent"*) ;; *) echo yes; exit 0 ;; esac ;;
esac
echo no
exit 1
EOF
	chmod 755 "$T/askpass.sh"
	echo yes >"$T/askpass.mode"
	: >"$T/askpass.log"
}
prompts() { # how many prompts the askpass logged (grep -c, by the shell)
	local l n=0
	while IFS= read -r l || [ -n "$l" ]; do
		[ "$l" = '--- prompt' ] && n=$((n + 1))
	done 2>/dev/null <"$T/askpass.log"
	echo "$n"
}
last_prompt() { awk '/^--- prompt$/ { t = ""; next } { t = t $0 "\n" } END { printf "%s", t }' "$T/askpass.log"; }

rules_agent() {
	local file=${1:-}; shift
	local opts=()
	[ -f "$T/askpass.sh" ] || rules_askpass
	if is_keyward; then
		[ -n "$file" ] && opts+=(-O "policy=$file")
		opts+=(-O "audit=$AUDIT" -O audit-sync=yes)
	fi
	SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force \
		start_agent "${opts[@]}" "$@"
	ok $? "agent $(basename "$AGENT") started${file:+ with the rules of $(basename "$file")}" ||
		bail "agent did not start"
}

audit_sel() { [ -e "$AUDIT" ] && jq -c "$1" "$AUDIT"; }
audit_signs() { audit_sel 'select(.event == "sign")'; }
audit_count() { audit_sel "$1" | wc -l | tr -d ' '; }
audit_await() { poll_until 10 prints_more "$1" audit_count "$2"; }

lock_unlock() {
	printf '#!/bin/sh\necho lock-pass-kw\n' >"$T/lockpass.sh"
	chmod 755 "$T/lockpass.sh"
	run env SSH_ASKPASS="$T/lockpass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -x
	ok $RC "ssh-add -x: the agent is locked"
	run env SSH_ASKPASS="$T/lockpass.sh" SSH_ASKPASS_REQUIRE=force ssh-add -X
	ok $RC "ssh-add -X: the agent is unlocked"
}
