#!/bin/bash
# keyward-sk, the FIDO token helper, driven alone as policy will drive it
# (tests/tools/sk_drive.c: a socketpair on fd 3, one request, one reply)
# with the test middleware (tests/sk/provider.c): Ed25519 and ECDSA
# signatures that verify with OpenSSL against the enrolled public key; a
# PIN; a refusal; its sandbox while it waits for a slow token; provider
# arguments it must refuse; "internal" (libfido2) with no token present.
. "$(dirname "$0")/lib.sh"

HELPER=$KEYWARD_BUILD/keyward-sk
DRIVE=$KEYWARD_BUILD/tests/sk_drive
SO=$KEYWARD_BUILD/tests/libkwsk-test.so
for f in "$HELPER" "$DRIVE" "$SO"; do
	[ -x "$f" ] || [ -f "$f" ] || bail "$f missing (make all tests)"
done
SO=$(realpath "$SO")

drive() { run "$DRIVE" -h "$HELPER" -m "$SO" -l debug "$@"; }

# --- signatures
for alg in ed25519 ecdsa; do
	drive -a "$alg" -p "$SO"
	ok $RC "$alg: the helper signs and sk_drive accepts the reply"
	contains "$OUT" "status 0" "$alg: status 0"
	contains "$OUT" "signature verified" "$alg: the signature verifies against the enrolled key"
	contains "$OUT" "flags 0x01" "$alg: flags carry user presence"
	contains "$OUT" "counter 1" "$alg: the counter is the token's"
	contains "$OUT" "exit 0" "$alg: the helper exits 0 after one reply"
	contains "$ERR" "sk sandbox active" "$alg: it signed inside its sandbox"
done

# --- PIN
drive -p "$SO" -e KWSK_TEST_PIN=2468
contains "$OUT" "status -3" "a token that wants a PIN, asked without one: -3"
contains "$OUT" "exit 0" "the helper still exits 0 (one reply given)"
drive -p "$SO" -e KWSK_TEST_PIN=2468 -P 2468
contains "$OUT" "status 0" "the right PIN: signed"
contains "$OUT" "signature verified" "the signature made with a PIN verifies"
contains "$OUT" "flags 0x05" "flags carry user verification too"
drive -p "$SO" -e KWSK_TEST_PIN=2468 -P 1357
contains "$OUT" "status -1" "a wrong PIN: -1"
unlike "$ERR" "2468|1357" "no PIN appears in the helper's log"

# --- refusal
drive -p "$SO" -e KWSK_TEST_REFUSE=1
contains "$OUT" "status -1" "a token that refuses: -1"
unlike "$OUT" "signature" "no signature in a refusal"

# --- what a middleware answers is checked, not trusted
drive -a ecdsa -p "$SO" -e KWSK_TEST_PAD=1
contains "$OUT" "signature verified" "ECDSA r and s with a leading zero: sent as magnitudes, verified"
for alg in ed25519 ecdsa; do
	drive -a "$alg" -p "$SO" -e KWSK_TEST_SHORT=1
	contains "$OUT" "status -1" "$alg: a malformed signature (Ed25519 short, ECDSA without s) is not passed on (-1)"
	contains "$ERR" "signature is malformed" "$alg: and the helper says why"
	drive -a "$alg" -p "$SO" -e KWSK_TEST_CORRUPT=1
	contains "$OUT" "signature BAD" "$alg: a wrong signature is passed on as such (policy verifies)"
	is "$RC" 1 "$alg: sk_drive's own verification fails on it"
done

# --- the sandbox, seen while the token waits for a touch
"$DRIVE" -h "$HELPER" -m "$SO" -l debug -p "$SO" -e KWSK_TEST_WAIT_MS=3000 \
	>"$T/slow.out" 2>"$T/slow.err" &
slow=$!
EXTRA_PIDS+=("$slow")
poll_until 5 grep -q '^pid ' "$T/slow.out"
hpid=$(sed -n 's/^pid //p' "$T/slow.out")
# ready when it logged the filter: the token is then waiting
poll_until 5 grep -q 'sk sandbox active' "$T/slow.err"
ok $? "the slow helper entered its sandbox"
pid_alive "$hpid"
ok $? "the helper is still waiting for the token when its status is read"
st=$(cat "/proc/$hpid/status" 2>/dev/null)
like "$st" $'Seccomp:\t2' "waiting helper: Seccomp 2"
like "$st" $'NoNewPrivs:\t1' "waiting helper: NoNewPrivs 1"
like "$st" $'CapEff:\t0000000000000000' "waiting helper: CapEff 0"
like "$st" $'CapPrm:\t0000000000000000' "waiting helper: CapPrm 0"
is "$(awk '/^State:/ {print $2}' "/proc/$hpid/status" 2>/dev/null)" S "it is asleep in the token's wait"
wait "$slow"
ok $? "the slow signature arrives and verifies"
contains "$(cat "$T/slow.out")" "signature verified" "slow token: signature verified"

# --- provider arguments refused whole
for p in tests/libkwsk-test.so "./$(basename "$SO")" "$(dirname "$SO")" \
	"$(dirname "$SO")/../tests/$(basename "$SO")" /nonexistent/lib.so INTERNAL ""; do
	drive -p "$p"
	contains "$OUT" "status no reply" "provider '$p': no reply"
	contains "$OUT" "exit 1" "provider '$p': the helper exits 1"
	contains "$ERR" "provider refused" "provider '$p': refused, and logged"
done
run "$HELPER" debug
[ "$RC" != 0 ]
ok $? "keyward-sk with one argument refuses to run"
run "$HELPER" verbose "$SO"
[ "$RC" != 0 ]
ok $? "keyward-sk with a bad log level refuses to run"
run "$HELPER" debug "$SO" 3</dev/null
contains "$ERR" "not a SOCK_SEQPACKET socket" "keyward-sk whose fd 3 is no socket refuses to run"

# --- a library that is not a FIDO middleware: refused at load
drive -p "$(realpath /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null || echo /nonexistent)"
contains "$OUT" "status no reply" "a library without sk_api_version: no reply"
contains "$ERR" "not a FIDO middleware" "a library without sk_api_version: refused, and logged"

# --- the test-only build (make TESTING=1): a forbidden syscall kills the
# helper, and Landlock leaves it /sys but not /etc
TB=${KEYWARD_TESTING_BUILD:-$KEYWARD_BUILD/../build-testing}
if [ ! -x "$TB/keyward-sk" ]; then
	skip_n 6 "no test build in $TB (make TESTING=1)"
else
	for call in execve mprotect; do
		run "$DRIVE" -h "$TB/keyward-sk" -m "$SO" -l debug -p "$SO" \
			-e "KEYWARD_TEST_FORBIDDEN=sk:$call"
		contains "$OUT" "signal 31" "test build: $call kills the helper by SIGSYS"
	done
	# socket is answered EACCES (libfido2's NFC probe), not killed
	run "$DRIVE" -h "$TB/keyward-sk" -m "$SO" -l debug -p "$SO" \
		-e "KEYWARD_TEST_FORBIDDEN=sk:socket"
	contains "$ERR" "survived forbidden syscall socket" "test build: socket is refused, not fatal"
	run "$DRIVE" -h "$TB/keyward-sk" -m "$SO" -l debug -p "$SO" \
		-e KEYWARD_TEST_LANDLOCK=/etc/passwd
	contains "$ERR" "open /etc/passwd: Permission denied" "test build: Landlock refuses /etc/passwd"
	contains "$OUT" "signature verified" "test build: and the helper still signs"
	run "$DRIVE" -h "$TB/keyward-sk" -m "$SO" -l debug -p "$SO" \
		-e KEYWARD_TEST_LANDLOCK=/sys/kernel/uevent_seqnum
	contains "$ERR" "open /sys/kernel/uevent_seqnum: opened" "test build: Landlock leaves /sys readable"
fi

# --- internal, no token present: a clean "device not found"
if ls /dev/hidraw* >/dev/null 2>&1; then
	skip_n 3 "a hidraw device is present: not the no-token case"
else
	for alg in ed25519 ecdsa; do
		drive -a "$alg" -p internal
		contains "$OUT" "status -4" "internal, $alg, no token: device not found (-4)"
	done
	contains "$OUT" "exit 0" "internal, no token: the helper exits 0 (no crash)"
fi

done_testing
