#!/bin/bash
# 115-hostile-forwarded-readd - hostile client (tests/hostile/forwarded.c):
# a host the agent is forwarded to re-adds a key the user added locally.
# The re-add is management, refused (keyward(1), -O allow-remote-manage):
# the key keeps the user's comment and signs; the same re-add from a local
# connection replaces it, as in ssh-agent. The FIDO version (the host's own
# key handle, real ssh -A) is 137-sk-forwarded-readd.t. ssh-agent, the
# reference, serves the forwarded re-add.
. "$(dirname "$0")/lib-hostile.sh"

hostile_case forwarded-readd
done_testing
