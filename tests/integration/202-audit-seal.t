#!/bin/bash
# The sealed audit trail (-O audit=FILE -O audit-key=KEY): keyward-ctl
# audit keygen prints the verification key once; the auditor chains every
# record, seals every AUDIT_SEAL_RECORDS (256) records and at exit, and
# leaves in the key file only the next key (not the verification key, not
# any key already used). keyward-ctl audit verify finds the trail intact,
# and each tampering done to the real file at the line it was done: one
# byte, a line removed, two swapped, a line added, an old seal replayed,
# cut before a seal (unsealed tail), cut after one (the key file tells),
# a wrong key. A second run continues the chain; a run killed (SIGKILL)
# leaves an unsealed tail the next run's start accounts for. A key file
# another agent holds, or no trail, is refused at start. (keyward only.)
. "$(dirname "$0")/lib.sh"

NTESTS=51
if ! is_keyward; then
	skip_n $NTESTS "not keyward"
	done_testing
fi
CTL=$KEYWARD_BUILD/keyward-ctl
A=$T/trail
K=$T/audit.key
verify() { run "$CTL" audit verify "$@"; }

gen_key k ed25519
run "$CTL" audit keygen "$K"
ok $RC "keyward-ctl audit keygen"
VKEY=$OUT
like "$VKEY" '^keyward-audit-verify-key-1:[0-9a-f]{64}$' "prints the verification key"
unlike "$ERR" "line above" "keygen names the key line by its prefix, not by its place"
contains "$ERR" "the line beginning keyward-audit-verify-key-1: is its verification key" "keygen says which line is the key"
is "$(stat -c %a "$K")" 600 "the key file is 0600"
run "$CTL" audit keygen "$K"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "keygen does not overwrite a key"
contains "$(cat "$K")" "${VKEY#*:}" "before any seal the key file holds the first key"

start_agent -O audit="$A" -O audit-key="$K"
ok $? "agent started with -O audit-key" || bail "agent did not start"
# its auditor locks the key once it has started. Looked up in /proc/locks,
# not tried with flock(1): a try takes the lock for an instant, and an
# auditor starting at that instant finds the key in use and stops.
key_locked() { grep -Eq "FLOCK +ADVISORY +WRITE +[0-9]+ +[0-9a-f]+:[0-9a-f]+:$(stat -c %i "$K") " /proc/locks; }
poll_until 10 key_locked
other() {
	run "$AGENT" -s -a "$T/other.sock" "$@"
	local pid
	pid=$(printf '%s\n' "$OUT" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
	[ -n "$pid" ] && AGENT_PIDS+=("$pid")
	return $RC
}
other -O audit="$T/other" -O audit-key="$K"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "a second agent on the same key is refused"
contains "$ERR" "in use by another agent" "saying why"
other -O audit-key="$K"
ok "$([ "$RC" != 0 ] && echo 0 || echo 1)" "a key without a trail is refused"
run ssh-add "$T/keys/k"
ok $RC "key added"
n=0
for ((i = 0; i < 300; i++)); do ssh-add -T "$T/keys/k.pub" >/dev/null 2>&1 && n=$((n + 1)); done
is "$n" 300 "300 signatures"
poll_until 5 grep -q '"event":"seal"' "$A"
is "$(grep -c '"event":"seal"' "$A")" 1 "a seal after 256 records, before the exit"
ok "$(grep -qF "${VKEY#*:}" "$K"; [ $? = 1 ] && echo 0 || echo 1)" \
	"after a seal the key file no longer holds the verification key"
verify "$A" "$VKEY"
is "$RC" 3 "while the agent runs, the tail after the seal is unsealed (exit 3)"
contains "$OUT" "unsealed" "verify says so"
stop_agent
ok $? "agent stopped"
is "$(tail -1 "$A" | jq -r .event)" seal "the last line is the final seal"
verify --state "$K" "$A" "$VKEY"
is "$RC" 0 "verify: intact"
like "$OUT" "intact: [0-9]+ lines, 2 seals verified" "two seals verified"
verify "$A"
is "$RC" 3 "without the key: the chain is whole, the seals unchecked"
contains "$OUT" "the trail begins at seq 0 (its first record)" "it says where the trail begins"
# the head cut off: with the key, records are missing
tail -n +3 "$A" >"$T/t.head"
verify "$T/t.head" "$VKEY"
is "$RC" 1 "the first two lines cut off: tampered"
contains "$OUT" "the trail begins at seq 2, not at its first record: 2 records before it were cut off" "it says where it begins and what is gone"
verify "$T/t.head"
is "$RC" 3 "without the key: not proven"
contains "$OUT" "the trail begins at seq 2: the records before it are not in this file" "but it says where it begins"
# wiped: the key file counts the records written
: >"$T/t.empty"
verify --state "$K" "$T/t.empty" "$VKEY"
is "$RC" 1 "an empty trail whose key file has sealed records: tampered"
like "$OUT" "empty, but the key file says [0-9]+ records were written: the trail was wiped" "it says wiped"
# cut before the first seal, checked against the key file
head -n 5 "$A" >"$T/t.noseal"
verify --state "$K" "$T/t.noseal" "$VKEY"
is "$RC" 1 "cut before any seal, with the key file: tampered"
unlike "$OUT" "line 0" "and no message names a line 0"

# The same run, tampered.
L=$(wc -l <"$A")
tamper() { # NAME AWK-PROGRAM
	awk "$2" "$A" >"$T/t.$1"
}
tamper byte 'NR == 10 { sub(/"decision":"allow"/, "\"decision\":\"allOw\"") } { print }'
verify "$T/t.byte" "$VKEY"
is "$RC" 1 "one byte of line 10 changed: tampered"
like "$OUT" "line 10 \\(seq [0-9]+\\) was changed" "reported at line 10"
tamper del 'NR != 20 { print }'
verify "$T/t.del" "$VKEY"
like "$OUT" "seq 19 was removed: it should be at line 20" "line 20 removed: reported"
tamper swap 'NR == 30 { held = $0; next } NR == 31 { print; print held; next } { print }'
verify "$T/t.swap" "$VKEY"
like "$OUT" "reordered: seq 29 should be at line 30 and is at line 31" "lines 30 and 31 swapped: reported"
tamper add 'NR == 40 { print; print; next } { print }'
verify "$T/t.add" "$VKEY"
like "$OUT" "line 41 was added" "line 40 repeated: reported at 41"
SEAL1=$(grep -n '"event":"seal"' "$A" | head -1 | cut -d: -f1)
tamper cutbefore "NR < $L { print }"
verify "$T/t.cutbefore" "$VKEY"
is "$RC" 3 "the final seal cut off: not tampering it can prove"
like "$OUT" "[0-9]+ lines after the last seal \\(line $SEAL1\\) are unsealed" "but the tail after line $SEAL1 is unsealed"
tamper cutafter "NR <= $SEAL1 { print }"
verify "$T/t.cutafter" "$VKEY"
is "$RC" 0 "cut right after the first seal: intact alone"
verify --state "$K" "$T/t.cutafter" "$VKEY"
is "$RC" 1 "with the key file: sealed records missing at the end"
contains "$OUT" "missing at the end" "reported"
# the first seal's epoch and hmac over the last seal's
old=$(sed -n "${SEAL1}p" "$A" | sed 's/.*\("epoch":\)/\1/')
tamper replay "NR == $L { sub(/\"epoch\":.*/, \"\"); printf \"%s%s\\n\", \$0, \"$(printf '%s' "$old" | sed 's/"/\\"/g')\"; next } { print }"
verify "$T/t.replay" "$VKEY"
like "$OUT" "seal at line $L is out of its order" "an old seal replayed as the last: reported at line $L"
verify "$A" "keyward-audit-verify-key-1:$(printf '%064d' 0)"
is "$RC" 1 "a wrong key: fails"
like "$OUT" "seal at line $SEAL1 does not verify" "at the first seal"
unlike "$OUT" "line 0" "without naming a line 0"

# A second run continues the chain; a killed run leaves an unsealed tail.
start_agent -O audit="$A" -O audit-key="$K"
ok $? "agent started again on the same key"
ssh-add "$T/keys/k" >/dev/null 2>&1
for ((i = 0; i < 3; i++)); do ssh-add -T "$T/keys/k.pub" >/dev/null 2>&1; done
pids="$SSH_AGENT_PID $(descendants "$SSH_AGENT_PID")"
# The auditor first (the process holding the key file): killed after
# policy, it would see policy go and seal before it died.
for p in $pids; do
	ls -l "/proc/$p/fd" 2>/dev/null | grep -qF "$K" && kill -KILL "$p" && wait_gone "$p"
done
# shellcheck disable=SC2086
kill -KILL $pids 2>/dev/null
for p in $pids; do wait_gone "$p"; done
# the auditor (which holds the key's lock) is gone when the lock is free
poll_until 10 not key_locked
ok $? "the killed run's auditor is gone (the key is free)"
unset SSH_AUTH_SOCK SSH_AGENT_PID
rm -f "$T/agent.sock"
start_agent -O audit="$A" -O audit-key="$K"
ok $? "and again after that run was killed"
ssh-add "$T/keys/k" >/dev/null 2>&1
run ssh-add -T "$T/keys/k.pub"
ok $RC "it signs (so its auditor is up and recording)"
stop_agent
verify --state "$K" "$A" "$VKEY"
is "$RC" 3 "verify: no tampering, but the killed run's tail is unsealed"
like "$OUT" "[0-9]+ lines of a run that ended without its final seal" "it says so"
done_testing
