#!/bin/bash
# Yubico's ykcs11 (libykcs11.so) with a PIV card in the reader: vsmartcard's
# virtual reader (vpcd, in a private pcscd and network namespace) holding
# pivcard.py's PIV card with an ECDSA P-256 key in slot 9A
# (lib-p11real.sh p11r_vcard DIR piv), driven as a user would
# (p11r_scenario): a wrong PIN is refused, the right one adds the key,
# -l/-L list it, ssh-keygen -Y sign verifies, sshd login, -e, re-add; the
# module talks to pcscd and signs through it inside keyward-pkcs11's
# sandbox, and no process is stopped by its filter.
# /usr/bin/ssh-agent is the oracle.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-p11real.sh"

# a YubiKey's PIN has 6 to 8 characters: ykcs11 refuses others before
# asking the card (CKR_ARGUMENTS_BAD)
P11_PIN=123456 P11R_WRONG_PIN=654321
p11r_piv libykcs11.so
done_testing
