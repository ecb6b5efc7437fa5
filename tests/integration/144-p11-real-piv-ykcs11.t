#!/bin/bash
# Yubico's ykcs11 (libykcs11.so) with a PIV card in the reader: vsmartcard's
# virtual reader (vpcd, in a private pcscd and network namespace) holding
# pivcard.py's PIV card with an ECDSA P-256 key in slot 9A
# (lib-p11real.sh p11r_vcard DIR piv), driven as a user would
# (p11r_scenario): a wrong PIN is refused, the right one adds the key,
# -l/-L list it, ssh-keygen -Y sign verifies, sshd login, -e, re-add; the
# module talks to pcscd and signs through it inside keyward-pkcs11's
# sandbox, and no process is stopped by its filter (issue 25).
# /usr/bin/ssh-agent is the oracle.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-p11real.sh"

# a YubiKey's PIN has 6 to 8 characters: ykcs11 refuses others before
# asking the card (CKR_ARGUMENTS_BAD)
P11_PIN=123456 P11R_WRONG_PIN=654321
N=$((2 + $(p11r_scenario_count 1)))
mkdir -p "$T/keys"
if ! MOD=$(p11r_module libykcs11.so) || ! p11r_vcard "$T/pcsc" piv; then
	skip_n "$N" "$P11R_WHY"
	done_testing
fi
p11r_pubs "$MOD" piv- || bail "ssh-keygen -D $MOD lists no key"
is "$(cut -d' ' -f1,2 "$T/keys/piv-1.pub")" \
	"$(openssl x509 -inform DER -in "$T/pcsc/piv.der" -pubkey -noout | ssh-keygen -i -m PKCS8 -f /dev/stdin)" \
	"ssh-keygen -D reads the card's key (the one of its 9A certificate)"
cat "$T"/keys/*.pub >>"$T/authorized_keys"
start_sshd hostA || bail "sshd did not start"
p11_askpass
p11r_scenario "$MOD" $P11R_PUBS
# the signatures were made by the card: GENERAL AUTHENTICATE with the
# P-256 key of slot 9A (one for -Y sign, one for the login)
[ "$(grep -c '^> [01]087119a' "$T/pcsc/card.log")" -ge 2 ]
ok $? "the card signed (GENERAL AUTHENTICATE, slot 9A)" || diag_file "$T/pcsc/card.log"
done_testing
