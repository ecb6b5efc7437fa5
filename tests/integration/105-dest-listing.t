#!/bin/bash
# Destination constraints: the listing seen locally versus through forwarded
# connections (doc/protocol.md §8.5), and an unconstrained key usable everywhere next to
# constrained ones.
#   kA: -h perseus -h "perseus>scylla"     (onward hop from perseus)
#   kB: -h perseus                         (only logs in to perseus)
#   kC: -h scylla -h "scylla>charybdis"    (nothing to do with perseus)
#   kU: no constraint
# Logins that only carry a listing use kU.
# check: early (one of the longest files: make check starts it first)
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_agent
dest_hosts perseus scylla charybdis
for k in kA kB kC kU; do dest_key "$k"; done

dest_add_ok kA -h perseus -h "perseus>scylla"
dest_add_ok kB -h perseus
dest_add_ok kC -h scylla -h "scylla>charybdis"
dest_add_ok kU

# locally: everything
run ssh-add -l
want=""
for k in kA kB kC kU; do want+="$(fp_line "$T/keys/$k.pub")"$'\n'; done
is "$OUT" "${want%$'\n'}" "local ssh-add -l lists all four keys, in add order"
for k in kA kB kC kU; do
	dest_ssh -m list "$k"
	dest_row "list@local $k" ALLOW listed
done

# the forwarded agent on perseus: [perseus fwd]
run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/kU" -A perseus ssh-add -l
want="$(fp_line "$T/keys/kA.pub")"$'\n'"$(fp_line "$T/keys/kU.pub")"
is "$OUT" "$want" "on perseus ssh-add -l lists exactly kA and kU"
for k in kA kB kC kU; do
	# the list is the same whichever key logs in: use the one looked for
	# where it can log in, kU otherwise
	case $k in kA | kB | kU) login=$k ;; *) login=kU ;; esac
	dest_ssh -m list -i "$login" "$k" perseus
	case $k in
	kA | kU) dest_row "list@perseus $k" ALLOW listed ;;
	*) dest_row "list@perseus $k" DENY not-listed ;;
	esac
done

# the forwarded agent on scylla, directly from the origin: [scylla fwd]
for k in kA kB kC kU; do
	case $k in kC | kU) login=$k ;; *) login=kU ;; esac
	dest_ssh -m list -i "$login" "$k" scylla
	case $k in
	kC | kU) dest_row "list@scylla $k" ALLOW listed ;;
	*) dest_row "list@scylla $k" DENY not-listed ;;
	esac
done

# forwarded on from perseus to scylla: [perseus fwd, scylla fwd]: kA has no
# onward hop from scylla, so only kU is left
run ssh -n -F "$T/ssh_config" -o "IdentityFile=$T/keys/kU" -A perseus \
	"ssh -n -F $T/ssh_config -o IdentityFile=$T/keys/kU -A scylla ssh-add -l"
is "$OUT" "$(fp_line "$T/keys/kU.pub")" "on scylla via perseus ssh-add -l lists exactly kU"
dest_ssh -m list -i kU kA perseus scylla
dest_row "list@perseus>scylla kA" DENY not-listed
dest_ssh -m list kU perseus scylla
dest_row "list@perseus>scylla kU" ALLOW listed

# the unconstrained key works everywhere, also where the constrained ones
# are refused
for path in "perseus" "charybdis" "perseus scylla charybdis" "charybdis perseus"; do
	# shellcheck disable=SC2086
	dest_ssh kU $path
	dest_row "kU origin>${path// />}" ALLOW ok
done
dest_ssh -m sshsig kU
dest_row "kU sshsig@local" ALLOW ok
dest_ssh -m test kU
dest_row "kU ssh-add-T@local" ALLOW ok
dest_ssh -m sshsig kU perseus
dest_row "kU sshsig@perseus" ALLOW ok
dest_ssh -m test kU perseus scylla
dest_row "kU ssh-add-T@perseus>scylla" ALLOW ok

# the constrained ones next to it, on the same paths
dest_ssh kA perseus scylla
dest_row "kA origin>perseus>scylla" ALLOW ok
dest_ssh kB perseus
dest_row "kB origin>perseus" ALLOW ok
dest_ssh kB perseus scylla
dest_row "kB origin>perseus>scylla" DENY not-offered
dest_ssh kC scylla charybdis
dest_row "kC origin>scylla>charybdis" ALLOW ok
dest_ssh kC perseus
dest_row "kC origin>perseus" DENY not-offered
dest_ssh -m test kA
dest_row "kA ssh-add-T@local" DENY refused

done_testing
