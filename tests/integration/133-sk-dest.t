#!/bin/bash
# Destination constraints (ssh-add -h) on FIDO keys, through real sshd hops
# and ssh -A, as 101..105-dest-*.t do for ordinary keys:
#   ed: ed25519-sk, ssh-add -h hostA                      (hostA only)
#   ec: ecdsa-sk,   ssh-add -h hostA -h "hostA>hostB"     (and on to hostB)
# hostC is never permitted.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"
. "$LIBDIR/lib-sk.sh"

sk_dest_key() { # NAME TYPE: an sk key authorised on every host, hidden
	sk_key "$1" "$2"
	cat "$T/keys/$1.pub" >>"$T/authorized_keys"
	hide_key "$1"
}

start_agent -P "$ALLOW"
ok $? "agent $(basename "$AGENT") started with -P $ALLOW" || bail "agent did not start"
dest_hosts hostA hostB hostC
sk_dest_key ed ed25519-sk
sk_dest_key ec ecdsa-sk

dest_add_ok ed -S "$SO" -h hostA
dest_add_ok ec -S "$SO" -h hostA -h "hostA>hostB"
run ssh-add -l
is "$OUT" "$(fp_line "$T/keys/ed.pub")"$'\n'"$(fp_line "$T/keys/ec.pub")" \
	"both sk keys are listed locally (local, unbound connection)"

# --- ed: -h hostA
dest_ssh ed hostA
dest_row "ed origin>hostA" ALLOW ok
sshd_accepted hostA "$T/keys/ed.pub"
ok $? "hostA's sshd logged the accepted login with the ed25519-sk key"
dest_ssh ed hostA hostB
dest_row "ed hostA>hostB" DENY not-offered
dest_ssh ed hostB
dest_row "ed origin>hostB" DENY not-offered
dest_ssh ed hostC
dest_row "ed origin>hostC" DENY not-offered
dest_ssh -m list ed hostA
dest_row "ed list@hostA" DENY not-listed

# --- ec: -h hostA -h "hostA>hostB"
dest_ssh ec hostA
dest_row "ec origin>hostA" ALLOW ok
dest_ssh ec hostA hostB
dest_row "ec hostA>hostB" ALLOW ok
sshd_accepted hostB "$T/keys/ec.pub"
ok $? "hostB's sshd logged the accepted login with the ecdsa-sk key (through hostA)"
dest_ssh ec hostC
dest_row "ec origin>hostC" DENY not-offered
dest_ssh ec hostA hostC
dest_row "ec hostA>hostC" DENY not-offered
dest_ssh ec hostB
dest_row "ec origin>hostB" DENY not-offered
dest_ssh -m list ec hostA
dest_row "ec list@hostA" ALLOW listed
dest_ssh -m list ec hostA hostB
dest_row "ec list@hostA>hostB" DENY empty

# --- what is not a login to a listed host is refused
for k in ed ec; do
	dest_ssh -m sshsig "$k"
	dest_row "$k sshsig@local" DENY refused
	dest_ssh -m test "$k"
	dest_row "$k ssh-add-T@local" DENY refused
done
dest_ssh -m sshsig -i ec ec hostA
dest_row "ec sshsig@hostA" DENY refused

sshd_accepted hostC "$T/keys/ed.pub" || sshd_accepted hostC "$T/keys/ec.pub"
is $? 1 "hostC never accepted a login with either sk key"
sshd_accepted hostB "$T/keys/ed.pub"
is $? 1 "hostB never accepted a login with the ed25519-sk key"

done_testing
