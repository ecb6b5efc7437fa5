#!/bin/bash
# A hostile PKCS#11 module (tests/p11/hostile.c) inside keyward-pkcs11's
# sandbox: the module is code the user chose, and the sandbox
# is a deny list, so each thing it must still be kept from is tried here.
# What the filter traps (signalling, tracing or reading its parent,
# exec, fork, becoming dumpable, taking SIGSYS over, executable memory)
# stops the helper by SIGSYS with a line naming the module and the call;
# what Landlock refuses (reading a user's key file, writing outside the
# stores) fails with EACCES and the file is untouched; a thread, which
# real modules start, is allowed. Then the same through the agent: the
# module's attack on its parent (the broker) stops it, the agent's log
# says so, and the agent serves on and loads a good module. keyward's
# sandbox only: ssh-agent 9.2 runs modules unconfined.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"

HELPER=$KEYWARD_BUILD/keyward-pkcs11
DRIVE=$KEYWARD_BUILD/tests/p11_drive
MOD=$KEYWARD_BUILD/tests/libkwp11-hostile.so
TRAPPED="kill:kill ptrace:ptrace peek:process_vm_readv exec:execve fork:clone
	dumpable:prctl sigsys:rt_sigaction execmem:mmap"
N=$(( 8 * 3 + 5 + 8 + 3 ))
if ! is_keyward; then
	skip_n $N "keyward's sandbox: ssh-agent 9.2 runs modules unconfined"
	done_testing
fi
for f in "$HELPER" "$DRIVE" "$MOD"; do
	[ -x "$f" ] || bail "$f missing (make all tests)"
done
MOD=$(realpath "$MOD")
mkdir -p "$T/keys" "$T/home/.ssh"
p11_token "$T/tok" p11- p256
echo "a private key" >"$T/home/.ssh/id_ed25519"

attack() { run "$DRIVE" -h "$HELPER" -p "$MOD" -P "$P11_PIN" -n -e "KW_P11_ATTACK=$1"; }

for pair in $TRAPPED; do
	a=${pair%%:*} call=${pair#*:}
	attack "$a"
	contains "$OUT" "signal 31" "$a: the helper is stopped by SIGSYS"
	contains "$ERR" "pkcs11 for $MOD stopped by its filter: syscall $call (" \
		"$a: its line names the module and the syscall $call"
	unlike "$ERR" "hostile: $a: done" "$a: the call never returned to the module"
done

attack "read:$T/home/.ssh/id_ed25519"
contains "$ERR" "hostile: read:$T/home/.ssh/id_ed25519: Permission denied" \
	"a user's key file: Landlock refuses to open it"
contains "$OUT" "exit 0" "... and the helper carries on (refused login, clean exit)"
attack "write:$T/evil"
[ ! -e "$T/evil" ]
ok $? "writing outside the stores: Landlock refuses, no file is made"
attack thread
contains "$ERR" "hostile: thread: done" "a thread, as real modules start: allowed"
contains "$OUT" "exit 0" "... and the helper exits cleanly"

# through the agent: the attack on the broker
P11_ALLOW="$P11_ALLOW,$(dirname "$MOD")/*"
p11_askpass
KW_P11_ATTACK=kill p11_agent_fg
p11_add "$MOD"
[ "$RC" != 0 ]
ok $? "through the agent: the hostile module's add is refused"
poll_until 10 grep -q "keyward-pkcs11 for $MOD stopped by its filter" "$T/agent.log"
log=$(cat "$T/agent.log")
contains "$log" "pkcs11 for $MOD stopped by its filter: syscall kill (" \
	"through the agent: keyward's log names the module and the syscall"
contains "$log" "refused add: PKCS#11 provider $MOD:" "through the agent: policy's line says the add was refused"
run ssh-add -l
is "$RC" 1 "through the agent: the agent serves on (no identities)"
p11_add
ok $RC "through the agent: a good module (SoftHSM2) is then added"
p11_listed p11-p256
ok $? "... and its key listed"
# while it loads, before its own filter, the module is under the
# broker's (inherited): tracing is trapped there too, and named
kill "$AGENT_FG_PID"
wait "$AGENT_FG_PID" 2>/dev/null
KW_P11_ATTACK=init:ptrace p11_agent_fg
p11_add "$MOD"
[ "$RC" != 0 ]
ok $? "through the agent, attacking in C_Initialize: the add is refused"
poll_until 10 grep -q "keyward-pkcs11 for $MOD stopped by its filter" "$T/agent.log"
contains "$(cat "$T/agent.log")" "pkcs11 for $MOD stopped by its filter: syscall ptrace (" \
	"through the agent, attacking in C_Initialize: the broker's inherited filter stops it, named"
p11r_alive=$(pgrep -f "$T/agent.sock" | wc -l)
[ "$p11r_alive" -ge 3 ]
ok $? "through the agent: monitor, policy and keyholder all still run"
done_testing
