#!/bin/bash
# Destination constraints with user patterns that match nobody
# (agent-restrict's "--BADUSER"), next to patterns that match root.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_agent
dest_hosts scylla charybdis
dest_key k
me=$(id -un)

dest_add_ok k -h "--BADUSER@scylla" -h "scylla>--BADUSER@charybdis"
dest_ssh k scylla
dest_row "--BADUSER@scylla: origin>USER@scylla" DENY refused-sign
dest_ssh k charybdis
dest_row "--BADUSER@scylla: origin>USER@charybdis" DENY not-offered
is "$(count_ids)" 1 "the key is still listed locally"

dest_add_ok k -h scylla -h "scylla>--BADUSER@charybdis"
dest_ssh k scylla
dest_row "scylla>--BADUSER@charybdis: origin>scylla" ALLOW ok
dest_ssh k scylla charybdis
dest_row "scylla>--BADUSER@charybdis: scylla>USER@charybdis" DENY refused-sign
dest_ssh -m list k scylla
dest_row "scylla>--BADUSER@charybdis: list@scylla" ALLOW listed

dest_add_ok k -h "$me@scylla" -h "scylla>$me@charybdis"
dest_ssh k scylla charybdis
dest_row "USER@ hops: scylla>charybdis" ALLOW ok

dest_add_ok k -h "*@scylla" -h "scylla>*@charybdis"
dest_ssh k scylla charybdis
dest_row "*@ hops: scylla>charybdis" ALLOW ok

done_testing
