#!/bin/bash
# 120-hostile-planted-key - hostile client (tests/hostile/forwarded.c): a
# host the agent is forwarded to (a connection bound with the forwarding
# flag to a host key it holds) adds a key of its own. It is that host's:
# listed and signing on its connection, not on a local one nor on one
# forwarded from another host (keyward(1), -O allow-remote-add). The real
# ssh -A version is 57-forwarded-add.t. ssh-agent, the reference, gives
# the key to everyone.
. "$(dirname "$0")/lib-hostile.sh"

hostile_case planted-key
done_testing
