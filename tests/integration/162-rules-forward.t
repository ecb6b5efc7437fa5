#!/bin/bash
# keyward(5), third example: key Y is never used through a forwarded agent:
#   deny key Y origin forwarded
# A local ssh login with Y works; from hopA, reached with ssh -A, a login
# to hopB with Y is refused while key W logs in; an SSHSIG signature with
# Y on hopA is refused too, and locally it is not.
# Baseline, for both agents: the same effect with ssh-add -h destination
# constraints (Y: -h hopA; W: -h hopA -h "hopA>hopB"), which stock
# ssh-agent has too. The rules part is keyward's alone (skipped for
# ssh-agent).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"
. "$LIBDIR/lib-rules.sh"

dest_hosts hopA hopB
dest_key y
dest_key w
YFP=$(dest_fp y)

# --- baseline: destination constraints, no rules
dest_agent
dest_add_ok y -h hopA
dest_add_ok w -h hopA -h "hopA>hopB"
dest_ssh y hopA
dest_row "constrained: Y origin>hopA" ALLOW ok
dest_ssh y hopA hopB
dest_row "constrained: Y hopA>hopB" DENY not-offered
dest_ssh w hopA hopB
dest_row "constrained: W hopA>hopB" ALLOW ok
stop_agent
ok $? "agent stopped"

# --- the rule: no constraints on the keys
if ! is_keyward; then
	skip_n 17 "not keyward: rules"
	done_testing
fi
POL=$(rules_file forward "deny key $YFP origin forwarded")
rules_agent "$POL"
dest_add_ok y
dest_add_ok w

dest_ssh y hopA
dest_row "rule: Y origin>hopA (local login)" ALLOW ok
dest_ssh y hopA hopB
dest_row "rule: Y hopA>hopB (through the forwarded agent)" DENY refused-sign
dest_ssh w hopA hopB
dest_row "rule: W hopA>hopB" ALLOW ok
dest_ssh w hopA hopB hopA
dest_row "rule: W hopA>hopB>hopA (two forwardings)" ALLOW ok
dest_ssh -m sshsig y hopA
dest_row "rule: Y ssh-keygen -Y sign on hopA" DENY refused
dest_ssh -m sshsig w hopA
dest_row "rule: W ssh-keygen -Y sign on hopA" ALLOW ok
dest_ssh -m sshsig y
dest_row "rule: Y ssh-keygen -Y sign locally" ALLOW ok
dest_ssh y hopA
dest_row "rule: Y origin>hopA again (the refusals changed nothing)" ALLOW ok

# the trail: every refusal of Y is the rule's, on a forwarded path
ref=$(audit_sel "select(.event == \"sign\" and .decision == \"refuse\")")
is "$(printf '%s\n' "$ref" | grep -c .)" 2 "two refusals recorded"
is "$(printf '%s\n' "$ref" | jq -r '"\(.key.fingerprint) \(.rule.line) \(.rule.action)"' | sort -u)" \
	"$YFP 1 deny" "both of key Y, by the rule at line 1"
is "$(printf '%s\n' "$ref" | jq -r '.purpose' | sort | tr '\n' ' ')" "login sshsig " \
	"one login, one SSHSIG signature"
is "$(printf '%s\n' "$ref" | jq -r '[.path[] | select(.forwarding)] | length > 0' | sort -u)" true \
	"each on a path with a forwarding session-bind"
allowed_y=$(audit_sel "select(.event == \"sign\" and .decision == \"allow\" and .key.fingerprint == \"$YFP\")")
is "$(printf '%s\n' "$allowed_y" | jq -r '[.path[] | select(.forwarding)] | length' | sort -u)" 0 \
	"Y's allowed signatures came through no forwarding"
done_testing
