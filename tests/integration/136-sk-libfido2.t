#!/bin/bash
# keyward-sk's own device path, libfido2 ("internal"), with a hidraw device
# visible and no hardware: in a private mount namespace (root, unshare -m)
# a fake /sys/class/hidraw/hidraw0 (its device directory, uevent with
# HID_ID and HID_NAME) and a /dev/hidraw0 that is /dev/null bound over an
# overlay of /dev. libudev lists it, libfido2 opens it and reads no report
# descriptor from it (ENOTTY): not a FIDO device. The helper must list it,
# skip it and refuse cleanly ("device not found"), with no filter kill
# (its exit status, keyward's log, the kernel's seccomp record), while the
# agent keeps serving. (When the helper listed devices under its filter,
# it died by SIGSYS on libudev's faccessat2.)
#
# Then (test build) a FIDO2 authenticator of our own behind the device
# I/O, tests/sk/ctaphid.py: libfido2's real CTAPHID, PIN protocol and
# assertion code in the sandboxed helper, with a touch, no touch, the right
# PIN and a wrong one, a hostile token (a wrong signature, which policy
# refuses; CBOR garbage), alone and through the agent (ssh-add with the
# built-in provider, logins that sshd verifies, a verify-required key whose
# PIN is asked through SSH_ASKPASS).
#
# libudev (systemd >= 251) refuses a device directory that is not on
# sysfs; SYSTEMD_DEVICE_VERIFY_SYSFS=0 (its documented switch) lets it read
# the tmpfs one. The same scenario against /usr/bin/ssh-agent (its
# ssh-sk-helper lists the device with the same libfido2) is the oracle.
. "$(dirname "$0")/lib.sh"

if [ -z "${KW135_IN_NS:-}" ]; then
	if [ "$(id -u)" != 0 ]; then
		skip "needs root for a private mount namespace"
	elif ! unshare -m --propagation private true 2>/dev/null; then
		skip "unshare -m is not permitted here"
	else
		# the whole test again, inside its own mount namespace
		KW135_IN_NS=1 unshare -m --propagation private \
			"$BASH" "$LIBDIR/$(basename "$0")" "$@"
		exit $?
	fi
	done_testing
	exit
fi
. "$LIBDIR/lib-sk.sh"

HELPER=$KEYWARD_BUILD/keyward-sk
DRIVE=$KEYWARD_BUILD/tests/sk_drive
export SYSTEMD_DEVICE_VERIFY_SYSFS=0

# --- the fake device, visible only in this namespace
fake_hidraw() {
	local dev=/sys/devices/virtual/misc/uhid/0003:1050:0407.0001 up
	mount -t tmpfs kwtest /sys/class || return 1
	mount -t tmpfs kwtest /sys/devices/virtual/misc || return 1
	mkdir -p /sys/class/hidraw "$dev/hidraw/hidraw0" || return 1
	printf '%s\n' DRIVER=hid-generic HID_ID=0003:00001050:00000407 \
		'HID_NAME=kwtest fake key' HID_PHYS=kwtest HID_UNIQ=1 \
		MODALIAS=hid:b0003g0001v00001050p00000407 >"$dev/uevent"
	printf '%s\n' MAJOR=243 MINOR=0 DEVNAME=hidraw0 >"$dev/hidraw/hidraw0/uevent"
	echo 243:0 >"$dev/hidraw/hidraw0/dev"
	ln -s /sys/class/hidraw "$dev/hidraw/hidraw0/subsystem"
	ln -s ../../devices/virtual/misc/uhid/0003:1050:0407.0001/hidraw/hidraw0 \
		/sys/class/hidraw/hidraw0
	# /dev: an overlay whose upper layer holds the stand-in node, with
	# fresh pts and shm instances on top (the real ones are submounts
	# the overlay does not show; nothing of the real /dev is bound under
	# $T, which lib.sh removes)
	up=$T/devup
	mkdir -p "$up" && mount -t tmpfs kwtest "$up" &&
		mkdir -p "$up/u" "$up/w" || return 1
	mount -t overlay kwtest -o "lowerdir=/dev,upperdir=$up/u,workdir=$up/w" /dev ||
		return 1
	mount -t devpts -o newinstance,ptmxmode=0666 kwtest /dev/pts &&
		mount -t tmpfs kwtest /dev/shm || return 1
	: >/dev/hidraw0 && mount --bind /dev/null /dev/hidraw0
}
# lib.sh's cleanup removes $T: the overlay's upper layer lives there
trap 'umount -l /dev 2>/dev/null; umount -l "$T/devup" 2>/dev/null; cleanup' EXIT
if ! fake_hidraw 2>"$T/fake.err"; then
	# tmpfs or overlayfs mounts refused here: an environment limit
	diag_file "$T/fake.err"
	skip "cannot make the fake hidraw device (tmpfs/overlay mounts)"
	done_testing
	exit
fi
[ -c /dev/hidraw0 ] && [ -f /sys/class/hidraw/hidraw0/uevent ]
ok $? "a fake hidraw device in a private mount namespace: /dev/hidraw0 is a character device, /sys/class/hidraw/hidraw0 has its uevent"

# libfido2's own tool lists it and finds no FIDO token in it: the device is
# listed through libudev and opened (strace shows it), so the helper below
# meets a hidraw device, not an empty /sys
if command -v strace >/dev/null && command -v fido2-token >/dev/null; then
	run strace -f -e trace=openat,ioctl -o "$T/fido2-token.strace" fido2-token -L
	ok $RC "fido2-token -L runs with the fake device present"
	grep -q 'openat(.*"/dev/hidraw0", O_RDWR' "$T/fido2-token.strace"
	ok $? "libfido2 (through libudev) lists /dev/hidraw0 and opens it"
	grep -q 'ioctl(.*HIDIOCGRDESCSIZE.*ENOTTY' "$T/fido2-token.strace"
	ok $? "and asks it for its report descriptor: ENOTTY, not a FIDO device"
else
	skip_n 3 "no strace or fido2-token"
fi

# seccomp_kills PID: the kernel's seccomp records (audit type 1326) for PID
seccomp_kills() { dmesg 2>/dev/null | grep -c "type=1326.* pid=$1 "; }
dmesg >/dev/null 2>&1 && DMESG=1 || DMESG=0

# --- the helper alone, as policy drives it
for alg in ed25519 ecdsa; do
	run "$DRIVE" -h "$HELPER" -m "$SO" -l debug -a "$alg" -p internal \
		-e SYSTEMD_DEVICE_VERIFY_SYSFS=0
	hpid=$(sed -n 's/^pid //p' <<<"$OUT")
	contains "$OUT" "status -4" "$alg: internal with a non-FIDO hidraw device: device not found (-4)"
	contains "$OUT" "exit 0" "$alg: the helper exits 0, not killed by its filter"
	contains "$ERR" "HIDIOCGRDESCSIZE" "$alg: libfido2 opened /dev/hidraw0 and read no report descriptor"
	contains "$ERR" "0 FIDO token(s) listed" "$alg: and listed no FIDO token"
	contains "$ERR" "sk sandbox active" "$alg: the helper then entered its sandbox"
	if [ $DMESG = 1 ]; then
		is "$(seccomp_kills "$hpid")" 0 "$alg: no seccomp record for helper $hpid in the kernel log"
	else
		skip "$alg: the kernel log is not readable"
	fi
done

# --- a provider library built on libfido2 (the test middleware with
# KWSK_TEST_LIST=1 lists tokens as one does) walks /sys itself, under the
# provider filter: libudev's checks of a device directory (faccessat2,
# fstatfs: it drops the tmpfs one) and, with the sysfs check off, the open
# and report-descriptor ioctl of /dev/hidraw0
for verify in 1 0; do
	run env SYSTEMD_DEVICE_VERIFY_SYSFS=$verify "$DRIVE" -h "$HELPER" -m "$SO" \
		-l debug -p "$SO" -e KWSK_TEST_LIST=1 -e FIDO_DEBUG=1
	contains "$ERR" "kwsk-test: listed 0 FIDO token(s): FIDO_ERR_SUCCESS" \
		"provider listing tokens (sysfs check $verify): libfido2's listing runs to its end"
	contains "$OUT" "signature verified" "provider listing tokens (sysfs check $verify): then signs"
	contains "$OUT" "exit 0" "provider listing tokens (sysfs check $verify): not killed by the filter"
done
contains "$ERR" "HIDIOCGRDESCSIZE" "provider listing tokens: it opened /dev/hidraw0 under the filter"

# --- through the agent: ssh-add of an sk key with the built-in provider
# (SSH_SK_PROVIDER unset: ssh-add sends "internal"), then signatures
sk_key skA ed25519-sk
sk_key skE ecdsa-sk
gen_key plain ed25519 || bail "ssh-keygen plain"
# this build's keyward-sk (and the test build's) killed by seccomp, as the
# kernel counts them
TB=${KEYWARD_TESTING_BUILD:-$KEYWARD_BUILD/../build-testing}
helper_kills() {
	dmesg 2>/dev/null | grep 'type=1326' | grep -c -F \
		-e "exe=\"$(realpath "$HELPER")\"" -e "exe=\"$(realpath -m "$TB/keyward-sk")\""
}
kills_before=$(helper_kills)
AGENT_FG_FLAG=-d sk_agent_fg
for k in skA skE; do
	run env -u SSH_SK_PROVIDER ssh-add "$T/keys/$k" </dev/null
	ok $RC "ssh-add $k with the internal provider"
done
for k in skA skE; do
	run ssh-add -T "$T/keys/$k.pub"
	unlike "$RC" "^0$" "$k: no FIDO token among the hidraw devices: the signature is refused"
	sk_sign "$k"
	[ $? != 0 ]
	ok $? "$k: ssh-keygen -Y sign through the agent is refused too"
done
pid_alive "$AGENT_FG_PID"
ok $? "the agent is still running"
run ssh-add -l
contains "$OUT" "$(fp_line "$T/keys/skA.pub")" "it still lists the sk keys"
run ssh-add "$T/keys/plain" </dev/null
ok $RC "it still adds an ordinary key"
run ssh-add -T "$T/keys/plain.pub"
ok $RC "and signs with it"
if is_keyward; then
	log=$(cat "$T/agent.log")
	unlike "$log" "keyward-sk [0-9]+ ended by signal" "keyward's log: no helper ended by a signal"
	contains "$log" "HIDIOCGRDESCSIZE" "keyward's log: the helpers looked at /dev/hidraw0"
	contains "$log" "0 FIDO token(s) listed" "keyward's log: and listed no FIDO token"
	if [ $DMESG = 1 ]; then
		is "$(helper_kills)" "$kills_before" \
			"the kernel logged no seccomp kill of this build's keyward-sk meanwhile"
	else
		skip "the kernel log is not readable"
	fi
else
	skip_n 4 "keyward's log and helper"
fi
stop_pid "$AGENT_FG_PID"
unset SSH_AUTH_SOCK

# --- a FIDO2 authenticator behind the device I/O (test build): libfido2's
# real CTAPHID, getInfo, PIN protocol and assertion, under the helper's
# filter. tests/sk/ctaphid.py is the token, on a SOCK_SEQPACKET socket the
# test build of keyward-sk adds to the tokens it opened before its sandbox
# (KEYWARD_TEST_SK_TOKEN); it knows the key handles of the test middleware,
# so keys enrolled with that sign here. Its PIN is 2468. Stock ssh-sk-helper
# has no such seam (it reaches tokens only through libudev), so this part
# has no oracle run; sshd verifying the logins is the check.
CTAP=$LIBDIR/../sk/ctaphid.py
if ! is_keyward; then
	skip_n 67 "keyward's test build drives the software authenticator"
	done_testing
	exit
elif [ ! -x "$TB/keyward-sk" ] || [ ! -x "$TB/keyward" ]; then
	skip_n 67 "no test build in $TB (make TESTING=1)"
	done_testing
	exit
elif ! /usr/bin/python3 -c 'import cryptography' 2>/dev/null; then
	skip_n 67 "python3-cryptography is not installed"
	done_testing
	exit
fi
TOK=$T/token.sock
mkdir -p "$T/tok"
echo yes >"$T/tok/touch"
/usr/bin/python3 "$CTAP" "$TOK" "$T/tok" 2468 2>"$T/tok/err" &
EXTRA_PIDS+=($!)
poll_until 10 test -S "$TOK"
ok $? "the software authenticator listens on $TOK" || { done_testing; exit; }
tok_log() { cat "$T/tok/log" 2>/dev/null; }
tdrive() {
	run "$DRIVE" -h "$TB/keyward-sk" -m "$SO" -l debug -p internal \
		-e SYSTEMD_DEVICE_VERIFY_SYSFS=0 -e "KEYWARD_TEST_SK_TOKEN=$TOK" "$@"
}

for alg in ed25519 ecdsa; do
	: >"$T/tok/log"
	tdrive -a "$alg"
	contains "$OUT" "status 0" "$alg: libfido2 in the sandboxed helper gets an assertion"
	contains "$OUT" "signature verified" "$alg: it verifies against the enrolled key"
	contains "$OUT" "flags 0x01" "$alg: user presence (the token was touched)"
	contains "$OUT" "exit 0" "$alg: the helper exits 0"
	contains "$ERR" "HIDIOCGRDESCSIZE" "$alg: beside /dev/hidraw0, which is still no FIDO device"
	contains "$ERR" "sk sandbox active" "$alg: signed after entering its sandbox"
	contains "$(tok_log)" "assert up=1 uv=0 ok" "$alg: the token asserted, after a touch"
done

: >"$T/tok/log"
tdrive -a ed25519 -P 2468
contains "$OUT" "status 0" "the right PIN: signed"
contains "$OUT" "signature verified" "the signature made with the PIN verifies"
contains "$OUT" "flags 0x05" "and carries user verification"
contains "$(tok_log)" "pin right" "the token checked the PIN (getPinToken, PIN protocol 1)"
contains "$(tok_log)" "assert up=1 uv=1 ok" "and the assertion's PIN token"
: >"$T/tok/log"
tdrive -a ed25519 -P 1357
contains "$OUT" "status -3" "a wrong PIN: refused (-3, PIN required)"
unlike "$OUT" "signature" "a wrong PIN: no signature"
contains "$OUT" "exit 0" "a wrong PIN: the helper exits 0"
contains "$(tok_log)" "pin wrong" "the token saw a wrong PIN"
unlike "$ERR" "2468|1357" "no PIN appears in the helper's log"

echo no >"$T/tok/touch"
tdrive -a ed25519
contains "$OUT" "status -1" "no touch: the token times out, refused (-1)"
contains "$OUT" "exit 0" "no touch: the helper exits 0"
contains "$(tok_log)" "assert no touch" "the token waited for a touch that never came"

# a hostile token: a wrong signature is passed on as such (policy verifies
# it, below), CBOR garbage is refused; the filter holds either way
echo yes >"$T/tok/touch"
echo badsig >"$T/tok/answer"
for alg in ed25519 ecdsa; do
	tdrive -a "$alg"
	contains "$OUT" "signature BAD" "$alg: a token's wrong signature reaches the verifier as it is"
	contains "$OUT" "exit 0" "$alg: wrong signature: the helper exits 0"
done
echo garbage >"$T/tok/answer"
tdrive -a ed25519
contains "$OUT" "status -1" "a token answering CBOR garbage: refused (-1)"
contains "$OUT" "exit 0" "CBOR garbage: the helper exits 0, not killed by its filter"
contains "$(tok_log)" "assert garbage" "the token did send garbage"
rm -f "$T/tok/answer"

# waiting for the touch: the helper as it is then
echo wait >"$T/tok/touch"
rm -f "$T/tok/touch.release"
"$DRIVE" -h "$TB/keyward-sk" -m "$SO" -l debug -p internal \
	-e SYSTEMD_DEVICE_VERIFY_SYSFS=0 -e "KEYWARD_TEST_SK_TOKEN=$TOK" \
	>"$T/wait.out" 2>"$T/wait.err" &
waiter=$!
EXTRA_PIDS+=("$waiter")
poll_until 10 grep -q '^pid ' "$T/wait.out"
hpid=$(sed -n 's/^pid //p' "$T/wait.out")
poll_until 10 grep -q 'sign: alg' "$T/wait.err"
ok $? "the helper waits for a touch"
st=$(cat "/proc/$hpid/status" 2>/dev/null)
like "$st" $'Seccomp:\t2' "waiting for a touch: Seccomp 2"
like "$st" $'NoNewPrivs:\t1' "waiting for a touch: NoNewPrivs 1"
like "$st" $'CapEff:\t0000000000000000' "waiting for a touch: CapEff 0"
fds=$(ls "/proc/$hpid/fd" 2>/dev/null | sort -n | tr '\n' ' ')
is "$fds" "0 1 2 3 4 " "its descriptors: stdio, the channel to policy, the one token"
: >"$T/tok/touch.release"
wait "$waiter"
ok $? "touched: the signature arrives"
contains "$(cat "$T/wait.out")" "signature verified" "and verifies"
echo yes >"$T/tok/touch"

# --- through the agent (the test build): ssh-add with the built-in
# provider, logins to sshd, a PIN asked through SSH_ASKPASS
sk_askpass
sk_key skV ed25519-sk -O verify-required
cat "$T/keys/skA.pub" "$T/keys/skE.pub" >>"$T/authorized_keys"
echo "verify-required $(cat "$T/keys/skV.pub")" >>"$T/authorized_keys"
start_sshd hostA
ok $? "sshd hostA started" || bail "sshd did not start"
KEYWARD_TEST_SK_TOKEN=$TOK AGENT=$TB/keyward sk_agent
for k in skA skE skV; do
	run env -u SSH_SK_PROVIDER ssh-add "$T/keys/$k" </dev/null
	ok $RC "ssh-add $k with the internal provider (test build)"
done
for k in skA skE; do
	: >"$T/tok/log"
	run sk_login hostA "$k" -- 'echo logged-in'
	is "$RC:$OUT" "0:logged-in" "$k: ssh logs in to sshd, signed by libfido2 in keyward-sk"
	sshd_accepted hostA "$T/keys/$k.pub"
	ok $? "$k: sshd accepted the key"
	contains "$(tok_log)" "assert up=1 uv=0 ok" "$k: the token was asked, and touched"
	sk_sign "$k"
	ok $? "$k: ssh-keygen -Y sign through the agent"
	sk_verify "$k"
	ok $RC "$k: ssh-keygen -Y verify accepts it"
done
echo 2468 >"$T/pin"
: >"$T/tok/log"
run sk_login hostA skV -- 'echo logged-in'
is "$RC:$OUT" "0:logged-in" "verify-required key: the agent asks the PIN and the login passes sshd's verify-required"
contains "$(tok_log)" "pin right" "the token checked the PIN asked through SSH_ASKPASS"
echo 1357 >"$T/pin"
: >"$T/tok/log"
run sk_login hostA skV -- true
is "$RC" 255 "a wrong PIN: the login is refused"
contains "$(tok_log)" "pin wrong" "the token saw the wrong PIN"
echo badsig >"$T/tok/answer"
run sk_login hostA skA -- true
is "$RC" 255 "a token's wrong signature: the login is refused"
sk_sign skA
[ $? != 0 ]
ok $? "a token's wrong signature: ssh-keygen -Y sign gets none"
rm -f "$T/tok/answer"
run ssh-add -l
contains "$OUT" "$(fp_line "$T/keys/skV.pub")" "the agent keeps the keys and keeps serving"
run ssh-add -T "$T/keys/skA.pub"
ok $RC "and the honest token signs again"
stop_agent
ok $? "agent stopped"
if [ $DMESG = 1 ]; then
	is "$(helper_kills)" "$kills_before" "the kernel logged no seccomp kill of keyward-sk in all of it"
else
	skip "the kernel log is not readable"
fi

done_testing
