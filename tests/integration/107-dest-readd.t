#!/bin/bash
# Destination constraints and re-adding (doc/protocol.md §5.4): every attribute is
# replaced, not merged. Re-adding without -h makes the key unrestricted;
# re-adding with other -h replaces the old hops; the list position and the
# identity count are unchanged.
. "$(dirname "$0")/lib.sh"
. "$LIBDIR/lib-dest.sh"

dest_agent
dest_hosts scylla charybdis
dest_key k
dest_key first

dest_add_ok first
dest_add_ok k -h scylla
dest_ssh k scylla
dest_row "-h scylla: origin>scylla" ALLOW ok
dest_ssh k charybdis
dest_row "-h scylla: origin>charybdis" DENY not-offered
dest_ssh -m test k
dest_row "-h scylla: ssh-add-T@local" DENY refused

dest_add_ok k
is "$(count_ids)" 2 "re-adding did not duplicate the key"
is "$(ssh-add -l | awk 'NR == 2 {print $2}')" "$(dest_fp k)" "the re-added key kept its list position"
dest_ssh k charybdis
dest_row "re-added plain: origin>charybdis" ALLOW ok
dest_ssh k scylla charybdis
dest_row "re-added plain: scylla>charybdis" ALLOW ok
dest_ssh -m list -i first k charybdis
dest_row "re-added plain: list@charybdis" ALLOW listed
dest_ssh -m test k
dest_row "re-added plain: ssh-add-T@local" ALLOW ok

dest_add_ok k -h charybdis
dest_ssh k charybdis
dest_row "re-added -h charybdis: origin>charybdis" ALLOW ok
dest_ssh k scylla
dest_row "re-added -h charybdis: origin>scylla (old hop gone)" DENY not-offered
dest_ssh -m test k
dest_row "re-added -h charybdis: ssh-add-T@local" DENY refused
is "$(count_ids)" 2 "still two identities"

done_testing
