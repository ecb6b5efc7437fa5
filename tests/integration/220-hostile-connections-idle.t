#!/bin/bash
# 220-hostile-connections-idle - hostile client (tests/hostile/connections.c):
# a lone client of the user's (a process of its own, one connection)
# lists the keys and holds its connection open, idle past
# CLIENT_EVICT_IDLE_MS, as ssh does between its LIST and its SIGN while
# the server answers; then the attacker, one process, opens as many
# connections as the agent accepts (RLIMIT_NOFILE 1024) and as many
# again. The agent makes room from the peer holding the most
# (monitor/clients.c, make_room): the lone client's connection is kept
# and its SIGN answered. The probe does LIST and SIGN every 100 ms
# throughout, as in every hostile case.
HOSTILE_NOFILE=1024
. "$(dirname "$0")/lib-hostile.sh"

hostile_case connections-idle
done_testing
