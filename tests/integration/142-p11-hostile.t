#!/bin/bash
# PKCS#11 tokens that stall or die must not stop the agent serving its
# other clients, and the token helper must be sandboxed (nothing
# blocks; each helper runs sandboxed and holds only its provider). Two providers (lib-p11.sh: the SoftHSM2 module and a patched
# copy with its own token) and an ordinary ed25519 key.
#
# The keyward-only assertions (the helper's sandbox, a stalled helper not
# blocking others, a dead helper taking only its own provider's keys) are
# skipped for /usr/bin/ssh-agent, never counted as passes; what 9.2 did is
# printed as a note. Its ssh-pkcs11-helper is one process for every
# provider, unsandboxed, and the agent waits for it synchronously.
# Timings are never asserted, only order.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"

p11_askpass
p11_token "$T/tok" p11- p256 rsa2048
p11_second "$T/tok2" p11b- p256
gen_key plain ed25519 || bail "ssh-keygen plain"
echo "signed by an ordinary key" >"$T/plaindata"
KW_ONLY="keyward's promise beyond ssh-agent 9.2"

plain_sign() { # an ordinary ed25519 signature, bounded
	rm -f "$T/plaindata.sig"
	run timeout "${1:-20}" ssh-keygen -Y sign -f "$T/keys/plain.pub" -n file "$T/plaindata" </dev/null
	[ "$RC" = 0 ] && [ -s "$T/plaindata.sig" ]
}

# helpers: the agent's PKCS#11 helper processes (keyward-pkcs11, or 9.2's
# ssh-pkcs11-helper, whose comm is cut to 15 characters)
helpers() {
	local p c
	for p in $(descendants "$AGENT_FG_PID"); do
		c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
		case $c in keyward-pkcs11* | ssh-pkcs11-help*) echo "$p" ;; esac
	done
}
# helper_of MODULE: the helper that has MODULE (a realpath) mapped
helper_of() {
	local p
	for p in $(helpers); do
		grep -qsF "$1" "/proc/$p/maps" && { echo "$p"; return 0; }
	done
	return 1
}
# sandbox PID: "Seccomp NoNewPrivs CapEff" from /proc/PID/status
sandbox() {
	awk '/^Seccomp:/ {s = $2} /^NoNewPrivs:/ {n = $2} /^CapEff:/ {c = $2}
		END {print s, n, c}' "/proc/$1/status" 2>/dev/null
}

p11_agent_fg
run ssh-add "$T/keys/plain" </dev/null
ok $RC "ssh-add plain (ed25519)"
hide_key plain

# --- a PIN prompt left open. ssh-add -s asks for the PIN itself, before it
# sends anything, so this holds for any agent that serves clients
# concurrently: asserted for both.
: >"$T/pin.block"
rm -f "$T/pin.release" "$T/askpass.waiting"
timeout 60 ssh-add -s "$P11_MODULE" </dev/null >"$T/bg.out" 2>&1 &
BG=$!
EXTRA_PIDS+=("$BG")
poll_until 15 test -e "$T/askpass.waiting"
ok $? "ssh-add -s is waiting for the PIN (askpass holds)"
run timeout 10 ssh-add -l
is "$RC:$OUT" "0:$(fp_line "$T/keys/plain.pub")" "another client's ssh-add -l is answered meanwhile"
plain_sign
ok $? "an ordinary signature is made meanwhile"
pid_alive "$BG"
ok $? "... while ssh-add -s still waits for the PIN"
: >"$T/pin.release"
wait "$BG"
is $? 0 "once the PIN is given ssh-add -s completes"
rm -f "$T/pin.block"
p11_listed p11-p256
ok $? "provider A's keys are listed"
p11_add "$P11_MODULE_B"
ok $RC "ssh-add -s provider B"

# --- the helpers: one per provider, sandboxed, holding only its provider
hA=$(helper_of "$P11_REAL")
hB=$(helper_of "$P11_MODULE_B")
diag "helpers: $(for p in $(helpers); do printf '%s(%s: %s) ' "$p" "$(cat /proc/$p/comm)" "$(sandbox "$p")"; done)"
if is_keyward; then
	[ -n "$hA" ] && [ -n "$hB" ] && [ "$hA" != "$hB" ]
	ok $? "one keyward-pkcs11 helper per provider (A: ${hA:-none}, B: ${hB:-none})"
	is "$(sandbox "${hA:-0}")" "2 1 0000000000000000" "provider A's helper: Seccomp 2, NoNewPrivs 1, CapEff 0"
	is "$(sandbox "${hB:-0}")" "2 1 0000000000000000" "provider B's helper: Seccomp 2, NoNewPrivs 1, CapEff 0"
	grep -qsF "$P11_MODULE_B" "/proc/${hA:-0}/maps"
	is $? 1 "provider A's helper does not have provider B's module mapped"
else
	diag "note: ssh-agent 9.2 runs ${hA:+one ssh-pkcs11-helper (pid $hA)} for both providers" \
		"$([ "$hA" = "$hB" ] && echo '(the same process)' || echo '(separate processes)'), Seccomp/NoNewPrivs/CapEff: $(sandbox "${hA:-0}")"
	skip_n 4 "$KW_ONLY: one sandboxed helper per provider"
fi

# --- a stalled token: provider B's helper stopped (SIGSTOP) while it signs
if [ -n "$hB" ]; then
	kill -STOP "$hB"
	timeout 60 ssh-add -T "$(p11_pub p11b-p256)" </dev/null >"$T/bg.out" 2>&1 &
	BG=$!
	EXTRA_PIDS+=("$BG")
	sleep 1
	pid_alive "$BG"
	ok $? "a signature with provider B's key waits for its stopped helper"
	if is_keyward; then
		run timeout 10 ssh-add -l
		is "$RC" 0 "another client's ssh-add -l is answered meanwhile"
		is "$(count_ids)" 4 "it lists every key (plain, A's two, B's one)"
		plain_sign
		ok $? "an ordinary signature is made meanwhile"
		run timeout 10 ssh-add -T "$(p11_pub p11-p256)"
		ok $RC "provider A's key signs meanwhile"
		pid_alive "$BG"
		ok $? "... while provider B's signature still waits"
	else
		run timeout 3 ssh-add -l
		diag "note: ssh-agent 9.2 with its helper stopped: ssh-add -l (bounded to 3 s) ended with status $RC$([ "$RC" = 124 ] && echo ': it was still waiting')"
		skip_n 5 "$KW_ONLY: a stalled token delays only its own client"
	fi
	kill -CONT "$hB"
	wait "$BG"
	is $? 0 "once the helper continues, provider B's signature completes"
else
	ok 1 "provider B has a helper process to stop"
fi

# --- a helper that dies takes only its own provider's keys with it
if [ -n "$hB" ]; then
	logged_before=$(grep -cF "$(basename "$P11_MODULE_B")" "$T/agent.log")
	kill -KILL "$hB"
	wait_gone "$hB" 10
	ok $? "provider B's helper (pid $hB) killed"
	if is_keyward; then
		poll_until 10 not p11_listed p11b-p256
		ok $? "provider B's key is no longer listed"
		for k in p11-p256 p11-rsa2048; do
			p11_listed "$k"
			ok $? "provider A's $k is still listed"
		done
		agent_has "$T/keys/plain.pub"
		ok $? "the ordinary key is still listed"
		run timeout 10 ssh-add -T "$(p11_pub p11-rsa2048)"
		ok $RC "provider A's key still signs"
		plain_sign
		ok $? "the ordinary key still signs"
		poll_until 5 prints_more "$logged_before" grep -cF "$(basename "$P11_MODULE_B")" "$T/agent.log"
		ok $? "the agent logged a line naming provider B after its helper died"
		p11_add "$P11_MODULE_B"
		ok $RC "provider B can be added again (a new helper)"
		run timeout 10 ssh-add -T "$(p11_pub p11b-p256)"
		ok $RC "and its key signs"
	else
		sleep 1
		run timeout 5 ssh-add -l
		diag "note: ssh-agent 9.2 after its helper was killed: ssh-add -l status $RC, $(printf '%s\n' "$OUT" | grep -c SHA256) keys listed" \
			"(provider B's key $(p11_listed p11b-p256 && echo 'still listed' || echo 'gone'))"
		run timeout 5 ssh-add -T "$(p11_pub p11-rsa2048)"
		diag "note: ssh-agent 9.2: provider A's key then signs: status $RC"
		skip_n 9 "$KW_ONLY: one helper per provider; a dead helper takes only its own keys"
	fi
else
	ok 1 "provider B has a helper process to kill"
fi
pid_alive "$AGENT_FG_PID"
ok $? "the agent is still running"
run timeout 10 ssh-add -l
ok $RC "and answers ssh-add -l"
plain_sign
ok $? "and signs with the ordinary key"
stop_pid "$AGENT_FG_PID"
ok $? "agent stopped"

done_testing
