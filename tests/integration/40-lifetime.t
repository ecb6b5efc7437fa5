#!/bin/bash
# Lifetimes: ssh-add -t, the agent's -t default, ssh-add -t 0 (no lifetime),
# an explicit lifetime overriding the default. Checks order of events
# (which key is gone first), never exact timings.
. "$(dirname "$0")/lib.sh"

for k in a b c d e; do gen_key "$k" ed25519 || bail "ssh-keygen $k"; done
gone() { ! agent_has "$T/keys/$1.pub"; }

start_agent
ok $? "agent started (no default lifetime)" || bail "agent did not start"
run ssh-add -t 2 "$T/keys/a"
ok $RC "ssh-add -t 2 a"
like "$ERR" '^Lifetime set to 2 seconds$' "ssh-add reports the lifetime"
run ssh-add -t 0 "$T/keys/b"
ok $RC "ssh-add -t 0 b (ssh-add treats 0 as no lifetime)"
unlike "$ERR" 'Lifetime set' "no lifetime announced for -t 0"
is "$(count_ids)" 2 "both keys listed right after adding"
echo data >"$T/data"
hide_key a
run ssh-keygen -Y sign -f "$T/keys/a.pub" -n file "$T/data"
ok $RC "key with a lifetime signs before it expires"
unhide_key a
poll_until 15 gone a
ok $? "key added with -t 2 expires (polled up to 15 s)"
agent_has "$T/keys/b.pub"
ok $? "key added with -t 0 is still there after the -t 2 key expired"
is "$(count_ids)" 1 "exactly one key left"
hide_key a
rm -f "$T/data.sig"
run ssh-keygen -Y sign -f "$T/keys/a.pub" -n file "$T/data"
[ "$RC" != 0 ] && [ ! -s "$T/data.sig" ]
ok $? "an expired key no longer signs"
unhide_key a
stop_agent
ok $? "first agent stopped"

start_agent -t 2
ok $? "agent started with -t 2" || bail "agent -t 2 did not start"
run ssh-add "$T/keys/c"
ok $RC "ssh-add c (no -t)"
run ssh-add -t 0 "$T/keys/e"
ok $RC "ssh-add -t 0 e (no lifetime sent: the default applies)"
run ssh-add -t 3600 "$T/keys/d"
ok $RC "ssh-add -t 3600 d (explicit lifetime overrides the default)"
is "$(count_ids)" 3 "three keys listed right after adding"
poll_until 15 gone c
ok $? "key without -t expires under the agent's -t 2 (polled up to 15 s)"
poll_until 15 gone e
ok $? "key added with -t 0 expires under the agent's -t 2 too"
agent_has "$T/keys/d.pub"
ok $? "key with an explicit longer lifetime survives the default"
stop_agent
ok $? "second agent stopped"

done_testing
