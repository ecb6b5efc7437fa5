#!/bin/bash
# Smartcard modules with a pcscd running and no card: OpenSC
# (opensc-pkcs11.so) and Yubico's ykcs11 (libykcs11.so). A private pcscd
# (lib-p11real.sh p11r_pcscd: its own socket, exported to the agent as
# PCSCLITE_CSOCK_NAME, so this runs the same whether or not a system
# pcscd runs). The module talks to pcscd inside keyward-pkcs11's sandbox
# (connect, sendto/recv on its socket, fcntl O_NONBLOCK, poll): ssh-add
# -s is refused cleanly (no token), pcscd saw the module's client, no
# process is stopped by its filter, and the agent keeps serving (issue
# 25). /usr/bin/ssh-agent is the oracle.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-p11real.sh"

MODS="opensc-pkcs11.so libykcs11.so"
PER=7
N=$((1 + 2 * PER + 2))
mkdir -p "$T/keys"
if ! p11r_pcscd "$T/pcsc"; then
	skip_n "$N" "$P11R_WHY"
	done_testing
fi
p11r_mods_agent $MODS
for m in $MODS; do
	if ! mod=$(p11r_module "$m"); then
		skip_n $PER "$P11R_WHY"
		continue
	fi
	lines=$(wc -l <"$T/pcsc/pcscd.log")
	p11r_add_refused "$m" "$mod" "no card"
	poll_until 5 prints_more "$lines" eval 'wc -l <"$T/pcsc/pcscd.log"'
	ok $? "$m: the module talked to the private pcscd"
	p11r_no_token "$m" "$mod"
done
p11r_key_file_after "both modules"
done_testing
