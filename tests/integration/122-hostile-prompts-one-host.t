#!/bin/bash
# 122-hostile-prompts-one-host - hostile client (tests/hostile/prompts.c): a
# forwarded server's 140 connections (more than the monitor lets be at
# policy at once) ask for signatures with a -c key at once: 2 prompts
# open, 8 wait, the rest are refused at once. Each prompt held open a
# second and refused; a local client's signature with the same key gets
# its prompt meanwhile. Here the askpass log is read: until the attack
# closes its connections, at most PROMPT_MAX_PER_HOP (2) of the host's
# prompts were ever open at once, and the local prompt came. keyward only
# beside ssh-agent (lib-hostile.sh, hostile_askpass).
. "$(dirname "$0")/lib-hostile.sh"

PROMPT_MAX_PER_HOP=2
hostile_askpass
hostile_case prompts-one-host
if is_keyward; then
	diag_file "$T/askpass.log" "askpass log"
	read -r most started < <(hostile_fwd_open prompts-one-host)
	is "$most" "$PROMPT_MAX_PER_HOP" "at most PROMPT_MAX_PER_HOP of the host's prompts were open at once, and that many were"
	# each is held 1 s; the attack closes about 0.5 s after asking: a
	# round or two of PROMPT_MAX_PER_HOP, never the 16 the prompter runs
	ok $((started <= 2 * PROMPT_MAX_PER_HOP ? 0 : 1)) "the host's other prompts waited: $started of 140 were shown before it closed"
	is "$(grep -c '^start [0-9]* local' "$T/askpass.log")" 1 "the local client's prompt was shown"
else
	skip_n 3 "keyward only: the askpass log of keyward's prompts"
fi
done_testing
