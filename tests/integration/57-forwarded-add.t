#!/bin/bash
# A key added through a forwarded agent belongs to the host that added it
# (keyward(1) -O allow-remote-add). The user logs in to hostA with the real
# ssh -A; hostA's ssh-add plants its own key "planted", comment
# "deploy-key ", which the account on hostB accepts. Then:
#   - hostA's own ssh-add -l lists it (it is hostA's key);
#   - the user's local ssh-add -l does not, and the user's local ssh to
#     hostB does not offer it (hostB's sshd log names no such key);
#   - with keyward(5)'s SOCKETS example ("allow socket deploy key comment
#     deploy-*"), the deploy socket does not list it;
#   - hostA's re-add of the user's own key k (a forwarded ADD of a key the
#     agent holds) is refused as management, and k keeps its constraint;
#   - with -O allow-remote-add the planted key is the user's, as in
#     ssh-agent, and with -O allow-remote-manage the re-add is served.
# keyward-ctl (and, with -O allow-remote-add, the confirm prompt) says hostA
# added the planted key. The same scenario against ssh-agent is the baseline: it fails the attack
# (a note, not a failure here).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

gen_key k ed25519 || bail "ssh-keygen k"
gen_key planted ed25519 || bail "ssh-keygen planted"
cat "$T/keys/k.pub" >>"$T/authorized_keys"
start_sshd hostA || bail "sshd hostA"
start_sshd hostB || bail "sshd hostB"
PFP=$(fp "$T/keys/planted.pub")
KFP=$(fp "$T/keys/k.pub")
HFP=$(fp "$T/hostA/host_ed25519.pub")
ssh-keygen -c -C "deploy-key " -f "$T/keys/planted" >/dev/null 2>&1
# hostB's account takes the planted key (the hostile host's own)
cat "$T/keys/planted.pub" >"$T/authorized_keys.b"
cat "$T/keys/planted.pub" >>"$T/authorized_keys"

lacks() { # TEXT FIXED NAME: passes when TEXT does not contain FIXED
	if grep -qF -- "$2" <<<"$1"; then ok 1 "$3"; else ok 0 "$3"; fi
}
onA() { # CMD: CMD on hostA through the user's ssh -A
	run timeout 60 ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/k" -A hostA "$1"
}
offered_b() {
	grep -E '(Accepted|Failed|Postponed) publickey for' "$(sshd_log hostB)" |
		grep -oE 'SHA256:[A-Za-z0-9+/]{43}' | sort -u
}
local_login_b() { # the user's own ssh to hostB, offering what the agent lists
	# (k, the user's own, is offered too and accepted by hostB: its -c
	# prompt says no, so only a planted key could let ssh in)
	echo no >"$T/askpass.mode"
	: >"$(sshd_log hostB)"
	run timeout 60 ssh -n -F "$T/ssh_config" -o IdentitiesOnly=no -o IdentityFile=none \
		-o BatchMode=yes hostB true
}

POL=$(rules_file scoped "socket deploy" "allow socket deploy key comment deploy-*")
if is_keyward; then
	rules_agent "$POL" || bail "agent did not start"
else
	rules_agent "" || bail "agent did not start"
fi
MAIN=$SSH_AUTH_SOCK
run ssh-add -c "$T/keys/k"
ok "$RC" "the user adds k locally (with -c)"

onA "ssh-add $(printf %q "$T/keys/planted") && ssh-add -l"
if is_keyward; then
	ok "$RC" "hostA (ssh -A) adds its own key: the add is served"
	contains "$OUT" "$PFP" "hostA's own ssh-add -l lists the key it added"
	run ssh-add -l
	lacks "$OUT" "$PFP" "the user's local ssh-add -l does not list the planted key"
	contains "$OUT" "$KFP" "the user's own key is listed"
	local_login_b
	is "$RC" 255 "the user's local ssh to hostB does not get in with the planted key"
	lacks "$(offered_b)" "$PFP" "hostB was never offered the planted key"
	DEPLOY=${KEYWARD_SOCK_DEPLOY:-}
	[ -S "$DEPLOY" ]
	ok $? "the deploy socket of keyward(5)'s SOCKETS example exists"
	run env SSH_AUTH_SOCK="$DEPLOY" ssh-add -l
	lacks "$OUT" "$PFP" "the deploy socket does not list the planted key (comment deploy-key )"
	audit=$(audit_sel 'select(.event == "add" and .decision == "allow") | .key.added_by_host | select(. != null)')
	is "$audit" "\"$HFP\"" "the audit record says which host added the key (hostA's host key)"
	# keyward-ctl, the user's own view of every key: who added each
	run "$KEYWARD_BUILD/keyward-ctl"
	ctl_block() { printf '%s\n' "$OUT" | awk -v fp="$1" '/^[^ ]/ { on = index($0, " " fp " ") > 0 } on'; }
	contains "$(ctl_block "$PFP")" "    added by: forwarded host $HFP" \
		"keyward-ctl lists the planted key as added by hostA's host key"
	contains "$(ctl_block "$KFP")" "    added by: local" "and the user's own key as added locally"
	run "$KEYWARD_BUILD/keyward-ctl" --json
	is "$(jq -c --arg f "$PFP" '.[] | select(.fingerprint == $f) | [.added_over, .added_by]' <<<"$OUT")" \
		"[\"forwarded\",\"$HFP\"]" "keyward-ctl --json: the same"

	# --- replacing the user's key: a forwarded re-add is management
	echo yes >"$T/askpass.mode"
	ADDREF='select(.event == "add" and .decision == "refuse")'
	n=$(audit_count "$ADDREF")
	onA "ssh-add $(printf %q "$T/keys/k")"
	is "$RC" 1 "hostA's re-add of the user's own key k is refused"
	audit_await "$n" "$ADDREF"
	like "$(audit_sel "$ADDREF | .reason")" \
		"re-adding a key the agent holds is management" "the audit trail says why"
	run ssh-add -l
	contains "$OUT" "$KFP" "k is still listed locally"
else
	ok "$RC" "hostA (ssh -A) adds its own key"
	run ssh-add -l
	if grep -qF "$PFP" <<<"$OUT"; then
		diag "NOTE: ssh-agent lists the planted key to the user's local clients"
	fi
	local_login_b
	[ "$RC" = 0 ] && diag "NOTE: with ssh-agent the user's local ssh logs in to hostB with the planted key"
	echo yes >"$T/askpass.mode"
	onA "ssh-add $(printf %q "$T/keys/k")"
	[ "$RC" = 0 ] && diag "NOTE: ssh-agent serves hostA's re-add of the user's key (its -c is gone)"
	skip_n 13 "keyward's owner of a forwarded key"
fi
stop_agent

# --- the deviations, opted out of
if is_keyward; then
	echo yes >"$T/askpass.mode"
	rules_agent "" -O allow-remote-add -O allow-remote-manage || bail "agent did not start"
	run ssh-add -c "$T/keys/k"
	onA "ssh-add $(printf %q "$T/keys/planted")"
	ok "$RC" "-O allow-remote-add: hostA adds its key"
	run ssh-add -l
	contains "$OUT" "$PFP" "-O allow-remote-add: the key is the user's, listed locally as in ssh-agent"
	run "$KEYWARD_BUILD/keyward-ctl"
	contains "$OUT" "    added by: forwarded host $HFP" "keyward-ctl still says hostA added it"
	# hostA adds it again with -c (management is allowed here): the user's
	# confirm prompt for it says where it came from
	onA "ssh-add -c $(printf %q "$T/keys/planted")"
	ok "$RC" "hostA re-adds its key with -c"
	echo yes >"$T/askpass.mode"
	echo data >"$T/data"
	hide_key planted        # the agent signs, not the file
	run ssh-keygen -Y sign -f "$T/keys/planted.pub" -n file "$T/data"
	ok "$RC" "the user's local ssh-keygen -Y sign with it is confirmed"
	contains "$(last_prompt)" "This key was added through the forwarded agent by the host with key $HFP" \
		"the confirm prompt says hostA added the key"
	onA "ssh-add $(printf %q "$T/keys/k")"
	ok "$RC" "-O allow-remote-manage: hostA's re-add of k is served"
	stop_agent
else
	skip_n 7 "keyward's options"
fi
done_testing
