#!/bin/sh
# run.sh BUILD_DIR - keyward's benchmark (make bench).
#
# Starts build/keyward and /usr/bin/ssh-agent the same way (AGENT -D -a SOCK,
# stderr kept in a file), runs build/bench against both in one run, stops
# both, and says what each agent logged. BENCH_QUICK=1: a short run.
# BENCH_ONLY=memory: the memory figures alone (a few seconds).
# KEYWARD_BENCH_ARGS: more options for keyward (e.g. -O audit=FILE), split
# on spaces.
# Nothing here asserts a timing; the exit status is the client's (non-zero
# only if something failed, e.g. a signature that does not verify).
set -u

build=${1:-build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
ref=${SSH_AGENT_REF:-/usr/bin/ssh-agent}

for f in "$build/keyward" "$build/bench" "$ref"; do
	[ -x "$f" ] || { echo "run.sh: $f missing (make bench builds it)" >&2; exit 1; }
done

dir=$(mktemp -d /tmp/keyward-bench.XXXXXX) || exit 1
kwpid= sapid=

stop() {
	for p in $kwpid $sapid; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $kwpid $sapid; do
		wait "$p" 2>/dev/null
	done
	kwpid= sapid=
}
cleanup() {
	stop
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck disable=SC2086 # split on purpose
"$build/keyward" -D -a "$dir/kw.sock" ${KEYWARD_BENCH_ARGS:-} >"$dir/kw.out" 2>"$dir/kw.err" &
kwpid=$!
"$ref" -D -a "$dir/sa.sock" >"$dir/sa.out" 2>"$dir/sa.err" &
sapid=$!

i=0
while [ ! -S "$dir/kw.sock" ] || [ ! -S "$dir/sa.sock" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		echo "run.sh: the agents did not create their sockets" >&2
		cat "$dir/kw.err" "$dir/sa.err" >&2
		exit 1
	fi
	sleep 0.05
done

echo "bench: $(nproc) cores, kernel $(uname -r), reference $ref ($(dpkg-query -W -f '${Package} ${Version}' openssh-client 2>/dev/null || echo version unknown))"
echo "bench: keyward pid $kwpid, ssh-agent pid $sapid, work dir $dir"
"$build/bench" "$dir/kw.sock" "$kwpid" "$dir/sa.sock" "$sapid" "$dir"
rc=$?

stop
echo
echo "keyward logged $(wc -l <"$dir/kw.err") lines, ssh-agent $(wc -l <"$dir/sa.err"); the last of each:"
tail -n 5 "$dir/kw.err" | sed 's/^/  keyward:   /'
tail -n 5 "$dir/sa.err" | sed 's/^/  ssh-agent: /'
if [ $rc -ne 0 ]; then
	echo "run.sh: the benchmark failed (status $rc)" >&2
fi
exit $rc
