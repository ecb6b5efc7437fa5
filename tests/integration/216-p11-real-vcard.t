#!/bin/bash
# OpenSC (opensc-pkcs11.so) and Yubico's ykcs11 (libykcs11.so) with a
# card in the reader: vsmartcard's virtual reader (vpcd, in a private
# pcscd) holding vicc's ISO 7816 card (lib-p11real.sh p11r_vcard). vicc's
# other card types do not run on Debian 12 (cryptoflex and ePass are
# Python 2 code or need PIL, nPA needs OpenPACE's Python module) and none
# is a PIV or PKCS#15 card (21N-p11-real-piv-*.t use pivcard.py for
# that), so OpenSC sees a card it does not support ("token not
# recognized") and ykcs11 a reader that is not a YubiKey:
# ssh-add -s is refused cleanly, OpenSC really talked to the card (APDUs
# in pcscd's log) inside keyward-pkcs11's sandbox, no process is stopped
# by its filter and the agent keeps serving. vpcd's port is
# fixed (35963) but lives in the private network namespace of pcscd and
# vicc, so runs of this file do not share it. /usr/bin/ssh-agent is the
# oracle.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-p11real.sh"

MODS="opensc-pkcs11.so libykcs11.so"
PER=7
N=$((2 + 1 + 2 * PER + 3))
mkdir -p "$T/keys"
if ! p11r_vcard "$T/pcsc"; then
	skip_n "$N" "$P11R_WHY"
	done_testing
fi
run opensc-tool -a -n
is "$RC:$OUT" "0:3b:95:13:81:01:80:73:ff:01:00:0b
Unsupported card" "opensc-tool reads the virtual card's ATR and names no driver for it"
run pkcs11-tool --module "$(p11r_module opensc-pkcs11.so || echo opensc-pkcs11.so)" -L
like "$OUT" $'Slot 0 \\(0x0\\): Virtual PCD 00 00\n  \\(token not recognized\\)' \
	"pkcs11-tool -L: OpenSC sees the card in the slot and no token on it" || diag "$OUT"
p11r_mods_agent $MODS
for m in $MODS; do
	if ! mod=$(p11r_module "$m"); then
		skip_n $PER "$P11R_WHY"
		continue
	fi
	lines=$(wc -l <"$T/pcsc/pcscd.log")
	p11r_add_refused "$m" "$mod" "a card without keys"
	if [ "$m" = opensc-pkcs11.so ]; then
		# OpenSC connects to the card and sends it APDUs to find a driver
		poll_until 5 sh -c 'tail -n +$1 "$2" | grep -q "Received command: TRANSMIT"' sh \
			"$((lines + 1))" "$T/pcsc/pcscd.log"
		ok $? "$m: the module sent APDUs to the card from inside the agent"
	else
		# ykcs11 lists the reader but only opens a YubiKey's
		poll_until 5 prints_more "$lines" eval 'wc -l <"$T/pcsc/pcscd.log"'
		ok $? "$m: the module talked to the private pcscd"
	fi
	p11r_no_token "$m" "$mod"
done
grep -q "Card removed" "$T/pcsc/pcscd.log"
ok $((!$?)) "the card stayed in the reader throughout"
p11r_key_file_after "both modules"
done_testing
