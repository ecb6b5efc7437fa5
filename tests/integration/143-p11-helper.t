#!/bin/bash
# keyward-pkcs11, the PKCS#11 token helper, driven alone as policy will
# drive it (tests/tools/p11_drive.c: a socketpair on fd 3, LOGIN, then SIGN
# with each listed key) against a SoftHSM2 token (lib-p11.sh): every key
# type lists with the public key and label the token holds and signs with
# every algorithm of its type, each signature verified with OpenSSL against
# the listed key; a wrong PIN lists nothing; a key marked
# CKA_ALWAYS_AUTHENTICATE signs only with the PIN given again; the helper
# is sandboxed (Seccomp 2, NoNewPrivs 1, no capabilities) once logged in;
# module paths it must refuse; it ends when its socket closes. In the test
# build a forbidden call stops it, and its line, the broker's and policy's
# say so in keyward's log (module and syscall named).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"

HELPER=$KEYWARD_BUILD/keyward-pkcs11
DRIVE=$KEYWARD_BUILD/tests/p11_drive
for f in "$HELPER" "$DRIVE"; do
	[ -x "$f" ] || bail "$f missing (make all tests)"
done
command -v pkcs11-tool >/dev/null || bail "pkcs11-tool missing (apt-get install opensc)"

mkdir -p "$T/keys"
p11_token "$T/tok" p11- rsa2048 p256 p384 p521 ed25519

drive() { run "$DRIVE" -h "$HELPER" -l debug "$@"; }

# hex of the blob in an OpenSSH public key file
pub_hex() { cut -d' ' -f2 "$1" | base64 -d | od -An -v -tx1 | tr -d ' \n'; }

# --- LOGIN lists every key, SIGN signs with every algorithm
drive -p "$P11_REAL" -P "$P11_PIN"
ok $RC "the helper lists and signs, and p11_drive verifies every signature"
contains "$OUT" "login status 0x0 keys 5" "five keys listed"
declare -A kind=([rsa2048]=ssh-rsa [p256]=ecdsa-sha2-nistp256
	[p384]=ecdsa-sha2-nistp384 [p521]=ecdsa-sha2-nistp521 [ed25519]=ssh-ed25519)
for type in rsa2048 p256 p384 p521 ed25519; do
	name=$(p11_name "$type")
	line=$(printf '%s\n' "$OUT" | grep -E "^key [0-9]+ .* label $name\$")
	like "$line" "^key [0-9]+ ${kind[$type]} flags 0 label $name\$" \
		"$type: listed as ${kind[$type]} with its CKA_LABEL as comment"
	i=$(printf '%s\n' "$line" | awk '{print $2}')
	is "$(printf '%s\n' "$OUT" | sed -n "s/^blob ${i:-x} //p")" \
		"$(pub_hex "$(p11_pub "$name")")" \
		"$type: the listed public key is the one imported (OpenSSH's encoding)"
	case $type in
	rsa*) algs="ssh-rsa rsa-sha2-256 rsa-sha2-512" ;;
	*) algs=${kind[$type]} ;;
	esac
	for alg in $algs; do
		contains "$OUT" "sign ${i:-x} $alg verified" \
			"$type: $alg signature verifies against the listed key"
	done
done
like "$OUT" "sign 5 ssh-ed25519 status 0x60" "a key index past the list: CKR_KEY_HANDLE_INVALID"
like "$OUT" "sign 0 [a-z0-9-]+ status 0x70" "an algorithm of another key type: CKR_MECHANISM_INVALID"
contains "$OUT" "exit 0" "the helper exits 0 when policy closes its socket"
contains "$ERR" "pkcs11 sandbox active" "it served inside its sandbox"
contains "$ERR" "reads and writes beneath $(realpath "$T/tok/tokens")" \
	"Landlock leaves it exactly the token directory of SOFTHSM2_CONF"
unlike "$ERR" "$P11_PIN" "the PIN appears nowhere in the helper's log"

# --- a wrong PIN: refused, nothing listed; the right one after it works
# A PIN no log line can hold by chance (a pid or a time could hold "0000").
WRONG_PIN=nOt-tHe-PiN-0
drive -p "$P11_REAL" -P "$WRONG_PIN" -n
contains "$OUT" "login status 0xa0 keys 0" "a wrong PIN: CKR_PIN_INCORRECT, no key listed"
unlike "$OUT" "^key " "a wrong PIN: no key line"
unlike "$ERR" "$WRONG_PIN" "the wrong PIN is not logged"
drive -p "$P11_REAL" -B "$WRONG_PIN" -P "$P11_PIN" -n
contains "$OUT" "login status 0xa0 keys 0" "wrong PIN first: refused"
contains "$OUT" "login status 0x0 keys 5" "then the right PIN: five keys"

# --- requests out of order
drive -p "$P11_REAL" -P "$P11_PIN" -n -S
contains "$OUT" "sign 0 ssh-ed25519 status 0x101" "SIGN before LOGIN: CKR_USER_NOT_LOGGED_IN"
contains "$OUT" "login status 0x100 keys 0" "a second LOGIN: CKR_USER_ALREADY_LOGGED_IN"
contains "$OUT" "exit 0" "the helper is still well and exits 0"

# --- CKA_ALWAYS_AUTHENTICATE: the PIN again with each signature
SOFTHSM2_CONF=$T/tok/softhsm2.conf pkcs11-tool --module "$P11_REAL" -l -p "$P11_PIN" \
	--keypairgen --key-type EC:prime256v1 --id 20 --label p11-always \
	--always-auth >"$T/always.log" 2>&1
ok $? "a P-256 key with CKA_ALWAYS_AUTHENTICATE generated on the token" ||
	diag_file "$T/always.log"
drive -p "$P11_REAL" -P "$P11_PIN"
i=$(printf '%s\n' "$OUT" | sed -n 's/^key \([0-9]*\) .* label p11-always$/\1/p')
like "$OUT" "key ${i:-x} ecdsa-sha2-nistp256 flags 1 label p11-always" \
	"it is listed with the always-authenticate flag"
contains "$OUT" "sign ${i:-x} ecdsa-sha2-nistp256 status 0x101" \
	"without a PIN in the SIGN: CKR_USER_NOT_LOGGED_IN"
drive -p "$P11_REAL" -P "$P11_PIN" -C 9999
contains "$OUT" "sign ${i:-x} ecdsa-sha2-nistp256 status 0xa0" \
	"with a wrong context PIN: CKR_PIN_INCORRECT"
contains "$OUT" "rsa-sha2-512 verified" "and the other keys sign on after it"
drive -p "$P11_REAL" -P "$P11_PIN" -C "$P11_PIN"
contains "$OUT" "sign ${i:-x} ecdsa-sha2-nistp256 verified" \
	"with the PIN again (CKU_CONTEXT_SPECIFIC): signed and verified"
ok $RC "every signature of that run verifies"

# --- the sandbox, seen while the helper is logged in and waits
mkfifo "$T/hold"
"$DRIVE" -h "$HELPER" -l debug -p "$P11_REAL" -P "$P11_PIN" -W <"$T/hold" \
	>"$T/slow.out" 2>"$T/slow.err" &
slow=$!
EXTRA_PIDS+=("$slow")
exec 7>"$T/hold"
poll_until 10 grep -q '^waiting' "$T/slow.out"
ok $? "the helper logged in and p11_drive holds it"
hpid=$(sed -n 's/^pid //p' "$T/slow.out")
pid_alive "$hpid"
ok $? "the helper (pid $hpid) is alive, waiting for a request"
st=$(cat "/proc/$hpid/status" 2>/dev/null)
like "$st" $'Seccomp:\t2' "logged-in helper: Seccomp 2"
like "$st" $'NoNewPrivs:\t1' "logged-in helper: NoNewPrivs 1"
like "$st" $'CapEff:\t0000000000000000' "logged-in helper: CapEff 0"
like "$st" $'CapPrm:\t0000000000000000' "logged-in helper: CapPrm 0"
maps=$(cat "/proc/$hpid/maps" 2>/dev/null)
contains "$maps" "$P11_REAL" "it has the module mapped"
exec 7>&-
wait "$slow"
ok $? "released, it signs with every key and each signature verifies"

# --- it ends when its socket closes, however policy goes
"$DRIVE" -h "$HELPER" -l debug -p "$P11_REAL" -P "$P11_PIN" -W <"$T/hold" \
	>"$T/kill.out" 2>"$T/kill.err" &
drv=$!
EXTRA_PIDS+=("$drv")
exec 7>"$T/hold"
poll_until 10 grep -q '^waiting' "$T/kill.out"
hpid=$(sed -n 's/^pid //p' "$T/kill.out")
kill -KILL "$drv"
wait "$drv" 2>/dev/null
exec 7>&-
wait_gone "$hpid" 10
ok $? "policy killed: the helper sees its socket close and exits"
contains "$(cat "$T/kill.err")" "policy closed the channel" "and says why"

# --- module paths refused whole
for p in "$P11_MODULE" softhsm/libsofthsm2.so "./$(basename "$P11_REAL")" \
	"$(dirname "$P11_REAL")" "$(dirname "$P11_REAL")/../softhsm/$(basename "$P11_REAL")" \
	/nonexistent/lib.so internal ""; do
	drive -p "$p" -P "$P11_PIN"
	contains "$OUT" "login no reply" "provider '$p': no reply"
	contains "$OUT" "exit 1" "provider '$p': the helper exits 1"
	contains "$ERR" "provider refused" "provider '$p': refused, and logged"
done
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null || echo /nonexistent)
drive -p "$libc" -P "$P11_PIN"
contains "$OUT" "login no reply" "a library that is not a PKCS#11 module: no reply"
contains "$ERR" "not a PKCS#11 module" "a library without C_GetFunctionList: refused, and logged"
run "$HELPER" debug
[ "$RC" != 0 ]
ok $? "keyward-pkcs11 with one argument refuses to run"
run "$HELPER" verbose "$P11_REAL"
[ "$RC" != 0 ]
ok $? "keyward-pkcs11 with a bad log level refuses to run"
run "$HELPER" debug "$P11_REAL" 3</dev/null
contains "$ERR" "not a SOCK_SEQPACKET socket" "keyward-pkcs11 whose fd 3 is no socket refuses to run"

# --- another module: OpenSC (no reader here) logs in to nothing, sandboxed
opensc=$(realpath /usr/lib/x86_64-linux-gnu/opensc-pkcs11.so 2>/dev/null)
if [ -z "$opensc" ] || [ ! -f "$opensc" ]; then
	skip_n 3 "no opensc-pkcs11.so"
else
	drive -p "$opensc" -P "$P11_PIN" -n
	contains "$OUT" "login status 0x0 keys 0" "opensc without a reader: no token, no key"
	contains "$ERR" "reads the system's files, writes its stores" \
		"opensc: Landlock leaves it the system's files and the stores only"
	contains "$OUT" "exit 0" "opensc: the helper lived through it in its sandbox"
fi

# --- the test-only build (make TESTING=1): a forbidden syscall kills the
# helper (and it says which call), and Landlock leaves it the token
# directory but not the user's other files
TB=${KEYWARD_TESTING_BUILD:-$KEYWARD_BUILD/../build-testing}
if [ ! -x "$TB/keyward-pkcs11" ]; then
	skip_n 12 "no test build in $TB (make TESTING=1)"
else
	for call in execve mprotect; do
		run "$DRIVE" -h "$TB/keyward-pkcs11" -l debug -p "$P11_REAL" -P "$P11_PIN" \
			-e "KEYWARD_TEST_FORBIDDEN=pkcs11:$call"
		contains "$OUT" "signal 31" "test build: $call kills the helper by SIGSYS"
		contains "$ERR" "pkcs11 for $P11_REAL stopped by its filter: syscall $call (" \
			"test build: its last line names the module and $call"
	done
	# a file of the user's outside every store (an ssh key would be
	# such a file): Landlock refuses it
	echo secret >"$T/outside"
	run "$DRIVE" -h "$TB/keyward-pkcs11" -l debug -p "$P11_REAL" -P "$P11_PIN" \
		-e "KEYWARD_TEST_LANDLOCK=$T/outside"
	contains "$ERR" "open $T/outside: Permission denied" "test build: Landlock refuses a file outside the stores"
	contains "$OUT" "rsa-sha2-256 verified" "test build: and the helper still signs"
	tokfile=$(find "$T/tok/tokens" -name generation | head -n 1)
	run "$DRIVE" -h "$TB/keyward-pkcs11" -l debug -p "$P11_REAL" -P "$P11_PIN" -n \
		-e "KEYWARD_TEST_LANDLOCK=$tokfile"
	contains "$ERR" "open $tokfile: opened" "test build: Landlock leaves the token's files readable"
	# through the agent (test build): the helper stopped by its filter
	# is named in keyward's log with the module and the syscall, the
	# broker and policy say so, and the agent serves on
	p11_askpass
	KEYWARD_TEST_FORBIDDEN=pkcs11:execve "$TB/keyward" -D -a "$T/tb.sock" \
		-P "$P11_ALLOW" >/dev/null 2>"$T/tb.log" </dev/null &
	AGENT_PIDS+=("$!")
	wait_for_socket "$T/tb.sock" 10
	run env SSH_AUTH_SOCK="$T/tb.sock" ssh-add -s "$P11_MODULE"
	[ "$RC" != 0 ]
	ok $? "test build, through the agent: the add is refused"
	poll_until 10 grep -q "keyward-pkcs11 for $P11_REAL stopped by its filter" "$T/tb.log"
	log=$(cat "$T/tb.log")
	contains "$log" "keyward-pkcs11: pkcs11 for $P11_REAL stopped by its filter: syscall execve (" \
		"test build, through the agent: keyward's log names the module and the syscall"
	contains "$log" "keyward-pkcs11 for $P11_REAL stopped by its filter (SIGSYS" \
		"test build, through the agent: the broker reports the helper's death as a filter stop"
	contains "$log" "refused add: PKCS#11 provider $P11_REAL: its helper could not be started, ended" \
		"test build, through the agent: policy's one line says why the add was refused"
	run env SSH_AUTH_SOCK="$T/tb.sock" ssh-add -l
	is "$RC" 1 "test build, through the agent: the agent serves on (no identities)"
fi

done_testing
