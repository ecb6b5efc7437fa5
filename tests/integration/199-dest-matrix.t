#!/bin/bash
# Destination constraints: the allow/deny matrices of the dest scenarios
# (1NN-dest-*.t, rows "SCENARIO/ROW<TAB>ALLOW|DENY") must be identical for
# /usr/bin/ssh-agent and keyward.
# - KW_MATRIX_DIR holds ssh-agent.tsv and keyward.tsv (the suite was run once
#   per agent with KW_MATRIX_DIR set): compare those.
# - Otherwise: run every dest scenario here against both agents (matrices in
#   $T/matrix, TAP output in $T/runs), then compare. Without a keyward
#   binary: a visible skip.
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib.sh"

OFFICIAL=/usr/bin/ssh-agent
KW=$KEYWARD_BUILD/keyward

# compare_matrices A B: one assertion per row (union of both, in order)
compare_matrices() {
	local a=$1 b=$2 name va vb
	local -A A B
	local order=()
	while IFS=$'\t' read -r name va; do
		[ -n "$name" ] || continue
		[ -n "${A[$name]+x}" ] || [ -n "${B[$name]+x}" ] || order+=("$name")
		A[$name]=$va
	done <"$a"
	while IFS=$'\t' read -r name vb; do
		[ -n "$name" ] || continue
		[ -n "${A[$name]+x}" ] || [ -n "${B[$name]+x}" ] || order+=("$name")
		B[$name]=$vb
	done <"$b"
	[ ${#order[@]} -gt 0 ]
	ok $? "the matrices have rows ($(wc -l <"$a") ssh-agent, $(wc -l <"$b") keyward)"
	for name in "${order[@]}"; do
		va=${A[$name]:-(missing)} vb=${B[$name]:-(missing)}
		if [ "$va" = "$vb" ]; then
			ok 0 "$name: $va for both"
		else
			ok 1 "$name: agents differ"
			diag "ssh-agent: $va"
			diag "keyward:   $vb"
		fi
	done
}

MD=${KW_MATRIX_DIR:-}
if [ -n "$MD" ] && [ -f "$MD/ssh-agent.tsv" ] && [ -f "$MD/keyward.tsv" ]; then
	diag "comparing $MD/ssh-agent.tsv with $MD/keyward.tsv"
	compare_matrices "$MD/ssh-agent.tsv" "$MD/keyward.tsv"
	done_testing
fi

if [ ! -x "$KW" ]; then
	skip "no keyward binary at $KW: nothing to compare ssh-agent with"
	done_testing
fi
[ -x "$OFFICIAL" ] || bail "$OFFICIAL is missing"

# series AGENT: every dest scenario against AGENT, one after another (each
# appends its rows to $T/matrix/AGENT.tsv); its diagnostics in
# $T/runs/AGENT.diag. The two agents' series run side by side: each
# scenario has its own $T, agent and sshd, and the two write to different
# matrix files, so only the suite's time changes (half).
series() {
	local agent=$1 an f log rc
	an=$(basename "$agent")
	: >"$T/matrix/$an.tsv"
	for f in "$LIBDIR"/1[0-9][0-9]-dest-*.t; do
		[ "$f" = "$LIBDIR/199-dest-matrix.t" ] && continue
		log=$T/runs/$an.$(basename "$f" .t).tap
		AGENT=$agent KEYWARD_BUILD=$KEYWARD_BUILD KW_MATRIX_DIR=$T/matrix \
			bash "$f" </dev/null >"$log" 2>&1
		rc=$?
		if [ $rc != 0 ]; then
			diag "$an: $(basename "$f") exited $rc; its failures:"
			grep -E '^(not ok|Bail out)' "$log" | head -n 20 | sed 's/^/  /' | while IFS= read -r l; do diag "$l"; done
		fi
	done >"$T/runs/$an.diag"
}

mkdir -p "$T/matrix" "$T/runs"
series "$OFFICIAL" &
EXTRA_PIDS+=($!)
series "$KW" &
EXTRA_PIDS+=($!)
wait "${EXTRA_PIDS[@]}"
cat "$T/runs/$(basename "$OFFICIAL").diag" "$T/runs/$(basename "$KW").diag"
compare_matrices "$T/matrix/ssh-agent.tsv" "$T/matrix/keyward.tsv"
done_testing
