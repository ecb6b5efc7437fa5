#!/bin/bash
# check: serial (counts the prompts open at once against a forwarded flood)
# 121-hostile-prompts-many-hosts - hostile client (tests/hostile/prompts.c):
# 9 forwarded hosts (each its own host key), 2 connections each, ask for
# signatures with a -c key at once: each host within its own
# PROMPT_MAX_PER_HOP, together more than the prompter's
# PROMPT_MAX_CONCURRENT (16). Each of their prompts is held open a second
# and refused; a local client's signature with the same key gets its
# prompt meanwhile. Here the askpass log is read: until the attack closes
# its connections, at most PROMPT_MAX_FORWARDED (8) of the hosts' prompts
# were ever open at once, and the local prompt came. keyward only beside
# ssh-agent, as prompts-one-host (lib-hostile.sh, hostile_askpass).
. "$(dirname "$0")/lib-hostile.sh"

PROMPT_MAX_FORWARDED=8
hostile_askpass
hostile_case prompts-many-hosts
if is_keyward; then
	diag_file "$T/askpass.log" "askpass log"
	read -r most _ < <(hostile_fwd_open prompts-many-hosts)
	is "$most" "$PROMPT_MAX_FORWARDED" "at most PROMPT_MAX_FORWARDED of the hosts' prompts were open at once, and that many were"
	is "$(grep -c '^start [0-9]* local' "$T/askpass.log")" 1 "the local client's prompt was shown"
else
	skip_n 2 "keyward only: the askpass log of keyward's prompts"
fi
done_testing
