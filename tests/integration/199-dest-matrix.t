#!/bin/bash
# Destination constraints: the allow/deny matrices of the dest scenarios
# (1NN-dest-*.t, rows "SCENARIO/ROW<TAB>ALLOW|DENY") must be identical for
# /usr/bin/ssh-agent and keyward.
# - KW_MATRIX_DIR holds ssh-agent.tsv and keyward.tsv (the suite was run once
#   per agent with KW_MATRIX_DIR set): compare those.
# - Otherwise: run every dest scenario here against both agents (matrices in
#   $T/matrix, TAP output in $T/runs), then compare. Without a keyward
#   binary: a visible skip. In make check-integration (KW_MATRIX_SHARE set
#   and AGENT this keyward), keyward's rows are those the scenario files
#   of the same pass recorded: only ssh-agent's series runs here.
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

# scenario AGENT FILE: one dest scenario against AGENT (it appends its
# rows to $T/matrix/AGENT.tsv); a failure is told in the diagnostics.
scenario() {
	local agent=$1 f=$2 an log rc
	an=$(basename "$agent")
	log=$T/runs/$an.$(basename "$f" .t).tap
	AGENT=$agent KEYWARD_BUILD=$KEYWARD_BUILD KW_MATRIX_DIR=$T/matrix \
		KW_MATRIX_SHARE='' bash "$f" </dev/null >"$log" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		diag "$an: $(basename "$f") exited $rc; its failures:"
		grep -E '^(not ok|Bail out)' "$log" | head -n 20 | sed 's/^/  /' | while IFS= read -r l; do diag "$l"; done
	fi
}

# The dest files that record rows: those built on lib-dest.sh. Another
# 1NN-dest file (109 drives real programs on its own) records none, and
# waiting for its rows would hold this file for DEST_SHARE_WAIT.
scenarios() {
	local f
	for f in "$LIBDIR"/1[0-9][0-9]-dest-*.t; do
		[ "$f" = "$LIBDIR/199-dest-matrix.t" ] && continue
		grep -q 'lib-dest\.sh' "$f" && echo "$f"
	done
}

# series AGENT: every dest scenario against AGENT, one after another; its
# diagnostics in $T/runs/AGENT.diag.
series() {
	local agent=$1 an f
	an=$(basename "$agent")
	: >"$T/matrix/$an.tsv"
	for f in $(scenarios); do scenario "$agent" "$f"; done >"$T/runs/$an.diag"
}

# shared_series: keyward's rows as the scenario files of this same pass
# left them in $KW_MATRIX_SHARE/keyward (lib-dest.sh), each waited for
# (DEST_SHARE_WAIT seconds in all); a scenario whose rows do not come in
# that time runs here. The files themselves report their failures.
DEST_SHARE_WAIT=${DEST_SHARE_WAIT:-1500}
shared_series() {
	local f s waited=0 an
	an=$(basename "$KW")
	: >"$T/matrix/$an.tsv"
	for f in $(scenarios); do
		s=$KW_MATRIX_SHARE/$an/$(basename "$f" .t).tsv
		while [ ! -e "$s" ] && [ $waited -lt "$DEST_SHARE_WAIT" ]; do
			sleep 2
			waited=$((waited + 2))
		done
		if [ -e "$s" ]; then
			cat "$s" >>"$T/matrix/$an.tsv"
		else
			diag "no rows from $(basename "$f") in this pass after ${waited}s: running it here"
			scenario "$KW" "$f"
		fi
	done >"$T/runs/$an.diag"
}

# The two agents' series run side by side: each scenario has its own $T,
# agent and sshd, and the two write to different matrix files. Where the
# pass runs the scenarios against this keyward (make check-integration
# sets KW_MATRIX_SHARE), keyward's rows are theirs: running each scenario
# again here would double their cost and test nothing more.
# KW_STOCK_FROM=DIR (make check sets it for the ASan pass: the plain
# build's KW_MATRIX_SHARE): ssh-agent's rows as the plain pass's run of
# this file left them in DIR/ssh-agent.tsv. ssh-agent is the same binary
# in both passes, and not built with the sanitizers: running its series
# again would test nothing of keyward's. Without that file it runs here.
mkdir -p "$T/matrix" "$T/runs"
STOCK_FROM=${KW_STOCK_FROM:+$KW_STOCK_FROM/$(basename "$OFFICIAL").tsv}
if [ -n "$STOCK_FROM" ] && [ -s "$STOCK_FROM" ]; then
	diag "ssh-agent's rows: $STOCK_FROM (not run again)"
	cp "$STOCK_FROM" "$T/matrix/$(basename "$OFFICIAL").tsv"
	: >"$T/runs/$(basename "$OFFICIAL").diag"
else
	series "$OFFICIAL" &
	EXTRA_PIDS+=($!)
fi
if [ -n "${KW_MATRIX_SHARE:-}" ] && [ "$(readlink -f "$AGENT")" = "$(readlink -f "$KW")" ]; then
	diag "keyward's rows: the scenario files of this pass ($KW_MATRIX_SHARE)"
	shared_series &
else
	series "$KW" &
fi
EXTRA_PIDS+=($!)
wait "${EXTRA_PIDS[@]}"
cat "$T/runs/$(basename "$OFFICIAL").diag" "$T/runs/$(basename "$KW").diag"
# for a later pass's KW_STOCK_FROM
[ -z "${KW_MATRIX_SHARE:-}" ] || { mkdir -p "$KW_MATRIX_SHARE" &&
	cp "$T/matrix/$(basename "$OFFICIAL").tsv" "$KW_MATRIX_SHARE/"; }
compare_matrices "$T/matrix/ssh-agent.tsv" "$T/matrix/keyward.tsv"
done_testing
