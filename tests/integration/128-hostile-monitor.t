#!/bin/bash
# Hostile peers, the compromised monitor (tests/hostile/hostile_monitor
# against keyward-policy and keyward-keyholder), as 91-hostile.t runs it
# and reports it. Apart from 91-hostile.t because that file is serial for
# hostile_policy's fairness cases alone; hostile_monitor counts no order
# or time of answers, so it runs beside the other files.
HOSTILE_PROGS=hostile_monitor exec bash "$(dirname "$0")/91-hostile.t"
