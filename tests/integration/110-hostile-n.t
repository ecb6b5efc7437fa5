#!/bin/bash
# check: serial (counts the prompts open at once against a forwarded flood)
# 110-hostile-n - hostile client, case n (tests/hostile/attack.c): 9
# forwarded hosts (each its own host key), 2 connections each, ask for
# signatures with a -c key at once: each host within its own
# PROMPT_MAX_PER_HOP, together more than the prompter's
# PROMPT_MAX_CONCURRENT (16). Each of their prompts is held open a second
# and refused; a local client's signature with the same key gets its
# prompt meanwhile. Here the askpass log is read: until the attack closes
# its connections, at most PROMPT_MAX_FORWARDED (8) of the hosts' prompts
# were ever open at once, and the local prompt came. keyward only beside
# ssh-agent, as case m (HOSTILE_REFERENCE=0).
. "$(dirname "$0")/lib-hostile.sh"

PROMPT_MAX_FORWARDED=8
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

hostile_case n
if is_keyward; then
	closing=$(sed -n 's/^# n: closing the hosts. connections at \([0-9]*\)$/\1/p' "$T/attack.tap")
	[ -n "$closing" ] || closing=99999999999999999999
	diag_file "$T/askpass.log" "askpass log"
	most=$(awk -v c="$closing" '$2 < c && $3 == "fwd" { print $2, ($1 == "start" ? 1 : -1) }' \
		"$T/askpass.log" | sort -n | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
	is "$most" "$PROMPT_MAX_FORWARDED" "at most PROMPT_MAX_FORWARDED of the hosts' prompts were open at once, and that many were"
	is "$(grep -c '^start [0-9]* local' "$T/askpass.log")" 1 "the local client's prompt was shown"
else
	skip_n 2 "keyward only: the askpass log of keyward's prompts"
fi
done_testing
