#!/bin/bash
# keyward(5), second example: only /usr/bin/ssh may use the prod keys, and
# it is asked each time, the answer remembered (10 minutes in the man page,
# a few seconds here):
#   confirm remember=8s key comment prod* caller /usr/bin/ssh
#   deny    key comment prod*
# Real ssh logins to a loopback sshd: the first asks (the scripted askpass
# counts the prompts), a second within the window does not, after the
# window it asks again, and after ssh-add -x/-X too; a "no" is never
# remembered. paramiko (tests/tools/paramiko_login.py) and ssh-add -T are
# refused the prod key, without a prompt; a key the rules do not name is
# untouched. Stock ssh-agent (no rules, the key has no -c) logs in every
# time without asking: that baseline runs, the rest is skipped.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

REM=8   # seconds a yes is remembered: long enough for a second
        # ssh login to finish inside it on a loaded 2-core machine
"$PY3" -c 'import paramiko' 2>/dev/null || bail "python3-paramiko is not installed (make deps)"

gen_key prod ed25519 || bail "ssh-keygen prod"   # comment prod@kwtest
gen_key dev ed25519 || bail "ssh-keygen dev"
cat "$T/keys/prod.pub" "$T/keys/dev.pub" >>"$T/authorized_keys"
POL=$(rules_file prod \
	"confirm remember=${REM}s key comment prod* caller /usr/bin/ssh" \
	"deny    key comment prod*")

rules_askpass
rules_agent "$POL"
run ssh-add "$T/keys/prod"
ok $RC "ssh-add prod (no -c: the rule asks, not the key)"
run ssh-add "$T/keys/dev"
ok $RC "ssh-add dev"
hide_key prod
hide_key dev
start_sshd hostA || bail "sshd did not start"
PORT=$SSHD_PORT_hostA

# login WHAT: a real /usr/bin/ssh login with the prod key, readable by
# keyward-peer (nocaps); asserts it logged in
login() {
	run nocaps /usr/bin/ssh -F "$T/ssh_config" -o IdentityFile="$T/keys/prod.pub" hostA 'echo in-kw' </dev/null
	[ "$RC" = 0 ] && [ "$OUT" = in-kw ]
	ok $? "$1"
}
SEEN=0  # prompts counted so far
asked() { # N WHAT: askpass ran N times since the last asked (keyward only)
	local now
	now=$(prompts)
	if is_keyward; then is "$((now - SEEN))" "$1" "$2"; else skip "not keyward: no rules, no prompt"; fi
	SEEN=$now
}
now_ms() { date +%s%3N; }

login "first ssh login with prod"
t_yes=$(now_ms)
asked 1 "... asked once"
if is_keyward; then
	p=$(last_prompt)
	contains "$p" "$(fp "$T/keys/prod.pub")" "the prompt names the prod key"
	contains "$p" "Requested by /usr/bin/ssh -F" "and the program that asks, /usr/bin/ssh"
	contains "$p" "Rule at line 1 asks to confirm (a yes is remembered" "and the rule that asks"
else
	skip_n 3 "not keyward: the rule's prompt"
fi

echo no >"$T/askpass.mode"   # a prompt now would refuse: none may come
login "second login within ${REM}s: logged in (askpass would have said no)"
asked 0 "... without asking"

# the window ends REM s after the yes
sleep "$(awk -v t="$t_yes" -v n="$(now_ms)" -v r="$REM" \
	'BEGIN { s = (t + r * 1000 + 700 - n) / 1000; print (s > 0 ? s : 0) }')"
echo yes >"$T/askpass.mode"
login "a login after the ${REM}s window"
asked 1 "... asks again"
login "and one right after it"
asked 0 "... does not"

lock_unlock
login "a login after ssh-add -x / -X"
asked 1 "... asks again: a lock forgets every remembered yes"

lock_unlock
echo no >"$T/askpass.mode"
run nocaps /usr/bin/ssh -F "$T/ssh_config" -o IdentityFile="$T/keys/prod.pub" hostA true </dev/null
if is_keyward; then
	is "$RC" 255 "a login the user says no to is refused"
else
	ok $RC "baseline: stock ssh-agent logs in (it does not ask)"
fi
asked 1 "... after asking"
echo yes >"$T/askpass.mode"
login "the next login"
asked 1 "... asks again: a no is not remembered"

# Other programs: refused the prod key, and never asked.
run nocaps ssh-add -T "$T/keys/prod.pub"
if is_keyward; then
	ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "ssh-add -T with prod (caller ssh-add) is refused"
else
	ok $RC "baseline: stock ssh-agent lets ssh-add -T use prod"
fi
asked 0 "... without a prompt"
run nocaps "$PY3" "$PARAMIKO_LOGIN" 127.0.0.1 "$PORT" "$(id -un)" "$(fp "$T/keys/prod.pub")" "$T/hostA/host_ed25519.pub"
if is_keyward; then
	is "$RC" 1 "a paramiko login with prod (caller python3) is refused"
else
	ok $RC "baseline: paramiko logs in with prod through stock ssh-agent"
fi
asked 0 "... without a prompt"
run nocaps "$PY3" "$PARAMIKO_LOGIN" 127.0.0.1 "$PORT" "$(id -un)" "$(fp "$T/keys/dev.pub")" "$T/hostA/host_ed25519.pub"
ok $RC "a paramiko login with dev, a key the rules do not name, is allowed"
contains "$OUT" "logged in as $(id -un)" "paramiko_login says it logged in"
asked 0 "... without a prompt"

# The trail: which rule decided, and when a remembered yes stood for the prompt.
if is_keyward; then
	prodfp=$(fp "$T/keys/prod.pub")
	recs=$(audit_sel "select(.event == \"sign\" and .key.fingerprint == \"$prodfp\")")
	by_ssh=$(printf '%s\n' "$recs" | jq -c 'select(.peer.exe == "/usr/bin/ssh")')
	is "$(printf '%s\n' "$by_ssh" | jq -r '"\(.decision) \(.rule.line) \(.rule.action) \(.remembered)"' | tr '\n' ',')" \
		"allow 1 confirm false,allow 1 confirm true,allow 1 confirm false,allow 1 confirm true,allow 1 confirm false,refuse 1 confirm false,allow 1 confirm false," \
		"ssh's prod signatures: asked, remembered, asked, remembered, asked (lock), refused (no), asked"
	is "$(printf '%s\n' "$by_ssh" | jq -r .purpose | sort -u)" login "each a login"
	py=$(printf '%s\n' "$recs" | jq -c 'select(.peer.exe // "" | test("^/usr/bin/python3"))')
	is "$(jq -r '"\(.decision) \(.rule.line) \(.rule.action)"' <<<"$py" 2>/dev/null)" "refuse 2 deny" \
		"paramiko's prod login: refused by the deny rule, line 2"
	adds=$(printf '%s\n' "$recs" | jq -c 'select(.peer.exe == "/usr/bin/ssh-add")')
	is "$(jq -r '"\(.decision) \(.rule.line)"' <<<"$adds" 2>/dev/null)" "refuse 2" \
		"ssh-add -T's: refused by line 2"
else
	skip_n 4 "not keyward: audit trail"
fi

done_testing
