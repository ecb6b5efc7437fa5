#!/bin/bash
# Rules only ever restrict (keyward(5), SEMANTICS): under a rules file that
# allows everything,
#   allow
# a key added with ssh-add -h hopA still signs for hopA alone, a key added
# with -c still asks each time, and a key added with -t still goes when its
# lifetime ends. Every check runs against stock ssh-agent too (without the
# rules file, which it cannot take): the keys' own constraints behave the
# same. The audit records are keyward's.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"
. "$LIBDIR/lib-rules.sh"

LIFE=4
dest_hosts hopA hopB
for k in d c l; do dest_key "$k"; done
POL=$(rules_file allow "allow   # everything, from anyone, anywhere")
rules_askpass
rules_agent "$POL"

# the key with a lifetime first: its clock runs while the rest is tested
dest_add_ok l -t "$LIFE"
t_added=$(date +%s)
dest_ssh l hopA
dest_row "-t $LIFE: a login before the lifetime ends" ALLOW ok

dest_add_ok d -h hopA
dest_add_ok c -c

# -h hopA: nowhere else, whatever the rule says
dest_ssh d hopA
dest_row "-h hopA: origin>hopA" ALLOW ok
dest_ssh d hopB
dest_row "-h hopA: origin>hopB" DENY not-offered
dest_ssh d hopA hopB
dest_row "-h hopA: hopA>hopB" DENY not-offered
dest_ssh -m sshsig d
dest_row "-h hopA: a local ssh-keygen -Y sign" DENY refused

# -c: asks, every time
before=$(prompts)
dest_ssh c hopA
dest_row "-c: a login, confirmed" ALLOW ok
is "$(($(prompts) - before))" 1 "-c: the login asked once"
dest_ssh c hopA
dest_row "-c: a second login, confirmed" ALLOW ok
is "$(($(prompts) - before))" 2 "-c: and the second asked again (allow remembers nothing)"
echo no >"$T/askpass.mode"
dest_ssh c hopA
dest_row "-c: a login the user says no to" DENY refused-sign
is "$(($(prompts) - before))" 3 "-c: after asking"
dest_ssh -m sshsig c
dest_row "-c: ssh-keygen -Y sign, the user says no" DENY refused
is "$(($(prompts) - before))" 4 "-c: after asking"
echo yes >"$T/askpass.mode"

# -t: gone at the end of its lifetime
poll_until $((LIFE + 8)) not agent_has "$T/keys/l.pub"
ok $? "-t $LIFE: the key is gone after its lifetime"
ok "$([ $(($(date +%s) - t_added)) -ge $((LIFE - 1)) ] && echo 0 || echo 1)" \
	"-t $LIFE: and not before it ended"
dest_ssh l hopA
dest_row "-t $LIFE: a login after the lifetime ended" DENY not-offered
is "$(count_ids)" 2 "d and c are still there"

if is_keyward; then
	run jq -e . "$AUDIT"
	ok $RC "the trail is JSON"
	allowed=$(audit_sel 'select(.event == "sign" and .decision == "allow")')
	is "$(printf '%s\n' "$allowed" | jq -c .rule | sort -u)" '{"line":1,"action":"allow"}' \
		"every signature made was under the allow rule"
	is "$(printf '%s\n' "$allowed" | grep -c .)" 5 "five signatures: l, d twice (logins to hopA), c twice"
	dfp=$(dest_fp d)
	dref=$(audit_sel "select(.event == \"sign\" and .decision == \"refuse\" and .key.fingerprint == \"$dfp\")")
	is "$(printf '%s\n' "$dref" | grep -c .)" 1 "d's refusal recorded (the local signature)"
	is "$(printf '%s\n' "$dref" | jq -r 'has("rule")' | sort -u)" false \
		"refused by the key's own constraints, before any rule"
	cref=$(audit_sel "select(.event == \"sign\" and .decision == \"refuse\" and .key.fingerprint == \"$(dest_fp c)\")")
	is "$(printf '%s\n' "$cref" | jq -r .reason | sort -u)" "the user did not confirm" \
		"c's refusals: the user said no, though the rule allows"
else
	skip_n 7 "not keyward: rules and audit trail"
fi
done_testing
