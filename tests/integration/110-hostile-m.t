#!/bin/bash
# 110-hostile-m - hostile client, case m (tests/hostile/attack.c): a
# forwarded server's 140 connections (more than the monitor lets be at
# policy at once) ask for signatures with a -c key at once: 2 prompts
# open, 8 wait, the rest are refused at once. Each prompt held open a second and refused; a local client's
# signature with the same key gets its prompt meanwhile. Here the askpass
# log is read: until the attack closes its connections, at most
# PROMPT_MAX_PER_HOP (2) of the host's prompts were ever open at once, and
# the local prompt came. keyward only beside ssh-agent: OpenSSH's agent
# runs one prompt at a time and stops serving anyone while it is open,
# which would make its reference run minutes of waiting (HOSTILE_REFERENCE=0).
. "$(dirname "$0")/lib-hostile.sh"

PROMPT_MAX_PER_HOP=2
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

hostile_case m
if is_keyward; then
	closing=$(sed -n 's/^# m: closing the host.s connections at \([0-9]*\)$/\1/p' "$T/attack.tap")
	[ -n "$closing" ] || closing=99999999999999999999
	diag_file "$T/askpass.log" "askpass log"
	# the most of the host's prompts open at once before the attack closed
	most=$(awk -v c="$closing" '$2 < c && $3 == "fwd" { print $2, ($1 == "start" ? 1 : -1) }' \
		"$T/askpass.log" | sort -n | awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
	started=$(awk -v c="$closing" '$1 == "start" && $2 < c && $3 == "fwd"' "$T/askpass.log" | wc -l)
	is "$most" "$PROMPT_MAX_PER_HOP" "at most PROMPT_MAX_PER_HOP of the host's prompts were open at once, and that many were"
	# each is held 1 s; the attack closes about 0.5 s after asking: a
	# round or two of PROMPT_MAX_PER_HOP, never the 16 the prompter runs
	ok $((started <= 2 * PROMPT_MAX_PER_HOP ? 0 : 1)) "the host's other prompts waited: $started of 140 were shown before it closed"
	is "$(grep -c '^start [0-9]* local' "$T/askpass.log")" 1 "the local client's prompt was shown"
else
	skip_n 3 "keyward only: the askpass log of keyward's prompts"
fi
done_testing
