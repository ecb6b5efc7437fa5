#!/bin/sh
# stress.sh BUILD - make stress: the hostile-client suite's long run.
# Every case of tests/integration/1NN-hostile-*.t with longer attack windows
# (HOSTILE_STRESS=1), then the mixed soak (tests/hostile/127-hostile-soak.t, case soak:
# HOSTILE_SOAK_SECONDS, default 180), each against keyward with
# /usr/bin/ssh-agent as the side-by-side reference. AGENT=/usr/bin/ssh-agent
# in the environment runs them against OpenSSH's agent instead.
set -u
BUILD=$1
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
export KEYWARD_BUILD="$BUILD" HOSTILE_STRESS=1
export AGENT="${AGENT:-$BUILD/keyward}"
cd "$REPO" || exit 1
exec nice prove -v tests/integration/1[12][0-9]-hostile-*.t tests/integration/22[0-9]-hostile-*.t \
	tests/hostile/127-hostile-soak.t
