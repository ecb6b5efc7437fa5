#!/bin/bash
# tpm2-pkcs11 (Debian libtpm2-pkcs11-1, libtpm2_pkcs11.so) on a software
# TPM (swtpm on 127.0.0.1, TCTI swtpm:port=N), through the agent under
# test as a user drives it (lib-p11real.sh p11r_scenario): a wrong PIN is
# refused, the right one adds an ECDSA P-256 and an RSA-2048 key made on
# the TPM, -l/-L list them, ssh-keygen -Y sign verifies, sshd logins, -e,
# re-add. After login the module reconnects to the TPM for each command:
# the resolver reads /etc/hosts and opens AF_INET sockets inside
# keyward-pkcs11's sandbox, which must let it, and no process
# may be stopped by its filter. /usr/bin/ssh-agent is the oracle.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-p11real.sh"

N=$(p11r_scenario_count 2)
mkdir -p "$T/keys"
if ! MOD=$(p11r_module libtpm2_pkcs11.so) || ! p11r_swtpm "$T/tpm"; then
	skip_n "$N" "$P11R_WHY"
	done_testing
fi
p11r_pubs "$MOD" tpm- || bail "ssh-keygen -D $MOD lists no key"
is "$(echo $P11R_PUBS)" "tpm-1 tpm-2" "ssh-keygen -D reads the two public keys off the TPM token"
cat "$T"/keys/*.pub >>"$T/authorized_keys"
start_sshd hostA || bail "sshd did not start"
p11_askpass
p11r_scenario "$MOD" $P11R_PUBS
done_testing
