#!/bin/bash
# p11-kit-proxy (Debian p11-kit-modules, p11-kit-proxy.so) loading SoftHSM2
# through p11-kit's module configuration (a private $HOME/.config/pkcs11/
# modules: SoftHSM2 on, the system's OpenSC and tpm2-pkcs11 entries off
# for the proxy), through the agent under test as a user drives it
# (lib-p11real.sh p11r_scenario). Through the proxy the helper cannot
# tell the module is SoftHSM2: its sandbox must still leave SoftHSM2 its
# token directory (from SOFTHSM2_CONF) and survive its syslog calls, and
# no process may be stopped by its filter. /usr/bin/ssh-agent
# is the oracle.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-p11.sh"
. "$LIBDIR/lib-p11real.sh"

N=$(( $(p11r_scenario_count 2) + 1 ))
mkdir -p "$T/keys"
if ! MOD=$(p11r_module p11-kit-proxy.so); then
	skip_n "$N" "$P11R_WHY (apt-get install p11-kit p11-kit-modules)"
	done_testing
fi
p11_token "$T/tok" kit- p256 rsa2048
export HOME=$T/home
mkdir -p "$HOME/.config/pkcs11/modules"
printf 'module: %s\n' "$P11_REAL" >"$HOME/.config/pkcs11/modules/softhsm2.module"
for m in opensc-pkcs11 tpm2_pkcs11; do
	printf 'disable-in: p11-kit-proxy\n' >"$HOME/.config/pkcs11/modules/$m.module"
done
p11r_pubs "$MOD" kitpub-
is "$(echo $P11R_PUBS)" "kitpub-1 kitpub-2" "ssh-keygen -D through the proxy reads SoftHSM2's two public keys"
cat "$T"/keys/*.pub >>"$T/authorized_keys"
start_sshd hostA || bail "sshd did not start"
p11_askpass
p11r_scenario "$MOD" $P11R_PUBS
done_testing
