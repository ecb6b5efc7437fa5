#!/bin/bash
# 127-hostile-soak - hostile client, the soak (tests/hostile/soak.c; make stress
# only; a few minutes): the other attacks (but those that lock the agent,
# unlock-guessing and pipeline-order) again and again, while three
# well-behaved clients sign with Ed25519 and RSA-8192 keys and verify
# every signature with OpenSSL; at the end no key is lost.
. "$(dirname "$0")/../integration/lib-hostile.sh"

hostile_case soak
done_testing
