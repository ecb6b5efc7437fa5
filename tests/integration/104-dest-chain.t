#!/bin/bash
# Destination constraints: a three-hop chain origin -> perseus -> scylla ->
# charybdis with ssh -A at each hop,
#   ssh-add -h perseus -h "perseus>scylla" -h "scylla>charybdis" KEY
# works end to end; every shortcut, detour and cycle is refused; the listing
# at each hop shows the key only where it has an onward hop.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_agent
dest_hosts perseus scylla charybdis
dest_key k

dest_add_ok k -h perseus -h "perseus>scylla" -h "scylla>charybdis"

dest_ssh k perseus scylla charybdis
dest_row "origin>perseus>scylla>charybdis" ALLOW ok
sshd_accepted charybdis "$T/keys/k.pub"
ok $? "charybdis' sshd logged the accepted login with k at the end of the chain"

dest_ssh k scylla
dest_row "origin>scylla" DENY not-offered
dest_ssh k charybdis
dest_row "origin>charybdis" DENY not-offered
dest_ssh k perseus charybdis
dest_row "perseus>charybdis" DENY not-offered
dest_ssh k perseus scylla perseus
dest_row "perseus>scylla>perseus (cycle)" DENY not-offered
dest_ssh k perseus perseus
dest_row "perseus>perseus" DENY not-offered
dest_ssh k perseus scylla charybdis scylla
dest_row "perseus>scylla>charybdis>scylla (one hop too far)" DENY not-offered

dest_ssh -m list k perseus
dest_row "list@perseus" ALLOW listed
dest_ssh -m list k perseus scylla
dest_row "list@perseus>scylla" ALLOW listed
dest_ssh -m list k perseus scylla charybdis
dest_row "list@perseus>scylla>charybdis" DENY empty

done_testing
