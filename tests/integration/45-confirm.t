#!/bin/bash
# Confirm constraint (ssh-add -c): the agent runs $SSH_ASKPASS with
# SSH_ASKPASS_PROMPT=confirm; the answer gates each signature.
# keyward-only: a second client is served while a prompt is open.
. "$(dirname "$0")/lib.sh"

# One askpass script; $T/askpass.mode picks its answer.
cat >"$T/askpass.sh" <<EOF
#!/bin/sh
env >"$T/askpass.env"
printf '%s\n' "\$1" >"$T/askpass.prompt"
echo call >>"$T/askpass.calls"
case \$(cat "$T/askpass.mode") in
silent) exit 0 ;;
yes) echo yes; exit 0 ;;
YES) echo YES; exit 0 ;;
no) echo no; exit 1 ;;
no0) echo no; exit 0 ;;
fail) exit 1 ;;
block)
	: >"$T/askpass.waiting"
	i=0
	while [ ! -e "$T/askpass.release" ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
	exit 0 ;;
esac
exit 1
EOF
chmod 755 "$T/askpass.sh"
: >"$T/askpass.calls"
calls() { wc -l <"$T/askpass.calls" | tr -d ' '; }
echo "data to sign" >"$T/data"
sign() { # KEYNAME: ssh-keygen -Y sign through the agent; fresh signature file
	rm -f "$T/data.sig"
	run ssh-keygen -Y sign -f "$T/keys/$1.pub" -n file "$T/data"
	[ "$RC" = 0 ] && [ -s "$T/data.sig" ]
}

gen_key conf ed25519 || bail "ssh-keygen conf"
gen_key plain ed25519 || bail "ssh-keygen plain"
cat "$T/keys/conf.pub" >>"$T/authorized_keys"

SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force start_agent
ok $? "agent started with SSH_ASKPASS, DISPLAY, SSH_ASKPASS_REQUIRE=force" || bail "agent did not start"

run ssh-add -c "$T/keys/conf"
ok $RC "ssh-add -c conf"
like "$ERR" 'The user must confirm each use of the key' "ssh-add announces the confirm constraint"
run ssh-add "$T/keys/plain"
ok $RC "ssh-add plain (no confirm)"
hide_key conf
hide_key plain

sign plain
ok $? "unconfirmed key signs"
is "$(calls)" 0 "no prompt for a key without -c"

echo silent >"$T/askpass.mode"
sign conf
ok $? "confirm key signs when askpass exits 0 printing nothing"
is "$(calls)" 1 "askpass ran exactly once for one signature"
grep -qx 'SSH_ASKPASS_PROMPT=confirm' "$T/askpass.env"
ok $? "askpass got SSH_ASKPASS_PROMPT=confirm in its environment"
contains "$(cat "$T/askpass.prompt")" "$(fp "$T/keys/conf.pub")" "the prompt names the key's fingerprint"
# keyward-peer holds no capability: a root client is closed to it even
# when root runs the agent, and the prompt says so (not "another user's")
if is_keyward && [ "$(id -u)" = 0 ]; then
	like "$(grep '^Requested by' "$T/askpass.prompt")" \
		'^Requested by (pid [0-9]+ \(a root process keyward cannot inspect\)|.*\(pid [0-9]+\).*)\.$' \
		"root's client: the prompt says a root process keyward cannot inspect (or names it)"
else
	skip "keyward as root only"
fi
run sh -c "ssh-keygen -Y check-novalidate -n file -s '$T/data.sig' <'$T/data'"
ok $RC "the confirmed signature verifies"

echo yes >"$T/askpass.mode"
sign conf
ok $? "confirm key signs when askpass prints 'yes'"
echo YES >"$T/askpass.mode"
sign conf
ok $? "confirm key signs when askpass prints 'YES' (any case)"

echo no >"$T/askpass.mode"
before=$(calls)
sign conf
is $? 1 "signature refused when askpass prints 'no' and exits 1"
is "$(calls)" $((before + 1)) "askpass was asked"
echo no0 >"$T/askpass.mode"
sign conf
is $? 1 "signature refused when askpass prints 'no' and exits 0"
echo fail >"$T/askpass.mode"
sign conf
is $? 1 "signature refused when askpass prints nothing and exits 1"
is "$(count_ids)" 2 "refusals keep the key"

# login with a confirm key
start_sshd hostA
ok $? "sshd started"
echo silent >"$T/askpass.mode"
before=$(calls)
run ssh_as hostA "$T/keys/conf.pub" -- 'exit 4'
is "$RC" 4 "login with a confirm key, askpass says yes"
is "$(calls)" $((before + 1)) "the login was confirmed once"
echo no >"$T/askpass.mode"
run ssh_as hostA "$T/keys/conf.pub" -- true
is "$RC" 255 "login refused when askpass says no"

# keyward-only: a prompt that stays open does not block other clients
if is_keyward; then
	echo block >"$T/askpass.mode"
	rm -f "$T/askpass.waiting" "$T/askpass.release" "$T/data.sig"
	ssh-keygen -Y sign -f "$T/keys/conf.pub" -n file "$T/data" >"$T/bg.out" 2>&1 &
	signer=$!
	EXTRA_PIDS+=("$signer")
	poll_until 10 test -e "$T/askpass.waiting"
	ok $? "prompt is open (askpass blocking)"
	run timeout 10 ssh-add -l
	is "$RC" 0 "a second client's ssh-add -l is answered while the prompt is open"
	pid_alive "$signer"
	ok $? "... before the first client got its signature (it is still waiting)"
	: >"$T/askpass.release"
	wait "$signer"
	is $? 0 "after the prompt is answered the first signature succeeds"
	[ -s "$T/data.sig" ]
	ok $? "signature written"
else
	skip_n 5 "not keyward"
fi

stop_agent
ok $? "agent stopped"

# no display and no SSH_ASKPASS_REQUIRE: no prompt is possible, the answer is no
echo silent >"$T/askpass.mode"
unhide_key conf
SSH_ASKPASS=$T/askpass.sh start_agent
ok $? "agent started with SSH_ASKPASS but no DISPLAY"
run ssh-add -c "$T/keys/conf"
ok $RC "ssh-add -c conf"
hide_key conf
before=$(calls)
sign conf
is $? 1 "without DISPLAY or SSH_ASKPASS_REQUIRE=force a confirm key does not sign"
is "$(calls)" "$before" "and askpass was not run"
stop_agent
ok $? "agent stopped"

# SSH_ASKPASS_REQUIRE=never with a DISPLAY: no prompt, the answer is no,
# and keyward's log gives that as the reason (not a missing DISPLAY)
unhide_key conf
DISPLAY=:99 SSH_ASKPASS=$T/askpass.sh SSH_ASKPASS_REQUIRE=never start_agent_fg "$T/never.sock"
ok $? "agent started with DISPLAY and SSH_ASKPASS_REQUIRE=never"
run ssh-add -c "$T/keys/conf"
ok $RC "ssh-add -c conf"
hide_key conf
before=$(calls)
sign conf
is $? 1 "SSH_ASKPASS_REQUIRE=never: a confirm key does not sign"
is "$(calls)" "$before" "and askpass was not run"
if is_keyward; then
	contains "$(cat "$T/agent.log")" "cannot ask for confirmation: SSH_ASKPASS_REQUIRE=never; refusing" \
		"the log names SSH_ASKPASS_REQUIRE=never as the reason"
else
	skip "not keyward"
fi
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"
mv "$T/agent.log" "$T/fg-never.log.old"

done_testing
