#!/bin/bash
# Destination constraints and host certificates (doc/protocol.md §8.2): medusa and
# gorgon serve ed25519 host certificates signed by one host CA, principal =
# their alias; known_hosts has only "@cert-authority medusa,gorgon CA" for
# them, so "ssh-add -h medusa" resolves to the CA key (is_ca = 1, hostname
# medusa). stheno and scylla are plain hosts. Principals are the exact alias
# names, no wildcards (9.2 and 10.5 match wildcards the other way round, doc/protocol.md §14).
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_agent

ssh-keygen -q -N '' -t ed25519 -C hostca -f "$T/hostca" </dev/null >/dev/null || bail "ssh-keygen hostca"
mkdir -p "$T/certhost"
for h in medusa gorgon; do
	ssh-keygen -q -N '' -t ed25519 -C "host-$h" -f "$T/certhost/$h" </dev/null >/dev/null || bail "ssh-keygen $h"
	chmod 600 "$T/certhost/$h"
	ssh-keygen -q -s "$T/hostca" -h -I "$h-host" -n "$h" -V -5m:+1h "$T/certhost/$h.pub" ||
		bail "ssh-keygen -s (host certificate for $h)"
	SSHD_HOSTKEYS=" " start_sshd "$h" "HostKey $T/certhost/$h" "HostCertificate $T/certhost/$h-cert.pub" ||
		bail "sshd $h did not start"
done
ok 0 "sshd medusa and gorgon started with host certificates"
echo "@cert-authority medusa,gorgon $(cut -d' ' -f1,2 "$T/hostca.pub")" >>"$T/known_hosts"
dest_hosts stheno scylla
dest_key k
dest_key k2

run ssh-keygen -L -f "$T/certhost/medusa-cert.pub"
like "$OUT" 'Type: ssh-ed25519-cert-v01@openssh.com host certificate' "medusa's certificate is a host certificate"
unlike "$(grep -E '^(medusa|gorgon) ' "$T/known_hosts")" . "known_hosts has no plain line for medusa or gorgon"

# control: the hosts are reachable (host certificate accepted by ssh) with
# an unconstrained key
dest_add_ok k2
for h in medusa gorgon stheno; do
	dest_ssh k2 "$h"
	dest_row "control k2 origin>$h" ALLOW ok
done
run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/k2" -o LogLevel=DEBUG1 medusa true
like "$ERR" 'Server host certificate: ssh-ed25519-cert-v01@openssh.com .*ID "medusa-host"' \
	"ssh authenticates medusa by its host certificate (ID medusa-host)"

dest_add_ok k -h medusa
dest_ssh k medusa
dest_row "CA hop medusa: origin>medusa" ALLOW ok
dest_ssh k gorgon
dest_row "CA hop medusa: origin>gorgon (principal gorgon)" DENY not-offered
dest_ssh k stheno
dest_row "CA hop medusa: origin>stheno (uncertified)" DENY not-offered

dest_add_ok k -h gorgon
dest_ssh k gorgon
dest_row "CA hop gorgon: origin>gorgon" ALLOW ok
dest_ssh k medusa
dest_row "CA hop gorgon: origin>medusa" DENY not-offered

# a plain-key spec holding the very key medusa's certificate certifies does
# not match the certificate
echo "medusa $(cut -d' ' -f1,2 "$T/certhost/medusa.pub")" >"$T/kh-plain"
DEST_KH=$T/kh-plain dest_add_ok k -h medusa
dest_ssh k medusa
dest_row "plain spec of medusa's key: origin>medusa (certificate)" DENY not-offered

# CA hops as the "from" side
dest_add_ok k -h medusa -h gorgon -h "medusa>scylla"
dest_ssh k medusa scylla
dest_row "CA from-hop: medusa>scylla" ALLOW ok
dest_ssh k gorgon scylla
dest_row "CA from-hop: gorgon>scylla" DENY not-offered
dest_ssh -m list k medusa
dest_row "CA from-hop: list@medusa" ALLOW listed
dest_ssh -m list -i k2 k gorgon
dest_row "CA from-hop: list@gorgon" DENY not-listed
dest_ssh k scylla
dest_row "CA from-hop: origin>scylla" DENY not-offered

done_testing
