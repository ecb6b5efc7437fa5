#!/bin/bash
# The card pulled out of the reader and put back, with OpenSC
# (opensc-pkcs11.so) and ykcs11 (libykcs11.so) in the agent: pivcard.py's
# PIV card (lib-p11real.sh p11r_vcard DIR piv) is added with its PIN and
# signs; pulled out, a signature is refused and the agent keeps serving;
# put back, ssh-add -e and -s add it again and it signs again. The module
# sees the card go and come inside keyward-pkcs11's sandbox (pcscd's
# events, reconnects) and no process is stopped by its filter.
# /usr/bin/ssh-agent is the oracle.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-p11real.sh"

MODS="opensc-pkcs11.so libykcs11.so"
PER=11
N=$((1 + 2 * PER + 1))
# a YubiKey's PIN has 6 to 8 characters (ykcs11)
P11_PIN=123456
mkdir -p "$T/keys"
if ! p11r_vcard "$T/pcsc" piv; then
	skip_n "$N" "$P11R_WHY"
	done_testing
fi
p11r_allow_mods $MODS
CARD=$(cat "$T/pcsc/card.pid")
openssl x509 -inform DER -in "$T/pcsc/piv.der" -pubkey -noout |
	ssh-keygen -i -m PKCS8 -f /dev/stdin >"$T/keys/piv.pub" || bail "no public key"
printf 'kw@test %s\n' "$(cat "$T/keys/piv.pub")" >"$T/allowed"
p11_askpass
p11_agent_fg
sign() { # NAME: ssh-keygen -Y sign with the card's key, verified; $RC
	printf '%s\n' "$1" >"$T/msg"
	rm -f "$T/msg.sig"
	run ssh-keygen -Y sign -f "$T/keys/piv.pub" -n file "$T/msg"
	[ "$RC" = 0 ] || return 1
	run ssh-keygen -Y verify -f "$T/allowed" -I kw@test -n file -s "$T/msg.sig" <"$T/msg"
}
card_events() { grep -c "Card $1" "$T/pcsc/pcscd.log"; }
more_events() { [ "$(card_events "$1")" -gt "$2" ]; } # KIND COUNT
for m in $MODS; do
	if ! mod=$(p11r_module "$m"); then
		skip_n $PER "$P11R_WHY"
		continue
	fi
	p11_add "$mod"
	ok $RC "$m: ssh-add -s with the PIN adds the card's key"
	sign "$m in the reader"
	ok $RC "$m: the card signs"
	removed=$(card_events Removed)
	kill -USR1 "$CARD"
	poll_until 10 more_events Removed "$removed"
	ok $? "$m: the card is pulled out of the reader"
	sign "$m pulled out"
	[ "$RC" != 0 ]
	ok $? "$m: no signature without the card"
	if is_keyward; then
		like "$(grep 'the token did not sign' "$T/agent.log" | tail -n 1)" \
		    'did not sign: the token (was removed|device failed) \(CKR_DEVICE_(REMOVED|ERROR)\) \(0x3[02]\)' \
		    "$m: the log names why the token did not sign"
	else
		skip "keyward's log only"
	fi
	run ssh-add -l
	ok $((RC > 1)) "$m: the agent still serves (ssh-add -l answers)"
	inserted=$(card_events inserted)
	kill -USR2 "$CARD"
	poll_until 10 more_events inserted "$inserted"
	ok $? "$m: the card is put back"
	p11_remove "$mod"
	ok $RC "$m: ssh-add -e"
	p11_add "$mod"
	ok $RC "$m: ssh-add -s adds it again"
	sign "$m back"
	ok $RC "$m: the card signs again"
	p11_remove "$mod"
	if is_keyward; then
		p11r_no_filter_stop
		ok $? "$m: no process of the agent was stopped by its filter" || diag_file "$T/agent.log"
	else
		skip "keyward's log only"
	fi
done
run ssh-add -l
is "$RC" 1 "at the end the agent serves, with no identities"
done_testing
