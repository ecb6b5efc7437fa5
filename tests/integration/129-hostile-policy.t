#!/bin/bash
# Hostile peers, the compromised policy (tests/hostile/hostile_policy
# against keyward-keyholder), as 91-hostile.t runs it and reports it, all
# its cases but the fairness ones. Apart from 91-hostile.t because that
# file is serial for those cases alone (they count in which order the
# keyholder's workers answer); these count no order or time of answers,
# so they run beside the other files.
HOSTILE_PROGS=hostile_policy HOSTILE_POLICY_CASES=others exec bash "$(dirname "$0")/91-hostile.t"
