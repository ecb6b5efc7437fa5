#!/bin/bash
# check: serial (15,000 refusals of 30 kinds and 40 clients while the user's signatures must still be recorded)
# The audit trail's coalescing (policy/audit_repeats.c) against an attacker that
# varies what 205-audit-flood.t keeps fixed (keyward only):
# 1. one origin, many kinds: one raw client asks, pipelined, for
#    signatures with 30 keys each refused by its own rule (a reason per
#    rule line), thousands of times. Its refusal lines stay within
#    2 * (AUDIT_COALESCE_PER_ORIGIN + 1) per window (8, as keyward(1) and
#    ipc/limits.h state it), every refusal is accounted for (whole or in a
#    "repeated" count), and each signature the user made meanwhile is
#    recorded. (The bound holds while no other origin fills the table: a
#    new origin with every slot taken closes the oldest window early, and
#    the flood's next refusal of that kind is whole again; 74 one-refusal
#    processes during a 2 s flood took it from 18 lines to 54.)
# 2. many origins: 40 processes, each refused 3 times, one after another,
#    more than AUDIT_COALESCE_SLOTS (32) at once: each one's first refusal
#    is recorded whole, and the windows closed early to make room have
#    their counts in the trail already, not only when the agent ends.
# 3. a forwarded server (a real ssh -A to a loopback sshd) that adds a
#    session-bind for a new host key before every request cannot make
#    itself a new origin: its refusals are one origin, the host key of the
#    first binding (the one the user's ssh made).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-rules.sh"

NTESTS=22
if ! is_keyward; then
	skip_n $NTESTS "not keyward: no audit trail"
	done_testing
fi
"$PY3" -c 'import paramiko' 2>/dev/null || bail "python3-paramiko is not installed (make deps)"
ATTACK=$REPO/tests/tools/fwd_attack.py
WINDOW=10 PER_ORIGIN=8 NKINDS=30 ROUNDS=500 NPROC=40

rules=()
for i in $(seq 1 $NKINDS); do
	gen_key "k$i" ed25519 || bail "ssh-keygen k$i"
	rules+=("deny key comment k$i@kwtest")
done
gen_key u ed25519 && gen_key x ed25519 || bail "ssh-keygen"
rules+=("deny key comment x@kwtest")        # line NKINDS + 1: the forwarded attack
XLINE=$((NKINDS + 1))
rules_agent "$(rules_file kinds "${rules[@]}")"
for k in u x $(seq -f 'k%g' 1 $NKINDS); do
	run ssh-add "$T/keys/$k"
	[ "$RC" = 0 ] || bail "ssh-add $k: $ERR"
done
run ssh-add -l
is "$RC:$(grep -c . <<<"$OUT")" "0:$((NKINDS + 2))" "the agent lists the keys added: u, x and k1..k$NKINDS"

# one raw client pipelining sign requests with the keys given in turn;
# prints "answers refusals pid"
PIPELINE=$REPO/tests/tools/pipeline.pl

# refusals of the processes whose pids are in the file PIDS, counted
# (whole records 1, "repeated" records their count) / as lines. An
# origin's kinds past its first AUDIT_COALESCE_PER_ORIGIN share one count,
# event "repeats", decision "any": every request here is refused.
of_pids() { # PIDS-FILE JQ-FILTER
	jq -c --slurpfile p "$1" 'select((.decision == "refuse" or .event == "repeats") and
		((.peer.pid // -1) as $x | any($p[0][]; . == $x))) | '"$2" "$AUDIT"
}
accounted() { of_pids "$1" '(.repeated // 1)' | awk '{ s += $1 } END { print s + 0 }'; }
lines_of() { of_pids "$1" '.event' | wc -l | tr -d ' '; }
whole_of() { of_pids "$1" 'select(.repeated == null) | .peer.pid'; }

# Refusals are recorded without waiting for the auditor; a signature
# waits for its record (no signature goes unrecorded), and the auditor
# writes in order: once the user's ssh-add -T returns, every record
# before its signature's is in the trail.
barrier() {
	ssh-add -T "$T/keys/u.pub" >/dev/null 2>&1 || bail "ssh-add -T: the user cannot sign"
}

# ------------------------------------------------------- 1. many kinds
FLOOD=$((NKINDS * ROUNDS))
pubs=()
for i in $(seq 1 $NKINDS); do pubs+=("$T/keys/k$i.pub"); done
t0=$(date +%s)
nocaps perl "$PIPELINE" "$SSH_AUTH_SOCK" "$FLOOD" sign "${pubs[@]}" >"$T/kinds.out" 2>&1 &
FLOOD_PID=$!
EXTRA_PIDS+=("$FLOOD_PID")
USER_SIGNS=0
while pid_alive "$FLOOD_PID"; do
	ssh-add -T "$T/keys/u.pub" >/dev/null 2>&1 && USER_SIGNS=$((USER_SIGNS + 1))
	[ "$USER_SIGNS" -ge 100 ] && break
done
wait "$FLOOD_PID"
t1=$(date +%s)
FLOOD_S=$((t1 - t0))
read -r got refused fpid <"$T/kinds.out"
barrier
USER_SIGNS=$((USER_SIGNS + 1))
SIGNED=$(audit_count 'select(.event == "sign" and .decision == "allow")')
is "$got $refused" "$FLOOD $FLOOD" "all $FLOOD requests ($NKINDS keys x $ROUNDS) were answered, each refused"
diag "the user signed $USER_SIGNS times during the flood, which took $((t1 - t0)) s"
ok "$([ "$USER_SIGNS" -ge 1 ] && echo 0 || echo 1)" "the user could sign during the flood"
echo "[$fpid]" >"$T/flood.pids"
# (a window may close while it runs: a kind is whole once per window)
FLOOD_W=$(((FLOOD_S + WINDOW - 1) / WINDOW + 1))
is "$(of_pids "$T/flood.pids" 'select(.repeated == null) | .reason' | sort -u | wc -l | tr -d ' ')" \
	"$((PER_ORIGIN + 1))" \
	"the flood's first $PER_ORIGIN kinds and the first of its others are recorded whole, no other kind"
whole=$(of_pids "$T/flood.pids" 'select(.repeated == null)' | wc -l | tr -d ' ')
ok "$([ "$whole" -le $(((PER_ORIGIN + 1) * FLOOD_W)) ] && echo 0 || echo 1)" \
	"... $whole whole records, at most $((PER_ORIGIN + 1)) a window ($(((PER_ORIGIN + 1) * FLOOD_W)))"

# ------------------------------------------------------- 2. many origins
# each client: 3 refusals (key k1, line 1) on one connection; one after
# another, so more than 32 origins are open at once
: >"$T/procs.out"
for i in $(seq 1 $NPROC); do
	nocaps perl "$PIPELINE" "$SSH_AUTH_SOCK" 3 sign "$T/keys/k1.pub" >>"$T/procs.out" 2>&1
done
awk '{ print $3 }' "$T/procs.out" | jq -s -c . >"$T/procs.pids"
barrier
is "$(awk '$1 == 3 && $2 == 3' "$T/procs.out" | wc -l | tr -d ' ')" "$NPROC" \
	"$NPROC clients, each refused 3 times"
is "$(whole_of "$T/procs.pids" | sort -u | wc -l | tr -d ' ')" "$NPROC" \
	"each of the $NPROC clients has its first refusal recorded whole"
is "$(whole_of "$T/procs.pids" | wc -l | tr -d ' ')" "$NPROC" "... and only its first"
early=$(of_pids "$T/procs.pids" 'select(.repeated != null) | .repeated' | wc -l | tr -d ' ')
diag "count records of the $NPROC clients before any was flushed at exit: $early"
ok "$([ "$early" -ge $((NPROC - 32)) ] && echo 0 || echo 1)" \
	"the windows closed to make room have their counts recorded already ($early >= $((NPROC - 32)))"

# ------------------------------------------------------- 3. forwarded
start_sshd hostile || bail "sshd hostile did not start"
cat "$T/keys/u.pub" >>"$T/authorized_keys"
HOSTFP=$(fp "$T/hostile/host_ed25519.pub")
NB=10
ops=()
for i in $(seq 1 $NB); do
	gen_key "h$i" ed25519 || bail "ssh-keygen h$i"
	ops+=("r$i=other:$T/keys/x.pub:data$i" "b$i=bind:$T/keys/h$i:sid-$i:fwd")
done
ops+=("r$((NB + 1))=other:$T/keys/x.pub:last")
t0=$(date +%s)
run nocaps ssh -A -F "$T/ssh_config" -o IdentityFile="$T/keys/u.pub" hostile \
	"$PY3 $ATTACK $(printf '%q ' "${ops[@]}")" </dev/null
t1=$(date +%s)
barrier
is "$(printf '%s\n' "$OUT" | grep -c '^r[0-9]* refused$')" $((NB + 1)) \
	"the forwarded server's $((NB + 1)) requests with key x are refused"
is "$(printf '%s\n' "$OUT" | grep -c '^b[0-9]* ok$')" "$NB" \
	"its $NB session-binds for new host keys are accepted"
xsel="select(.decision == \"refuse\" and .reason == \"denied by rule at line $XLINE\")"
is "$(audit_sel "$xsel | select(.repeated == null) | .path | length" | head -n 1)" 1 \
	"its first refusal is recorded whole, with the one binding the user's ssh made"
whole=$(audit_count "$xsel | select(.repeated == null)")
bound=$(((t1 - t0) / WINDOW + 1))
ok "$([ "$whole" -le "$bound" ] && echo 0 || echo 1)" \
	"the later bindings open no new origin: $whole whole refusal record(s) (at most $bound)"
is "$(audit_sel "$xsel | select(.repeated == null) | .path[0].host_key" | jq -r . | sort -u)" "$HOSTFP" \
	"the whole record's first binding is hostile's host key"

# ------------------------------------------------------- at exit
stop_agent
ok $? "agent stopped (every open window's count recorded)"
is "$(accounted "$T/flood.pids")" "$FLOOD" "flood: every refusal is accounted for: recorded whole or counted"
lines=$(lines_of "$T/flood.pids")
# windows opened while it ran (its slots are reopened by it alone)
bound=$((2 * (PER_ORIGIN + 1) * FLOOD_W))
diag "flood refusal lines: $lines (bound for $FLOOD_S s: $bound)"
ok "$([ "$lines" -le "$bound" ] && echo 0 || echo 1)" "flood: $lines refusal lines, within 2 * ($PER_ORIGIN + 1) per window ($bound)"
is "$SIGNED" "$USER_SIGNS" \
	"flood: each of the user's $USER_SIGNS signatures has its own record"
is "$(accounted "$T/procs.pids")" $((3 * NPROC)) "$NPROC clients: all $((3 * NPROC)) refusals accounted for"
is "$(audit_sel "$xsel | select(.repeated != null) | .origin_host_key" | jq -r . | sort -u)" "$HOSTFP" \
	"forwarded: its counted refusals name one origin, the first binding's host key"
is "$(audit_sel "$xsel | (.repeated // 1)" | awk '{ s += $1 } END { print s + 0 }')" $((NB + 1)) \
	"forwarded: all $((NB + 1)) refusals accounted for"
done_testing
