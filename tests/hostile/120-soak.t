#!/bin/bash
# 120-soak - hostile client, case k (make stress only; a few minutes): the
# attacks a-j (but d and g, which lock the agent) again and again, while
# three well-behaved clients sign with Ed25519 and RSA-8192 keys and verify
# every signature with OpenSSL; at the end no key is lost.
. "$(dirname "$0")/../integration/lib-hostile.sh"

hostile_case k
done_testing
